package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// timeNSUnreadable applies formats.QuirkTimeNSFilesUnreadable to a data
// file read at some snapshot with the table's columns cols: a file whose
// field for a time_ns column, at any depth, is a Parquet TIME (of any
// unit) fails the read (DuckDB 1.5.0 and 1.5.1 read it as TIME and have
// no cast to TIME_NS); a field stored as text (what DuckDB wrote for
// TIME_NS before it wrote TIME(NANOS)) reads. root is the file's footer
// schema; for an encrypted file (root nil, kp its key parameter), whose
// footer parquet_schema cannot read, the types DuckDB describes are asked,
// and any TIME among them counts as every time_ns field's (erring toward
// reporting).
func (r *Reader) timeNSUnreadable(ctx context.Context, t Table, f DataFile, root *pnode, cols []*Column, kp string) error {
	q := formats.QuirkTimeNSFilesUnreadable
	// A catalog B of a format only whose first releases read so (1.0:
	// DuckDB 1.5.2-1.5.5; EarlyQuirks) is held to them too, as for
	// deleteHiveColumns: what this tool writes must read in every release.
	if (!r.readsWith(q) && (r.asSource || !r.format.EarlyReadsWith(q))) || !anyTimeNS(cols) {
		return nil
	}
	field, err := r.timeNSField(ctx, t, f, root, cols, kp)
	if err != nil || field == "" {
		return err
	}
	return r.unreadable(q, t, "data file %s holds %s, a time_ns field, as a Parquet TIME, which DuckDB 1.5.0-1.5.5 read as TIME and cannot cast to TIME_NS (\"Unimplemented type for cast (TIME -> TIME_NS)\")", oneline.Name(r.relPath(f.Path)), field)
}

// timeNSField names the first field of a time_ns column of cols that data
// file f holds as a Parquet TIME (timeNSUnreadable's root and kp), or "".
func (r *Reader) timeNSField(ctx context.Context, t Table, f DataFile, root *pnode, cols []*Column, kp string) (string, error) {
	var field string
	switch {
	case root == nil:
		types, err := r.strings(ctx, fmt.Sprintf("SELECT column_type FROM (DESCRIBE SELECT * FROM read_parquet(%s, hive_partitioning = false%s))", parquetsql.Path(f.Path), kp))
		if err != nil {
			return "", fmt.Errorf("describe data file %s of %s: %w", oneline.Name(r.relPath(f.Path)), t.Shown(), err)
		}
		for _, typ := range types {
			if holdsParquetTime(typ) {
				field = firstTimeNS(cols, "")
			}
		}
	case f.MappingID != nil:
		mapping, err := r.nameMapping(ctx, *f.MappingID)
		if err != nil {
			return "", err
		}
		for _, c := range cols {
			if pc, me := (byMapping{}).match(root, c, mapping); pc != nil && field == "" {
				field = timeNSIn(pc, c, byMapping{}, me, c.Name)
			}
		}
	default:
		leading := !root.allFieldIDs()
		for _, c := range cols {
			pc := root.childByID(c.ID)
			if leading {
				pc = root.childByLeadingID(c.ID)
			}
			if pc != nil && field == "" {
				field = timeNSIn(pc, c, byFieldID{}, nil, c.Name)
			}
		}
	}
	return field, nil
}

// TimeNSFiles names the data files of the catalog whose field of a
// time_ns column is a Parquet TIME ("schema.table.field: data file path
// (table id N)"), at any snapshot where the file is visible and the column
// is time_ns, where only the first releases of the catalog's format fail
// every read of such a table (formats.QuirkTimeNSFilesUnreadable among its
// EarlyQuirks and not its Quirks; 1.0: DuckDB 1.5.2-1.5.5); nil for other
// formats (a 0.4 catalog is reported by the proof) and for a catalog with
// no time_ns column (one query). check warns of them in a frozen catalog,
// which this tool did not write and the proof reads as its source, as
// DuckDB 1.5.6 reads it.
func (r *Reader) TimeNSFiles(ctx context.Context) ([]string, error) {
	q := formats.QuirkTimeNSFilesUnreadable
	if r.format == nil || r.format.ReadsWith(q) || !r.format.EarlyReadsWith(q) {
		return nil, nil
	}
	ids, err := r.int64s(ctx, `SELECT DISTINCT table_id FROM cat.ducklake_column WHERE lower(trim(column_type)) = 'time_ns' ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("read the time_ns columns of %s: %w", oneline.Name(r.path), err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	// A file is examined once for each set of columns it is read with:
	// the snapshots after the one it came in read it alike until a
	// column changes.
	checked := map[string]bool{}
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		for _, t := range tables {
			if !slices.Contains(ids, t.ID) {
				continue
			}
			cols, err := r.Columns(ctx, t.ID, s.ID)
			if err != nil {
				return nil, err
			}
			if !anyTimeNS(cols) {
				continue
			}
			files, err := r.files(ctx, t, s.ID)
			if err != nil {
				return nil, err
			}
			colsKey := columnsKey(cols)
			for _, f := range files {
				if checked[f.Path] || checked[f.Path+"\x00"+colsKey] {
					continue
				}
				checked[f.Path+"\x00"+colsKey] = true
				name := oneline.Name(r.relPath(f.Path))
				kp, err := r.keyParam(ctx, f.encryptionKey)
				if err != nil {
					return nil, fmt.Errorf("data file %s of %s: %w", name, t.Shown(), err)
				}
				var root *pnode
				if kp == "" {
					if root, err = r.parquetSchema(ctx, f.Path); err != nil {
						return nil, fmt.Errorf("read the footer of data file %s of %s: %w", name, t.Shown(), err)
					}
				}
				field, err := r.timeNSField(ctx, t, f, root, cols, kp)
				if err != nil {
					return nil, err
				}
				if field != "" {
					checked[f.Path] = true // reported once
					out = append(out, fmt.Sprintf("%s.%s: data file %s (table id %d)", t.FullName(), field, name, t.ID))
				}
			}
		}
	}
	return out, nil
}

// columnsKey identifies the columns a file is read with, at any depth:
// their ids, names and types.
func columnsKey(cols []*Column) string {
	var b strings.Builder
	var walk func([]*Column)
	walk = func(cs []*Column) {
		for _, c := range cs {
			fmt.Fprintf(&b, "%d %q %q(", c.ID, c.Name, c.Type)
			walk(c.Children)
			b.WriteString(")")
		}
	}
	walk(cols)
	return b.String()
}

// isParquetTime tells whether DuckDB (1.5.6) reads a Parquet leaf as TIME
// or TIME_NS: a TIME logical type of any unit, which DuckDB 1.5.0 and 1.5.1
// read as TIME.
func isParquetTime(duckType string) bool {
	return strings.EqualFold(duckType, "TIME") || strings.EqualFold(duckType, "TIME_NS")
}

// holdsParquetTime tells whether a column type DuckDB describes (nested
// types spelled out) holds a TIME or TIME_NS, not TIME WITH TIME ZONE nor
// a TIMESTAMP.
func holdsParquetTime(typ string) bool {
	typ = strings.NewReplacer("TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ", "TIME WITH TIME ZONE", "TIMETZ").Replace(typ)
	for _, w := range strings.FieldsFunc(typ, func(r rune) bool { return (r < 'A' || r > 'Z') && r != '_' }) {
		if w == "TIME" || w == "TIME_NS" {
			return true
		}
	}
	return false
}

// isTimeNS tells whether a column's type is time_ns.
func isTimeNS(c *Column) bool { return formats.TypeIs(strings.TrimSpace(c.Type), "time_ns") }

// anyTimeNS tells whether any of the columns is or holds a time_ns field.
func anyTimeNS(cols []*Column) bool { return firstTimeNS(cols, "") != "" }

// firstTimeNS names the first time_ns field of the columns (path is the
// parent's; "" at the top level), or "".
func firstTimeNS(cols []*Column, path string) string {
	for _, c := range cols {
		p := c.Name
		if path != "" {
			p = path + "." + c.Name
		}
		if isTimeNS(c) {
			return p
		}
		if m := firstTimeNS(c.Children, p); m != "" {
			return m
		}
	}
	return ""
}

// timeNSIn names the first time_ns field of column c that the file's node
// phys holds as a Parquet TIME (found as valueExpr finds fields: by field
// id or through the name mapping, a list's element and a map's key and
// value by position), or "".
func timeNSIn(phys *pnode, c *Column, mt matcher, m *mapEntry, path string) string {
	if isTimeNS(c) {
		if phys.Kind == "leaf" && isParquetTime(phys.DuckType) {
			return path
		}
		return ""
	}
	if !c.nested() || phys.Kind == "leaf" {
		return ""
	}
	switch formats.ASCIILower(c.Type) {
	case "struct":
		if phys.Kind != "struct" {
			return ""
		}
		for _, ch := range c.Children {
			if pc, me := mt.match(phys, ch, m); pc != nil {
				if f := timeNSIn(pc, ch, mt, me, path+"."+ch.Name); f != "" {
					return f
				}
			}
		}
	case "list":
		if phys.Kind != "list" || len(phys.Children) != 1 || len(c.Children) != 1 {
			return ""
		}
		var me *mapEntry
		if m != nil && len(m.children) > 0 {
			me = m.children[0]
		}
		return timeNSIn(phys.Children[0], c.Children[0], mt, me, path+"."+c.Children[0].Name)
	case "map":
		if phys.Kind != "map" || len(phys.Children) != 2 || len(c.Children) != 2 {
			return ""
		}
		for i := range 2 {
			var me *mapEntry
			if m != nil {
				for _, ch := range m.children {
					if ch.target == c.Children[i].ID {
						me = ch
					}
				}
			}
			if f := timeNSIn(phys.Children[i], c.Children[i], mt, me, path+"."+c.Children[i].Name); f != "" {
				return f
			}
		}
	}
	return ""
}
