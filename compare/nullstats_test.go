package compare

import (
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestOpenNullRequiredStats: a real catalog with NULL in a statistics field
// DuckLake's readers fail on or prune by (formats.Column.NullRead of
// ducklake_table_stats, ducklake_table_column_stats and the file column
// statistics) is not opened: an OpenError (OpenNullFields) naming the
// table, the column and the row. A table statistics row without
// record_count or file_size_bytes (which the readers skip, with its
// columns' rows), column statistics of such a table, a file statistics row
// without table or column (read as no row), and NULL statistics values
// (unknown) open. Before, every one of these catalogs opened: the proof
// read a catalog DuckDB up to 1.5.3 fails to read any table of (a NULL
// table_id, next_row_id or column_id in a statistics row the readers
// load), or whose filtered reads drop rows from DuckDB 1.5.4 on (a file
// statistics row without data_file_id).
func TestOpenNullRequiredStats(t *testing.T) {
	v01 := filepath.Join(testlakes.Lake(t, "migrations", "v01"), "source.duckdb")
	for _, tc := range []struct {
		archive, lake, name string
		stmts               []string
		want                string // "": opens
	}{
		{"lakes", "05_defaults_not_null", "table next_row_id",
			[]string{`UPDATE ducklake_table_stats SET next_row_id = NULL WHERE table_id = 3`},
			"ducklake_table_stats.next_row_id is NULL in the row table_id=3, rowid "},
		{"lakes", "05_defaults_not_null", "table statistics' table_id",
			[]string{`UPDATE ducklake_table_stats SET table_id = NULL WHERE table_id = 2`},
			"ducklake_table_stats.table_id is NULL in the row table_id=NULL, rowid "},
		{"lakes", "05_defaults_not_null", "table statistics without record_count: never read",
			[]string{`UPDATE ducklake_table_stats SET record_count = NULL, next_row_id = NULL, table_id = NULL WHERE table_id = 2`}, ""},
		{"lakes", "05_defaults_not_null", "table statistics without file_size_bytes: never read",
			[]string{`UPDATE ducklake_table_stats SET file_size_bytes = NULL, next_row_id = NULL WHERE table_id = 4`}, ""},
		{"lakes", "05_defaults_not_null", "column statistics' column_id",
			[]string{`UPDATE ducklake_table_column_stats SET column_id = NULL WHERE table_id = 4 AND column_id = 3`},
			"ducklake_table_column_stats.column_id is NULL in the row table_id=4, column_id=NULL, rowid "},
		{"lakes", "05_defaults_not_null", "column statistics' column_id of a table whose statistics are never read",
			[]string{`UPDATE ducklake_table_stats SET file_size_bytes = NULL WHERE table_id = 4`,
				`UPDATE ducklake_table_column_stats SET column_id = NULL WHERE table_id = 4 AND column_id = 3`}, ""},
		{"lakes", "05_defaults_not_null", "column statistics' table_id and values: no row, unknown",
			[]string{`UPDATE ducklake_table_column_stats SET table_id = NULL WHERE table_id = 3 AND column_id = 3`,
				`UPDATE ducklake_table_column_stats SET contains_null = NULL, contains_nan = NULL, min_value = NULL, max_value = NULL, extra_stats = NULL WHERE table_id = 1`}, ""},
		{"lakes", "05_defaults_not_null", "file statistics' data_file_id",
			[]string{`UPDATE ducklake_file_column_stats SET data_file_id = NULL WHERE data_file_id = 2 AND column_id = 6`},
			"ducklake_file_column_stats.data_file_id is NULL in the row data_file_id=NULL, table_id=1, column_id=6, rowid "},
		{"lakes", "05_defaults_not_null", "file statistics' table_id and column_id: no row",
			[]string{`UPDATE ducklake_file_column_stats SET table_id = NULL, data_file_id = NULL WHERE data_file_id = 3 AND column_id = 7`,
				`UPDATE ducklake_file_column_stats SET column_id = NULL, data_file_id = NULL WHERE data_file_id = 4 AND column_id = 7`}, ""},
		{"lakes", "05_defaults_not_null", "file statistics' values: unknown",
			[]string{`UPDATE ducklake_file_column_stats SET column_size_bytes = NULL, value_count = NULL, null_count = NULL, min_value = NULL, max_value = NULL, contains_nan = NULL, extra_stats = NULL WHERE data_file_id = 2`}, ""},
		{"lakes-0.3", "06_deletes", "0.3 table next_row_id",
			[]string{`UPDATE ducklake_table_stats SET next_row_id = NULL WHERE table_id = 2`},
			"ducklake_table_stats.next_row_id is NULL in the row table_id=2, rowid "},
		{"lakes-0.3", "06_deletes", "0.3 file statistics' data_file_id",
			[]string{`UPDATE ducklake_file_column_stats SET data_file_id = NULL WHERE data_file_id = 9`},
			"ducklake_file_column_stats.data_file_id is NULL in the row data_file_id=NULL, table_id=2, column_id=1, rowid "},
		{"migrations", "v01", "0.1 file statistics' data_file_id",
			[]string{`INSERT INTO ducklake_file_column_statistics VALUES (NULL, 1, 1, 10, 1, 0, '1', '1', NULL)`},
			"ducklake_file_column_statistics.data_file_id is NULL in the row data_file_id=NULL, table_id=1, column_id=1, rowid "},
		{"migrations", "v01", "0.1 table next_row_id",
			[]string{`INSERT INTO ducklake_table_stats VALUES (1, 1, NULL, 10)`},
			"ducklake_table_stats.next_row_id is NULL in the row table_id=1, rowid "},
	} {
		t.Run(tc.archive+"/"+tc.lake+"/"+tc.name, func(t *testing.T) {
			t.Parallel() // tampers a copy of its own
			catalog := v01
			if tc.archive != "migrations" {
				_, catalog = lastVersion(t, tc.archive, tc.lake)
			}
			b := tamper(t, catalog, tc.stmts...)
			wantNullFields(t, b, tc.want)
		})
	}
}
