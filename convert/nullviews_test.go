package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestNullViewAndGeometryStatsRefused: convert refuses a source with a
// NULL in a view's query or alias list (which DuckLake's readers take as
// the text 'NULL' and fail to parse), or in the extra_stats of a GEOMETRY
// column's table statistics (DuckDB 2.0 answers vertex_extract() of the
// column NULL in every row), or one naming no geometry type while the
// column's files hold values (read as that NULL), naming the table, the
// column and the row, before writing anything. Before, it converted them
// along.
func TestNullViewAndGeometryStatsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ lake, stmt, want string }{
		{"09_views", "UPDATE ducklake_view SET sql = NULL WHERE view_id = 3", "ducklake_view.sql is NULL in the row view_id=3, begin_snapshot=4, "},
		{"09_views", "UPDATE ducklake_view SET column_aliases = NULL WHERE view_id = 4", "ducklake_view.column_aliases is NULL in the row view_id=4, begin_snapshot=5, "},
		{"14_geometry", "UPDATE ducklake_table_column_stats SET extra_stats = NULL WHERE table_id = 1 AND column_id = 2", "ducklake_table_column_stats.extra_stats is NULL in the row table_id=1, column_id=2, "},
		// As ducklake_add_data_files writes it for files without
		// geospatial statistics: read as the NULL is.
		{"14_geometry", `UPDATE ducklake_table_column_stats SET extra_stats = '{"bbox": {"xmin": null}, "types": []}' WHERE table_id = 1 AND column_id = 2`, "ducklake_table_column_stats.extra_stats names no geometry type (its \"types\" list empty, missing or of unknown types) while the column's data files hold values that are not NULL (value_count above null_count) in the row table_id=1, column_id=2, "},
	} {
		t.Run(strings.Join(strings.Fields(tc.want)[:2], " "), func(t *testing.T) {
			t.Parallel()
			vs := versionCatalogs(t, testlakes.Lake(t, "lakes", tc.lake))
			src := editedCopy(t, vs[len(vs)-1], tc.stmt)
			dir := t.TempDir()
			_, err := Catalog(ctx, src, filepath.Join(dir, "1.1.duckdb"), formats.V1_1, Options{DataPath: t.TempDir()})
			if !errors.Is(err, ErrNotCatalog) || !errors.Is(err, formats.ErrNullField) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), src) {
				t.Errorf("convert to 1.1: %v, want not a DuckLake catalog naming %s and %q", err, src, tc.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("convert to 1.1: %d files written (%s), want none", len(ents), ents[0].Name())
			}
		})
	}
}
