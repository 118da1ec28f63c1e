package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// inlinedSQL builds the queries over the table's inlined data tables (§5.8).
func (r *Reader) inlinedSQL(ctx context.Context, t Table, cols []*Column, snap int64, opts ScanOptions) ([]Part, error) {
	if r.empty("ducklake_inlined_data_tables") {
		return nil, nil // absent, or without registrations
	}
	regs, err := r.inlinedTables(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	var parts []Part
	for _, g := range regs {
		phys, ok := r.dynamic[g.name]
		if !ok {
			continue // registered but dropped
		}
		if len(phys) < 3 {
			return nil, fmt.Errorf("inlined table %s has %d columns", g.name, len(phys))
		}
		asOf, err := r.schemaVersionSnapshot(ctx, t, g.sv)
		if err != nil {
			return nil, err
		}
		then, err := r.columnsAt(ctx, t.ID, asOf, false)
		if err != nil {
			return nil, err
		}
		byName := map[string]*Column{}
		for _, c := range then {
			byName[c.Name] = c
		}
		// Inlined columns carry the names and shapes of that schema version;
		// their field ids come from the columns as they were then.
		physByID := map[int64]*pnode{}
		for _, p := range phys[3:] {
			if c, ok := byName[p]; ok {
				physByID[c.ID] = columnNode(c)
			}
		}
		var sel []string
		for _, c := range cols {
			var e string
			if p, ok := physByID[c.ID]; ok {
				e, err = valueExpr(ident(p.Name), p, c, byFieldID{}, nil, 0)
			} else {
				e, err = c.defaultExpr()
			}
			if err != nil {
				return nil, fmt.Errorf("inlined table %s: %w", g.name, err)
			}
			sel = append(sel, e+" AS "+ident(c.Name))
		}
		// The first three columns are the system columns, whatever their
		// names (unprefixed up to 1.0, _ducklake_-prefixed in 1.1).
		rid, begin, end := ident(phys[0]), ident(phys[1]), ident(phys[2])
		if opts.RowIDs {
			sel = append(sel, rid+" AS "+RowIDColumn)
		}
		q := fmt.Sprintf("SELECT %s FROM cat.%s WHERE %d >= %s AND (%d < %s OR %s IS NULL)",
			strings.Join(sel, ", "), ident(g.name), snap, begin, snap, end, end)
		parts = append(parts, Part{Kind: "inlined", Path: g.name, SQL: q})
	}
	return parts, nil
}

// checkEncryptedNested refuses what this reader cannot do right: DuckDB's
// parquet_schema cannot open encrypted files, so their nested fields are
// matched by name, which is wrong once a nested field was renamed.
func (r *Reader) checkEncryptedNested(ctx context.Context, t Table, cols []*Column) error {
	var ids []string
	var walk func(cs []*Column, nested bool)
	walk = func(cs []*Column, nested bool) {
		for _, c := range cs {
			if nested {
				ids = append(ids, fmt.Sprint(c.ID))
			}
			walk(c.Children, true)
		}
	}
	walk(cols, false)
	if len(ids) == 0 {
		return nil
	}
	renamed, err := r.strings(ctx, fmt.Sprintf(`SELECT any_value(column_name) FROM cat.ducklake_column WHERE table_id = %d AND column_id IN (%s)
		GROUP BY column_id HAVING count(DISTINCT column_name) > 1`, t.ID, strings.Join(ids, ", ")))
	if err != nil {
		return fmt.Errorf("read column history of %s: %w", t.FullName(), err)
	}
	if len(renamed) > 0 {
		return &UnsupportedError{What: fmt.Sprintf("encrypted data files of %s with renamed nested fields (%s)", t.FullName(), strings.Join(renamed, ", "))}
	}
	return nil
}

// columnNode describes a column as stored at some schema version, as if it
// were a Parquet node carrying its field ids.
func columnNode(c *Column) *pnode {
	n := &pnode{Name: c.Name, FieldID: &c.ID, Kind: "leaf"}
	switch strings.ToLower(c.Type) {
	case "struct", "list", "map":
		n.Kind = strings.ToLower(c.Type)
		for _, ch := range c.Children {
			n.Children = append(n.Children, columnNode(ch))
		}
	default:
		n.DuckType, _ = c.DuckType()
	}
	return n
}

// inlinedReg is a table's inlined data table and its schema version.
type inlinedReg struct {
	name string
	sv   int64
}

// inlinedTables lists a table's inlined data tables (registered ones; the
// registrations have no snapshot range, so they are read once).
func (r *Reader) inlinedTables(ctx context.Context, tableID int64) ([]inlinedReg, error) {
	if regs, ok := r.meta.inlined[tableID]; ok {
		return regs, nil
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT table_name, schema_version FROM cat.ducklake_inlined_data_tables WHERE table_id = %d ORDER BY schema_version`, tableID))
	if err != nil {
		return nil, fmt.Errorf("list inlined data tables of table %d in %s: %w", tableID, r.path, err)
	}
	defer rows.Close()
	regs := []inlinedReg{}
	for rows.Next() {
		var g inlinedReg
		if err := rows.Scan(&g.name, &g.sv); err != nil {
			return nil, err
		}
		regs = append(regs, g)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	r.meta.inlined[tableID] = regs
	return regs, nil
}

// schemaVersionSnapshot finds a snapshot at which a table had a given
// schema version: ducklake_schema_versions when it names it, else the first
// snapshot with that schema version, else the latest before it.
func (r *Reader) schemaVersionSnapshot(ctx context.Context, t Table, sv int64) (int64, error) {
	if _, ok := r.layout["ducklake_schema_versions"]; ok {
		q := fmt.Sprintf(`SELECT min(begin_snapshot) FROM cat.ducklake_schema_versions s WHERE schema_version = %d`, sv)
		if r.has("ducklake_schema_versions", "table_id") {
			q += fmt.Sprintf(" AND (table_id = %d OR table_id IS NULL)", t.ID)
		}
		var s sql.NullInt64
		if err := r.conn.QueryRowContext(ctx, q).Scan(&s); err != nil {
			return 0, err
		}
		if s.Valid {
			return s.Int64, nil
		}
	}
	var s sql.NullInt64
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT min(snapshot_id) FROM cat.ducklake_snapshot WHERE schema_version = %d`, sv)).Scan(&s); err != nil {
		return 0, err
	}
	if s.Valid {
		return s.Int64, nil
	}
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT max(snapshot_id) FROM cat.ducklake_snapshot WHERE schema_version < %d`, sv)).Scan(&s); err != nil {
		return 0, err
	}
	if s.Valid && s.Int64 >= t.BeginSnapshot {
		return s.Int64, nil
	}
	return t.BeginSnapshot, nil
}
