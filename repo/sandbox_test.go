package repo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
)

// TestCheckSandbox: the DuckDB databases a run lends its readers and
// conversions (as check, backfill and plan open them) open nothing outside
// the run's folders, write nothing there, and cannot turn their sandbox
// off, while a reader of a version's catalog and data gets one; and a
// check and backfill of the repository still read and write what they
// need. Before the sandbox, each of these statements ran.
func TestCheckSandbox(t *testing.T) {
	ctx := context.Background()
	st, root := deletesLake(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "credentials")
	if err := os.WriteFile(secret, []byte("[default]\naws_secret_access_key = x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := load(ctx, st, &Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	catalog := filepath.Join(root, "versions", r.versions[0].id, "ducklake.duckdb")
	marker := filepath.Join(outside, "marker")
	// A reader of a version's catalog, as check opens one (the
	// conversions' databases: convert's TestConversionSandbox).
	db, _, err := r.engines.GetWithin(duckpool.Reach{Files: []string{catalog}, Dirs: []string{r.dataPath}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.engines.Discard(db)
	if _, err := db.ExecContext(ctx, "ATTACH '"+catalog+"' AS cat (READ_ONLY); DETACH cat"); err != nil {
		t.Errorf("attach a version's catalog: %v", err)
	}
	for _, q := range []string{
		"SELECT * FROM read_text('/etc/hostname')",
		"SELECT * FROM read_text('" + secret + "')",
		"COPY (SELECT 1 AS x) TO '" + marker + "'",
		"ATTACH '" + marker + ".duckdb' AS planted",
		"SET enable_external_access = true",
		"SET allowed_directories = ['/']",
	} {
		if _, err := db.ExecContext(ctx, q); err == nil {
			t.Errorf("%s: ran in a run's database", q)
		}
	}
	for _, f := range []string{marker, marker + ".duckdb"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("a run's database wrote %s", f)
		}
	}
	if _, err := Backfill(ctx, st, Options{WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("backfill in the sandbox: %v", err)
	}
	if _, err := Check(ctx, st, Options{WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("check in the sandbox: %v", err)
	}
}
