package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/store"
)

// TestFrozenCopies: the cells of a version get one verified copy of its
// frozen catalog, removed when the last cell is done; a copy whose bytes do
// not match version.json is refused (and not kept), and the next cell tries
// again.
func TestFrozenCopies(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	r, err := load(ctx, st, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	ids := versionIDs(t, root)
	work := t.TempDir()
	cells := []*Cell{{Version: ids[0], Format: "0.4"}, {Version: ids[0], Format: "1.1"}, {Version: ids[1], Format: "1.1"}}
	f := newFrozenCopies(r, work, cells)

	first, _, err := f.getHeld(ctx, r.find(ids[0]), nil)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := f.getHeld(ctx, r.find(ids[0]), nil)
	if err != nil || second != first {
		t.Fatalf("second cell of the version: %q, %v; want the first cell's copy %q", second, err, first)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 1 {
		t.Errorf("work folder holds %d entries, want one copy", len(entries))
	}
	f.release(ids[0])
	if _, err := os.Stat(first); err != nil {
		t.Errorf("copy removed while a cell still uses it: %v", err)
	}
	f.release(ids[0])
	if _, err := os.Stat(filepath.Dir(first)); !os.IsNotExist(err) {
		t.Errorf("copy's folder left after the version's last cell: %v", err)
	}

	// The frozen catalog changes under the run: same size, other bytes.
	frozen := filepath.Join(root, "versions", ids[1], "ducklake.duckdb")
	orig, err := os.ReadFile(frozen)
	if err != nil {
		t.Fatal(err)
	}
	overwrite(t, frozen, 100, []byte{orig[100] ^ 0xff})
	if _, problem, err := f.getHeld(ctx, r.find(ids[1]), nil); err == nil || problem != ProblemMismatch {
		t.Fatalf("tampered frozen catalog: %v (%s), want a mismatch", err, problem)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("a refused copy was kept: %d entries", len(entries))
	}
	overwrite(t, frozen, 100, orig[100:101])
	if _, _, err := f.getHeld(ctx, r.find(ids[1]), nil); err != nil {
		t.Errorf("after the catalog was restored: %v, want a copy", err)
	}
	f.release(ids[1])
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("work folder holds %d entries after every release", len(entries))
	}
}

// TestFrozenCopiesListOnce: the content pass hands the copy its own
// reader's list of the catalog's files, which fetch uses (the files are
// then readable at the data path, from the cache for a store without local
// paths); the version's later users list nothing again. Before, a remote
// store's content pass listed the files and fetch opened the copy to list
// them once more.
func TestFrozenCopiesListOnce(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	for _, tc := range []struct {
		name  string
		store store.Store
	}{
		{"folder", st},
		{"object store", struct{ store.Store }{st}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := load(ctx, tc.store, &Options{WorkDir: t.TempDir(), Cache: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			id := versionIDs(t, root)[2]
			v := r.find(id)
			f := newFrozenCopies(r, t.TempDir(), []*Cell{{Version: id, Format: "1.1"}, {Version: id, Format: "1.0"}})
			src, _, err := f.catalog(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := compare.Open(ctx, src, compare.ReaderOptions{DataPath: r.dataPath, Engines: r.engines})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			lists := 0
			var listed []compare.StoredFile
			list := func(ctx context.Context) ([]compare.StoredFile, string, error) {
				lists++
				files, err := rd.StoredFiles(ctx)
				listed = files
				return files, rd.DataPath(), err
			}
			if err := f.fetch(ctx, v, list); err != nil {
				t.Fatalf("fetch: %v", err)
			}
			if lists != 1 || len(listed) == 0 {
				t.Fatalf("fetch listed %d times (%d files), want once", lists, len(listed))
			}
			for _, file := range listed {
				if _, err := os.Stat(file.Path); err != nil {
					t.Errorf("a listed file is not readable at the data path: %v", err)
				}
			}
			if _, _, err := f.getHeld(ctx, v, nil); err != nil {
				t.Fatalf("get: %v", err)
			}
			if err := f.fetch(ctx, v, list); err != nil || lists != 1 {
				t.Errorf("fetch again: %v, listed %d times, want once in all", err, lists)
			}
		})
	}
}

// TestFrozenCopiesFailedListingNotKept: a folder's listing that fails (a
// proof's, left to the step that reads the catalog next) is not kept as
// done, so the content pass listing with its own reader still finds the
// files outside data_dir.
func TestFrozenCopiesFailedListingNotKept(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	r, err := load(ctx, st, &Options{WorkDir: t.TempDir(), Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	id := versionIDs(t, root)[2]
	v := r.find(id)
	f := newFrozenCopies(r, t.TempDir(), []*Cell{{Version: id, Format: "1.1"}})
	if _, _, err := f.catalog(ctx, v); err != nil {
		t.Fatal(err)
	}
	failing := func(context.Context) ([]compare.StoredFile, string, error) {
		return nil, "", errors.New("too many open files")
	}
	if err := f.fetch(ctx, v, failing); err != nil {
		t.Fatalf("fetch with a failing listing on a folder: %v, want nil (left to the next step)", err)
	}
	outside := func(context.Context) ([]compare.StoredFile, string, error) {
		return []compare.StoredFile{{Path: "/elsewhere/x.parquet"}}, r.dataPath, nil
	}
	var oe *OutsideError
	if err := f.fetch(ctx, v, outside); !errors.As(err, &oe) {
		t.Fatalf("fetch after a failed listing: %v, want the files outside data_dir", err)
	}
}
