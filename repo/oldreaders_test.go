package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/realduckdb"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// writeWithDictFSST writes the catalog at path again as fdl-formats did
// before it turned dictionary-FSST compression off below storage v1.4.0:
// DuckDB 1.5.6 copies every table into a new file of STORAGE_VERSION
// 'v1.3.0' with its default compression, which then replaces the file.
func writeWithDictFSST(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	db := testduck.Open(t, "")
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tmp := path + ".new"
	for _, q := range []string{
		"ATTACH '" + path + "' AS g (READ_ONLY)",
		"ATTACH '" + tmp + "' AS b (STORAGE_VERSION 'v1.3.0')",
		"COPY FROM DATABASE g TO b", "DETACH g", "DETACH b",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestCheckFindsCatalogsOldDuckDBsMisread: 0.2 catalogs written the way
// fdl-formats wrote them before the dict_fsst fix (storage v1.3.0,
// dictionary-FSST on) of lakegen's demo. The second version's catalog holds
// ducklake_column rows with a DEFAULT (initial_default, default_value:
// VARCHAR with NULLs, DICT_FSST over an 'Empty Validity' mask), which
// DuckDB 1.3 reads as NULL: check fails with a difference (exit 3) that
// names the version, file, columns and fix, with a cold and with a warm
// digest cache; the first version's, as backfill wrote it, passes, as do
// the catalogs backfill writes again. Deleting the file and backfilling again
// mends it. The real DuckDB 1.3.2 confirms the reading.
func TestCheckFindsCatalogsOldDuckDBsMisread(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills lakegen's demo twice and checks it five times")
	}
	ctx := context.Background()
	root, st := demoRepo(ctx, t)
	if err := os.Remove(filepath.Join(root, "fdl.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl": "0.1", "data_dir": "data/", "formats": [
		{"ducklake": "0.2", "duckdb": ">= 1.3.1, < 1.4.0"}, {"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`)
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	brep, err := Backfill(ctx, st, Options{Jobs: 2, DigestCache: cache})
	if err != nil || brep.Counts[Written] != 2 {
		t.Fatalf("Backfill: %v (%v), want 2 catalogs written", err, brep.Counts)
	}
	if _, err := Check(ctx, st, Options{Jobs: 2, DigestCache: cache}); err != nil {
		t.Fatalf("Check after backfill: %v", err)
	}
	ids := versionIDs(t, root)
	if len(ids) != 3 {
		t.Fatalf("versions %v, want lakegen's demo's three (the first two with a 0.2 catalog)", ids)
	}
	ids = ids[:2] // the third's 0.2 is refused (partial deletion files)
	key := func(id string) string { return "versions/" + id + "/catalogs/0.2.duckdb" }
	good := filepath.Join(t.TempDir(), "good.duckdb")
	if err := copyTree(filepath.Join(root, key(ids[1])), good); err != nil {
		t.Fatal(err)
	}
	// Only the second: since 0.1-0.4 catalogs carry file statistics rows
	// for files written before ADD COLUMN (NULL min/max where the default's
	// text does not compare as its value), the first version's catalog has
	// such NULLs too, and rewritten so it is misread as well.
	writeWithDictFSST(t, ctx, filepath.Join(root, key(ids[1])))

	for _, run := range []struct {
		name string
		opts Options
	}{
		{"no cache", Options{Jobs: 2}},
		{"warm cache 1", Options{Jobs: 2, DigestCache: cache}},
		{"warm cache 2", Options{Jobs: 2, DigestCache: cache}}, // the first version's proof is kept now
	} {
		rep, err := Check(ctx, st, run.opts)
		if !errors.Is(err, ErrDifferences) {
			t.Fatalf("%s: Check: %v, want ErrDifferences", run.name, err)
		}
		var diffs []Finding
		for _, f := range rep.Findings {
			if f.Kind != KindWarning { // 0.2 cannot hold the third version
				diffs = append(diffs, f)
			}
		}
		if len(diffs) != 1 {
			t.Fatalf("%s: findings %+v, want one besides warnings", run.name, rep.Findings)
		}
		f := diffs[0]
		if f.Kind != KindDifference || f.Version != ids[1] || f.Format != "0.2" || f.Key != key(ids[1]) {
			t.Errorf("%s: finding %+v, want a difference of %s", run.name, f, key(ids[1]))
		}
		for _, want := range []string{"ducklake_column.initial_default", "ducklake_column.default_value", "DuckDB 1.3",
			"as NULL", "delete " + filepath.Join(root, filepath.FromSlash(key(ids[1]))) + " and run `fdl-formats backfill`"} {
			if !strings.Contains(f.Detail, want) {
				t.Errorf("%s: detail %q does not say %q", run.name, f.Detail, want)
			}
		}
		for _, p := range rep.Proofs {
			if p.Version == ids[0] && !p.OK {
				t.Errorf("%s: the first version's catalog (DICT_FSST, no 'Empty Validity'): %s", run.name, p.Error)
			}
			if p.Version == ids[0] && run.name == "warm cache 2" && !p.Cached {
				t.Errorf("%s: the first version's proof was not kept: the warm path is not tested", run.name)
			}
			if p.Version == ids[1] && p.Cached {
				t.Errorf("%s: the misread catalog was vouched for by a kept proof", run.name)
			}
		}
		t.Logf("%s: %s", run.name, f.Detail)
	}

	// The real DuckDB 1.3.2 reads the flagged file wrong, and the file
	// backfill wrote (and the first version's, unflagged) right.
	paths := []string{filepath.Join(root, key(ids[1])), good, filepath.Join(root, key(ids[0]))}
	db := testduck.Open(t, "")
	defer db.Close()
	ref, err := realduckdb.ReadLinked(ctx, db, paths)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := realduckdb.Build(ctx, realduckdb.Releases[1])
	if err != nil {
		t.Fatal(err)
	}
	got, err := realduckdb.Read(ctx, bin, paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		diff := realduckdb.Diff(got.File(p), ref.File(p))
		if misread := len(diff) > 0; misread != (i == 0) {
			t.Errorf("DuckDB %s on %s: differences %v, want some: %v", got.DuckDB, p, diff, i == 0)
		}
		if i == 0 && !slices.ContainsFunc(diff, func(d string) bool { return strings.Contains(d, "ducklake_column") }) {
			t.Errorf("DuckDB %s on the flagged file: %v, want ducklake_column among them", got.DuckDB, diff)
		}
	}

	// The fix the finding gives.
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := Backfill(ctx, st, Options{Jobs: 2, DigestCache: cache}); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(ctx, st, Options{Jobs: 2, DigestCache: cache}); err != nil {
		t.Fatalf("Check after deleting the file and backfilling again: %v", err)
	}
}
