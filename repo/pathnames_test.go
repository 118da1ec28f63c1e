package repo

import (
	"context"
	"crypto/rand"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
)

// TestFindingsNameRepositoryFiles: a finding names the repository's file
// (its path in a folder, its URL on a web site), never the run's private
// copy of it, which is gone when the run ends. Before, a published
// catalog that did not prove, a damaged one and a rewritten data file on a
// web site were reported as /tmp/fdl-check-.../proof-.../1.1.duckdb,
// /tmp/fdl-remote-.../ducklake.duckdb and
// /tmp/fdl-remote-.../objects/.../data/....parquet.
func TestFindingsNameRepositoryFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, opts := publishedLake(t)
	id := versionIDs(t, golden)[2]
	const dataFile = "data/main/del/ducklake-01a229fa-2280-7a87-ac6f-bba0032cc116.parquet"
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, root, c string)
		name2  string // the file the findings must name, relative to the root
	}{
		{"published catalog is garbage", func(t *testing.T, _, c string) {
			garbage := make([]byte, 5000)
			rand.Read(garbage)
			os.WriteFile(filepath.Join(c, "1.1.duckdb"), garbage, 0o644)
		}, "versions/" + id + "/catalogs/1.1.duckdb"},
		{"published 0.4 is the frozen catalog", func(t *testing.T, root, c string) {
			os.Remove(filepath.Join(c, "0.4.duckdb"))
			copyFile(t, filepath.Join(root, "versions", id, "ducklake.duckdb"), filepath.Join(c, "0.4.duckdb"))
		}, "versions/" + id + "/catalogs/0.4.duckdb"},
		{"data file rewritten", func(t *testing.T, root, _ string) {
			rewriteDataFile(t, filepath.Join(root, dataFile))
		}, dataFile},
	} {
		for _, web := range []bool{false, true} {
			name := tc.name + "/folder"
			if web {
				name = tc.name + "/web"
			}
			t.Run(name, func(t *testing.T) {
				st, root := cloneRepo(t, golden)
				tc.mutate(t, root, filepath.Join(root, "versions", id, "catalogs"))
				var s store.Store = st
				want := filepath.Join(root, filepath.FromSlash(tc.name2))
				if web {
					site := webSite(t, http.FileServer(http.Dir(root)))
					s, want = site, site.BaseURL()+tc.name2
				}
				o := opts
				o.Cache = t.TempDir()
				rep, err := Check(ctx, s, o)
				if err == nil {
					t.Fatal("Check passed")
				}
				named := false
				var all []string
				for _, f := range nonWarnings(rep) {
					all = append(all, f.Detail)
					for _, private := range []string{checkWorkPrefix, remoteWorkPrefix, o.Cache} {
						if strings.Contains(f.Detail, private) {
							t.Errorf("finding names a private path (%s): %s", private, f.Detail)
						}
					}
					named = named || strings.Contains(f.Detail, want) || strings.HasPrefix(f.Detail, tc.name2)
				}
				if !named {
					t.Errorf("no finding names %s:\n%s", want, strings.Join(all, "\n"))
				}
			})
		}
	}
}
