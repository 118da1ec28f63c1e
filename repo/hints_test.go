package repo

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/store"
)

// TestHintDeletesOpensOnce: the newest version's delete hints open its
// verified copy once, for a folder and for a store without local paths:
// its files listed once, with the same reader (a folder's to make sure
// none is a FIFO or other special file, which the hints would open: see
// TestDataNotRegularFile), and a remote store's delete files, and only
// they, fetched into the cache first. Before, a remote store's hints listed the files with
// one reader and opened the copy again for the hints.
func TestHintDeletesOpensOnce(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	ids := versionIDs(t, root)
	newest := ids[len(ids)-1]
	for _, tc := range []struct {
		name   string
		store  store.Store
		remote bool
	}{
		{"folder", st, false},
		{"object store", struct{ store.Store }{st}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := load(ctx, tc.store, &Options{WorkDir: t.TempDir(), Cache: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			cctx, counts := countPoints(ctx)
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			frozen := newFrozenCopies(r, t.TempDir(), nil, newest)
			r.hintDeletes(cctx, frozen, []string{newest}, log)
			if strings.Contains(logs.String(), "no delete hints") {
				t.Fatalf("hints failed: %s", logs.String())
			}
			opens := counts.at("compare/open")
			if len(opens) != 1 {
				t.Fatalf("catalogs opened: %v, want the newest version's copy alone", opens)
			}
			for catalog, n := range opens {
				if n != 1 {
					t.Errorf("%s opened %d times, want once", catalog, n)
				}
				if lists, want := counts.at("compare/list")[catalog], 1; lists != want {
					t.Errorf("%s listed %d times, want %d", catalog, lists, want)
				}
			}
			if !tc.remote {
				return
			}
			// The copy is gone (its one user released it): list the
			// newest version's files from the store's own frozen catalog.
			rd, err := compare.Open(ctx, filepath.Join(root, "versions", newest, "ducklake.duckdb"), compare.ReaderOptions{DataPath: r.dataPath})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			files, err := rd.StoredFiles(ctx)
			if err != nil {
				t.Fatal(err)
			}
			dels := 0
			for _, f := range files {
				_, err := os.Stat(f.Path)
				if f.Delete {
					dels++
				}
				if fetched := err == nil; fetched != f.Delete {
					t.Errorf("%s in the cache: %t, want %t (delete files only)", f.Path, fetched, f.Delete)
				}
			}
			if dels == 0 {
				t.Fatal("the newest version names no delete file")
			}
		})
	}
}
