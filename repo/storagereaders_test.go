package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/digestcache"
)

// TestCheckPublishedStorageTooNew: a published catalog saved at a DuckDB
// storage version that an older DuckDB of its format's declared range
// cannot open is a difference (exit 3) naming the file, the storage, the
// DuckDB and the fix: that DuckDB picks the file by its format's name and
// fails. It was a warning (check passed). The catalogs backfill writes
// (at the oldest storage the range opens) pass. The demo's first version
// alone is backfilled and checked: the others' 0.3 catalogs are written at
// the same storage.
func TestCheckPublishedStorageTooNew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, st := demoRepo(ctx, t)
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl": "0.1", "data_dir": "data/", "formats": [
		{"ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0"}, {"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`)
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ids := versionIDs(t, root)
	first := ids[:1]
	if _, err := Backfill(ctx, st, Options{Jobs: 2, DigestCache: cache, Versions: first}); err != nil {
		t.Fatalf("Backfill: %v", err)
	}
	if _, err := Check(ctx, st, Options{Jobs: 2, DigestCache: cache, Versions: first}); err != nil {
		t.Fatalf("Check after backfill: %v", err)
	}
	key := "versions/" + ids[0] + "/catalogs/0.3.duckdb"
	if _, err := os.Stat(filepath.Join(root, key)); err != nil {
		t.Fatalf("backfill wrote no %s: %v", key, err)
	}
	saveAtStorage(t, filepath.Join(root, key), "v1.5.0")
	for _, opts := range []Options{{Jobs: 2, Versions: first}, {Jobs: 2, DigestCache: cache, Versions: first}} {
		rep, err := Check(ctx, st, opts)
		if !errors.Is(err, ErrDifferences) {
			t.Fatalf("Check: %v, want ErrDifferences", err)
		}
		found := false
		for _, f := range rep.Findings {
			if f.Kind == KindDifference && f.Key == key && f.Version == ids[0] {
				found = true
				for _, want := range []string{"v1.5.0", "DuckDB 1.4.0", "delete it and run backfill"} {
					if !strings.Contains(f.Detail, want) {
						t.Errorf("detail %q does not say %q", f.Detail, want)
					}
				}
			}
		}
		if !found {
			t.Fatalf("findings %+v, want a difference naming %s", rep.Findings, key)
		}
	}
	// Past 0.3's until backfill writes no 0.3 catalog: the hint is to
	// delete the file, not to have backfill write it again.
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl": "0.1", "data_dir": "data/", "formats": [
		{"ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0", "until": "2030-01-01"}, {"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`)
	rep, err := Check(ctx, st, Options{Jobs: 2, Versions: first, Now: time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)})
	if !errors.Is(err, ErrDifferences) {
		t.Fatalf("Check past until: %v, want ErrDifferences", err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Kind == KindDifference && f.Key == key && strings.Contains(f.Detail, "storage v1.5.0") {
			found = true
			if !strings.Contains(f.Detail, "backfill no longer writes format 0.3 (past its until, 2030-01-01)") || strings.Contains(f.Detail, "run backfill") {
				t.Errorf("past until, detail %q: want the hint to delete it, as backfill no longer writes 0.3", f.Detail)
			}
		}
	}
	if !found {
		t.Fatalf("past until: findings %+v, want a difference naming %s", rep.Findings, key)
	}
}
