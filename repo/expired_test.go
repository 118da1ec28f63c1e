package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
)

// TestCheckExpiredCatalogs: the spec deletes a version's catalogs when
// expired.json is added (retention and withdrawal alike), so every catalog
// left in an expired or withdrawn version (the frozen one, catalogs/, a
// .wal, a link that points nowhere), and files.json, which the spec deletes
// with them (it passed before), is a difference naming it, whether the
// folder lists it or a web site's listing hides it; nothing is deleted. A
// catalog of a declared format filtered out of the run is left alone.
// Before, such a version was skipped and check passed. The first version
// of the 06_deletes lake is the one expired.
func TestCheckExpiredCatalogs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, dir string) // the expired version's folder
		web    bool                           // served over http, its folder's index page listing only expired.json and version.json
		want   []string                       // keys left, relative to the version folder
	}{
		{"catalogs_deleted", func(t *testing.T, dir string) {
			expire(t, dir, "expired", "ducklake.duckdb", "files.json")
		}, false, nil},
		{"files_json_left", func(t *testing.T, dir string) {
			expire(t, dir, "withdrawn", "ducklake.duckdb")
		}, false, []string{"files.json"}},
		{"files_index_named_otherwise_left", func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, "files.json"), filepath.Join(dir, "index.json")); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, dir, func(m map[string]any) { m["files"].(map[string]any)["path"] = "index.json" })
			expire(t, dir, "expired", "ducklake.duckdb")
		}, false, []string{"index.json"}},
		{"frozen_catalog_left", func(t *testing.T, dir string) {
			expire(t, dir, "expired", "files.json")
		}, false, []string{"ducklake.duckdb"}},
		{"withdrawn_with_catalogs_left", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "catalogs", "1.1.duckdb"))
			writeFile(t, filepath.Join(dir, "catalogs", "1.1.duckdb.wal"), "junk")
			expire(t, dir, "withdrawn", "version.json", "files.json")
		}, false, []string{"catalogs/1.1.duckdb", "catalogs/1.1.duckdb.wal", "ducklake.duckdb"}},
		{"withdrawn_with_a_dangling_link_left", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(dir, "gone.duckdb"), filepath.Join(dir, "catalogs", "1.1.duckdb")); err != nil {
				t.Fatal(err)
			}
			expire(t, dir, "withdrawn", "version.json", "ducklake.duckdb", "files.json")
		}, false, []string{"catalogs/1.1.duckdb"}},
		{"frozen_catalog_named_otherwise_left", func(t *testing.T, dir string) {
			// catalog.path names catalog.db: found by that name, not by
			// its extension.
			if err := os.Rename(filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "catalog.db")); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, dir, func(m map[string]any) { m["catalog"].(map[string]any)["path"] = "catalog.db" })
			writeFile(t, filepath.Join(dir, "catalog.db.wal"), "junk")
			expire(t, dir, "withdrawn", "files.json")
		}, false, []string{"catalog.db", "catalog.db.wal"}},
		{"catalog_of_a_format_left_out_of_the_run", func(t *testing.T, dir string) {
			// The run checks 1.1 only: catalogs/0.4.duckdb is another
			// run's, as for versions that are not expired.
			copyFile(t, filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "catalogs", "0.4.duckdb"))
			expire(t, dir, "expired", "ducklake.duckdb", "files.json")
		}, false, nil},
		{"frozen_catalog_hidden_by_a_web_listing", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "catalogs", "1.1.duckdb"))
			expire(t, dir, "withdrawn", "version.json", "files.json")
		}, true, []string{"catalogs/1.1.duckdb", "ducklake.duckdb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			id := versionIDs(t, root)[0]
			dir := filepath.Join(root, "versions", id)
			if err := os.MkdirAll(filepath.Join(dir, "catalogs"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.mutate(t, dir)
			var s store.Store = st
			if tc.web {
				files := http.FileServer(http.Dir(root))
				site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/versions/"+id+"/" {
						// A hand-written index page that shows only the JSON files.
						w.Header().Set("Content-Type", "text/html; charset=utf-8")
						fmt.Fprint(w, `<pre><a href="expired.json">expired.json</a></pre>`)
						return
					}
					files.ServeHTTP(w, r)
				}))
				s = site
			}
			rep, err := Check(ctx, s, Options{Versions: []string{id}, Formats: []string{"1.1"}, Cache: t.TempDir(), DataPath: filepath.Join(root, "data")})
			got := nonWarnings(rep)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Check = %v (%+v), want nil", err, got)
				}
				return
			}
			if !errors.Is(err, ErrDifferences) {
				t.Fatalf("Check = %v, want %v", err, ErrDifferences)
			}
			var keys []string
			for _, f := range got {
				keys = append(keys, strings.TrimPrefix(f.Key, "versions/"+id+"/"))
				if f.Kind != KindDifference || f.Version != id || !strings.Contains(f.Detail, "left in a version marked ") || !strings.Contains(f.Detail, "the spec deletes") {
					t.Errorf("finding %+v, want a difference of version %s saying the catalog is left", f, id)
				}
				if tc.web && !strings.Contains(f.Detail, "hidden by the server's folder listing") {
					t.Errorf("finding %q, want it to say the listing hid the file", f.Detail)
				}
			}
			if !slices.Equal(keys, tc.want) {
				t.Errorf("findings name %q, want %q", keys, tc.want)
			}
			// Nothing is deleted.
			for _, k := range tc.want {
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(k))); err != nil {
					t.Errorf("%s: %v, want it left alone", k, err)
				}
			}
		})
	}
}

// expire adds expired.json with reason to a version folder and removes the
// files named.
func expire(t *testing.T, dir, reason string, remove ...string) {
	t.Helper()
	for _, name := range remove {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "expired.json"), `{"reason": "`+reason+`"}`)
}
