package formats

import (
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
	Views       []LoadView
	// Macros, of formats with macros (CapMacros) only: one row per
	// implementation, or one with NoImpl for a macro without any.
	Macros []LoadMacro
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
// one of another type than 'scalar' or 'table'. The column-level failures
// (two columns named alike, a tag other than a comment, a type the
// readers cannot parse) and those of partition specs and sort hints are
// the caller's.
func LoadRefusal(rows *LoadRows, snap int64) string {
	// schemaVisible: the metadata manager's schemas, by id; schemaKept:
	// those LoadSchemaForSnapshot keeps, the first in scan order of each
	// name in any letter case (a case-insensitive map's insert), through
	// which it finds the schema of each table, view and macro.
	schemaVisible, schemaKept := map[int64]bool{}, map[int64]bool{}
	keptName := map[string]string{}
	for _, s := range rows.Schemas {
		if s.ID.Valid && VisibleAt(s.Begin, s.End, snap) {
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
		if !t.ID.Valid || !VisibleAt(t.Begin, t.End, snap) {
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
		if !t.SchemaID.Valid || !schemaVisible[t.SchemaID.Int64] {
			return fmt.Sprintf("table %s (id %d) names schema id %s, which no visible schema has (Failed to load DuckLake - table with id %d references schema id %s that does not exist)",
				oneline.Name(t.Name.String), id, idText(t.SchemaID), id, idText(t.SchemaID))
		}
		if !rows.WithColumns[id] {
			return fmt.Sprintf("table %s (id %d) has no ducklake_column row (Failed to load DuckLake - Table entry \"%s\" does not have any columns)", oneline.Name(t.Name.String), id, oneline.Name(t.Name.String))
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
	for _, v := range rows.Views {
		if !VisibleAt(v.Begin, v.End, snap) {
			continue
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
	return ""
}

// VisibleTableIDs is the table_ids of the rows' tables visible at snap,
// sorted, each once.
func (rows *LoadRows) VisibleTableIDs(snap int64) []int64 {
	var ids []int64
	for _, t := range rows.Tables {
		if t.ID.Valid && VisibleAt(t.Begin, t.End, snap) {
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
