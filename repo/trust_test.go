package repo

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
)

// deleteFilesOf lists the distinct delete files (resolved paths) the
// frozen catalogs of a repository folder's versions name.
func deleteFilesOf(t *testing.T, root string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	out := map[string]bool{}
	for _, id := range versionIDs(t, root) {
		rd, err := compare.Open(ctx, filepath.Join(root, "versions", id, "ducklake.duckdb"), compare.ReaderOptions{DataPath: filepath.Join(root, "data")})
		if err != nil {
			t.Fatal(err)
		}
		files, err := rd.AllFiles(ctx)
		rd.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Delete {
				out[f.Path] = true
			}
		}
	}
	return out
}

// TestRunSharesDeleteFiles: the proofs of one backfill and of one check
// share the Parquet delete files they parse (compare.Options.Deletes, the
// run's compare.Deletes): across the three versions of 06_deletes, whose
// catalogs name their predecessors' delete files, each delete file is read
// once per run, and later proofs report the others as shared
// (delete_files in each proof's report). A proof given no run Deletes
// reads every delete file its catalogs name again.
func TestRunSharesDeleteFiles(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	distinct := len(deleteFilesOf(t, root))
	if distinct < 2 {
		t.Fatalf("06_deletes names %d delete file(s); the test needs several", distinct)
	}
	// One job: the proofs run one after the other, so no two read a file
	// at once (both would read it, rightly).
	opts := Options{Formats: []string{"1.1"}, Jobs: 1}
	sum := func(what string, stats []*compare.DeleteFileStats) {
		t.Helper()
		var read, shared int
		for i, s := range stats {
			if s == nil {
				t.Fatalf("%s: proof %d reports no delete_files", what, i)
			}
			read, shared = read+s.Read, shared+s.Shared
		}
		if read != distinct || shared == 0 {
			t.Errorf("%s: %d proofs read %d delete files and shared %d; want each of the %d distinct files read once, the rest shared", what, len(stats), read, shared, distinct)
		}
	}
	brep, err := Backfill(ctx, st, opts)
	if err != nil {
		t.Fatalf("Backfill: %v", err)
	}
	var stats []*compare.DeleteFileStats
	for _, r := range brep.Results {
		stats = append(stats, r.DeleteFiles)
	}
	if len(stats) != 3 {
		t.Fatalf("backfill wrote %d cells, want 3", len(stats))
	}
	sum("backfill", stats)

	crep, err := Check(ctx, st, opts)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	stats = nil
	for _, p := range crep.Proofs {
		stats = append(stats, p.DeleteFiles)
	}
	if len(stats) != 3 {
		t.Fatalf("check made %d proofs, want 3", len(stats))
	}
	sum("check", stats)
}
