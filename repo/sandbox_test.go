package repo

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/sandboxtest"
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
	outside, secret := sandboxtest.Outside(t)
	r, err := load(ctx, st, &Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	catalog := filepath.Join(root, "versions", r.versions[0].id, "ducklake.duckdb")
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
	sandboxtest.Refused(t, "a run's", func(q string) error {
		_, err := db.ExecContext(ctx, q)
		return err
	}, outside, secret, "")
	if _, err := Backfill(ctx, st, Options{WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("backfill in the sandbox: %v", err)
	}
	if _, err := Check(ctx, st, Options{WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("check in the sandbox: %v", err)
	}
}
