package compare

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestOpenNullRequiredElsewhere: a real catalog with NULL in a field
// DuckLake's writers always write, in the tables and under the conditions
// the check once skipped (formats.Column.NullRead and NullWhen,
// formats.Version.DynamicTable: the partition spec, macros, sort order,
// inlined data and its registrations, inlined deletions, name mappings; an encryption
// key in an encrypted catalog, a default's default_value_type, a
// recorded folder's path_is_relative), is not opened: an OpenError
// (OpenNullFields) naming the table, the column and the row. The same
// NULL where DuckLake's readers never look at it (no default, a catalog
// not encrypted, no folder recorded, a spec's row the readers leave out
// without reading anything else) opens. Before, every one of these
// catalogs opened, and the proof read it, or modelled the reader's
// failure as an unreadable table, which a catalog holding it on both
// sides passed.
func TestOpenNullRequiredElsewhere(t *testing.T) {
	for _, tc := range []struct {
		lake, name string
		stmts      []string
		want       string // "": opens
	}{
		{"08_partitioning", "partition transform",
			[]string{`UPDATE ducklake_partition_column SET transform = NULL WHERE partition_id = 3 AND partition_key_index = 1`},
			"ducklake_partition_column.transform is NULL in the row partition_id=3, partition_key_index=1, rowid "},
		{"08_partitioning", "partition column id",
			[]string{`UPDATE ducklake_partition_column SET column_id = NULL WHERE partition_id = 2`},
			"ducklake_partition_column.column_id is NULL in the row partition_id=2, partition_key_index=0, rowid "},
		{"08_partitioning", "partition table id",
			[]string{`UPDATE ducklake_partition_info SET table_id = NULL WHERE partition_id = 4`},
			"ducklake_partition_info.table_id is NULL in the row partition_id=4, begin_snapshot=6, rowid "},
		{"08_partitioning", "partition begin_snapshot: never read to answer a query",
			[]string{`UPDATE ducklake_partition_info SET begin_snapshot = NULL WHERE partition_id = 4`}, ""},
		{"10_macros", "macro name",
			[]string{`UPDATE ducklake_macro SET macro_name = NULL WHERE macro_id = 3`},
			"ducklake_macro.macro_name is NULL in the row macro_id=3, begin_snapshot=3, rowid "},
		{"10_macros", "macro implementation's macro",
			[]string{`UPDATE ducklake_macro_impl SET macro_id = NULL WHERE macro_id = 7`},
			"ducklake_macro_impl.macro_id is NULL in the row macro_id=NULL, impl_id=0, rowid "},
		{"10_macros", "macro SQL",
			[]string{`UPDATE ducklake_macro_impl SET sql = NULL WHERE macro_id = 5 AND impl_id = 2`},
			"ducklake_macro_impl.sql is NULL in the row macro_id=5, impl_id=2, rowid "},
		{"10_macros", "macro parameter default",
			[]string{`UPDATE ducklake_macro_parameters SET default_value = NULL WHERE macro_id = 2 AND column_id = 1`},
			"ducklake_macro_parameters.default_value is NULL in the row macro_id=2, impl_id=0, column_id=1, rowid "},
		{"22_sorted_tables", "sort key index",
			[]string{`UPDATE ducklake_sort_expression SET sort_key_index = NULL WHERE sort_id = 3 AND sort_key_index = 1`},
			"ducklake_sort_expression.sort_key_index is NULL in the row sort_id=3, sort_key_index=NULL, rowid "},
		{"22_sorted_tables", "sort table id",
			[]string{`UPDATE ducklake_sort_info SET table_id = NULL WHERE sort_id = 5`},
			"ducklake_sort_info.table_id is NULL in the row sort_id=5, begin_snapshot=9, rowid "},
		{"22_sorted_tables", "sort expression: a writers' hint",
			[]string{`UPDATE ducklake_sort_expression SET expression = NULL WHERE sort_id = 2`}, ""},
		{"16_data_inlining", "inlined table registration's name",
			[]string{`UPDATE ducklake_inlined_data_tables SET table_name = NULL WHERE schema_version = 3`},
			"ducklake_inlined_data_tables.table_name is NULL in the row table_id=1, schema_version=3, rowid "},
		{"16_data_inlining", "inlined table registration's table",
			[]string{`UPDATE ducklake_inlined_data_tables SET table_id = NULL WHERE schema_version = 6`},
			"ducklake_inlined_data_tables.table_id is NULL in the row table_id=NULL, schema_version=6, rowid "},
		{"16_data_inlining", "inlined row begin_snapshot",
			[]string{`UPDATE ducklake_inlined_data_1_2 SET begin_snapshot = NULL WHERE row_id = (SELECT min(row_id) FROM ducklake_inlined_data_1_2)`},
			"ducklake_inlined_data_1_2.begin_snapshot is NULL in the row row_id="},
		{"16_data_inlining", "inlined row id",
			[]string{`UPDATE ducklake_inlined_data_4_8 SET row_id = NULL WHERE rowid = 0`},
			"ducklake_inlined_data_4_8.row_id is NULL in the row row_id=NULL, rowid 0"},
		{"16_data_inlining", "inlined deletion's file",
			[]string{`UPDATE ducklake_inlined_delete_1 SET file_id = NULL WHERE rowid = 0`},
			"ducklake_inlined_delete_1.file_id is NULL in the row file_id=NULL, row_id="},
		{"16_data_inlining", "inlined deletion's begin_snapshot",
			[]string{`UPDATE ducklake_inlined_delete_1 SET begin_snapshot = NULL WHERE rowid = 0`},
			"ducklake_inlined_delete_1.begin_snapshot is NULL in the row file_id="},
		{"16_data_inlining", "unregistered inlined table: never read",
			[]string{`CREATE TABLE ducklake_inlined_data_1_99 AS SELECT * FROM ducklake_inlined_data_1_2`,
				`UPDATE ducklake_inlined_data_1_99 SET begin_snapshot = NULL`}, ""},
		{"15_encryption", "data file key, encrypted",
			[]string{`UPDATE ducklake_data_file SET encryption_key = NULL WHERE data_file_id = 0`},
			"ducklake_data_file.encryption_key is NULL in the row data_file_id=0, rowid "},
		{"15_encryption", "delete file key, encrypted",
			[]string{`UPDATE ducklake_delete_file SET encryption_key = NULL WHERE delete_file_id = 3`},
			"ducklake_delete_file.encryption_key is NULL in the row delete_file_id=3, rowid "},
		{"15_encryption", "data file key, not encrypted",
			[]string{`UPDATE ducklake_data_file SET encryption_key = NULL WHERE data_file_id = 0`, `UPDATE ducklake_metadata SET value = 'false' WHERE key = 'encrypted'`}, ""},
		{"05_defaults_not_null", "default_value_type of a default",
			[]string{`UPDATE ducklake_column SET default_value_type = NULL WHERE table_id = 3 AND column_id = 4`},
			"ducklake_column.default_value_type is NULL in the row table_id=3, column_id=4, begin_snapshot="},
		{"05_defaults_not_null", "default_value_type without a default",
			[]string{`UPDATE ducklake_column SET default_value_type = NULL WHERE table_id = 4`}, ""},
		{"08_partitioning", "table path_is_relative beside a path",
			[]string{`UPDATE ducklake_table SET path_is_relative = NULL WHERE table_id = 6`},
			"ducklake_table.path_is_relative is NULL in the row table_id=6, begin_snapshot="},
		{"08_partitioning", "schema path_is_relative beside a path",
			[]string{`UPDATE ducklake_schema SET path_is_relative = NULL`},
			"ducklake_schema.path_is_relative is NULL in the row schema_id=0, begin_snapshot="},
		{"19_add_data_files", "name mapping's field id",
			[]string{`UPDATE ducklake_name_mapping SET target_field_id = NULL WHERE mapping_id = 8 AND column_id = 1`},
			"ducklake_name_mapping.target_field_id is NULL in the row mapping_id=8, column_id=1, rowid "},
		{"19_add_data_files", "name mapping's source name",
			[]string{`UPDATE ducklake_name_mapping SET source_name = NULL WHERE mapping_id = 1 AND column_id = 0`},
			"ducklake_name_mapping.source_name is NULL in the row mapping_id=1, column_id=0, rowid "},
		{"19_add_data_files", "column mapping's type",
			[]string{`UPDATE ducklake_column_mapping SET type = NULL WHERE mapping_id = 5`},
			"ducklake_column_mapping.type is NULL in the row mapping_id=5, rowid "},
		{"08_partitioning", "table path_is_relative without a path",
			[]string{`UPDATE ducklake_table SET path = NULL, path_is_relative = NULL WHERE table_id = 6`}, ""},
	} {
		t.Run(tc.lake+"/"+tc.name, func(t *testing.T) {
			t.Parallel() // tampers a copy of its own
			_, catalog := lastVersion(t, "lakes", tc.lake)
			b := tamper(t, catalog, tc.stmts...)
			wantNullFields(t, b, tc.want)
		})
	}
}

// wantNullFields opens the tampered catalog b and requires an OpenError
// (OpenNullFields) whose reason holds want and whose message names b, or,
// where want is "", that b opens.
func wantNullFields(t *testing.T, b, want string) {
	t.Helper()
	r, err := Open(context.Background(), b, ReaderOptions{Engines: readerDBs})
	if r != nil {
		r.Close()
	}
	if want == "" {
		if err != nil {
			t.Fatalf("Open: %v, want it to open", err)
		}
		return
	}
	var oe *OpenError
	if !errors.As(err, &oe) || oe.Cause != OpenNullFields || !strings.Contains(oe.Reason(), want) || !strings.Contains(err.Error(), b) {
		t.Errorf("Open: %v, want an OpenError (OpenNullFields) naming %s and %q", err, b, want)
	}
}
