package compare

import (
	"context"
	"fmt"
)

// RenamedColumns lists, by table id, the columns (nested fields included)
// that were ever renamed up to a snapshot: those whose rows in
// ducklake_column, begun at or before snap, carry more than one name. Data
// files written before a rename carry the old name, which is what
// files.json's renamed_columns warns a reader without DuckLake of. Each
// column is named by its name at its latest row, sorted.
func (r *Reader) RenamedColumns(ctx context.Context, snap int64) (map[int64][]string, error) {
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT table_id, arg_max(column_name, begin_snapshot) AS name FROM cat.ducklake_column
		WHERE begin_snapshot <= %d
		GROUP BY table_id, column_id HAVING count(DISTINCT column_name) > 1 ORDER BY table_id, name`, snap))
	if err != nil {
		return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", r.path, snap, err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", r.path, snap, err)
		}
		out[id] = append(out[id], name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", r.path, snap, err)
	}
	return out, nil
}
