package convert

import (
	"cmp"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// nameClashes refuses a source holding, visible at one snapshot, two
// views, or two macros of one kind, of one schema named alike in ASCII
// letter case with different definitions (formats.NameClashes, the rule
// compare's proof applies): the readers list them without ORDER BY and
// keep the last of a name, so which one they read is not determined by
// the catalog, and no conversion can be proved to read as its source.
// Identical definitions are carried.
func (r *run) nameClashes(source *formats.Version) error {
	objs, schemas, snaps, err := r.namedObjects(source)
	if err != nil {
		return fmt.Errorf("read the catalog's views and macros: %w", err)
	}
	if len(objs) < 2 {
		return nil
	}
	points := formats.ObjectChangePoints(objs)
	type span struct {
		from, to int64
		what     string
		table    string
	}
	var spans []span
	epoch, whats, tables := -1, []string(nil), []string(nil)
	for _, s := range snaps {
		if e := sort.Search(len(points), func(i int) bool { return points[i] > s }); e != epoch {
			epoch, whats, tables = e, nil, nil
			for _, c := range formats.NameClashes(objs, s) {
				if c.Identical {
					continue
				}
				names := make([]string, len(c.Names))
				for i, n := range c.Names {
					names[i] = fmt.Sprintf("%s (id %d)", n, c.IDs[i])
				}
				whats = append(whats, fmt.Sprintf("schema %s: %ss %s", cmp.Or(schemas[c.SchemaID], fmt.Sprint("id ", c.SchemaID)), c.Kind, strings.Join(names, ", ")))
				tables = append(tables, "ducklake_"+strings.TrimPrefix(strings.TrimPrefix(c.Kind, "scalar "), "table "))
			}
		}
		for i, what := range whats {
			if j := slices.IndexFunc(spans, func(x span) bool { return x.what == what && x.to == s-1 }); j >= 0 {
				spans[j].to = s
				continue
			}
			spans = append(spans, span{s, s, what, tables[i]})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	var items []string
	for _, x := range spans {
		at := fmt.Sprintf("snapshot %d", x.from)
		if x.to != x.from {
			at = fmt.Sprintf("snapshots %d-%d", x.from, x.to)
		}
		items = append(items, at+": "+x.what+" differ")
	}
	r.add(Finding{Severity: Refuse, Code: "objects-of-one-name", Step: source.Name, Table: spans[0].table, Detail: summarize(items),
		Reason: "DuckLake's readers list views and macros without ORDER BY and keep the last of a name: which of these they read is not determined by the catalog; keep one, or give them one definition"})
	return nil
}

// namedObjects reads the source's views and (formats with macros) macros
// as formats.NameClashes takes them, its schema names by id, and its
// snapshot ids in order.
func (r *run) namedObjects(source *formats.Version) ([]formats.NamedObject, map[int64]string, []int64, error) {
	scan := func(q string, row func(*sql.Rows) error) error { return r.w.eachRow(r.ctx, q, row) }
	var objs []formats.NamedObject
	schemas := map[int64]string{}
	var snaps []int64
	err := scan(`SELECT view_id, schema_id, view_name, dialect, sql, column_aliases, begin_snapshot, end_snapshot FROM ducklake_view`, func(rows *sql.Rows) error {
		var o formats.NamedObject
		var dialect, query, aliases sql.NullString
		err := rows.Scan(&o.ID, &o.SchemaID, &o.Name, &dialect, &query, &aliases, &o.Begin, &o.End)
		o.Kind, o.Definition = "view", formats.ViewDefinition(o.Name, dialect, query, aliases)
		objs = append(objs, o)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if source.Has(formats.CapMacros) {
		byID := map[int64]*formats.NamedObject{}
		var order []int64
		err := scan(`SELECT m.macro_id, m.schema_id, m.macro_name, m.begin_snapshot, m.end_snapshot, i.impl_id, i.dialect, i.sql, i.type,
			(SELECT to_json(list({'name': p.parameter_name, 'type': p.parameter_type, 'default': p.default_value, 'default_type': p.default_value_type} ORDER BY p.rowid))::VARCHAR
			 FROM ducklake_macro_parameters p WHERE p.macro_id = m.macro_id AND p.impl_id = i.impl_id)
			FROM ducklake_macro m JOIN ducklake_macro_impl i ON i.macro_id = m.macro_id
			WHERE m.macro_id IS NOT NULL ORDER BY m.macro_id, i.impl_id`, func(rows *sql.Rows) error {
			var o formats.NamedObject
			var impl sql.NullInt64
			var dialect, query, typ, params sql.NullString
			if err := rows.Scan(&o.ID, &o.SchemaID, &o.Name, &o.Begin, &o.End, &impl, &dialect, &query, &typ, &params); err != nil {
				return err
			}
			x, ok := byID[o.ID.Int64]
			if !ok {
				o.Kind, o.Definition = formats.MacroKind(typ.String), fmt.Sprintf("name=%q", o.Name.String)
				x = &o
				byID[o.ID.Int64] = x
				order = append(order, o.ID.Int64)
			}
			x.Definition += fmt.Sprintf(" impl %d dialect=%q type=%q sql=%q params=%q", impl.Int64, dialect.String, typ.String, query.String, params.String)
			return nil
		})
		if err != nil {
			return nil, nil, nil, err
		}
		for _, id := range order {
			objs = append(objs, *byID[id])
		}
	}
	if len(objs) < 2 {
		return objs, nil, nil, nil // no two to share a name
	}
	err = scan(`SELECT schema_id, schema_name FROM ducklake_schema WHERE schema_id IS NOT NULL ORDER BY begin_snapshot`, func(rows *sql.Rows) error {
		var id int64
		var name sql.NullString
		err := rows.Scan(&id, &name)
		schemas[id] = name.String
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	err = scan(`SELECT snapshot_id FROM ducklake_snapshot WHERE snapshot_id IS NOT NULL ORDER BY snapshot_id`, func(rows *sql.Rows) error {
		var s int64
		err := rows.Scan(&s)
		snaps = append(snaps, s)
		return err
	})
	return objs, schemas, snaps, err
}
