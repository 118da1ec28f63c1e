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
func (r *run) loadFailures(source *formats.Version) error {
	rows, snaps, err := r.loadRows(source)
	if err != nil {
		return fmt.Errorf("read the catalog's schemas, tables, views and macros: %w", err)
	}
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

// loadRows reads the source's rows formats.LoadRefusal checks, and its
// snapshot ids in order.
func (r *run) loadRows(source *formats.Version) (*formats.LoadRows, []int64, error) {
	scan := func(q string, row func(*sql.Rows) error) error { return r.w.eachRow(r.ctx, q, row) }
	out := &formats.LoadRows{WithColumns: map[int64]bool{}}
	spans := map[int64][][2]sql.NullInt64{}
	var snaps []int64
	steps := []struct {
		q   string
		row func(*sql.Rows) error
	}{
		{`SELECT snapshot_id FROM ducklake_snapshot WHERE snapshot_id IS NOT NULL ORDER BY snapshot_id`, func(rows *sql.Rows) error {
			var s int64
			err := rows.Scan(&s)
			snaps = append(snaps, s)
			return err
		}},
		{`SELECT schema_id, schema_name, begin_snapshot, end_snapshot FROM ducklake_schema`, func(rows *sql.Rows) error {
			var x formats.LoadSchema
			err := rows.Scan(&x.ID, &x.Name, &x.Begin, &x.End)
			out.Schemas = append(out.Schemas, x)
			return err
		}},
		{`SELECT table_id, schema_id, table_name, begin_snapshot, end_snapshot FROM ducklake_table`, func(rows *sql.Rows) error {
			var x formats.LoadTable
			err := rows.Scan(&x.ID, &x.SchemaID, &x.Name, &x.Begin, &x.End)
			out.Tables = append(out.Tables, x)
			return err
		}},
		// The tables with a column row, and the snapshots each has a
		// visible one (a table without is not loaded: LoadRows.Loaded).
		{`SELECT DISTINCT table_id, begin_snapshot, end_snapshot FROM ducklake_column WHERE table_id IS NOT NULL`, func(rows *sql.Rows) error {
			var id int64
			var span [2]sql.NullInt64
			err := rows.Scan(&id, &span[0], &span[1])
			out.WithColumns[id] = true
			spans[id] = append(spans[id], span)
			return err
		}},
		{`SELECT table_id, column_id, column_order, column_name, begin_snapshot, end_snapshot FROM ducklake_column WHERE parent_column IS NULL`, func(rows *sql.Rows) error {
			var x formats.LoadColumn
			err := rows.Scan(&x.TableID, &x.ID, &x.Order, &x.Name, &x.Begin, &x.End)
			out.Columns = append(out.Columns, x)
			return err
		}},
		{`SELECT table_id, column_id, key, begin_snapshot, end_snapshot FROM ducklake_column_tag WHERE value IS NOT NULL`, func(rows *sql.Rows) error {
			var x formats.LoadColumnTag
			err := rows.Scan(&x.TableID, &x.ColumnID, &x.Key, &x.Begin, &x.End)
			out.ColumnTags = append(out.ColumnTags, x)
			return err
		}},
		{`SELECT schema_id, view_name, column_aliases, begin_snapshot, end_snapshot FROM ducklake_view`, func(rows *sql.Rows) error {
			var x formats.LoadView
			err := rows.Scan(&x.SchemaID, &x.Name, &x.Aliases, &x.Begin, &x.End)
			out.Views = append(out.Views, x)
			return err
		}},
	}
	// The partition specs and sort hints the readers load: those with a
	// key row (their queries join the two tables).
	refs := func(kind string) func(*sql.Rows) error {
		return func(rows *sql.Rows) error {
			x := formats.LoadTableRef{Kind: kind}
			err := rows.Scan(&x.TableID, &x.Begin, &x.End)
			out.TableRefs = append(out.TableRefs, x)
			return err
		}
	}
	steps = append(steps, struct {
		q   string
		row func(*sql.Rows) error
	}{`SELECT DISTINCT i.table_id, i.begin_snapshot, i.end_snapshot FROM ducklake_partition_info i JOIN ducklake_partition_column c ON c.partition_id = i.partition_id`, refs("partition spec")})
	if source.Has(formats.CapSortHints) {
		steps = append(steps, struct {
			q   string
			row func(*sql.Rows) error
		}{`SELECT DISTINCT i.table_id, i.begin_snapshot, i.end_snapshot FROM ducklake_sort_info i JOIN ducklake_sort_expression e ON e.sort_id = i.sort_id`, refs("sort hint")})
	}
	if source.Has(formats.CapMacros) {
		steps = append(steps, struct {
			q   string
			row func(*sql.Rows) error
		}{`SELECT m.schema_id, m.macro_name, i.type, i.macro_id IS NULL, m.begin_snapshot, m.end_snapshot
			FROM ducklake_macro m LEFT JOIN ducklake_macro_impl i ON i.macro_id = m.macro_id`, func(rows *sql.Rows) error {
			var x formats.LoadMacro
			err := rows.Scan(&x.SchemaID, &x.Name, &x.Type, &x.NoImpl, &x.Begin, &x.End)
			out.Macros = append(out.Macros, x)
			return err
		}})
	}
	for _, s := range steps {
		if err := scan(s.q, s.row); err != nil {
			return nil, nil, err
		}
	}
	out.ColumnSpans = make(map[int64][]formats.Span, len(spans))
	for id, rows := range spans {
		out.ColumnSpans[id] = formats.ColumnSpans(rows)
	}
	return out, snaps, nil
}
