package compare

import (
	"context"
	"fmt"
)

// RenamedColumns lists the columns (nested fields included) of a table
// that were ever renamed up to a snapshot: those whose rows in
// ducklake_column, begun at or before snap, carry more than one name. Data
// files written before a rename carry the old name, which is what
// files.json's renamed_columns warns a reader without DuckLake of. Each
// column is named by its name at its latest row, sorted.
func (r *Reader) RenamedColumns(ctx context.Context, tableID, snap int64) ([]string, error) {
	names, err := r.strings(ctx, fmt.Sprintf(`SELECT arg_max(column_name, begin_snapshot) AS name FROM cat.ducklake_column
		WHERE table_id = %d AND begin_snapshot <= %d
		GROUP BY column_id HAVING count(DISTINCT column_name) > 1 ORDER BY name`, tableID, snap))
	if err != nil {
		return nil, fmt.Errorf("read the column names of table %d in %s up to snapshot %d: %w", tableID, r.path, snap, err)
	}
	return names, nil
}
