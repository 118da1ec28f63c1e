package formats

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ErrNullField is matched by the *NullFieldError CheckRequired returns: a
// field DuckLake's writers always fill is NULL, so the catalog is not one
// DuckLake wrote, and its readers fail on it or read it otherwise than
// its rows say (Column.NullRead).
var ErrNullField = errors.New("a field DuckLake requires is NULL")

// NullField is one NULL where DuckLake requires a value.
type NullField struct {
	Table  string // the metadata table, ducklake_data_file
	Column string // the column, table_id
	// Row names the row by its key columns (Table.Key, NULL where they are)
	// and its rowid: "data_file_id=3, rowid 2".
	Row string
	// NullRead is what DuckLake's readers do with it (Column.NullRead).
	NullRead string
	// Is says what the field holds where it is not NULL but read as the
	// NULL is (Column.ReadAsNullIs); "" for a NULL.
	Is string
}

func (f NullField) String() string {
	is := "is NULL"
	if f.Is != "" {
		is = f.Is
	}
	return fmt.Sprintf("%s.%s %s in the row %s: %s", f.Table, f.Column, is, f.Row, f.NullRead)
}

// NullFieldError is a catalog with NULLs where DuckLake requires values
// (CheckRequired). It matches ErrNullField.
type NullFieldError struct {
	// Catalog names the catalog's file.
	Catalog string
	// Fields lists the first NULL fields, table by table in the registry's
	// order, rows by rowid (at most maxNullFields).
	Fields []NullField
	// More counts the NULL fields past Fields.
	More int
}

// maxNullFields is how many NULL fields an error lists.
const maxNullFields = 10

func (e *NullFieldError) Error() string { return "catalog " + e.Catalog + ": " + e.Detail() }

// Detail is the error without the catalog's name.
func (e *NullFieldError) Detail() string {
	items := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		items[i] = f.String()
	}
	more := ""
	if e.More > 0 {
		more = fmt.Sprintf("; and %d more", e.More)
	}
	if slices.ContainsFunc(e.Fields, func(f NullField) bool { return f.Is != "" }) {
		return fmt.Sprintf("a catalog DuckLake's readers misread: %d field(s) NULL where DuckLake's writers always write a value, or holding a value they read as that NULL: %s%s", len(e.Fields)+e.More, strings.Join(items, "; "), more)
	}
	return fmt.Sprintf("not a DuckLake catalog: %d NULL field(s) where DuckLake's writers always write a value: %s%s", len(e.Fields)+e.More, strings.Join(items, "; "), more)
}

// Is matches ErrNullField.
func (e *NullFieldError) Is(target error) bool { return target == ErrNullField }

// CheckRequired fails with a *NullFieldError when a metadata table of the
// catalog in schema schema of attached database db, of format v, holds
// NULL in a column the registry marks required (Column.NullRead; where
// the column has a NullWhen, only in the rows it holds for). Only the
// tables and columns layout lists are read (a development layout may lack
// some). dynamic lists the catalog's per-table tables (inlined data and
// inlined deletions, IsDynamicTable, and any other table
// ducklake_inlined_data_tables registers) with their columns: their
// system columns are held to DynamicTable's. catalog names the file in
// the error. One query asks every table whether a row holds such a NULL
// (check and backfill open each catalog several times a version); the
// rows are listed only when one does. The conditions of a GEOMETRY
// column's rows join that query only where ducklake_column has one
// (hasGeometryColumn, a statement of well under a millisecond): they cost
// its planning about 3 ms of CPU at every open, and hold in no row
// without one.
func CheckRequired(ctx context.Context, q Querier, catalog, db, schema string, v *Version, layout, dynamic Layout) error {
	return CheckRequiredKnowing(ctx, q, catalog, db, schema, v, layout, dynamic, Known{})
}

// Known is what a caller has already read of a catalog that
// CheckRequiredKnowing would otherwise read in its query.
type Known struct {
	// Metadata are every row of the catalog's ducklake_metadata as
	// ReadMetadata read them, with Scoped its scoped argument; nil: not
	// read. With them the condition of an encrypted catalog
	// (DescribeNullWhen) is a constant of the query rather than a
	// subquery of ducklake_metadata, which cost the query's planning
	// about 0.2 ms of CPU per field it guards (two in every format), at
	// every open. Used only where Scoped is what the query's own
	// condition holds to (layout has ducklake_metadata.scope).
	Metadata []MetadataRow
	Scoped   bool
}

// encryptedIs is the value the condition encrypted has in the catalog
// whose ducklake_metadata rows, read with scoped, are rows: whether a row
// has key 'encrypted', value 'true' and, where scoped, no scope (SQL's
// m.key = 'encrypted' AND m.value = 'true' AND m.scope IS NULL).
func encryptedIs(rows []MetadataRow, scoped bool) bool {
	for _, r := range rows {
		if r.Key == "encrypted" && r.Value.Valid && r.Value.String == "true" && (!scoped || !r.Scope.Valid) {
			return true
		}
	}
	return false
}

// CheckRequiredKnowing is CheckRequired where known holds what the caller
// has already read of the catalog: the same answer, from a cheaper query.
func CheckRequiredKnowing(ctx context.Context, q Querier, catalog, db, schema string, v *Version, layout, dynamic Layout, known Known) error {
	// A column is checked for a NULL and, where it has ReadAsNull, for a
	// value read as that NULL: two entries of cols.
	type field struct {
		Column
		readAsNull bool
	}
	type checked struct {
		table string
		cols  []field
	}
	var tables []checked
	var parts, probes []string
	qualify := func(table string) string {
		return quoteIdent(db) + "." + quoteIdent(schema) + "." + quoteIdent(table)
	}
	global := "true"
	scoped := slices.Contains(layout["ducklake_metadata"], "scope")
	if scoped {
		global = "m.scope IS NULL"
	}
	// The encrypted condition's value, where the caller read the rows it
	// asks about as the condition reads them ("": the subquery).
	encryptedValue := ""
	if known.Metadata != nil && known.Scoped == scoped {
		encryptedValue = strconv.FormatBool(encryptedIs(known.Metadata, scoped))
	}
	condition := strings.NewReplacer("{metadata}", qualify("ducklake_metadata"), "{global}", global, "{table_stats}", qualify("ducklake_table_stats"), "{column}", qualify("ducklake_column"), "{file_stats}", qualify("ducklake_file_column_stats"))
	// A condition of a GEOMETRY column's row (onlyGeometry) holds in no
	// row of a catalog without one: its field is left out of the query,
	// whose planning it would cost a few milliseconds at every open.
	// Where asking fails, the conditions stay: the query's own failure
	// names the table (failingTable), as it did without the question.
	geometry, err := hasGeometryColumn(ctx, q, v, layout, qualify("ducklake_column"))
	if err != nil {
		geometry = true
	}
	add := func(name string, t Table, present []string, rowsWhen string) {
		// present holds the physical names; the registry's are matched as
		// DuckDB binds them (in ASCII letter case only).
		physical := func(n string) (string, bool) {
			for _, p := range present {
				if NamesEqual(p, n) {
					return p, true
				}
			}
			return "", false
		}
		var cols []field
		for _, c := range t.Columns {
			if c.NullRead == "" {
				continue
			}
			if p, ok := physical(c.Name); ok {
				c.Name = p
				if geometry || !onlyGeometry(c.NullWhen) {
					cols = append(cols, field{c, false})
				}
				if c.ReadAsNull != "" && (geometry || !onlyGeometry(c.ReadAsNull)) {
					cols = append(cols, field{c, true})
				}
			}
		}
		if len(cols) == 0 {
			return
		}
		// The row's name: its key columns (NULL where they are) and rowid.
		var key []string
		for _, k := range t.Key {
			if p, ok := physical(k); ok {
				key = append(key, fmt.Sprintf("%s || '=' || coalesce(CAST(%s AS VARCHAR), 'NULL') || ', '", quoteString(k), quoteIdent(p)))
			}
		}
		key = append(key, "'rowid ' || rowid")
		// Which columns are NULL (where they must not be): their
		// positions in cols, as text.
		var which, count, where []string
		for i, c := range cols {
			isNull := quoteIdent(c.Name) + " IS NULL"
			when := c.NullWhen
			if c.readAsNull {
				isNull, when = quoteIdent(c.Name)+" IS NOT NULL", c.ReadAsNull
			}
			if when == encrypted && encryptedValue != "" {
				when = encryptedValue
			}
			if when != "" {
				when = strings.ReplaceAll(condition.Replace(when), "{self}", qualify(name))
				isNull = "(" + isNull + " AND (" + when + "))"
			}
			which = append(which, fmt.Sprintf("CASE WHEN %s THEN '%d' END", isNull, i))
			count = append(count, fmt.Sprintf("(%s)::INTEGER", isNull))
			where = append(where, isNull)
		}
		filter := "(" + strings.Join(where, " OR ") + ")"
		if rowsWhen != "" {
			filter += " AND " + rowsWhen
		}
		parts = append(parts, fmt.Sprintf("SELECT %d AS t, rowid AS r, %s AS name, concat_ws(',', %s) AS which, %s AS n FROM %s WHERE %s",
			len(tables), strings.Join(key, " || "), strings.Join(which, ", "), strings.Join(count, " + "), qualify(name), filter))
		probes = append(probes, fmt.Sprintf("SELECT 1 FROM %s WHERE %s", qualify(name), filter))
		tables = append(tables, checked{name, cols})
	}
	for _, t := range v.Tables {
		if present, ok := layout[t.Name]; ok {
			add(t.Name, t, present, "")
		}
	}
	// The dynamic tables in name order; an inlined data table only where
	// registered (the readers read no other).
	names := slices.Sorted(maps.Keys(dynamic))
	_, registry := layout["ducklake_inlined_data_tables"]
	for _, n := range names {
		t, ok := v.DynamicTable(n)
		if !ok {
			continue
		}
		rowsWhen := ""
		if !strings.HasPrefix(ASCIILower(n), inlinedDeletePrefix) {
			if !registry {
				continue
			}
			// Registered in ASCII letter case only, as the readers find
			// the table a registration names.
			rowsWhen = fmt.Sprintf("EXISTS (SELECT 1 FROM %s WHERE %s = %s)", qualify("ducklake_inlined_data_tables"), ASCIILowerSQL("table_name"), quoteString(ASCIILower(n)))
		}
		add(n, t, dynamic[n], rowsWhen)
	}
	if len(parts) == 0 {
		return nil
	}
	// Whether any row has a NULL field first: a catalog without (every
	// catalog DuckLake wrote) costs one plain scan of each table. One
	// EXISTS over the probes' UNION ALL: an OR of one EXISTS per table
	// planned a join per table, about 4.7 ms of CPU at each open of the
	// history repository's catalogs against 3.0 ms (docs/compare.md).
	checkedNames := func() []string {
		var names []string
		for _, t := range tables {
			names = append(names, t.table)
		}
		return names
	}
	if found, err := anyRow(ctx, q, "SELECT EXISTS ("+strings.Join(probes, " UNION ALL ")+")"); err != nil {
		return fmt.Errorf("catalog %s: read the fields DuckLake requires: %w", catalog, failingTable(ctx, q, checkedNames(), qualify, err))
	} else if !found {
		return nil
	}
	// The first rows (each with at least one NULL field), and how many
	// NULL fields there are in all.
	query := fmt.Sprintf("SELECT t, name, which, CAST(sum(n) OVER () AS BIGINT) FROM (%s) ORDER BY t, r LIMIT %d", strings.Join(parts, " UNION ALL "), maxNullFields)
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return fmt.Errorf("catalog %s: read the fields DuckLake requires: %w", catalog, err)
	}
	defer rows.Close()
	e := &NullFieldError{Catalog: catalog}
	var total int64
	for rows.Next() {
		var t int
		var name, which string
		if err := rows.Scan(&t, &name, &which, &total); err != nil {
			return fmt.Errorf("catalog %s: read the fields DuckLake requires: %w", catalog, err)
		}
		for _, i := range strings.Split(which, ",") {
			j, err := strconv.Atoi(i)
			if err != nil || t < 0 || t >= len(tables) || j < 0 || j >= len(tables[t].cols) {
				return fmt.Errorf("catalog %s: read the fields DuckLake requires: unexpected answer %d %q", catalog, t, which)
			}
			if len(e.Fields) < maxNullFields {
				c := tables[t].cols[j]
				f := NullField{Table: tables[t].table, Column: c.Name, Row: name, NullRead: c.NullRead}
				if c.readAsNull {
					f.Is = c.ReadAsNullIs
				}
				e.Fields = append(e.Fields, f)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("catalog %s: read the fields DuckLake requires: %w", catalog, err)
	}
	if len(e.Fields) == 0 {
		return nil
	}
	e.More = int(total) - len(e.Fields)
	return e
}

// failingTable names, in err, the table whose read fails when the one
// query over every table failed (a corrupt block, say), as a reader's own
// error would: each table read whole alone (a table's conditions read
// other tables, so its check query alone could blame the wrong one).
// The error path only; err as it is when no table fails alone.
func failingTable(ctx context.Context, q Querier, tables []string, qualify func(string) string, err error) error {
	for _, t := range tables {
		if _, terr := anyRow(ctx, q, "SELECT sum(hash(x)) IS NULL FROM "+qualify(t)+" x"); terr != nil {
			return fmt.Errorf("table %s: %w", t, terr)
		}
	}
	return err
}

const inlinedDeletePrefix = "ducklake_inlined_delete_"

// DynamicTable is the registry's declaration of a per-table table of
// format v named name (ducklake_inlined_data_<table>_<schema version>, or
// any other name ducklake_inlined_data_tables registers, and
// ducklake_inlined_delete_<table> in formats with inlined deletions): its
// system columns, as the format's readers name them, with what they do
// with a NULL there (Column.NullRead); the user columns of an inlined
// data table are not declared. False for a name the format's readers
// never read as such a table.
func (v *Version) DynamicTable(name string) (Table, bool) {
	lower := ASCIILower(name)
	if strings.HasPrefix(lower, inlinedDeletePrefix) {
		if !v.Has(CapInlinedDeletes) {
			return Table{}, false
		}
		// ReadInlinedFileDeletions reads file_id and row_id as numbers,
		// of the rows with begin_snapshot <= the snapshot read.
		return Table{Name: name, Key: []string{"file_id", "row_id"}, Columns: []Column{
			required(bigint("file_id"), nullFails), required(bigint("row_id"), nullFails), required(bigint("begin_snapshot"), nullNoDeletion)}}, true
	}
	if lower == "ducklake_inlined_data_tables" {
		return Table{}, false
	}
	rowID, begin, end := "row_id", "begin_snapshot", "end_snapshot"
	if v.Has(CapPrefixedInlinedColumns) {
		rowID, begin, end = "_ducklake_row_id", "_ducklake_begin_snapshot", "_ducklake_end_snapshot"
	}
	// ReadInlinedData selects the rows with begin_snapshot <= the
	// snapshot read, ordered by row id, which is the rowid it reads.
	return Table{Name: name, Key: []string{rowID}, Columns: []Column{
		required(bigint(rowID), nullRowID), required(bigint(begin), nullSkipsRow), bigint(end)}}, true
}

// DescribeNullWhen says in words where a Column.NullWhen condition holds
// (for the documentation): "every row" without one.
func DescribeNullWhen(when string) string {
	switch when {
	case "":
		return "every row"
	case encrypted:
		return "an encrypted catalog (a global `ducklake_metadata` row `encrypted` = 'true')"
	case statsRead:
		return "a row the readers read (`record_count` and `file_size_bytes` set)"
	case columnStatsRead:
		return "a row of a table whose `ducklake_table_stats` row the readers read (`record_count` and `file_size_bytes` set)"
	case fileStatsRead:
		return "a row of a table's column (`table_id` and `column_id` set)"
	case geometryStatsRead:
		return "a row of a GEOMETRY column (at any depth) of a table whose `ducklake_table_stats` row the readers read"
	case geometryStatsNoTypes:
		return "a row of a GEOMETRY column (at any depth) of a table whose `ducklake_table_stats` row the readers read, its `extra_stats` a JSON object (the readers fail on other text), as DuckLake's readers take its `\"types\"` (`DuckLakeColumnGeoStats::Deserialize`, `ToStats`: the strings of the list, each matched case-insensitively against the geometry types, `point` to `geometrycollection_zm`; others, `unknown` and its forms among them, ignored), and the column's values counted by `ducklake_file_column_stats` of its data files"
	}
	return "`" + when + "`"
}

// onlyGeometry reports whether a Column.NullWhen or Column.ReadAsNull
// condition holds only in a row of a GEOMETRY column: one of the declared
// GEOMETRY conditions, by its exact text (a prefix would also take a
// condition that goes on with "OR ...", which holds in other rows too).
func onlyGeometry(when string) bool {
	switch when {
	case geometryStatsRead, geometryStatsNoTypes:
		return true
	}
	return false
}

// hasGeometryColumn reports whether some row of the catalog's
// ducklake_column (named column) has the type geometryStatsRead matches,
// at any snapshot and depth; true without asking where v has no condition
// onlyGeometry marks, or the catalog no such table or column_type (the
// conditions' own query then says what fails).
func hasGeometryColumn(ctx context.Context, q Querier, v *Version, layout Layout, column string) (bool, error) {
	if !slices.ContainsFunc(layout["ducklake_column"], func(c string) bool { return strings.EqualFold(c, "column_type") }) {
		return true, nil
	}
	asks := false
	for _, t := range v.Tables {
		if slices.ContainsFunc(t.Columns, func(c Column) bool { return onlyGeometry(c.NullWhen) || onlyGeometry(c.ReadAsNull) }) {
			asks = true
		}
	}
	if !asks {
		return true, nil
	}
	return anyRow(ctx, q, "SELECT EXISTS (SELECT 1 FROM "+column+" k WHERE "+geometryColumnK+")")
}

// anyRow is the one boolean query answers.
func anyRow(ctx context.Context, q Querier, query string) (bool, error) {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var found bool
	if rows.Next() {
		if err := rows.Scan(&found); err != nil {
			return false, err
		}
	}
	return found, rows.Err()
}
