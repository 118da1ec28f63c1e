package repo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
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
	t.Parallel()
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
	t.Parallel()
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

// copyCounter counts, per catalog file name, the reads of a real folder
// store (a store.PathStore still) that left a copy of a catalog in the
// run's work folder: when such a read ends, a file named after the catalog
// under the work folder is its copy. Exact with one version at a time
// (Jobs 1).
type copyCounter struct {
	*local.Store
	work   string
	mu     sync.Mutex
	copies map[string]int
}

func (s *copyCounter) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := s.Store.Open(ctx, key)
	if err != nil || !strings.HasSuffix(key, ".duckdb") {
		return rc, err
	}
	return &closeHook{ReadCloser: rc, hook: func() {
		if s.copied(key) {
			s.mu.Lock()
			s.copies[path.Base(key)]++
			s.mu.Unlock()
		}
	}}, nil
}

func (s *copyCounter) copied(key string) bool {
	found := false
	filepath.WalkDir(s.work, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(d.Name(), "-"+path.Base(key)) {
			found = true
		}
		return nil
	})
	return found
}

type closeHook struct {
	io.ReadCloser
	hook func()
}

func (c *closeHook) Close() error {
	c.hook()
	return c.ReadCloser.Close()
}

// TestWarmCheckCopiesNoPublishedCatalog: with a warm digest cache, a check
// certifies a published catalog from the proof kept for its very bytes
// without copying it (it is hashed where it lies), and keeps its version's
// clean content pass, so that the frozen catalog is not copied either; a
// catalog whose bytes, name or data files changed after its proof was kept
// is copied once and proved again, or refused: the cache never certifies
// bytes it did not prove.
func TestWarmCheckCopiesNoPublishedCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, opts := publishedLake(t)
	opts.Jobs = 1
	id := versionIDs(t, golden)[2]
	const delFile = "data/main/del/ducklake-01a229fa-2280-7a87-ac6f-bba0032cc116.parquet"
	for _, tc := range []struct {
		name   string
		warm   bool // a check filled the cache first
		mutate func(t *testing.T, root, c string)
		want   error
		detail string
		copies map[string]int
		cached int // proofs from the cache
	}{
		// Cold, the run (--versions 3) copies the frozen catalog of the
		// version's first parent too, to compare the version's history with
		// its row (parentHistory); warm, the cache holds that row.
		{"cold cache", false, nil, nil, "", map[string]int{"0.4.duckdb": 1, "1.1.duckdb": 1, "ducklake.duckdb": 2}, 0},
		{"warm cache", true, nil, nil, "", map[string]int{}, 2},
		{"byte flipped in a published catalog", true, func(t *testing.T, _, c string) {
			p := filepath.Join(c, "1.1.duckdb")
			flipByte(t, p, usedBlockOffset(t, p, "ducklake_column"))
		}, ErrDifferences, "B cannot be read while A can", map[string]int{"1.1.duckdb": 1, "ducklake.duckdb": 1}, 1},
		{"published catalogs swapped (each a kept proof's bytes)", true, func(t *testing.T, _, c string) {
			os.Rename(filepath.Join(c, "0.4.duckdb"), filepath.Join(c, "x"))
			os.Rename(filepath.Join(c, "1.1.duckdb"), filepath.Join(c, "0.4.duckdb"))
			os.Rename(filepath.Join(c, "x"), filepath.Join(c, "1.1.duckdb"))
			// Each kept proof was made for the other name's DuckDB range
			// (compare.Options.BReaders, part of a kept proof's rules), so
			// it is not taken: both are copied and proved again, and the
			// frozen catalog with them.
		}, ErrDifferences, "holds DuckLake format", map[string]int{"0.4.duckdb": 1, "1.1.duckdb": 1, "ducklake.duckdb": 1}, 0},
		{"data file rewritten", true, func(t *testing.T, root, _ string) {
			rewriteDataFile(t, filepath.Join(root, delFile))
		}, ErrDifferences, "bytes on disk, the catalog records", map[string]int{"0.4.duckdb": 1, "1.1.duckdb": 1, "ducklake.duckdb": 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			opts := opts
			opts.DigestCache = cache
			if tc.warm {
				if _, err := Check(ctx, st, opts); err != nil {
					t.Fatalf("check that fills the cache: %v", err)
				}
			}
			if tc.mutate != nil {
				tc.mutate(t, root, filepath.Join(root, "versions", id, "catalogs"))
			}
			opts.WorkDir = t.TempDir()
			counted := &copyCounter{Store: st, work: opts.WorkDir, copies: map[string]int{}}
			rep, err := Check(ctx, counted, opts)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			if !maps.Equal(counted.copies, tc.copies) {
				t.Errorf("published catalogs copied %v, want %v", counted.copies, tc.copies)
			}
			cached := 0
			for _, p := range rep.Proofs {
				if p.Cached {
					cached++
				}
			}
			if cached != tc.cached || len(rep.Proofs) != 2 {
				t.Errorf("%d of %d proofs from the cache, want %d of 2", cached, len(rep.Proofs), tc.cached)
			}
			if tc.detail != "" {
				var details []string
				for _, f := range rep.Findings {
					details = append(details, fmt.Sprintf("%s %s: %s", f.Kind, f.Key, f.Detail))
				}
				if all := strings.Join(details, "\n"); !strings.Contains(all, tc.detail) {
					t.Errorf("no finding about %q:\n%s", tc.detail, all)
				}
			}
		})
	}
}
