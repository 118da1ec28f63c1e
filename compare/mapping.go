package compare

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// mapEntry is one node of a name mapping (§5.4).
type mapEntry struct {
	id          int64
	source      string
	target      int64
	isPartition bool
	children    []*mapEntry
	byTarget    map[int64]*mapEntry // children by target, for many (indexMapping)
}

// nameMapping is a mapping as a tree under a synthetic root, read once
// per reader (a frozen catalog's mappings never change; the tree is
// shared, read-only): each registered file's read plan, its time_ns and
// read-by-name checks ask for it.
func (r *Reader) nameMapping(ctx context.Context, mappingID int64) (*mapEntry, error) {
	if m, ok := r.mappings[mappingID]; ok {
		return m, nil
	}
	m, err := r.readNameMapping(ctx, mappingID)
	if err == nil {
		r.mappings[mappingID] = m
	}
	return m, err
}

// readNameMapping reads a mapping as a tree under a synthetic root.
func (r *Reader) readNameMapping(ctx context.Context, mappingID int64) (*mapEntry, error) {
	var kind sql.NullString
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT type FROM cat.ducklake_column_mapping WHERE mapping_id = %d`, mappingID)).Scan(&kind); err != nil {
		return nil, fmt.Errorf("read column mapping %d of %s: %w", mappingID, oneline.Name(r.path), err)
	}
	if kind.String != "map_by_name" {
		return nil, &UnsupportedError{What: fmt.Sprintf("column mapping %d of type %q", mappingID, kind.String)}
	}
	q := fmt.Sprintf(`SELECT column_id, source_name, target_field_id, parent_column, %s
		FROM cat.ducklake_name_mapping n WHERE mapping_id = %d ORDER BY parent_column NULLS FIRST, column_id`,
		r.col("ducklake_name_mapping", "n", "is_partition"), mappingID)
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read name mapping %d of %s: %w", mappingID, oneline.Name(r.path), err)
	}
	defer rows.Close()
	root := &mapEntry{id: -1}
	byID := map[int64]*mapEntry{}
	type kid struct {
		e      *mapEntry
		parent int64
	}
	var kids []kid
	for rows.Next() {
		e := &mapEntry{}
		var parent sql.NullInt64
		var part sql.NullBool
		if err := rows.Scan(&e.id, &e.source, &e.target, &parent, &part); err != nil {
			return nil, fmt.Errorf("read name mapping %d of %s: %w", mappingID, oneline.Name(r.path), err)
		}
		e.isPartition = part.Valid && part.Bool
		// The first entry of a column_id takes its children, as readers'
		// column_id_map.emplace (DuckLakeCatalog::ConvertNameMap, every
		// release line) does over the same order: entries of two parents
		// by parent_column; of one parent, the readers' order is undefined
		// and refused unless the rows read alike (formats.NameMapDuplicate).
		if _, ok := byID[e.id]; !ok {
			byID[e.id] = e
		}
		if parent.Valid {
			kids = append(kids, kid{e, parent.Int64})
		} else {
			root.children = append(root.children, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read name mapping %d of %s: %w", mappingID, oneline.Name(r.path), err)
	}
	for _, k := range kids {
		p, ok := byID[k.parent]
		if !ok {
			return nil, fmt.Errorf("name mapping %d of %s: entry %d has unknown parent %d", mappingID, oneline.Name(r.path), k.e.id, k.parent)
		}
		p.children = append(p.children, k.e)
	}
	indexMapping(root)
	return root, nil
}

// indexMapping keeps, at each entry of a read mapping with many children,
// their first entry by target field id (byTarget): projectByMapping and
// valueExpr ask once per column (childFor).
func indexMapping(m *mapEntry) {
	if len(m.children) >= byNameMin {
		m.byTarget = make(map[int64]*mapEntry, len(m.children))
		for _, e := range m.children {
			if _, ok := m.byTarget[e.target]; !ok {
				m.byTarget[e.target] = e
			}
		}
	}
	for _, e := range m.children {
		indexMapping(e)
	}
}

// childFor is m's first child entry mapping to field id target, or nil
// (so for a nil m).
func (m *mapEntry) childFor(target int64) *mapEntry {
	if m == nil {
		return nil
	}
	if m.byTarget != nil {
		return m.byTarget[target]
	}
	for _, e := range m.children {
		if e.target == target {
			return e
		}
	}
	return nil
}
