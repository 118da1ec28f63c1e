package compare

import (
	"context"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// projection is how one data file's columns become the table's columns.
// The project functions take src, read_parquet's first argument: the
// file's path as a string literal, or filesPlaceholder (see runWholes).
type projection struct {
	from    string   // the read_parquet call
	sel     []string // one aliased expression per table column, in order
	rowCol  string   // the column holding stored row ids ("" if none)
	snapCol string   // the column holding per-row snapshot ids ("" if none)
}

// projectByMapping reads a file added with a name mapping (mapping_id,
// ducklake_add_data_files): columns by source name, partition columns from
// the Hive path.
func (r *Reader) projectByMapping(ctx context.Context, t Table, f DataFile, src string, root *pnode, cols []*Column, kp string) (projection, error) {
	mapping, err := r.nameMapping(ctx, *f.MappingID)
	if err != nil {
		return projection{}, err
	}
	if root == nil {
		return projection{}, &UnsupportedError{What: "encrypted file with a name mapping"}
	}
	alias, col := byPositionNames(root)
	p := projection{from: fmt.Sprintf("read_parquet(%s, file_row_number = true, hive_partitioning = false%s)%s", src, kp, alias)}
	for _, c := range cols {
		pc, me := byMapping{}.match(root, c, mapping)
		var e string
		switch {
		case me != nil && me.isPartition:
			e, err = r.hiveValue(ctx, t, f.Path, me.source, c)
		case pc == nil:
			e, err = c.defaultExpr()
		default:
			e, err = valueExpr(col(pc), pc, c, byMapping{}, me, 0)
		}
		if err != nil {
			return projection{}, err
		}
		p.sel = append(p.sel, e+" AS "+ident(c.Name))
	}
	if pc := root.childByName("_ducklake_internal_row_id"); pc != nil {
		p.rowCol = col(pc)
	}
	if pc := root.childByName("_ducklake_internal_snapshot_id"); pc != nil {
		p.snapCol = col(pc)
	}
	return p, nil
}

// byPositionNames names a file's top-level columns by position, for a
// read_parquet call without a schema map: the alias to put after the call
// (AS __fdl_file("__fdl_c0", ...)) and each column's reference. The
// columns are matched by the Parquet reader's names (pnode.setChildren, as every
// DuckLake reader matches them) and then read by position, so that no SQL
// name resolution of read_parquet's output can pick another column; the
// virtual columns (file_row_number, file_index) keep their names.
func byPositionNames(root *pnode) (alias string, col func(*pnode) string) {
	names := make([]string, len(root.Children))
	at := make(map[*pnode]string, len(root.Children))
	for i, c := range root.Children {
		names[i] = ident(fmt.Sprintf("__fdl_c%d", i))
		at[c] = names[i]
	}
	if len(names) == 0 {
		return "", func(*pnode) string { return "" }
	}
	return " AS __fdl_file(" + strings.Join(names, ", ") + ")", func(c *pnode) string { return at[c] }
}

// projectUnmapped reads a file without a name mapping whose top-level
// columns do not all have field ids (none, or only some): by position, as
// DuckLake 1.0 does, or, for readers with formats.QuirkUnmappedFilesNull,
// by field id among the columns before the first without one (DuckDB's
// FieldIdMapper stops there), every other column its default: with no
// field ids at all, nothing but defaults. Such a file is read by name, not
// through read_parquet's schema map: DuckDB 1.5.6 fails a map over a file
// with only some field ids ("INTERNAL Error: No default expression in
// FieldId Map") and must then be reopened. Stored row ids and per-row
// snapshots are found by field id, as every reader finds them
// (TryFindColumnByFieldId).
func (r *Reader) projectUnmapped(src string, root *pnode, cols []*Column, kp string) (projection, error) {
	alias, col := byPositionNames(root)
	p := projection{from: fmt.Sprintf("read_parquet(%s, file_row_number = true, hive_partitioning = false%s)%s", src, kp, alias)}
	byPosition := !r.format.ReadsWith(formats.QuirkUnmappedFilesNull)
	for i, c := range cols {
		var pc *pnode
		switch {
		case byPosition && i < len(root.Children):
			// CreatePositionalMapping names the column by the
			// Parquet reader's i-th name, which NameMapper then finds:
			// those names are unique in any case (setChildren), so the
			// i-th column.
			pc = root.Children[i]
		case !byPosition:
			pc = root.childByLeadingID(c.ID)
		}
		var e string
		var err error
		if pc != nil {
			e, err = valueExpr(col(pc), pc, c, byFieldID{}, nil, 0)
		} else {
			e, err = c.defaultExpr()
		}
		if err != nil {
			return projection{}, err
		}
		p.sel = append(p.sel, e+" AS "+ident(c.Name))
	}
	if pc := root.childByID(rowIDFieldID); pc != nil {
		p.rowCol = col(pc)
	}
	if pc := root.childByID(snapshotFieldID); pc != nil {
		p.snapCol = col(pc)
	}
	return p, nil
}

// projectByFieldID reads a file by Parquet field id: DuckDB maps the ids to
// names, types and defaults through read_parquet's schema parameter; nested
// columns are read with the file's own shape and rebuilt field by field by
// valueExpr. root is nil for encrypted files (their schema cannot be read).
func projectByFieldID(src string, root *pnode, cols []*Column, kp string) (projection, error) {
	var p projection
	var entries []string
	for _, c := range cols {
		dt, err := c.DuckType()
		if err != nil {
			return projection{}, err
		}
		name := fmt.Sprintf("c%d", c.ID)
		var pc *pnode
		if root != nil {
			pc = root.childByID(c.ID)
		}
		typ := dt
		if pc != nil && c.nested() {
			typ = pc.physType()
		}
		def := "NULL"
		if d := c.readDefault(); d != nil && pc == nil {
			def = formats.SQLText(*d) // a NUL byte cuts a statement short
		}
		entries = append(entries, fmt.Sprintf("%d: {name: %s, type: %s, default_value: %s}", c.ID, sqlString(name), sqlString(typ), def))
		e := ident(name)
		switch {
		case pc != nil && c.nested():
			if e, err = valueExpr(e, pc, c, byFieldID{}, nil, 0); err != nil {
				return projection{}, err
			}
		case pc == nil && root != nil:
			if e, err = c.defaultExpr(); err != nil {
				return projection{}, err
			}
		}
		p.sel = append(p.sel, e+" AS "+ident(c.Name))
	}
	// A file known to have no stored row ids is read without the column:
	// COALESCE with an all-NULL column costs CPU on every row read.
	if root == nil || root.childByID(rowIDFieldID) != nil {
		entries = append(entries, fmt.Sprintf("%d: {name: '__fdl_rid', type: 'BIGINT', default_value: NULL}", rowIDFieldID))
		p.rowCol = "__fdl_rid"
	}
	entries = append(entries, fmt.Sprintf("%d: {name: '__fdl_snap', type: 'BIGINT', default_value: NULL}", snapshotFieldID))
	// The row-number option makes DuckDB refuse a file with a column named
	// file_row_number (any case), even one the schema map renames; without
	// it, read_parquet's virtual file_row_number column is the position, and
	// the map renames the data column out of its way (docs/compare.md).
	rowNumber := " file_row_number = true,"
	if root != nil && root.childByName("file_row_number") != nil {
		rowNumber = ""
	}
	p.from = fmt.Sprintf("read_parquet(%s, schema = MAP {%s},%s hive_partitioning = false%s)", src, strings.Join(entries, ", "), rowNumber, kp)
	p.snapCol = "__fdl_snap"
	return p, nil
}
