package compare

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestNameMappingReadOnce: a reader reads each name mapping once, however
// many registered files and checks ask for it (each file's read plan, the
// time_ns and read-by-name checks: two queries a call before, per file and
// per column), and gives every caller the same tree.
func TestNameMappingReadOnce(t *testing.T) {
	t.Parallel()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	r := openForTest(t, catalog, filepath.Join(lake, "data"))
	ctx := context.Background()
	var ids []int64
	if err := r.eachRow(ctx, `SELECT mapping_id FROM cat.ducklake_column_mapping ORDER BY mapping_id`, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		t.Fatal("19_add_data_files has no name mapping")
	}
	for _, id := range ids {
		first, err := r.nameMapping(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		again, err := r.nameMapping(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if first != again {
			t.Errorf("mapping %d read again: another tree", id)
		}
		if len(first.children) == 0 {
			t.Errorf("mapping %d: no entries", id)
		}
	}
}
