package convert

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestFileUnderTwoIDsConverted: a catalog naming one data file path under
// two data_file ids (06_deletes' file 12 also as 13, with its column
// statistics) converts, down and up, and is proved equivalent to its
// conversion: each id's statistics rows are the same file's on both sides
// (convert copies the ids). Before, compare read B's ids 12 and 13 as
// rows of a file A names otherwise, a false statistics difference.
func TestFileUnderTwoIDsConverted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	src := filepath.Join(t.TempDir(), "two-ids.duckdb")
	copyFile(t, vs[len(vs)-1], src)
	execOn(t, src,
		`INSERT INTO ducklake_data_file SELECT * REPLACE (13 AS data_file_id) FROM ducklake_data_file WHERE data_file_id = 12`,
		`INSERT INTO ducklake_file_column_stats SELECT * REPLACE (13 AS data_file_id) FROM ducklake_file_column_stats WHERE data_file_id = 12`)
	for _, target := range []*formats.Version{formats.V0_4, formats.V1_1} {
		t.Run(target.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.duckdb")
			if _, err := Catalog(ctx, src, out, target, Options{DataPath: data}); err != nil {
				t.Fatal(err)
			}
			proveEquivalent(t, src, out, data)
		})
	}
}
