package compare

import (
	"context"
	"fmt"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// RenamedColumns lists, by table id, the columns (nested fields included)
// that were ever renamed up to a snapshot: those whose rows in
// ducklake_column, begun at or before snap, carry more than one name. Data
// files written before a rename carry the old name, which is what
// files.json's renamed_columns warns a reader without DuckLake of. Each
// column is named by its path at its latest rows (a nested field after its
// parents, "s.v1", so that three renamed fields v1 of three structs are
// told apart), sorted.
func (r *Reader) RenamedColumns(ctx context.Context, snap int64) (map[int64][]string, error) {
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`WITH RECURSIVE latest AS (
			SELECT table_id, column_id, arg_max(column_name, begin_snapshot) AS name,
				arg_max(parent_column, begin_snapshot) AS parent, count(DISTINCT column_name) > 1 AS renamed
			FROM cat.ducklake_column WHERE begin_snapshot <= %d GROUP BY table_id, column_id),
		paths AS (
			SELECT table_id, column_id, name AS path, parent, 0 AS depth FROM latest WHERE renamed
			UNION ALL
			SELECT p.table_id, p.column_id, l.name || '.' || p.path, l.parent, p.depth + 1
			FROM paths p JOIN latest l ON l.table_id = p.table_id AND l.column_id = p.parent
			WHERE p.depth < 1000)
		SELECT table_id, path FROM paths
		WHERE parent IS NULL OR NOT EXISTS (SELECT 1 FROM latest l WHERE l.table_id = paths.table_id AND l.column_id = paths.parent)
		ORDER BY table_id, path`, snap))
	if err != nil {
		return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", oneline.Name(r.path), snap, err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", oneline.Name(r.path), snap, err)
		}
		out[id] = append(out[id], name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", oneline.Name(r.path), snap, err)
	}
	return out, nil
}
