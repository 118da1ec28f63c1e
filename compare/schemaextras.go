package compare

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// The schema description (readSchemaEntries) names, beside the schemas,
// tables and columns, each table's partition spec and tags, the views and
// their tags, and the macros. Their rows are read whole once per reader
// (schemaExtras) and which are visible at a snapshot is decided here, as
// visible decides in SQL (visibleRow), like the schemas' and tables' rows:
// before, a description cost three queries per table and two more per
// snapshot, and a long history's proof described every epoch. A column
// read into a Go integer or string that is NULL fails the description
// only where a row holding it is used, as each per-table query failed
// only on the rows it returned.

// schemaExtras holds those rows; each kind is nil until read.
type schemaExtras struct {
	parts   []partRow
	colTags []tagRow
	tags    []tagRow
	views   []viewRow
	macros  []macroRow
	// sorts and viewColTags are read for TableExtras and ViewExtras
	// only (the description names neither).
	sorts       []sortRow
	viewColTags []tagRow
}

// partRow is a row of ducklake_partition_info joined with its
// ducklake_partition_column rows.
type partRow struct {
	table, begin, end sql.NullInt64
	index, column     sql.NullInt64
	transform         sql.NullString
}

// tagRow is a row of ducklake_column_tag (owner: table_id, sub: the
// column id as text) or of ducklake_tag (owner: object_id, sub unused).
type tagRow struct {
	owner, begin, end sql.NullInt64
	sub, key          sql.NullString
	value             sql.NullString
}

// viewRow is a row of ducklake_view.
type viewRow struct {
	id, schema, begin, end      sql.NullInt64
	name                        sql.NullString
	uuid, dialect, sql, aliases sql.NullString
}

// macroRow is a macro's implementation with its parameters as text.
type macroRow struct {
	schema, id, impl, begin, end sql.NullInt64
	name                         sql.NullString
	dialect, sql, typ, params    sql.NullString
	// noImpl: the macro has no ducklake_macro_impl row. DuckLake's readers
	// (v1.5-variegata and main, the releases with macros) list a visible
	// macro's implementations with a LIST() subquery, NULL over no rows,
	// and LoadMacroImplementations hands it to ListValue::GetChildren,
	// which throws an InternalException ("Calling ListValue::GetChildren
	// on a NULL value"): the catalog's load fails at every snapshot the
	// macro is visible at.
	noImpl bool
}

// nullIn names the first of the named values that is NULL ("" when none).
func nullIn(vals ...any) string {
	for i := 0; i+1 < len(vals); i += 2 {
		switch v := vals[i+1].(type) {
		case sql.NullInt64:
			if !v.Valid {
				return vals[i].(string)
			}
		case sql.NullString:
			if !v.Valid {
				return vals[i].(string)
			}
		}
	}
	return ""
}

// partitionRows reads every partition column row with its spec's
// visibility, by table and key index, once per reader.
func (r *Reader) partitionRows(ctx context.Context) ([]partRow, error) {
	return readOnce(&r.meta.extras.parts, func() ([]partRow, error) { return r.readPartitionRows(ctx, "true") })
}

// readOnce returns *kept, or reads it and keeps it (a read that fails
// keeps nothing): the schema description's rows, once per reader.
func readOnce[T any](kept *[]T, read func() ([]T, error)) ([]T, error) {
	if *kept != nil {
		return *kept, nil
	}
	out, err := read()
	if err != nil {
		return nil, err
	}
	*kept = out
	return out, nil
}

// scanAll reads every row q returns into a T, whose fields (in q's column
// order) fields gives: an empty, non-nil slice when there is none, so that
// readOnce keeps it.
func scanAll[T any](ctx context.Context, r *Reader, q string, fields func(*T) []any) ([]T, error) {
	out := []T{}
	err := r.eachRow(ctx, q, func(rows *sql.Rows) error {
		var x T
		if err := rows.Scan(fields(&x)...); err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readPartitionRows reads the partition column rows whose spec's row (i)
// satisfies where. A column row belongs to the spec of its partition_id,
// whatever table_id it names: DuckLake's readers join the two tables USING
// (partition_id) alone (the partition query of BuildCatalogForSnapshot, or
// of the catalog load before v1.5, alike in v1.3-ossivalis, v1.4-andium,
// v1.5-variegata and main), and take the table from the spec's row; before,
// the proof joined on table_id too and left out a row naming another table,
// a partition key (a bucket key DuckDB 1.5.4+ prunes files by) readers see.
func (r *Reader) readPartitionRows(ctx context.Context, where string) ([]partRow, error) {
	return scanAll(ctx, r, `SELECT i.table_id, i.begin_snapshot, i.end_snapshot, c.partition_key_index, c.column_id, c.transform FROM cat.ducklake_partition_info i
		JOIN cat.ducklake_partition_column c ON c.partition_id = i.partition_id
		WHERE `+where+` ORDER BY i.table_id, c.partition_key_index`, func(x *partRow) []any {
		return []any{&x.table, &x.begin, &x.end, &x.index, &x.column, &x.transform}
	})
}

// readerTag says whether DuckLake's readers take the row of ducklake_tag
// or ducklake_column_tag for a tag: LoadTags (ducklake_metadata_manager.cpp,
// alike in v1.3-ossivalis, v1.4-andium, v1.5-variegata and main) skips a
// row whose value is NULL, so COMMENT ON … IS NULL, which writes one, leaves
// no comment, and a NULL row visible beside another of the same key hides
// nothing: the reader keeps the last non-NULL value in storage order (the
// LIST() of the rows, without ORDER BY; the loop that builds the entry
// overwrites a key's value). Not for ducklake_view_column_tag, whose NULL
// values the 1.1 readers keep (LoadViewColumnTags).
func (x tagRow) readerTag() bool { return x.value.Valid }

// tagRows reads every row of ducklake_column_tag (column) or ducklake_tag
// once per reader, in the table's order.
func (r *Reader) tagRows(ctx context.Context, column bool) ([]tagRow, error) {
	kept := &r.meta.extras.tags
	if column {
		kept = &r.meta.extras.colTags
	}
	return readOnce(kept, func() ([]tagRow, error) { return r.readTagRows(ctx, column, "true") })
}

// readTagRows reads the rows of ducklake_column_tag (column) or
// ducklake_tag that satisfy where (alias x), in the table's order.
func (r *Reader) readTagRows(ctx context.Context, column bool, where string) ([]tagRow, error) {
	q := `SELECT object_id, begin_snapshot, end_snapshot, '', key, value FROM cat.ducklake_tag x WHERE ` + where
	if column {
		q = `SELECT table_id, begin_snapshot, end_snapshot, column_id::VARCHAR, key, value FROM cat.ducklake_column_tag x WHERE ` + where
	}
	return scanAll(ctx, r, q, func(x *tagRow) []any { return []any{&x.owner, &x.begin, &x.end, &x.sub, &x.key, &x.value} })
}

// tagEntries describes the tags of one owner (a table, a view, or a
// table's columns) visible at a snapshot: entry prefix+sub+" key "+key.
func (r *Reader) tagEntries(ctx context.Context, e entries, column bool, owner, snap int64, prefix string) error {
	table := "ducklake_tag"
	if column {
		table = "ducklake_column_tag"
	}
	if r.empty(table) {
		return nil // absent, or without rows
	}
	rows, err := r.tagRows(ctx, column)
	if err != nil {
		return fmt.Errorf("read tags of %s: %w", oneline.Name(r.path), err)
	}
	for _, x := range rows {
		if !x.owner.Valid || x.owner.Int64 != owner || !visibleRow(x.begin, x.end, snap) || !x.readerTag() {
			continue
		}
		if n := nullIn("column_id", x.sub, "key", x.key); n != "" {
			return fmt.Errorf("read tags of %s: %s has a tag of %s at snapshot %d with a NULL %s", oneline.Name(r.path), table, prefix, snap, n)
		}
		e[prefix+x.sub.String+" key "+x.key.String] = optString(nullString(x.value))
	}
	return nil
}

// viewRows reads every row of ducklake_view once per reader.
func (r *Reader) viewRows(ctx context.Context) ([]viewRow, error) {
	return readOnce(&r.meta.extras.views, func() ([]viewRow, error) { return r.readViewRows(ctx, "true") })
}

// readViewRows reads the rows of ducklake_view that satisfy where (alias v).
func (r *Reader) readViewRows(ctx context.Context, where string) ([]viewRow, error) {
	return scanAll(ctx, r, `SELECT view_id, view_uuid::VARCHAR, schema_id, view_name, dialect, sql, column_aliases, begin_snapshot, end_snapshot FROM cat.ducklake_view v WHERE `+where, func(x *viewRow) []any {
		return []any{&x.id, &x.uuid, &x.schema, &x.name, &x.dialect, &x.sql, &x.aliases, &x.begin, &x.end}
	})
}

// macroRows reads every macro implementation, with its parameters, once
// per reader.
func (r *Reader) macroRows(ctx context.Context) ([]macroRow, error) {
	return readOnce(&r.meta.extras.macros, func() ([]macroRow, error) { return r.readMacroRows(ctx, "true") })
}

// readMacroRows reads the macro implementations whose macro row (m)
// satisfies where. An implementation's parameters are listed in storage
// order, as DuckLake's readers list them (LIST() of the rows without ORDER
// BY; column_id is not read) and bind a call's arguments by that position:
// the same rows stored in another order are another macro. The list is
// JSON, each parameter's fields apart: a name may hold any separator. A
// macro without an implementation is one row with noImpl set (the readers
// fail on it: macroRow.noImpl).
func (r *Reader) readMacroRows(ctx context.Context, where string) ([]macroRow, error) {
	return scanAll(ctx, r, `SELECT m.schema_id, m.macro_name, m.macro_id, i.impl_id, i.dialect, i.sql, i.type,
		(SELECT to_json(list({'name': p.parameter_name, 'type': p.parameter_type, 'default': p.default_value, 'default_type': p.default_value_type} ORDER BY p.rowid))::VARCHAR
		 FROM cat.ducklake_macro_parameters p WHERE p.macro_id = m.macro_id AND p.impl_id = i.impl_id),
		m.begin_snapshot, m.end_snapshot, i.macro_id IS NULL
		FROM cat.ducklake_macro m LEFT JOIN cat.ducklake_macro_impl i ON i.macro_id = m.macro_id WHERE `+where, func(x *macroRow) []any {
		return []any{&x.schema, &x.name, &x.id, &x.impl, &x.dialect, &x.sql, &x.typ, &x.params, &x.begin, &x.end, &x.noImpl}
	})
}
