package formats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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
// some). catalog names the file in the error.
func CheckRequired(ctx context.Context, q Querier, catalog, db, schema string, v *Version, layout Layout) error {
	e := &NullFieldError{Catalog: catalog}
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
		var key []string
		for _, k := range t.Key {
			if slices.Contains(present, k) {
				key = append(key, k)
			}
		}
		if err := nullFields(ctx, q, db, schema, t.Name, key, cols, e); err != nil {
			return fmt.Errorf("catalog %s: read %s for NULL fields: %w", catalog, t.Name, err)
		}
	}
	if len(e.Fields) == 0 {
		return nil
	}
	return e
}

// nullFields adds the NULLs of cols in table to e.
func nullFields(ctx context.Context, q Querier, db, schema, table string, key []string, cols []Column, e *NullFieldError) error {
	sel := []string{"rowid"}
	for _, k := range key {
		sel = append(sel, "CAST("+quoteIdent(k)+" AS VARCHAR)")
	}
	var where []string
	for _, c := range cols {
		sel = append(sel, quoteIdent(c.Name)+" IS NULL")
		where = append(where, quoteIdent(c.Name)+" IS NULL")
	}
	query := fmt.Sprintf("SELECT %s FROM %s.%s.%s WHERE %s ORDER BY rowid", strings.Join(sel, ", "),
		quoteIdent(db), quoteIdent(schema), quoteIdent(table), strings.Join(where, " OR "))
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	var rowid int64
	keys := make([]sql.NullString, len(key))
	nulls := make([]bool, len(cols))
	dest := []any{&rowid}
	for i := range keys {
		dest = append(dest, &keys[i])
	}
	for i := range nulls {
		dest = append(dest, &nulls[i])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		var name []string
		for i, k := range key {
			val := "NULL"
			if keys[i].Valid {
				val = keys[i].String
			}
			name = append(name, k+"="+val)
		}
		name = append(name, fmt.Sprintf("rowid %d", rowid))
		for i, c := range cols {
			if !nulls[i] {
				continue
			}
			if len(e.Fields) == maxNullFields {
				e.More++
				continue
			}
			e.Fields = append(e.Fields, NullField{Table: table, Column: c.Name, Row: strings.Join(name, ", "), NullRead: c.NullRead})
		}
	}
	return rows.Err()
}
