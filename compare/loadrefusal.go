package compare

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// refusedLoad: the real reader's load of the whole catalog at a snapshot
// fails, and with it the read of every table there.
var refusedLoad = formats.QuirkInfo{Name: "catalog-load-fails",
	Behaviour: "every release line's reader loads the whole catalog at the snapshot it reads (DuckLakeMetadataManager::GetCatalogForSnapshot, DuckLakeCatalog::LoadSchemaForSnapshot; v1.3-ossivalis, v1.4-andium, v1.5-variegata and main alike) and fails the load, so every table's read, on a visible ducklake_table row whose schema_id is no visible schema's, a visible table without any ducklake_column row, a table_id with two visible ducklake_table rows (its columns are joined once per row, ORDER BY table_id, and added twice: ColumnList::AddColumn), two columns of a visible table whose names are one in any ASCII letter case (ColumnList's names are case-insensitive), a visible tag with a value (LoadTags skips a NULL one) of a visible top-level column whose key is not 'comment' (\"Only comment tags are supported for columns currently\"), a table, view or macro of a visible schema named, in any ASCII letter case, as a schema stored before it (LoadSchemaForSnapshot keeps the first of a name: \"could not find schema that corresponds to the table entry\"), a visible view or macro whose schema_id is no visible schema's, a visible view whose column_aliases DuckLakeUtil::ParseQuotedList cannot parse (\"Failed to parse quoted value - expected a quote\"), a visible nested field whose parent is not among the columns added before it (the load adds a table's visible column rows in the order parent_column NULLS FIRST, column_order, each field to the column of its parent_column's id added before it: AddChildColumn, \"Could not find parent column for column ...\"; a field whose parent ended, or whose parent is a field of a greater parent_column than its own id), a negative id of a visible row the load reads with GetValue<uint64_t> (a schema's schema_id, a table's table_id or schema_id, a column's column_id or parent_column, a view's or macro's schema_id: the cast of a negative BIGINT to UBIGINT throws), a visible partition spec or sort hint of no visible table, a visible macro without an implementation, and one with an implementation whose type is neither 'scalar' nor 'table' (CreateMacroInfoFromDucklake: \"Macro type ... is not implemented\"); a table whose name another table (of a larger table_id) or a view takes in the schema's name map is loaded all the same, and its columns fail the load as any table's; a visible table whose column rows are none visible at the snapshot gives the load's LEFT JOIN no row and is left out, without failing (its name is free, a partition spec or sort hint of it is a stray)",
	// No one Error: the readers fail with another message for each
	// condition (a CatalogException "Column with name ... already
	// exists!", a NotImplementedException for a tag, an
	// InvalidInputException "Failed to load DuckLake - ..." for a
	// missing schema), which each reason quotes in parentheses.
}

// loadRefusal says why every DuckLake reader fails to load the catalog at
// snap, "" when it loads. The readers load a snapshot's schemas, tables,
// views, macros, partition specs and sort hints together, and fail on any
// of them (a table whose schema is not visible, or is dropped as a second
// schema of its name in any letter case, a table_id with two visible
// rows, a table without column rows, two columns of one table named alike
// in any letter case, a column tag other than a comment, a view whose
// column aliases do not parse, a view or macro whose schema is not
// visible, a stray partition spec or sort hint, a macro without
// implementation or with one of another type than scalar or table): a
// failure is every table's, whatever table holds it. Before, the proof
// left out a table whose schema is not visible and read a table_id with
// two visible rows as one table, so a B with either (the second a plain
// INSERT of an existing row) was equivalent to its source, and described
// the others as entries, alike on both sides, so that a catalog A with
// one and its B were equivalent and a frozen catalog with one read alone
// cleanly.
// It is kept per epoch of the schema description (every metadata table
// but the data and delete files): the same rows are visible throughout.
// The proof asks it for every table at every snapshot, so each snapshot's
// answer is kept too (finding the epoch costs more than the map).
func (r *Reader) loadRefusal(ctx context.Context, snap int64) (string, error) {
	if why, ok := r.meta.loadRefusalAt[snap]; ok {
		return why, nil
	}
	ep, err := r.epoch(ctx, snap, 0, r.schemaTables()...)
	if err != nil {
		return "", err
	}
	why, ok := r.meta.loadRefusals[ep]
	if !ok {
		if why, err = r.readLoadRefusal(ctx, snap); err != nil {
			return "", err
		}
		r.meta.loadRefusals[ep] = why
	}
	r.meta.loadRefusalAt[snap] = why
	return why, nil
}

func (r *Reader) readLoadRefusal(ctx context.Context, snap int64) (string, error) {
	rows, err := r.loadRows(ctx)
	if err != nil {
		return "", err
	}
	if why := formats.LoadRefusal(rows, snap); why != "" {
		return why, nil
	}
	ids := rows.VisibleTableIDs(snap)
	// A table whose name the readers resolve to another entry
	// (shadowTables) is loaded all the same: its column and folder
	// refusals, which the proof finds where it reads a table, fail the
	// load of every table.
	if len(ids) > 0 {
		if why, err := r.shadowedLoadRefusal(ctx, snap); err != nil || why != "" {
			return why, err
		}
	}
	// Partition specs and sort hints of no visible table
	// (strayTableEntries describes them too).
	stray := entries{}
	visibleTables := make([]Table, 0, len(ids))
	for _, id := range ids {
		visibleTables = append(visibleTables, Table{ID: id})
	}
	if err := r.strayTableEntries(ctx, stray, visibleTables, snap); err != nil {
		return "", err
	}
	if len(stray) == 0 {
		return "", nil
	}
	first := slices.Min(slices.Collect(maps.Keys(stray)))
	return first + ": " + stray[first], nil
}

// loadRows is the catalog's rows formats.LoadRefusal checks, from the
// rows the reader reads once. Built once per reader.
func (r *Reader) loadRows(ctx context.Context) (*formats.LoadRows, error) {
	if r.meta.loadRows != nil {
		return r.meta.loadRows, nil
	}
	schemas, tables, err := r.schemaRows(ctx)
	if err != nil {
		return nil, err
	}
	withColumns, err := r.tablesWithColumns(ctx)
	if err != nil {
		return nil, err
	}
	spans, _, err := r.columnSpans(ctx)
	if err != nil {
		return nil, err
	}
	out := &formats.LoadRows{WithColumns: withColumns, ColumnSpans: spans}
	// The column rows of the tables with a nested field (or a negative
	// id), whose parents the readers' load looks up
	// (formats.ParentRefusal): read only where readColumnRows saw one,
	// most catalogs have none.
	if r.meta.columnTree {
		err = r.eachRow(ctx, formats.ColumnTreeQuery("cat."), func(rows *sql.Rows) error {
			var x formats.LoadColumn
			err := rows.Scan(&x.TableID, &x.ID, &x.Order, &x.Name, &x.Parent, &x.Begin, &x.End)
			out.ColumnTree = append(out.ColumnTree, x)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("read the nested columns of %s: %w", oneline.Name(r.path), err)
		}
	}
	for _, s := range schemas {
		out.Schemas = append(out.Schemas, formats.LoadSchema{ID: s.id, Name: s.name, Begin: s.begin, End: s.end})
	}
	for _, t := range tables {
		out.Tables = append(out.Tables, formats.LoadTable{ID: t.id, SchemaID: t.schemaID, Name: t.name, Begin: t.begin, End: t.end})
	}
	if !r.empty("ducklake_view") {
		rows, err := r.viewRows(ctx)
		if err != nil {
			return nil, fmt.Errorf("read views of %s: %w", oneline.Name(r.path), err)
		}
		for _, v := range rows {
			out.Views = append(out.Views, formats.LoadView{SchemaID: v.schema, Name: v.name, Aliases: v.aliases, Begin: v.begin, End: v.end})
		}
	}
	if r.format.Has(formats.CapMacros) && !r.empty("ducklake_macro") {
		rows, err := r.macroRows(ctx)
		if err != nil {
			return nil, fmt.Errorf("read macros of %s: %w", oneline.Name(r.path), err)
		}
		for _, m := range rows {
			out.Macros = append(out.Macros, formats.LoadMacro{SchemaID: m.schema, Name: m.name, Type: m.typ, NoImpl: m.noImpl, Begin: m.begin, End: m.end})
		}
	}
	r.meta.loadRows = out
	return out, nil
}

// shadowedLoadRefusal says why the readers' load at snap fails on a table
// they load but whose name they resolve to another entry, "" when it does
// not: what refusal finds for a table it reads (a folder path with a NULL
// path_is_relative, a column the readers refuse, two columns named alike,
// a column tag other than a comment), all failures of the load.
func (r *Reader) shadowedLoadRefusal(ctx context.Context, snap int64) (string, error) {
	tables, err := r.Tables(ctx, snap)
	if err != nil {
		return "", err
	}
	for _, t := range tables {
		if t.shadowedBy == "" {
			continue
		}
		why := t.folderRefusal
		if why == "" {
			cols, err := r.Columns(ctx, t.ID, snap)
			if err != nil {
				return "", err
			}
			if _, what := r.columnsRefusal(cols); what != "" {
				why = what
			} else if why, err = r.columnsLoadRefusal(ctx, t, cols, snap); err != nil {
				return "", err
			}
		}
		if why != "" {
			return fmt.Sprintf("table %s (id %d), whose name the readers resolve to %s: %s", t.Shown(), t.ID, t.shadowedBy, why), nil
		}
	}
	return "", nil
}

// columnsLoadRefusal says why the readers' load of the catalog fails on
// the columns cols of table t visible at snap, "" when it does not: two
// top-level columns named alike in any ASCII letter case (DuckDB's
// ColumnList names are case-insensitive: "Column with name ... already
// exists!") or a visible tag of a top-level column that is not its
// comment (LoadSchemaForSnapshot: "Only comment tags are supported for
// columns currently"). The load fails for every table; the proof reports
// the table that has it, as it does the other columns its readers refuse
// (columnsRefusal), where it reads the columns anyway.
func (r *Reader) columnsLoadRefusal(ctx context.Context, t Table, cols []*Column, snap int64) (string, error) {
	if why := columnNamesClash(cols); why != "" {
		return why, nil
	}
	return r.columnTagRefusal(ctx, t, cols, snap)
}

// columnNamesClash is formats.ColumnNamesClash of the columns' names.
func columnNamesClash(cols []*Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return formats.ColumnNamesClash(names)
}

// columnTagRefusal is columnsLoadRefusal's second check: a visible tag of
// a top-level column of t at snap that is not its comment.
func (r *Reader) columnTagRefusal(ctx context.Context, t Table, cols []*Column, snap int64) (string, error) {
	if r.empty("ducklake_column_tag") {
		return "", nil
	}
	tags, err := r.otherColumnTags(ctx)
	if err != nil {
		return "", err
	}
	if len(tags[t.ID]) == 0 {
		return "", nil
	}
	top := map[string]*Column{}
	for _, c := range cols {
		top[fmt.Sprint(c.ID)] = c
	}
	for _, x := range tags[t.ID] {
		if c := top[x.sub.String]; c != nil && visibleRow(x.begin, x.end, snap) {
			return formats.ColumnTagRefused(c.Name, c.ID, x.key.String), nil
		}
	}
	return "", nil
}

// otherColumnTags is the ducklake_column_tag rows with a value whose key is
// not "comment", by table_id: the tags the readers refuse where visible.
// Read once per reader.
func (r *Reader) otherColumnTags(ctx context.Context) (map[int64][]tagRow, error) {
	if r.meta.otherTags != nil {
		return r.meta.otherTags, nil
	}
	rows, err := r.tagRows(ctx, true)
	if err != nil {
		return nil, fmt.Errorf("read the column tags of %s: %w", oneline.Name(r.path), err)
	}
	out := map[int64][]tagRow{}
	for _, x := range rows {
		if x.owner.Valid && x.readerTag() && x.key.String != "comment" {
			out[x.owner.Int64] = append(out[x.owner.Int64], x)
		}
	}
	r.meta.otherTags = out
	return out, nil
}

// tablesWithColumns is the table_ids that have a ducklake_column row (at
// any snapshot): the readers' LEFT JOIN gives a table without one a NULL
// column, and they fail. Read once per reader (readColumnRows).
func (r *Reader) tablesWithColumns(ctx context.Context) (map[int64]bool, error) {
	if err := r.readColumnRows(ctx); err != nil {
		return nil, err
	}
	return r.meta.withColumns, nil
}

// columnSpans is, by table_id, the snapshots at which some
// ducklake_column row of the table is visible (formats.ColumnSpans), and
// the snapshots where one of them begins or ends, sorted: a table whose
// column rows are none visible at a snapshot is not loaded there
// (formats.LoadRows.Loaded). Read once per reader (readColumnRows).
func (r *Reader) columnSpans(ctx context.Context) (map[int64][]formats.Span, []int64, error) {
	if err := r.readColumnRows(ctx); err != nil {
		return nil, nil, err
	}
	return r.meta.columnSpans, r.meta.spanPoints, nil
}

// readColumnRows reads, in one statement per reader, what the reader asks
// of ducklake_column as a whole: the tables with a column row and their
// column spans (tablesWithColumns, columnSpans: every Tables call needs
// them), the column types of every row (lakeTypes, HasColumnOfType), and
// whether any row is of the column tree (loadRows).
// Each was a statement of its own, on every reader (backfill's proofs
// ran three or four of them per catalog; docs/compare.md, Benchmark).
// The statement is allColumnRows', which reads each table's columns
// too; where that one is not made (its fallbacks), a statement of its
// own.
func (r *Reader) readColumnRows(ctx context.Context) error {
	if r.meta.withColumns != nil {
		return nil
	}
	if all := r.allColumnRows(ctx); all != nil && all.whole != nil {
		r.keepColumnsWhole(all.whole)
		all.whole = nil
		return nil
	}
	whole := newColumnsWhole()
	err := r.eachRow(ctx, `SELECT DISTINCT table_id, begin_snapshot, end_snapshot, `+columnsWholeSelect+` FROM cat.ducklake_column`, func(rows *sql.Rows) error {
		var id, begin, end sql.NullInt64
		var low, trim sql.NullString
		var inTree sql.NullBool
		if err := rows.Scan(&id, &begin, &end, &low, &trim, &inTree); err != nil {
			return err
		}
		whole.add(id, begin, end, low, trim, inTree)
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the columns' tables and types of %s: %w", oneline.Name(r.path), err)
	}
	r.keepColumnsWhole(whole)
	return nil
}

// columnsWholeSelect is what readColumnRows asks of each ducklake_column
// row beside its table_id and snapshots, in the order columnsWhole.add
// takes it.
const columnsWholeSelect = `lower(column_type), lower(trim(column_type)), parent_column IS NOT NULL OR column_id < 0`

// columnsWhole is what readColumnRows gathers of ducklake_column's rows.
type columnsWhole struct {
	withColumns    map[int64]bool
	byTable        map[int64][][2]sql.NullInt64
	seen           map[[3]sql.NullInt64]bool // (table_id, begin, end): a row per type
	lower, trimmed map[string]bool
	tree           bool
}

func newColumnsWhole() *columnsWhole {
	return &columnsWhole{withColumns: map[int64]bool{}, byTable: map[int64][][2]sql.NullInt64{}, seen: map[[3]sql.NullInt64]bool{}, lower: map[string]bool{}, trimmed: map[string]bool{}}
}

// add takes a row's table_id, snapshots and columnsWholeSelect's values.
func (w *columnsWhole) add(id, begin, end sql.NullInt64, low, trim sql.NullString, inTree sql.NullBool) {
	w.tree = w.tree || inTree.Bool
	if low.Valid {
		w.lower[low.String], w.trimmed[trim.String] = true, true
	}
	if k := [3]sql.NullInt64{id, begin, end}; id.Valid && !w.seen[k] {
		w.seen[k] = true
		w.withColumns[id.Int64] = true
		w.byTable[id.Int64] = append(w.byTable[id.Int64], [2]sql.NullInt64{begin, end})
	}
}

// keepColumnsWhole keeps what readColumnRows read.
func (r *Reader) keepColumnsWhole(w *columnsWhole) {
	spans := make(map[int64][]formats.Span, len(w.byTable))
	var points []int64
	for id, rows := range w.byTable {
		spans[id] = formats.ColumnSpans(rows)
		for _, x := range spans[id] {
			points = append(points, x.Begin)
			if !x.Open {
				points = append(points, x.End)
			}
		}
	}
	slices.Sort(points)
	r.meta.withColumns, r.meta.columnSpans, r.meta.spanPoints = w.withColumns, spans, slices.Compact(points)
	r.meta.lakeTypes, r.meta.columnTypes, r.meta.columnTree = w.lower, w.trimmed, w.tree
}

// asciiLower lowers ASCII letters only, as DuckDB's case-insensitive
// names do (StringUtil::CIEquals, CIHash).
func asciiLower(s string) string { return formats.ASCIILower(s) }
