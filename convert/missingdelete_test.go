package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestMissingDeleteFileRewrite: 06_deletes to 0.3 with --rewrite-deletes
// where partial deletion file 13 is missing gets the same verdict from a
// local data folder that lacks it and from a bucket's cache whose store
// lacks it (Options.Footers, whose Fetch finds no such object): refused,
// naming the file, as it cannot be rewritten (its rows cannot be read; the
// proof reports the file). Before, the bucket's run failed on the fetch.
func TestMissingDeleteFileRewrite(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	const missing = "ducklake-01a229fa-2ac7-72d4-9938-39ccd8231a6c-delete.parquet"
	for _, bucket := range []bool{false, true} {
		name := map[bool]string{false: "local", true: "bucket"}[bucket]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := editedCopy(t, vs[len(vs)-1])
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			opts := Options{DataPath: data, RewriteDeletes: true}
			if bucket {
				stash := stashDeleteFiles(t, data)
				data = stash // the file is removed from the store below
				opts.Footers, opts.TempDir = &fakeFooters{data: opts.DataPath, stash: stash}, stash
			}
			if err := os.Remove(filepath.Join(data, "main", "del", missing)); err != nil {
				t.Fatal(err)
			}
			refusedFor03(t, src, opts, "partial-delete-files", "cannot rewrite", missing)
		})
	}
}
