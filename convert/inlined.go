package convert

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// Inlined data tables (ducklake_inlined_data_<table>_<schema version>) are
// read with the columns of their table as of a snapshot that each format's
// real reader looks up its own way (compare's inlinedSchemaSnapshot):
// 1.0 and 1.1 in ducklake_schema_versions (table_id and schema_version,
// else the table's first snapshot), 0.4 and a 0.3 source (DuckDB 1.4.5) at
// the table's first snapshot (formats.QuirkInlinedAtFirstSnapshot), 0.1,
// 0.2 and a 0.3 target (DuckDB 1.4.0) at snapshot 0
// (formats.QuirkInlinedAtSnapshotZero), as formats.InlinedSchemaSourceOf
// and SourceInlinedSchemaSourceOf say for both; a NULL begin_snapshot in the value taken makes the read
// fail (no fallback to the first snapshot), except when the table's schema
// version is the one of the snapshot read (both read it right). Where the
// source's and the target's lookups land on snapshots at which the table's
// columns differ, their readers read the inlined rows differently (a
// column not found, NULL for a column added since, another type), so the
// conversion is refused; an inlined table without rows differs only where
// one reader selects a column it lacks (the read fails) and the other
// reads nothing: when the target's reader fails, the table is dropped with
// its registration (both then read nothing), as DuckLake 1.0 leaves one
// behind per table after every ALTER and flush.

// inlinedSchemaRead is the snapshot a format's reader reads one inlined
// data table's rows with the schema of (-1: none, the read fails).
type inlinedSchemaRead struct {
	name    string
	tableID int64
	sv      int64
	snap    int64
}

// inlinedSchemaReads lists, for every inlined data table present in the
// working copy, the snapshot reader v looks up its schema at, on the
// working copy as it is (the source before the steps, the target after):
// as the newest release of v reads it when asSource, else as every
// release of v must (formats.Version.InlinedSchemaSourceOf).
func (r *run) inlinedSchemaReads(v *formats.Version, asSource bool) (map[string]inlinedSchemaRead, error) {
	lookup := v.InlinedSchemaSourceOf
	if asSource {
		lookup = v.SourceInlinedSchemaSourceOf
	}
	if ok, err := r.w.hasTable(r.ctx, "ducklake_inlined_data_tables"); err != nil || !ok {
		return nil, err
	}
	tables, err := inlinedDataTables(r)
	if err != nil {
		return nil, err
	}
	if len(tables) == 0 {
		return nil, nil
	}
	// GetBeginSnapshotForTable: the first ducklake_table row, storage order.
	first := `(SELECT t.begin_snapshot FROM ducklake_table t WHERE t.table_id = i.table_id ORDER BY t.rowid LIMIT 1)`
	// GetBeginSnapshotForSchemaVersion: the first matching row, storage
	// order; whether there is one and its begin_snapshot (NULL or not).
	hasRow, row := "'0'", "NULL"
	if lookup(true) == formats.InlinedSchemaFromVersionRow {
		if ok, err := r.w.hasColumn(r.ctx, "ducklake_schema_versions", "table_id"); err != nil {
			return nil, err
		} else if ok {
			match := `FROM ducklake_schema_versions s WHERE s.table_id = i.table_id AND s.schema_version = i.schema_version`
			hasRow = `CASE WHEN EXISTS (SELECT 1 ` + match + `) THEN '1' ELSE '0' END`
			row = `(SELECT s.begin_snapshot ` + match + ` ORDER BY s.rowid LIMIT 1)`
		}
	}
	rows, err := r.w.fields(r.ctx, `SELECT i.table_name, i.table_id, i.schema_version, `+hasRow+`, coalesce(`+row+`, -1), coalesce(`+first+`, -1)
		FROM ducklake_inlined_data_tables i WHERE i.table_name IS NOT NULL AND i.table_id IS NOT NULL AND i.schema_version IS NOT NULL
		ORDER BY i.table_id, i.schema_version, i.table_name`)
	if err != nil {
		return nil, fmt.Errorf("inlined data tables: %w", err)
	}
	out := map[string]inlinedSchemaRead{}
	for _, row := range rows {
		f := row
		if _, ok := tables[f[0]]; !ok {
			continue // registered, dropped: not read
		}
		g := inlinedSchemaRead{name: f[0]}
		var rowSnap, firstSnap int64 // -1: NULL, the read fails
		for _, p := range []struct {
			text string
			n    *int64
		}{{f[1], &g.tableID}, {f[2], &g.sv}, {f[4], &rowSnap}, {f[5], &firstSnap}} {
			n, err := strconv.ParseInt(p.text, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("inlined data table %s: %w", f[0], err)
			}
			*p.n = n
		}
		switch lookup(f[3] == "1") {
		case formats.InlinedSchemaFromSnapshotZero:
			g.snap = 0
		case formats.InlinedSchemaFromVersionRow:
			g.snap = rowSnap
		default:
			g.snap = firstSnap
		}
		out[g.name] = g
	}
	return out, nil
}

// inlinedSchemaCheck refuses the inlined data tables that the source's
// reader (lookups in source, taken before the steps) and the target's
// reader read with different columns, except those without rows that
// only the target's reader fails to read (a column it selects by name is
// missing, or the table does not exist at the snapshot it looks up):
// those are dropped with their registration and noted (a source's reader
// reads no rows from them, and a target's reader then reads none). It
// runs on the working copy after the steps, whose ducklake_column rows
// still say what each snapshot's columns are.
func (r *run) inlinedSchemaCheck(source, target *formats.Version, src map[string]inlinedSchemaRead) error {
	if r.opts.faithful || len(src) == 0 {
		return nil
	}
	tgt, err := r.inlinedSchemaReads(target, false)
	if err != nil {
		return err
	}
	var both []string
	for name := range src {
		if _, ok := tgt[name]; ok {
			both = append(both, name)
		}
	}
	nonEmpty, err := r.w.nonEmpty(r.ctx, both)
	if err != nil {
		return err
	}
	var items, dropped, droppedItems []string
	for _, name := range slices.Sorted(maps.Keys(src)) {
		a, b := src[name], tgt[name]
		if _, ok := tgt[name]; !ok || a.snap == b.snap {
			continue
		}
		ca, err := r.columnsAsOf(a.tableID, a.snap)
		if err != nil {
			return err
		}
		cb, err := r.columnsAsOf(b.tableID, b.snap)
		if err != nil {
			return err
		}
		if ca == cb {
			continue
		}
		// A reader reading at a snapshot of the inlined table's own schema
		// version has that schema cached and reads it right: the lookups
		// matter only where the table is read at another schema version.
		other, err := r.w.count(r.ctx, fmt.Sprintf(`SELECT count(*) FROM ducklake_snapshot s WHERE s.schema_version <> %d
			AND EXISTS (SELECT 1 FROM ducklake_table t WHERE t.table_id = %d AND s.snapshot_id >= t.begin_snapshot AND (s.snapshot_id < t.end_snapshot OR t.end_snapshot IS NULL))`, a.sv, a.tableID))
		if err != nil {
			return fmt.Errorf("snapshots reading inlined data table %s: %w", name, err)
		}
		if other == 0 {
			continue
		}
		item := fmt.Sprintf("table %d: %s (schema version %d) read as of snapshot %d %s by format %s readers, as of snapshot %d %s by format %s readers",
			a.tableID, name, a.sv, a.snap, ca, source.Name, b.snap, cb, target.Name)
		// Without rows (flushed), a reader fails only when a column it
		// selects by name is missing (one stored with another type binds
		// and reads nothing); otherwise it reads nothing either way.
		if !nonEmpty[name] {
			fa, err := r.selectsMissing(name, a.tableID, a.snap)
			if err != nil {
				return err
			}
			fb, err := r.selectsMissing(name, b.tableID, b.snap)
			if err != nil {
				return err
			}
			if fa == fb {
				continue
			}
			if fb {
				dropped, droppedItems = append(dropped, name), append(droppedItems, item+" (no rows)")
				continue
			}
		}
		items = append(items, item)
	}
	if len(items) == 0 && len(dropped) == 0 {
		return nil
	}
	q := formats.QuirkInlinedAtFirstSnapshot
	if target.ReadsWith(formats.QuirkInlinedAtSnapshotZero) || source.ReadsAsSourceWith(formats.QuirkInlinedAtSnapshotZero) && !target.ReadsWith(q) {
		q = formats.QuirkInlinedAtSnapshotZero
	}
	info := q.Info()
	who, other := target.Name, source.Name
	if !target.ReadsWith(q) {
		who, other = source.Name+" (the source's)", target.Name
	}
	if len(dropped) > 0 {
		if err := dropInlinedTables(r, dropped); err != nil {
			return fmt.Errorf("drop the inlined data tables without rows that format %s readers cannot read: %w", target.Name, err)
		}
		info := info // the target's lookup, where it has its own
		if target.ReadsWith(formats.QuirkInlinedAtFirstSnapshot) && !target.ReadsWith(formats.QuirkInlinedAtSnapshotZero) {
			info = formats.QuirkInlinedAtFirstSnapshot.Info()
		}
		r.add(Finding{Severity: Note, Code: info.Name, Step: "reader " + target.Name, Table: "ducklake_inlined_data_tables", Detail: summarize(droppedItems),
			Reason: fmt.Sprintf("these inlined data tables hold no rows, but format %s readers would read them with other columns of their table than format %s readers and fail (a column they select is missing, or the table does not exist then), where format %s readers read nothing: dropped with their ducklake_inlined_data_tables rows, so that no reader reads them: %s (%s)",
				target.Name, source.Name, source.Name, info.Behaviour, info.Source)})
	}
	if len(items) == 0 {
		return nil
	}
	r.add(Finding{Severity: Refuse, Code: info.Name, Step: "reader " + target.Name, Table: "ducklake_inlined_data_tables", Detail: summarize(items),
		Reason: fmt.Sprintf("format %s readers read these inlined rows with other columns of their table than format %s readers, so the rows read differ or the read fails: %s (%s)",
			who, other, info.Behaviour, info.Source)})
	return nil
}

// selectsMissing tells whether a read of inlined data table name with its
// table's columns as of snap fails to bind: the table does not exist then,
// or a column it selects (by name, in ASCII letter case only, as DuckDB
// binds: a Kelvin sign is no k) is not a column of the inlined table.
func (r *run) selectsMissing(name string, tableID, snap int64) (bool, error) {
	if snap < 0 {
		return true, nil
	}
	vis := fmt.Sprintf("%[1]d >= begin_snapshot AND (%[1]d < end_snapshot OR end_snapshot IS NULL)", snap)
	n, err := r.w.count(r.ctx, fmt.Sprintf(`SELECT count(*) FROM ducklake_table WHERE table_id = %d AND %s`, tableID, vis))
	if err != nil {
		return false, fmt.Errorf("table %d at snapshot %d: %w", tableID, snap, err)
	}
	if n == 0 {
		return true, nil
	}
	selected, err := r.w.strings(r.ctx, fmt.Sprintf(`SELECT column_name FROM ducklake_column WHERE table_id = %d AND parent_column IS NULL AND %s`, tableID, vis))
	if err != nil {
		return false, fmt.Errorf("columns of table %d at snapshot %d: %w", tableID, snap, err)
	}
	have, _, err := r.w.columns(r.ctx, name)
	if err != nil {
		return false, err
	}
	for _, c := range selected {
		if !slices.ContainsFunc(have, func(h string) bool { return formats.NamesEqual(h, c) }) {
			return true, nil
		}
	}
	return false, nil
}

// columnsAsOf describes a table's columns at a snapshot as an inlined read
// uses them (id, name, type, parent; names and types in ASCII lower case,
// as DuckDB binds the one and DuckLake's readers parse the other), or says
// the table does not exist.
func (r *run) columnsAsOf(tableID, snap int64) (string, error) {
	if snap < 0 {
		return "(no snapshot: the read fails)", nil
	}
	vis := fmt.Sprintf("%[1]d >= begin_snapshot AND (%[1]d < end_snapshot OR end_snapshot IS NULL)", snap)
	n, err := r.w.count(r.ctx, fmt.Sprintf(`SELECT count(*) FROM ducklake_table WHERE table_id = %d AND %s`, tableID, vis))
	if err != nil {
		return "", fmt.Errorf("table %d at snapshot %d: %w", tableID, snap, err)
	}
	if n == 0 {
		return "(no such table then: the read fails)", nil
	}
	rows, err := r.w.strings(r.ctx, fmt.Sprintf(`SELECT `+formats.ASCIILowerSQL("column_name")+` || ' ' || `+formats.ASCIILowerSQL("trim(column_type)")+` || ' #' || column_id || coalesce(' in #' || parent_column, '')
		FROM ducklake_column WHERE table_id = %d AND %s ORDER BY parent_column NULLS FIRST, column_order, column_id`, tableID, vis))
	if err != nil {
		return "", fmt.Errorf("columns of table %d at snapshot %d: %w", tableID, snap, err)
	}
	return "(" + strings.Join(rows, ", ") + ")", nil
}
