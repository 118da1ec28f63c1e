package formats

import (
	"context"
	"errors"
	"fmt"
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
}

func (f NullField) String() string {
	return fmt.Sprintf("%s.%s is NULL in the row %s: %s", f.Table, f.Column, f.Row, f.NullRead)
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
	return fmt.Sprintf("not a DuckLake catalog: %d NULL field(s) where DuckLake's writers always write a value: %s%s", len(e.Fields)+e.More, strings.Join(items, "; "), more)
}

// Is matches ErrNullField.
func (e *NullFieldError) Is(target error) bool { return target == ErrNullField }

// CheckRequired fails with a *NullFieldError when a metadata table of the
// catalog in schema schema of attached database db, of format v, holds
// NULL in a column the registry marks required (Column.NullRead). Only the
// tables and columns layout lists are read (a development layout may lack
// some). catalog names the file in the error. One query asks every table
// whether a row holds such a NULL (check and backfill open each catalog
// several times a version); the rows are listed only when one does.
func CheckRequired(ctx context.Context, q Querier, catalog, db, schema string, v *Version, layout Layout) error {
	type checked struct {
		table string
		cols  []Column
	}
	var tables []checked
	var parts, probes []string
	for _, t := range v.Tables {
		present := layout[t.Name]
		var cols []Column
		for _, c := range t.Columns {
			if c.NullRead != "" && slices.Contains(present, c.Name) {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			continue
		}
		// The row's name: its key columns (NULL where they are) and rowid.
		var key []string
		for _, k := range t.Key {
			if slices.Contains(present, k) {
				key = append(key, fmt.Sprintf("'%s=' || coalesce(CAST(%s AS VARCHAR), 'NULL') || ', '", k, quoteIdent(k)))
			}
		}
		key = append(key, "'rowid ' || rowid")
		// Which columns are NULL: their positions in cols, as text.
		var which, count, where []string
		for i, c := range cols {
			which = append(which, fmt.Sprintf("CASE WHEN %s IS NULL THEN '%d' END", quoteIdent(c.Name), i))
			count = append(count, fmt.Sprintf("(%s IS NULL)::INTEGER", quoteIdent(c.Name)))
			where = append(where, quoteIdent(c.Name)+" IS NULL")
		}
		parts = append(parts, fmt.Sprintf("SELECT %d AS t, rowid AS r, %s AS name, concat_ws(',', %s) AS which, %s AS n FROM %s.%s.%s WHERE %s",
			len(tables), strings.Join(key, " || "), strings.Join(which, ", "), strings.Join(count, " + "),
			quoteIdent(db), quoteIdent(schema), quoteIdent(t.Name), strings.Join(where, " OR ")))
		probes = append(probes, fmt.Sprintf("SELECT 1 FROM %s.%s.%s WHERE %s", quoteIdent(db), quoteIdent(schema), quoteIdent(t.Name), strings.Join(where, " OR ")))
		tables = append(tables, checked{t.Name, cols})
	}
	if len(parts) == 0 {
		return nil
	}
	// Whether any row has a NULL field first: a catalog without (every
	// catalog DuckLake wrote) costs one plain scan of each table.
	var exists []string
	for _, p := range probes {
		exists = append(exists, "EXISTS ("+p+")")
	}
	if found, err := anyRow(ctx, q, "SELECT "+strings.Join(exists, " OR ")); err != nil {
		return fmt.Errorf("catalog %s: read the fields DuckLake requires: %w", catalog, err)
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
				e.Fields = append(e.Fields, NullField{Table: tables[t].table, Column: c.Name, Row: name, NullRead: c.NullRead})
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
