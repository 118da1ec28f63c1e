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

// TestNullRequiredStatsRefused: convert refuses a source with a NULL in a
// statistics field DuckLake's readers fail on or prune by (a table
// statistics row's table_id or next_row_id, a column statistics row's
// column_id, where the readers load them; a file statistics row's
// data_file_id), naming the table, the column and the row, before writing
// anything. Before, it converted the NULL along into a catalog DuckDB up
// to 1.5.3 cannot read any table of, or whose filtered reads from DuckDB
// 1.5.4 on skip the files written before a column was added.
func TestNullRequiredStatsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ stmt, want string }{
		{"UPDATE ducklake_table_stats SET next_row_id = NULL WHERE table_id = 3", "ducklake_table_stats.next_row_id is NULL in the row table_id=3, "},
		{"UPDATE ducklake_table_stats SET table_id = NULL WHERE table_id = 2", "ducklake_table_stats.table_id is NULL in the row table_id=NULL, "},
		{"UPDATE ducklake_table_column_stats SET column_id = NULL WHERE table_id = 4 AND column_id = 3", "ducklake_table_column_stats.column_id is NULL in the row table_id=4, column_id=NULL, "},
		{"UPDATE ducklake_file_column_stats SET data_file_id = NULL WHERE data_file_id = 2 AND column_id = 6", "ducklake_file_column_stats.data_file_id is NULL in the row data_file_id=NULL, table_id=1, column_id=6, "},
	} {
		t.Run(strings.Fields(tc.want)[0], func(t *testing.T) {
			t.Parallel()
			vs := versionCatalogs(t, testlakes.Lake(t, "lakes", "05_defaults_not_null"))
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
