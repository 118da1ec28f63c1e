package repo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// openCounter counts the reads of each object of a real folder store (a
// store.PathStore still, so that the run reads it as a folder).
type openCounter struct {
	*local.Store
	mu    sync.Mutex
	opens map[string]int
}

func (s *openCounter) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	s.mu.Lock()
	s.opens[key]++
	s.mu.Unlock()
	return s.Store.Open(ctx, key)
}

// TestCheckCopiesEachFrozenCatalogOnce: a backfill's cells, and a check's
// content pass and proofs, share one verified copy of each version's
// frozen catalog, and so does the newest version's delete hinting. Each
// frozen catalog is read from the store twice: once as the plan checks its
// sum against version.json, once for that copy (the newest was read once
// more for its hints, and the content pass used to make a copy of its
// own). A published catalog is read twice by a check: its sum in the plan,
// and its proof's copy.
func TestCheckCopiesEachFrozenCatalogOnce(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	ids := versionIDs(t, root)
	frozenReads := func(t *testing.T, run string, counted *openCounter) {
		t.Helper()
		for _, id := range ids {
			key := "versions/" + id + "/ducklake.duckdb"
			if got := counted.opens[key]; got != 2 {
				t.Errorf("%s: %s read %d times, want 2", run, key, got)
			}
		}
	}
	counted := &openCounter{Store: st, opens: map[string]int{}}
	if _, err := Backfill(ctx, counted, Options{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	frozenReads(t, "backfill", counted)
	for _, jobs := range []int{1, 2} {
		counted := &openCounter{Store: st, opens: map[string]int{}}
		rep, err := Check(ctx, counted, Options{Jobs: jobs})
		if err != nil || !rep.OK || len(rep.Proofs) < len(ids) {
			t.Fatalf("jobs %d: check: %v (%d proofs)", jobs, err, len(rep.Proofs))
		}
		frozenReads(t, fmt.Sprintf("check, jobs %d", jobs), counted)
		for key, n := range counted.opens {
			if strings.HasPrefix(key, "versions/") && strings.Contains(key, "/catalogs/") && n != 2 {
				t.Errorf("jobs %d: published catalog %s read %d times", jobs, key, n)
			}
		}
	}
}

// TestCheckOpaqueStoreMissingDataFile: through a store without local paths
// (as object storage), a data file gone from the store is reported by each
// version's content pass as a failed fetch, naming the catalog, and every
// proof that needs it is unverifiable; the rest of the check still runs.
func TestCheckOpaqueStoreMissingDataFile(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	if _, err := Backfill(ctx, st, Options{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "data", "main", "del", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("data files: %v %v", files, err)
	}
	slices.Sort(files)
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	opaque := struct{ store.Store }{st}
	for _, jobs := range []int{1, 3} {
		rep, err := Check(ctx, opaque, Options{Jobs: jobs, WorkDir: t.TempDir(), Cache: t.TempDir()})
		if err == nil || rep == nil || rep.OK {
			t.Fatalf("jobs %d: check passed without a data file: %v", jobs, err)
		}
		fetch := 0
		for _, f := range rep.Findings {
			if strings.Contains(f.Detail, "fetch the data files of versions/") {
				fetch++
			}
		}
		if fetch == 0 {
			t.Errorf("jobs %d: no content finding names the failed fetch: %+v", jobs, rep.Findings)
		}
		for _, p := range rep.Proofs {
			if p.OK {
				continue
			}
			if !strings.Contains(p.Error, filepath.Base(files[0])) && !strings.Contains(p.Error, "not found") && !strings.Contains(p.Error, "no such") {
				t.Errorf("jobs %d: proof %s %s failed for another reason: %s", jobs, p.Version, p.Format, p.Error)
			}
		}
	}
}
