package compare

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// View is a view of the catalog at a snapshot.
type View struct {
	Schema, Name string
	SQL          string
}

// FullName is "schema.view", parts quoted as Table.FullName quotes them.
func (v View) FullName() string { return qualified(v.Schema, v.Name) }

// DottedName is schema.view joined as they are, as Table.DottedName: the
// key version.json's changes and dataset.json's readers name it by.
func (v View) DottedName() string { return v.Schema + "." + v.Name }

// Views lists the views visible at a snapshot with their schema's name (as
// visible then) and their SQL, sorted by name.
func (r *Reader) Views(ctx context.Context, snap int64) ([]View, error) {
	if r.empty("ducklake_view") {
		return nil, nil
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT s.schema_name, v.view_name, v.sql FROM cat.ducklake_view v
		JOIN cat.ducklake_schema s ON s.schema_id = v.schema_id AND %s
		WHERE %s ORDER BY 1, 2`, visible("s", snap), visible("v", snap)))
	if err != nil {
		return nil, fmt.Errorf("read the views of %s at snapshot %d: %w", oneline.Name(r.path), snap, err)
	}
	defer rows.Close()
	var out []View
	for rows.Next() {
		var v View
		var q sql.NullString
		if err := rows.Scan(&v.Schema, &v.Name, &q); err != nil {
			return nil, fmt.Errorf("read the views of %s at snapshot %d: %w", oneline.Name(r.path), snap, err)
		}
		v.SQL = q.String
		out = append(out, v)
	}
	return out, rows.Err()
}
