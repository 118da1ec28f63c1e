package repo

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestRelativeDataPath: a lake's content pass with --data given as a
// relative path is as clean as with the absolute one (relData once cut a
// relative data path off the absolute paths the reader resolves).
func TestRelativeDataPath(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	st := copyLake(t, lake, "fdl.json", "versions")
	for _, dp := range []string{filepath.Join(lake, "data"), "data"} {
		t.Run(dp, func(t *testing.T) {
			t.Chdir(lake)
			r, err := load(ctx, st, &Options{DataPath: dp})
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			for _, v := range r.versions {
				frozen := newFrozenCopies(r, t.TempDir(), nil, v.id)
				for _, is := range r.checkContents(ctx, v, frozen, nil, compare.NewDiskCheck(), true) {
					t.Errorf("DataPath %q version %s: %s: %.300s", dp, v.id, is.Problem, is.Detail)
				}
			}
		})
	}
}
