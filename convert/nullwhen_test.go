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

// TestNullRequiredElsewhereRefused: convert refuses a source with a NULL
// DuckLake's writers always write in the tables and under the conditions
// the check once skipped (formats.Column.NullWhen,
// formats.Version.DynamicTable), naming the table, the column and the
// row, before writing anything. Before, it converted the NULL along (an
// inlined row's begin_snapshot, a macro's SQL, a partition transform, an
// encrypted file's key), or refused a NULL registration of an inlined
// table without naming its field or row.
func TestNullRequiredElsewhereRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ lake, stmt, want string }{
		{"16_data_inlining", "UPDATE ducklake_inlined_data_1_2 SET begin_snapshot = NULL WHERE rowid = 0", "ducklake_inlined_data_1_2.begin_snapshot is NULL in the row row_id="},
		{"16_data_inlining", "UPDATE ducklake_inlined_data_tables SET table_id = NULL WHERE schema_version = 6", "ducklake_inlined_data_tables.table_id is NULL in the row table_id=NULL, schema_version=6, "},
		{"16_data_inlining", "UPDATE ducklake_inlined_delete_1 SET row_id = NULL WHERE rowid = 0", "ducklake_inlined_delete_1.row_id is NULL in the row file_id="},
		{"10_macros", "UPDATE ducklake_macro_impl SET sql = NULL WHERE macro_id = 1", "ducklake_macro_impl.sql is NULL in the row macro_id=1, impl_id=0, "},
		{"08_partitioning", "UPDATE ducklake_partition_column SET transform = NULL WHERE partition_id = 2", "ducklake_partition_column.transform is NULL in the row partition_id=2, partition_key_index=0, "},
		{"15_encryption", "UPDATE ducklake_data_file SET encryption_key = NULL WHERE data_file_id = 0", "ducklake_data_file.encryption_key is NULL in the row data_file_id=0, "},
	} {
		t.Run(tc.lake+"/"+strings.Fields(tc.want)[0], func(t *testing.T) {
			t.Parallel()
			vs := versionCatalogs(t, testlakes.Lake(t, "lakes", tc.lake))
			src := editedCopy(t, vs[len(vs)-1], tc.stmt)
			dir := t.TempDir()
			_, err := Catalog(ctx, src, filepath.Join(dir, "0.4.duckdb"), formats.V0_4, Options{RewriteDeletes: true, DataPath: t.TempDir(), Lossy: LossyOptions})
			if !errors.Is(err, ErrNotCatalog) || !errors.Is(err, formats.ErrNullField) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), src) {
				t.Errorf("convert to 0.4: %v, want not a DuckLake catalog naming %s and %q", err, src, tc.want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("convert to 0.4: %d files written (%s), want none", len(ents), ents[0].Name())
			}
		})
	}
}
