package fdljson

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Dataset is dataset.json: what a version holds, in words. Only the parts
// this tool checks against the catalog are typed; the rest is kept raw.
type Dataset struct {
	Name        string                     `json:"name"`
	Title       string                     `json:"title"`
	Tables      []DatasetTable             `json:"tables,omitempty"`
	Annotations map[string]json.RawMessage `json:"annotations,omitempty"`
	// Other holds the remaining defined keys as written.
	Other map[string]json.RawMessage `json:"-"`
}

// DatasetTable is one entry of dataset.json "tables" (a table or a view).
type DatasetTable struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Kind   string `json:"kind,omitempty"` // "view", or "" for a table
	Rows   *int64 `json:"rows,omitempty"`
	// SQL is the view's SQL (for a table, the writer's own).
	SQL *string `json:"sql,omitempty"`
	// PrimaryKey names columns of the table (Diff: each one the catalog's).
	PrimaryKey []string       `json:"primary_key,omitempty"`
	Fields     []DatasetField `json:"fields,omitempty"`
}

// DatasetField is one column of a described table.
type DatasetField struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Nullable *bool  `json:"nullable,omitempty"`
}

// Keys dataset.json may use; the specification refuses any other.
var (
	datasetKeys = []string{"name", "title", "description", "keywords", "language", "homepage", "issued",
		"update_frequency", "licenses", "sources", "contributors", "temporal_coverage", "spatial_coverage",
		"schemas", "tables", "annotations", "extensions"}
	datasetTableKeys = []string{"schema", "name", "title", "description", "primary_key", "depends_on", "sql",
		"rows", "fields", "kind", "annotations", "extensions"}
	datasetFieldKeys = []string{"name", "title", "description", "type", "nullable", "annotations", "extensions"}
)

// ParseDataset parses and validates dataset.json: name and title are
// required, keys the specification does not define are refused, and
// "extensions" (the older name) is read as "annotations".
func ParseDataset(file string, data []byte) (*Dataset, error) {
	o, err := decodeObject(file, "", data)
	if err != nil {
		return nil, err
	}
	if err := onlyKeys(o, datasetKeys); err != nil {
		return nil, err
	}
	d := &Dataset{Other: map[string]json.RawMessage{}}
	if err := o.req("name", &d.Name); err != nil {
		return nil, err
	}
	if err := o.req("title", &d.Title); err != nil {
		return nil, err
	}
	if d.Annotations, err = annotations(o); err != nil {
		return nil, err
	}
	for k, v := range o.m {
		if !slices.Contains([]string{"name", "title", "tables", "annotations", "extensions"}, k) {
			d.Other[k] = v
		}
	}
	if !o.has("tables") {
		return d, nil
	}
	d.Tables = []DatasetTable{} // given, so it lists every table (Diff)
	// Each table and field once: the file describes each of the catalog's
	// tables and columns, and a reader keeps one entry of a key (which one
	// is up to it) or counts a column twice.
	tableAt := map[tableName]int{}
	var raws []json.RawMessage
	if err := o.decode("tables", &raws); err != nil {
		return nil, err
	}
	for i, raw := range raws {
		t, err := decodeObject(file, fmt.Sprintf("tables[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		if err := onlyKeys(t, datasetTableKeys); err != nil {
			return nil, err
		}
		var dt DatasetTable
		if err := t.req("schema", &dt.Schema); err != nil {
			return nil, err
		}
		if err := t.req("name", &dt.Name); err != nil {
			return nil, err
		}
		if j, ok := tableAt[dt.name()]; ok {
			return nil, fieldErr(file, t.path, "%s described twice (also tables[%d]): describe each table and view once", dt.name().shown(), j)
		}
		tableAt[dt.name()] = i
		if ok, err := t.opt("primary_key", &dt.PrimaryKey); err != nil {
			return nil, err
		} else if ok {
			if err := checkNames(file, t.field("primary_key"), "column", dt.PrimaryKey); err != nil {
				return nil, err
			}
		}
		if _, err := t.opt("kind", &dt.Kind); err != nil {
			return nil, err
		}
		if dt.Kind != "" && dt.Kind != "view" {
			return nil, fieldErr(file, t.field("kind"), "%q: want \"view\" or no kind", dt.Kind)
		}
		var q string
		if ok, err := t.opt("sql", &q); err != nil {
			return nil, err
		} else if ok {
			dt.SQL = &q
		}
		var rows int64
		if ok, err := t.opt("rows", &rows); err != nil {
			return nil, err
		} else if ok {
			dt.Rows = &rows
		}
		if t.has("fields") {
			var fraws []json.RawMessage
			if err := t.decode("fields", &fraws); err != nil {
				return nil, err
			}
			fieldAt := map[string]int{}
			for j, fraw := range fraws {
				f, err := decodeObject(file, fmt.Sprintf("%s.fields[%d]", t.path, j), fraw)
				if err != nil {
					return nil, err
				}
				if err := onlyKeys(f, datasetFieldKeys); err != nil {
					return nil, err
				}
				var df DatasetField
				if err := f.req("name", &df.Name); err != nil {
					return nil, err
				}
				if k, ok := fieldAt[df.Name]; ok {
					return nil, fieldErr(file, f.path, "field %s described twice (also fields[%d]): describe each column once", df.Name, k)
				}
				fieldAt[df.Name] = j
				if _, err := f.opt("type", &df.Type); err != nil {
					return nil, err
				}
				var nullable bool
				if ok, err := f.opt("nullable", &nullable); err != nil {
					return nil, err
				} else if ok {
					df.Nullable = &nullable
				}
				dt.Fields = append(dt.Fields, df)
			}
		}
		d.Tables = append(d.Tables, dt)
	}
	return d, nil
}

// checkNames accepts a list of names, each given once and none empty.
func checkNames(file, field, what string, names []string) error {
	for i, n := range names {
		if n == "" {
			return fieldErr(file, fmt.Sprintf("%s[%d]", field, i), "empty %s name", what)
		}
		if j := slices.Index(names[:i], n); j >= 0 {
			return fieldErr(file, fmt.Sprintf("%s[%d]", field, i), "%s %s named twice (also [%d])", what, n, j)
		}
	}
	return nil
}

func onlyKeys(o *object, allowed []string) error {
	for _, k := range sortedKeys(o.m) {
		if !slices.Contains(allowed, k) {
			return fieldErr(o.file, o.field(k), "unknown key (the specification refuses it; put tool-specific data under \"annotations\")")
		}
	}
	return nil
}

func annotations(o *object) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	key := "annotations"
	if !o.has(key) && o.has("extensions") {
		key = "extensions"
	}
	if _, err := o.opt(key, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Diff lists how the described tables differ from what the catalog holds at
// its last snapshot (want: every table, with its rows and field types, and
// every view, with its SQL). When the description has "tables" it must
// list every table and view (the specification has the writer's tool
// complete it from the catalog), so one left out is a difference, as are
// described tables, views or fields the catalog lacks, a table described as
// a view or the reverse, and rows, types, nullability or a view's SQL that
// disagree, as is a primary_key naming a column the catalog's table lacks.
// A view's fields (and primary key) are the writer's: not compared.
func (d *Dataset) Diff(want []DatasetTable) []string {
	byName := map[tableName]DatasetTable{}
	for _, t := range want {
		byName[t.name()] = t
	}
	var out []string
	described := map[tableName]bool{}
	for _, t := range d.Tables {
		key := t.name().shown()
		described[t.name()] = true
		w, ok := byName[t.name()]
		if !ok {
			out = append(out, fmt.Sprintf("%s %s: described, not in the catalog", kindName(t.Kind), key))
			continue
		}
		if t.Kind != w.Kind {
			out = append(out, fmt.Sprintf("%s: described as a %s, the catalog has a %s", key, kindName(t.Kind), kindName(w.Kind)))
			continue
		}
		if t.Rows != nil && w.Rows != nil && *t.Rows != *w.Rows {
			out = append(out, fmt.Sprintf("table %s: rows %d, the catalog %d", key, *t.Rows, *w.Rows))
		}
		if t.Kind == "view" {
			if t.SQL != nil && w.SQL != nil && *t.SQL != *w.SQL {
				out = append(out, fmt.Sprintf("view %s: sql %q, the catalog %q", key, *t.SQL, *w.SQL))
			}
			// The catalog records no rows or columns of a view: the
			// specification has a view's entry without rows, and its
			// fields without type or nullable.
			if t.Rows != nil {
				out = append(out, fmt.Sprintf("view %s: rows %d given, but the catalog records no rows of a view (leave rows out)", key, *t.Rows))
			}
			for _, f := range t.Fields {
				if f.Type != "" || f.Nullable != nil {
					out = append(out, fmt.Sprintf("view %s field %s: type or nullable given, but the catalog records no columns of a view (leave them out)", key, f.Name))
				}
			}
			continue
		}
		for _, c := range t.PrimaryKey {
			if !slices.ContainsFunc(w.Fields, func(f DatasetField) bool { return f.Name == c }) {
				out = append(out, fmt.Sprintf("table %s primary_key %s: not a column of the catalog's table", key, c))
			}
		}
		for _, f := range t.Fields {
			i := slices.IndexFunc(w.Fields, func(c DatasetField) bool { return c.Name == f.Name })
			if i < 0 {
				out = append(out, fmt.Sprintf("table %s field %s: described, not in the catalog", key, f.Name))
				continue
			}
			c := w.Fields[i]
			if f.Type != "" && c.Type != "" && f.Type != c.Type {
				out = append(out, fmt.Sprintf("table %s field %s: type %s, the catalog %s", key, f.Name, f.Type, c.Type))
			}
			if f.Nullable != nil && c.Nullable != nil && *f.Nullable != *c.Nullable {
				out = append(out, fmt.Sprintf("table %s field %s: nullable %v, the catalog %v", key, f.Name, *f.Nullable, *c.Nullable))
			}
		}
	}
	if d.Tables != nil {
		for _, w := range want {
			if !described[w.name()] {
				out = append(out, fmt.Sprintf("%s %s: in the catalog, not in tables (which lists every table and view of the catalog's last snapshot)", kindName(w.Kind), w.name().shown()))
			}
		}
	}
	return out
}

// tableName identifies a table or view by its schema and name, kept apart:
// either may hold a dot (a quoted identifier), so "a.b"."c" and "a"."b.c"
// are two tables that one joined string would take for one.
type tableName struct{ schema, name string }

func (t DatasetTable) name() tableName { return tableName{t.Schema, t.Name} }

// shown is the name as a message shows it: schema.name, a part holding a
// dot or a double quote (or empty) written as an SQL quoted identifier,
// so that "a.b".c and a."b.c" read apart, and the whole as oneline.Name
// writes it (Go-quoted where it holds a line break or another control
// character). Ordinary names are as they are ("main.t").
func (n tableName) shown() string {
	return oneline.Name(identPart(n.schema) + "." + identPart(n.name))
}

func identPart(s string) string {
	if s != "" && !strings.ContainsAny(s, `."`) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func kindName(k string) string {
	if k == "" {
		return "table"
	}
	return k
}
