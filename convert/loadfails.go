package convert

import (
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// loadFailures refuses a source that DuckLake's readers cannot load at
// some snapshot (formats.LoadRefusal, the rule compare's proof applies:
// every release line's reader loads the whole catalog first and fails,
// so that no table of the snapshot reads). Converting it wrote a catalog
// its proof then refused, cell by cell, in backfill; it is refused here,
// naming the snapshots and the table (with its columns where they fail),
// view or macro, before anything is written.
func (r *run) loadFailures(source *formats.Version, src *sourceRows) error {
	rows, snaps := src.load, src.snaps
	if !rows.MayRefuse() {
		return nil // no row that could fail a load: no epoch to ask
	}
	// The answer changes only where a row begins or ends.
	points := rows.ChangePoints()
	type span struct {
		from, to int64
		why      string
	}
	var spans []span
	epoch, why := -1, ""
	for _, s := range snaps {
		e := sort.Search(len(points), func(i int) bool { return points[i] > s })
		if e != epoch {
			epoch, why = e, formats.LoadRefusal(rows, s)
		}
		if why == "" {
			continue
		}
		if n := len(spans); n > 0 && spans[n-1].why == why && spans[n-1].to == s-1 {
			spans[n-1].to = s
			continue
		}
		spans = append(spans, span{s, s, why})
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
		items = append(items, at+": "+x.why)
	}
	// The metadata table of the first failure (LoadRefusal names a
	// table, a table_id, a view or a macro first).
	table := "ducklake_table"
	for k, t := range map[string]string{"view ": "ducklake_view", "macro ": "ducklake_macro", "a partition spec ": "ducklake_partition_info", "a sort hint ": "ducklake_sort_info"} {
		if strings.HasPrefix(spans[0].why, k) {
			table = t
		}
	}
	r.add(Finding{Severity: Refuse, Code: "catalog-load-fails", Step: source.Name, Table: table, Detail: summarize(items),
		Reason: "no DuckLake reader can load the source catalog at these snapshots (every release line loads the whole catalog before any table and fails: no table there reads); repair the source"})
	return nil
}

// sourceRows is what the source's load rules read of it (loadFailures,
// nameClashes), read once for both (readSourceRows).
type sourceRows struct {
	load  *formats.LoadRows // the rows formats.LoadRefusal checks
	snaps []int64           // the snapshot ids, in order
	// objects: the views and (formats with macros) macros as
	// formats.NameClashes takes them.
	objects []formats.NamedObject
}

// readSourceRows reads the source's rows formats.LoadRefusal and
// formats.NameClashes check, its snapshot ids in order, in as few
// statements as it can: one tells which of the tables most catalogs leave
// empty (column tags, views, macros, partition specs, sort hints) hold a
// row, and an empty one is not read; a view or macro is read once for both
// rules, partition specs and sort hints in one statement, and the column
// spans with the top-level columns. A backfill ran twelve statements here
// per source, each a few milliseconds of DuckDB's planning, where most
// catalogs need five (docs/compare.md, Benchmark).
func (r *run) readSourceRows(source *formats.Version) (*sourceRows, error) {
	scan := func(q string, row func(*sql.Rows) error) error { return r.w.eachRow(r.ctx, q, row) }
	out := &sourceRows{load: &formats.LoadRows{WithColumns: map[int64]bool{}}}
	load := out.load
	spans := map[int64][][2]sql.NullInt64{}
	seen := map[[3]sql.NullInt64]bool{} // (table_id, begin, end) of column rows
	var every []formats.LoadColumn      // column rows of a table (ColumnTree: those of nested tables)
	nested := map[int64]bool{}          // tables with a nested field
	optional := []string{"ducklake_column_tag", "ducklake_view", "ducklake_partition_info"}
	if source.Has(formats.CapSortHints) {
		optional = append(optional, "ducklake_sort_info")
	}
	if source.Has(formats.CapMacros) {
		optional = append(optional, "ducklake_macro")
	}
	filled, err := r.w.nonEmpty(r.ctx, optional)
	if err != nil {
		return nil, err
	}
	type step struct {
		q   string
		row func(*sql.Rows) error
	}
	steps := []step{
		{`SELECT snapshot_id FROM ducklake_snapshot WHERE snapshot_id IS NOT NULL ORDER BY snapshot_id`, func(rows *sql.Rows) error {
			var s int64
			err := rows.Scan(&s)
			out.snaps = append(out.snaps, s)
			return err
		}},
		{`SELECT schema_id, schema_name, begin_snapshot, end_snapshot FROM ducklake_schema`, func(rows *sql.Rows) error {
			var x formats.LoadSchema
			err := rows.Scan(&x.ID, &x.Name, &x.Begin, &x.End)
			load.Schemas = append(load.Schemas, x)
			return err
		}},
		{`SELECT table_id, schema_id, table_name, begin_snapshot, end_snapshot FROM ducklake_table`, func(rows *sql.Rows) error {
			var x formats.LoadTable
			err := rows.Scan(&x.ID, &x.SchemaID, &x.Name, &x.Begin, &x.End)
			load.Tables = append(load.Tables, x)
			return err
		}},
		// Every column row: the tables with one, and the snapshots each
		// has a visible one (a table without is not loaded:
		// LoadRows.Loaded); the top-level ones are checked themselves,
		// and every row of a table with a nested field is its column tree
		// (the readers add each field to its parent: formats.ParentRefusal).
		{`SELECT table_id, column_id, column_order, column_name, parent_column, begin_snapshot, end_snapshot FROM ducklake_column`, func(rows *sql.Rows) error {
			var x formats.LoadColumn
			if err := rows.Scan(&x.TableID, &x.ID, &x.Order, &x.Name, &x.Parent, &x.Begin, &x.End); err != nil {
				return err
			}
			top := !x.Parent.Valid
			if x.TableID.Valid {
				every = append(every, x)
				if !top || x.ID.Valid && x.ID.Int64 < 0 {
					nested[x.TableID.Int64] = true // as formats.ColumnTreeQuery selects
				}
			}
			if k := [3]sql.NullInt64{x.TableID, x.Begin, x.End}; x.TableID.Valid && !seen[k] {
				seen[k] = true
				load.WithColumns[x.TableID.Int64] = true
				spans[x.TableID.Int64] = append(spans[x.TableID.Int64], [2]sql.NullInt64{x.Begin, x.End})
			}
			if top {
				load.Columns = append(load.Columns, x)
			}
			return nil
		}},
	}
	if filled["ducklake_column_tag"] {
		steps = append(steps, step{`SELECT table_id, column_id, key, begin_snapshot, end_snapshot FROM ducklake_column_tag WHERE value IS NOT NULL`, func(rows *sql.Rows) error {
			var x formats.LoadColumnTag
			err := rows.Scan(&x.TableID, &x.ColumnID, &x.Key, &x.Begin, &x.End)
			load.ColumnTags = append(load.ColumnTags, x)
			return err
		}})
	}
	if filled["ducklake_view"] {
		steps = append(steps, step{`SELECT view_id, schema_id, view_name, dialect, sql, column_aliases, begin_snapshot, end_snapshot FROM ducklake_view`, func(rows *sql.Rows) error {
			var o formats.NamedObject
			var dialect, query, aliases sql.NullString
			if err := rows.Scan(&o.ID, &o.SchemaID, &o.Name, &dialect, &query, &aliases, &o.Begin, &o.End); err != nil {
				return err
			}
			load.Views = append(load.Views, formats.LoadView{SchemaID: o.SchemaID, Name: o.Name, Aliases: aliases, Begin: o.Begin, End: o.End})
			o.Kind, o.Definition = "view", formats.ViewDefinition(o.Name, dialect, query, aliases)
			out.objects = append(out.objects, o)
			return nil
		}})
	}
	// The partition specs and sort hints the readers load: those with a
	// key row (their queries join the two tables), in one statement.
	var refs []string
	if filled["ducklake_partition_info"] {
		refs = append(refs, `SELECT DISTINCT 'partition spec', i.table_id, i.begin_snapshot, i.end_snapshot FROM ducklake_partition_info i JOIN ducklake_partition_column c ON c.partition_id = i.partition_id`)
	}
	if filled["ducklake_sort_info"] {
		refs = append(refs, `SELECT DISTINCT 'sort hint', i.table_id, i.begin_snapshot, i.end_snapshot FROM ducklake_sort_info i JOIN ducklake_sort_expression e ON e.sort_id = i.sort_id`)
	}
	if len(refs) > 0 {
		steps = append(steps, step{strings.Join(refs, " UNION ALL "), func(rows *sql.Rows) error {
			var x formats.LoadTableRef
			err := rows.Scan(&x.Kind, &x.TableID, &x.Begin, &x.End)
			load.TableRefs = append(load.TableRefs, x)
			return err
		}})
	}
	// The macros: every ducklake_macro row with each of its
	// implementations, or alone without one (the load's rule), and, of
	// those with an id and implementations, the definitions in order
	// (NameClashes').
	byID := map[int64]*formats.NamedObject{}
	var order []int64
	if filled["ducklake_macro"] {
		steps = append(steps, step{`SELECT m.macro_id, m.schema_id, m.macro_name, m.begin_snapshot, m.end_snapshot, i.macro_id IS NULL, i.impl_id, i.dialect, i.sql, i.type,
			(SELECT to_json(list({'name': p.parameter_name, 'type': p.parameter_type, 'default': p.default_value, 'default_type': p.default_value_type} ORDER BY p.rowid))::VARCHAR
			 FROM ducklake_macro_parameters p WHERE p.macro_id = m.macro_id AND p.impl_id = i.impl_id)
			FROM ducklake_macro m LEFT JOIN ducklake_macro_impl i ON i.macro_id = m.macro_id
			ORDER BY m.macro_id, i.impl_id`, func(rows *sql.Rows) error {
			var o formats.NamedObject
			var noImpl bool
			var impl sql.NullInt64
			var dialect, query, typ, params sql.NullString
			if err := rows.Scan(&o.ID, &o.SchemaID, &o.Name, &o.Begin, &o.End, &noImpl, &impl, &dialect, &query, &typ, &params); err != nil {
				return err
			}
			load.Macros = append(load.Macros, formats.LoadMacro{SchemaID: o.SchemaID, Name: o.Name, Type: typ, NoImpl: noImpl, Begin: o.Begin, End: o.End})
			if noImpl || !o.ID.Valid {
				return nil
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
		}})
	}
	for _, s := range steps {
		if err := scan(s.q, s.row); err != nil {
			return nil, err
		}
	}
	for _, id := range order {
		out.objects = append(out.objects, *byID[id])
	}
	load.ColumnSpans = make(map[int64][]formats.Span, len(spans))
	for id, rows := range spans {
		load.ColumnSpans[id] = formats.ColumnSpans(rows)
	}
	for _, x := range every {
		if nested[x.TableID.Int64] {
			load.ColumnTree = append(load.ColumnTree, x)
		}
	}
	return out, nil
}
