package formats

import (
	"cmp"
	"database/sql"
	"fmt"
	"slices"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// LoadRows are the rows of a catalog that every release line's reader
// checks when it loads the whole catalog at a snapshot
// (DuckLakeMetadataManager::GetCatalogForSnapshot,
// DuckLakeCatalog::LoadSchemaForSnapshot), before any table is read: the
// schemas, tables, views and macros, each in storage order. compare (the
// proof, the frozen catalog's self-read) and convert (which refuses such a
// source) read them each their own way and ask LoadRefusal.
type LoadRows struct {
	Schemas []LoadSchema
	Tables  []LoadTable
	// WithColumns is the table_ids that have a ducklake_column row at any
	// snapshot: the readers' LEFT JOIN gives a table without one a NULL
	// column, and they fail.
	WithColumns map[int64]bool
	// ColumnSpans, where given, is by table_id the snapshots at which
	// some ducklake_column row of the table is visible (ColumnSpans):
	// the readers' LEFT JOIN, filtered by "the column is visible or
	// column_id IS NULL", gives a table with column rows none of which
	// is visible no row at all, and the table is not loaded (Loaded).
	// Nil: every table with a column row is taken as loaded.
	ColumnSpans map[int64][]Span
	Views       []LoadView
	// Macros, of formats with macros (CapMacros) only: one row per
	// implementation, or one with NoImpl for a macro without any.
	Macros []LoadMacro
	// Columns and ColumnTags, where given, are checked too
	// (ColumnsLoadRefusal): the top-level columns' names and tags. The
	// proof checks them where it reads a table instead, and leaves them
	// out.
	Columns    []LoadColumn
	ColumnTags []LoadColumnTag
	// ColumnTree, where given, is every ducklake_column row, top-level
	// and nested (Parent set), of each table that has a nested one or a
	// negative column_id (ColumnTreeQuery; the load fails on that): the
	// readers add a visible nested field to its parent as they read the
	// visible rows in the order parent_column, column_order, and fail
	// where the parent is not among the columns added before it
	// (ParentRefusal).
	ColumnTree []LoadColumn
	// TableRefs, where given, are checked too: the partition specs (with
	// a ducklake_partition_column row) and sort hints (with a
	// ducklake_sort_expression row) the readers load after every table,
	// view and macro and look their table up by id. The proof checks
	// them where it describes the schema (compare's strayTableEntries)
	// instead, and leaves them out.
	TableRefs []LoadTableRef
}

// LoadTableRef is a partition spec or sort hint naming a table by id.
type LoadTableRef struct {
	Kind       string // "partition spec" or "sort hint"
	TableID    sql.NullInt64
	Begin, End sql.NullInt64
}

// LoadColumn is a ducklake_column row: a top-level one (Parent NULL) in
// LoadRows.Columns, any in LoadRows.ColumnTree.
type LoadColumn struct {
	TableID, ID, Order sql.NullInt64
	Parent             sql.NullInt64
	Name               sql.NullString
	Begin, End         sql.NullInt64
}

// LoadColumnTag is a ducklake_column_tag row whose value is not NULL (the
// readers skip a NULL one: LoadTags).
type LoadColumnTag struct {
	TableID, ColumnID sql.NullInt64
	Key               sql.NullString
	Begin, End        sql.NullInt64
}

// LoadSchema is a ducklake_schema row.
type LoadSchema struct {
	ID         sql.NullInt64
	Name       sql.NullString
	Begin, End sql.NullInt64
}

// LoadTable is a ducklake_table row.
type LoadTable struct {
	ID, SchemaID sql.NullInt64
	Name         sql.NullString
	Begin, End   sql.NullInt64
}

// LoadView is a ducklake_view row.
type LoadView struct {
	SchemaID      sql.NullInt64
	Name, Aliases sql.NullString
	Begin, End    sql.NullInt64
}

// LoadMacro is a ducklake_macro row joined with one of its
// ducklake_macro_impl rows.
type LoadMacro struct {
	SchemaID   sql.NullInt64
	Name, Type sql.NullString
	NoImpl     bool
	Begin, End sql.NullInt64
}

// Span is the snapshots Begin <= s < End (no end where Open) at which
// some row of a group is visible.
type Span struct {
	Begin, End int64
	Open       bool
}

// ColumnSpans is spans (each a row's begin_snapshot and end_snapshot; a
// NULL begin is never visible, a NULL end never ends) merged: sorted,
// disjoint, none empty.
func ColumnSpans(rows [][2]sql.NullInt64) []Span {
	var in []Span
	for _, r := range rows {
		if !r[0].Valid || r[1].Valid && r[1].Int64 <= r[0].Int64 {
			continue
		}
		in = append(in, Span{Begin: r[0].Int64, End: r[1].Int64, Open: !r[1].Valid})
	}
	slices.SortFunc(in, func(a, b Span) int { return cmp.Compare(a.Begin, b.Begin) })
	var out []Span
	for _, x := range in {
		if n := len(out); n > 0 && (out[n-1].Open || x.Begin <= out[n-1].End) {
			last := &out[n-1]
			last.Open = last.Open || x.Open
			last.End = max(last.End, x.End)
			continue
		}
		out = append(out, x)
	}
	return out
}

// SpansHold says whether snap is in one of spans (ColumnSpans).
func SpansHold(spans []Span, snap int64) bool {
	for _, x := range spans {
		if snap >= x.Begin && (x.Open || snap < x.End) {
			return true
		}
	}
	return false
}

// Loaded says whether the readers' load at snap takes table id, visible
// there, in: not when it has column rows of which none is visible at snap
// (GetCatalogForSnapshot's join gives it no row; ColumnSpans). A table
// without any column row is taken in, and fails the load.
func (rows *LoadRows) Loaded(id, snap int64) bool {
	return rows.ColumnSpans == nil || !rows.WithColumns[id] || SpansHold(rows.ColumnSpans[id], snap)
}

// VisibleAt is the snapshot filter of a catalog row: a NULL begin_snapshot
// is never visible, a NULL end_snapshot never ends.
func VisibleAt(begin, end sql.NullInt64, snap int64) bool {
	return begin.Valid && snap >= begin.Int64 && (!end.Valid || snap < end.Int64)
}

// LoadRefusal says why every DuckLake reader's load of the catalog rows at
// snap fails, "" when the rows load (v1.3-ossivalis, v1.4-andium,
// v1.5-variegata and main alike): a visible table whose schema is not
// visible, a table without any column row, a table_id with two visible
// rows (its columns are joined once per row and added twice), a table,
// view or macro of a visible schema named, in any ASCII letter case, as a
// schema stored before it (LoadSchemaForSnapshot keeps the first of a
// name), a view or macro whose schema is not visible, view column_aliases
// ParseQuotedList cannot parse, a macro without an implementation or with
// one of another type than 'scalar' or 'table'; and, where rows holds
// them, two top-level columns of a table named alike and a column tag
// other than a comment (ColumnsLoadRefusal). A visible table with column
// rows none of which is visible at snap is not loaded (Loaded): none of
// this is asked of it. Where rows holds them (TableRefs), a visible
// partition spec or sort hint of no loaded table fails the load too. The
// types the readers cannot parse are the caller's.
func LoadRefusal(rows *LoadRows, snap int64) string {
	// schemaVisible: the metadata manager's schemas, by id; schemaKept:
	// those LoadSchemaForSnapshot keeps, the first in scan order of each
	// name in any letter case (a case-insensitive map's insert), through
	// which it finds the schema of each table, view and macro.
	schemaVisible, schemaKept := map[int64]bool{}, map[int64]bool{}
	keptName := map[string]string{}
	for _, s := range rows.Schemas {
		if s.ID.Valid && VisibleAt(s.Begin, s.End, snap) {
			if s.ID.Int64 < 0 {
				return fmt.Sprintf("schema %s has schema_id %d (%s)", oneline.Name(s.Name.String), s.ID.Int64, negativeID)
			}
			schemaVisible[s.ID.Int64] = true
			if _, ok := keptName[ASCIILower(s.Name.String)]; !ok {
				keptName[ASCIILower(s.Name.String)] = s.Name.String
				schemaKept[s.ID.Int64] = true
			}
		}
	}
	dropped := func(id int64) string {
		for _, s := range rows.Schemas {
			if s.ID.Valid && s.ID.Int64 == id && VisibleAt(s.Begin, s.End, snap) {
				return fmt.Sprintf("its schema %s (id %d) is named as schema %s, stored before it, in any letter case, and the readers keep only the first", oneline.Name(s.Name.String), id, oneline.Name(keptName[ASCIILower(s.Name.String)]))
			}
		}
		return ""
	}
	// notLoaded is why the readers' load fails on a view or macro (what)
	// whose schema they do not keep, or "" when they keep it.
	notLoaded := func(what, name string, schema sql.NullInt64) string {
		if schema.Valid && schemaKept[schema.Int64] {
			return ""
		}
		why := fmt.Sprintf("names schema id %s, which no visible schema has", idText(schema))
		if schema.Valid && schemaVisible[schema.Int64] {
			why = dropped(schema.Int64)
		}
		return fmt.Sprintf("%s %s: %s (Failed to load DuckLake - could not find schema that corresponds to the %s entry \"%s\")",
			what, oneline.Name(name), why, what, oneline.Name(name))
	}
	// GetCatalogForSnapshot, in table_id order: the schema, then the
	// columns.
	rowsOf := map[int64]int{}
	first := map[int64]LoadTable{}
	var ids []int64
	for _, t := range rows.Tables {
		if !t.ID.Valid || !VisibleAt(t.Begin, t.End, snap) || !rows.Loaded(t.ID.Int64, snap) {
			continue
		}
		if rowsOf[t.ID.Int64] == 0 {
			ids = append(ids, t.ID.Int64)
			first[t.ID.Int64] = t
		}
		rowsOf[t.ID.Int64]++
	}
	slices.Sort(ids)
	for _, id := range ids {
		t := first[id]
		if id < 0 || t.SchemaID.Valid && t.SchemaID.Int64 < 0 {
			return fmt.Sprintf("table %s has table_id %d and schema_id %s (%s)", oneline.Name(t.Name.String), id, idText(t.SchemaID), negativeID)
		}
		if !t.SchemaID.Valid || !schemaVisible[t.SchemaID.Int64] {
			return fmt.Sprintf("table %s (id %d) names schema id %s, which no visible schema has (Failed to load DuckLake - table with id %d references schema id %s that does not exist)",
				oneline.Name(t.Name.String), id, idText(t.SchemaID), id, idText(t.SchemaID))
		}
		if !rows.WithColumns[id] {
			return fmt.Sprintf("table %s (id %d) has no ducklake_column row (Failed to load DuckLake - Table entry \"%s\" does not have any columns)", oneline.Name(t.Name.String), id, oneline.Name(t.Name.String))
		}
		if why := columnIDsRefusal(rows, id, snap); why != "" {
			return fmt.Sprintf("table %s (id %d): %s", oneline.Name(t.Name.String), id, why)
		}
		if why := ParentRefusal(rows.ColumnTree, id, snap); why != "" {
			return fmt.Sprintf("table %s (id %d): %s", oneline.Name(t.Name.String), id, why)
		}
	}
	for _, id := range ids {
		t := first[id]
		if !schemaKept[t.SchemaID.Int64] {
			return fmt.Sprintf("table %s (id %d): %s (Failed to load DuckLake - could not find schema that corresponds to the table entry \"%s\")", oneline.Name(t.Name.String), id, dropped(t.SchemaID.Int64), oneline.Name(t.Name.String))
		}
		if n := rowsOf[id]; n > 1 {
			return fmt.Sprintf("table %s (id %d) has %d ducklake_table rows visible: the readers join its columns once per row and add each twice (Column with name ... already exists!)", oneline.Name(t.Name.String), id, n)
		}
	}
	if why := ColumnsLoadRefusal(rows, snap); why != "" {
		return why
	}
	for _, v := range rows.Views {
		if !VisibleAt(v.Begin, v.End, snap) {
			continue
		}
		if v.SchemaID.Valid && v.SchemaID.Int64 < 0 {
			return fmt.Sprintf("view %s has schema_id %d (%s)", oneline.Name(v.Name.String), v.SchemaID.Int64, negativeID)
		}
		if v.Aliases.Valid {
			if err := QuotedListParses(v.Aliases.String); err != "" {
				return fmt.Sprintf("view %s has column_aliases %q (%s)", oneline.Name(v.Name.String), v.Aliases.String, err)
			}
		}
		if why := notLoaded("view", v.Name.String, v.SchemaID); why != "" {
			return why
		}
	}
	for _, m := range rows.Macros {
		if !VisibleAt(m.Begin, m.End, snap) {
			continue
		}
		if m.SchemaID.Valid && m.SchemaID.Int64 < 0 {
			return fmt.Sprintf("macro %s has schema_id %d (%s)", oneline.Name(m.Name.String), m.SchemaID.Int64, negativeID)
		}
		if why := notLoaded("macro", m.Name.String, m.SchemaID); why != "" {
			return why
		}
		if m.NoImpl {
			return fmt.Sprintf("macro %s has no ducklake_macro_impl row (Calling ListValue::GetChildren on a NULL value)", oneline.Name(m.Name.String))
		}
		// CreateMacroInfoFromDucklake knows the two types, in lower
		// case.
		if m.Type.String != "scalar" && m.Type.String != "table" {
			return fmt.Sprintf("macro %s has an implementation of type %q (Macro type %s is not implemented)", oneline.Name(m.Name.String), m.Type.String, m.Type.String)
		}
	}
	// The partition specs, then the sort hints, whose table the readers
	// look up by id among the tables they loaded (LoadSchemaForSnapshot:
	// GetEntryById, a table entry).
	loaded := map[int64]bool{}
	for _, id := range ids {
		loaded[id] = true
	}
	for _, kind := range []string{"partition spec", "sort hint"} {
		for _, x := range rows.TableRefs {
			if x.Kind != kind || !VisibleAt(x.Begin, x.End, snap) || x.TableID.Valid && loaded[x.TableID.Int64] {
				continue
			}
			entry := "partition"
			if kind == "sort hint" {
				entry = "sort"
			}
			return fmt.Sprintf("a %s of table_id %s: no table with this id is loaded at the snapshot (Could not find matching table for %s entry)", kind, idText(x.TableID), entry)
		}
	}
	return ""
}

// ChangePoints are the snapshots where a row of rows begins or ends,
// sorted, each once: LoadRefusal's answer changes only there.
func (rows *LoadRows) ChangePoints() []int64 {
	var points []int64
	mark := func(begin, end sql.NullInt64) {
		for _, v := range []sql.NullInt64{begin, end} {
			if v.Valid {
				points = append(points, v.Int64)
			}
		}
	}
	for _, x := range rows.Schemas {
		mark(x.Begin, x.End)
	}
	for _, x := range rows.Tables {
		mark(x.Begin, x.End)
	}
	for _, x := range rows.Views {
		mark(x.Begin, x.End)
	}
	for _, x := range rows.Macros {
		mark(x.Begin, x.End)
	}
	for _, x := range rows.Columns {
		mark(x.Begin, x.End)
	}
	for _, x := range rows.ColumnTags {
		mark(x.Begin, x.End)
	}
	for _, x := range rows.ColumnTree {
		mark(x.Begin, x.End)
	}
	for _, x := range rows.TableRefs {
		mark(x.Begin, x.End)
	}
	for _, spans := range rows.ColumnSpans {
		for _, x := range spans {
			points = append(points, x.Begin)
			if !x.Open {
				points = append(points, x.End)
			}
		}
	}
	slices.Sort(points)
	return slices.Compact(points)
}

// MayRefuse says whether LoadRefusal can refuse the rows at any snapshot:
// false only when no row is a witness of any of its conditions at any
// snapshot (no view or macro; no two schema rows named alike; every table
// row inside a row of its schema; every table with a column row; no two
// rows of one table, nor two top-level columns of one table named alike,
// visible together; no tag other than a comment; every partition spec and
// sort hint inside a row of its table, and a span of its columns). A
// caller that would
// ask LoadRefusal at every epoch of a wide catalog (convert: 3,500
// snapshots, 700 epochs) asks nothing more when it is false.
func (rows *LoadRows) MayRefuse() bool {
	if len(rows.Views) > 0 || len(rows.Macros) > 0 {
		return true
	}
	// A negative id the load reads (columnIDsRefusal and the rest).
	negative := func(v sql.NullInt64) bool { return v.Valid && v.Int64 < 0 }
	if slices.ContainsFunc(rows.Schemas, func(x LoadSchema) bool { return negative(x.ID) }) ||
		slices.ContainsFunc(rows.Tables, func(x LoadTable) bool { return negative(x.ID) || negative(x.SchemaID) }) ||
		slices.ContainsFunc(append(slices.Clip(rows.Columns), rows.ColumnTree...), func(x LoadColumn) bool { return negative(x.ID) || negative(x.Parent) }) {
		return true
	}
	names := map[string]bool{}
	for _, s := range rows.Schemas {
		k := ASCIILower(s.Name.String)
		if names[k] || !s.ID.Valid {
			return true
		}
		names[k] = true
	}
	type interval struct{ begin, end sql.NullInt64 }
	inside := func(in, out interval) bool {
		return in.begin.Valid && out.begin.Valid && out.begin.Int64 <= in.begin.Int64 &&
			(!out.end.Valid || in.end.Valid && in.end.Int64 <= out.end.Int64)
	}
	overlap := func(group map[string][]interval, key string, x interval) bool {
		for _, y := range group[key] {
			if x.begin.Valid && y.begin.Valid &&
				(!x.end.Valid || y.begin.Int64 < x.end.Int64) && (!y.end.Valid || x.begin.Int64 < y.end.Int64) {
				return true
			}
		}
		group[key] = append(group[key], x)
		return false
	}
	tables := map[string][]interval{}
	for _, t := range rows.Tables {
		if !t.ID.Valid {
			continue
		}
		x := interval{t.Begin, t.End}
		if !t.SchemaID.Valid || !rows.WithColumns[t.ID.Int64] || overlap(tables, fmt.Sprint(t.ID.Int64), x) {
			return true
		}
		if !slices.ContainsFunc(rows.Schemas, func(s LoadSchema) bool {
			return s.ID.Int64 == t.SchemaID.Int64 && inside(x, interval{s.Begin, s.End})
		}) {
			return true
		}
	}
	// A partition spec or sort hint inside a row of its table, and
	// inside a span of the table's visible columns where they are given.
	for _, x := range rows.TableRefs {
		in := interval{x.Begin, x.End}
		if !x.TableID.Valid || !slices.ContainsFunc(rows.Tables, func(t LoadTable) bool {
			return t.ID.Valid && t.ID.Int64 == x.TableID.Int64 && inside(in, interval{t.Begin, t.End})
		}) {
			return true
		}
		if rows.ColumnSpans != nil && !slices.ContainsFunc(rows.ColumnSpans[x.TableID.Int64], func(c Span) bool {
			end := sql.NullInt64{Int64: c.End, Valid: !c.Open}
			return inside(in, interval{sql.NullInt64{Int64: c.Begin, Valid: true}, end})
		}) {
			return true
		}
	}
	// A nested field inside a row of its parent that the readers add
	// before it: a top-level column, or a field whose parent_column is
	// less than its own column_id (ParentRefusal).
	for _, x := range rows.ColumnTree {
		if !x.Parent.Valid {
			continue
		}
		if !slices.ContainsFunc(rows.ColumnTree, func(p LoadColumn) bool {
			return p.TableID == x.TableID && p.ID.Valid && p.ID == x.Parent && inside(interval{x.Begin, x.End}, interval{p.Begin, p.End}) &&
				(!p.Parent.Valid || p.Parent.Int64 < p.ID.Int64)
		}) {
			return true
		}
	}
	columns := map[string][]interval{}
	for _, c := range rows.Columns {
		if c.TableID.Valid && overlap(columns, fmt.Sprint(c.TableID.Int64, "\x00", ASCIILower(c.Name.String)), interval{c.Begin, c.End}) {
			return true
		}
	}
	return slices.ContainsFunc(rows.ColumnTags, func(x LoadColumnTag) bool { return ColumnTagRefused("", 0, x.Key.String) != "" })
}

// ColumnNamesClash says why the readers' load fails on a table's
// top-level column names (in column order), "" when it does not: two
// names that are one in any ASCII letter case (DuckDB's ColumnList names
// are case-insensitive: "Column with name ... already exists!").
func ColumnNamesClash(names []string) string {
	seen := map[string]string{}
	for _, n := range names {
		k := ASCIILower(n)
		if other, ok := seen[k]; ok {
			return fmt.Sprintf("columns %q and %q are one name in any letter case (Column with name %s already exists!)", other, n, n)
		}
		seen[k] = n
	}
	return ""
}

// ColumnTagRefused says why the readers' load fails on a visible tag of a
// top-level column with a non-NULL value, "" when it does not: every key
// but "comment" (LoadSchemaForSnapshot: "Only comment tags are supported
// for columns currently").
func ColumnTagRefused(column string, id int64, key string) string {
	if key == "comment" {
		return ""
	}
	return fmt.Sprintf("column %s (id %d) has the tag %q, not a comment (Only comment tags are supported for columns currently)", column, id, key)
}

// ColumnsLoadRefusal says why the readers' load at snap fails on the
// top-level columns of a visible table (rows.Columns, rows.ColumnTags),
// "" when it does not; the table is named. Tables are taken in table_id
// order, as the readers load them.
func ColumnsLoadRefusal(rows *LoadRows, snap int64) string {
	if len(rows.Columns) == 0 {
		return ""
	}
	names := map[int64]string{}
	for _, t := range rows.Tables {
		if t.ID.Valid && VisibleAt(t.Begin, t.End, snap) {
			names[t.ID.Int64] = t.Name.String
		}
	}
	cols := map[int64][]LoadColumn{}
	for _, c := range rows.Columns {
		if c.TableID.Valid && VisibleAt(c.Begin, c.End, snap) {
			if _, ok := names[c.TableID.Int64]; ok {
				cols[c.TableID.Int64] = append(cols[c.TableID.Int64], c)
			}
		}
	}
	for _, id := range rows.VisibleTableIDs(snap) {
		cs := cols[id]
		slices.SortStableFunc(cs, func(a, b LoadColumn) int { return cmp.Compare(a.Order.Int64, b.Order.Int64) })
		ns := make([]string, len(cs))
		for i, c := range cs {
			ns[i] = c.Name.String
		}
		why := ColumnNamesClash(ns)
		for _, x := range rows.ColumnTags {
			if why != "" {
				break
			}
			if !x.TableID.Valid || x.TableID.Int64 != id || !x.ColumnID.Valid || !VisibleAt(x.Begin, x.End, snap) {
				continue
			}
			for _, c := range cs {
				if c.ID.Valid && c.ID.Int64 == x.ColumnID.Int64 {
					why = ColumnTagRefused(c.Name.String, c.ID.Int64, x.Key.String)
				}
			}
		}
		if why != "" {
			return fmt.Sprintf("table %s (id %d): %s", oneline.Name(names[id]), id, why)
		}
	}
	return ""
}

// VisibleTableIDs is the table_ids of the rows' tables visible at snap
// that the readers' load takes in (Loaded), sorted, each once.
func (rows *LoadRows) VisibleTableIDs(snap int64) []int64 {
	var ids []int64
	for _, t := range rows.Tables {
		if t.ID.Valid && VisibleAt(t.Begin, t.End, snap) && rows.Loaded(t.ID.Int64, snap) {
			ids = append(ids, t.ID.Int64)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func idText(v sql.NullInt64) string {
	if !v.Valid {
		return "NULL"
	}
	return fmt.Sprint(v.Int64)
}

// QuotedListParses says why DuckLake's DuckLakeUtil::ParseQuotedList
// (every release line) fails on a view's column_aliases, "" when it
// parses: the empty text, or double-quoted values ("" within one is a
// quote) separated by single commas, nothing else.
func QuotedListParses(s string) string {
	if s == "" {
		return ""
	}
	pos := 0
	for {
		if pos >= len(s) || s[pos] != '"' {
			return "Failed to parse quoted value - expected a quote"
		}
		pos++
		for {
			if pos >= len(s) {
				return "Failed to parse quoted value - unterminated quote"
			}
			if s[pos] == '"' {
				pos++
				if pos < len(s) && s[pos] == '"' {
					pos++
					continue
				}
				break
			}
			pos++
		}
		if pos >= len(s) {
			return ""
		}
		if s[pos] != ',' {
			return "Failed to parse list - expected a ,"
		}
		pos++
	}
}

// ParentRefusal says why the readers' load at snap fails on the nested
// fields of table id (cols: LoadRows.ColumnTree), "" when it does not.
// GetCatalogForSnapshot reads a table's visible column rows ordered by
// parent_column (NULLs, the top-level columns, first), then column_order,
// and adds each nested field to the column whose column_id is its
// parent_column among those added before it (AddChildColumn; v1.3-ossivalis,
// v1.4-andium, v1.5-variegata and main alike): a field whose parent is not
// visible at snap, or is a field added after it (its own parent_column
// greater than its column_id), fails the load ("Could not find parent
// column for column ...").
func ParentRefusal(cols []LoadColumn, id, snap int64) string {
	var nested []LoadColumn
	added := map[int64]bool{}
	for _, c := range cols {
		if !c.TableID.Valid || c.TableID.Int64 != id || !VisibleAt(c.Begin, c.End, snap) {
			continue
		}
		if !c.Parent.Valid {
			added[c.ID.Int64] = c.ID.Valid
			continue
		}
		nested = append(nested, c)
	}
	slices.SortStableFunc(nested, func(a, b LoadColumn) int {
		return cmp.Or(cmp.Compare(a.Parent.Int64, b.Parent.Int64), cmp.Compare(a.Order.Int64, b.Order.Int64))
	})
	for _, c := range nested {
		if !added[c.Parent.Int64] {
			why := "no column with this id is visible"
			if slices.ContainsFunc(nested, func(p LoadColumn) bool { return p.ID.Valid && p.ID.Int64 == c.Parent.Int64 }) {
				why = "the readers add that field after this one (they add fields in parent_column, then column_order, order)"
			}
			return fmt.Sprintf("field %s (id %s) has parent_column %d: %s (Failed to load DuckLake - Could not find parent column for column %s)",
				oneline.Name(c.Name.String), idText(c.ID), c.Parent.Int64, why, oneline.Name(c.Name.String))
		}
		if c.ID.Valid {
			added[c.ID.Int64] = true
		}
	}
	return ""
}

// negativeID is why the readers' load fails on a negative id it reads.
const negativeID = "every release line's load reads it with GetValue<uint64_t>, and a negative value fails its cast to UBIGINT: out of range"

// columnIDsRefusal says why the readers' load at snap fails on the ids of
// table id's visible column rows (rows.Columns and rows.ColumnTree, where
// given), "" when it does not: a negative column_id or parent_column,
// which GetCatalogForSnapshot reads with GetValue<uint64_t> (negativeID).
func columnIDsRefusal(rows *LoadRows, id, snap int64) string {
	for _, group := range [][]LoadColumn{rows.Columns, rows.ColumnTree} {
		for _, c := range group {
			if !c.TableID.Valid || c.TableID.Int64 != id || !VisibleAt(c.Begin, c.End, snap) {
				continue
			}
			if c.ID.Valid && c.ID.Int64 < 0 || c.Parent.Valid && c.Parent.Int64 < 0 {
				return fmt.Sprintf("column %s has column_id %s and parent_column %s (%s)", oneline.Name(c.Name.String), idText(c.ID), idText(c.Parent), negativeID)
			}
		}
	}
	return ""
}

// ColumnTreeQuery selects LoadRows.ColumnTree from the ducklake_column of
// the catalog named prefix ("cat." or ""): table_id, column_id,
// column_order, column_name, parent_column, begin_snapshot, end_snapshot.
func ColumnTreeQuery(prefix string) string {
	return `SELECT table_id, column_id, column_order, column_name, parent_column, begin_snapshot, end_snapshot FROM ` + prefix + `ducklake_column
		WHERE table_id IN (SELECT table_id FROM ` + prefix + `ducklake_column WHERE parent_column IS NOT NULL OR column_id < 0)`
}
