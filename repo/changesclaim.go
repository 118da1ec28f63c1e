package repo

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// version.json's "changes" lists the column differences from the parent,
// each with "breaking": whether SQL written for the parent may fail (a
// column dropped, renamed or recreated; FDL 0.1, Versions). Hosts and users
// deciding whether to upgrade act on breaking without opening a catalog, so
// check holds the list to the frozen catalog, which holds the parent's
// snapshot too: the content pass compares, in that one catalog, each
// table's columns at the parent's ducklake.snapshot_id with those at the
// version's (changesIssues), by table_id and column_id.
//
// A column is dropped (its column_id gone), added (a new column_id),
// renamed (same column_id, another name), recreated (dropped and added
// under the same name), retyped (its type changed: DuckLake records a
// type change as a new row of the same column_id, and allows only
// promotions, TINYINT to BIGINT, FLOAT to DOUBLE, TIMESTAMP to
// TIMESTAMPTZ) or otherwise altered (nullability, default, or only fields
// added to a nested column). Dropped, renamed and recreated are breaking,
// as a nested field dropped or renamed makes its column's difference
// breaking. Retyped (the column or a nested field) may break: SQL written
// for the parent reads the promoted column through DuckDB's implicit
// casts, and fails only where it leans on the old type (a bitwise
// operator on a column now FLOAT), so a writer may call it either way
// (Iceberg counts promotions as compatible).
//
// Beside its columns, a table at both snapshots differs where what the
// catalog records of it at a snapshot, and a reader's SQL sees, changed
// (diffTableExtras): its partitioning (SET / RESET PARTITIONED BY), its
// sort hint (SET SORTED BY, formats 0.4 on), its comment and tags, and
// its columns' and nested fields' (COMMENT ON COLUMN: the column's
// difference); so does a view's comment and tags, and its columns' (1.1).
// None breaks SQL written for the parent (see diffTableExtras). An entry
// names such a difference by the table, or by a column a partitioning or
// sort hint difference names (a key that came, went or changed), or, for
// a view, any column of it. Data, a schema's comment, macros,
// ducklake_metadata options (not recorded per snapshot) and
// default_value_type (which migrations fill in) are not compared: a
// changes entry naming a table for them alone names no difference.
//
// Kinds are not enumerated by the spec ("add_column" is its one
// example), so an entry's kind is not interpreted: only its table, column
// and breaking are compared. What is a finding (ProblemMismatch, exit 3):
//
//   - a breaking column difference that no entry names (table and column,
//     the column by its name at either snapshot, or a nested path under
//     it, "info.lat"), or that every entry naming it says breaking false
//     (for a column only retyped, a warning);
//   - an entry naming a table that is at neither snapshot, or a column
//     (or, with no column, a table) with no difference at all, its
//     partitioning, sort hint and tags included; a view created, dropped
//     or redefined (dataset.json lists views among the tables) is a
//     difference, and its columns, which only binding its
//     SQL would tell, are not compared: an entry naming a column of
//     such a view is taken as it is;
//   - a version without parents with a non-empty list: there is nothing
//     to differ from.
//
// Warnings, not findings: a table dropped or renamed (SQL naming it
// fails, but the spec's changes are column differences, so no entry is
// required for it) that no entry names with breaking true; differences
// that break nothing and no entry lists (a column added, a default
// changed, a table partitioned or commented): they mislead nobody about
// breaking; and a list that cannot be checked (the parent's version.json
// is not at hand, or the catalog lost the parent's snapshot, which other
// findings report). An entry saying
// breaking true of a difference that breaks nothing is no finding: the
// spec's "may fail" admits caution. Without "changes" nothing is checked.

// colDiff is one column's difference between the parent's snapshot and
// the version's, in one table.
type colDiff struct {
	tables []string // the table's keys (schema.table) at both snapshots
	shown  string   // the table as messages name it
	names  []string // the column's names at both snapshots (one if not renamed)
	what   string
	// breaking: SQL written for the parent may fail. tableLevel: the
	// table itself was dropped (its columns are listed so that entries
	// naming them match; the table's warning covers them). retyped: it
	// breaks only by a type promotion (of the column or a nested field),
	// which a writer may call breaking or not: its missing or false
	// claim is a warning.
	breaking, tableLevel, retyped bool
	// newTable: a column of a table created after the parent's snapshot.
	newTable bool
}

// tableDiff is a table dropped, renamed or created after the parent's
// snapshot, or a view created, dropped or redefined, or a table or view
// at both snapshots whose partitioning, sort hint or tags changed
// (altered).
type tableDiff struct {
	names    []string // keys at both snapshots
	what     string
	breaking bool // dropped or renamed
	view     bool
	// altered: the table (or view) is at both snapshots and only what
	// the catalog records of it beside its columns changed; cols are the
	// names (at either snapshot) of the columns that difference names, a
	// partition or sort key, which an entry may name too.
	altered bool
	cols    []string
}

// namesColumn reports whether an entry's column names one of the columns
// an altered table's difference names.
func (t tableDiff) namesColumn(col string) bool { return slices.Contains(t.cols, col) }

// namesTable reports whether an entry's table names one of keys.
func namesTable(keys []string, table string) bool { return slices.Contains(keys, table) }

// namesColumn reports whether an entry's column names the difference: one
// of its names, or a nested path under one.
func (d colDiff) namesColumn(col string) bool {
	for _, n := range d.names {
		if col == n || strings.HasPrefix(col, n+".") {
			return true
		}
	}
	return false
}

// entryText names changes[i] in a message.
func entryText(i int, c fdljson.Change) string {
	col := ""
	if c.Column != "" {
		col = ", column " + oneline.Name(c.Column)
	}
	return fmt.Sprintf("changes[%d] (table %s, kind %s%s, breaking %t)", i, oneline.Name(c.Table), oneline.Name(c.Kind), col, c.Breaking)
}

// changesIssues holds v's "changes" to its frozen catalog (see above),
// read with rd, the content pass's reader: the tables and columns at the
// parent's snapshot and at v's, which the reader keeps per epoch.
func (r *repository) changesIssues(ctx context.Context, v *version, rd *compare.Reader, key string) []Issue {
	changes := v.meta.Changes
	if changes == nil {
		return nil
	}
	file := v.prefix() + "version.json"
	if len(v.meta.Parents) == 0 {
		if len(changes) == 0 {
			return nil
		}
		more := ""
		if len(changes) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(changes)-1)
		}
		return []Issue{{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s: %s%s, but the version has no parent: changes are column differences from the parent (FDL 0.1, Versions: version.json), and a first version differs from none; leave changes out, or empty",
			file, entryText(0, changes[0]), more)}}
	}
	parent, known := r.parentSnapshot(v)
	snap := v.meta.DuckLake.SnapshotID
	if !known {
		return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s: changes not checked: the version.json of its parent %s is not at hand, and with it the snapshot the column differences are from", file, v.meta.Parents[0])}}
	}
	if parent >= snap {
		return nil // snapshotsIssues reports a parent frozen at this snapshot or later
	}
	snaps, err := rd.Snapshots(ctx)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("check %s's changes: %v", file, err), cause: err}}
	}
	if !slices.ContainsFunc(snaps, func(s compare.Snapshot) bool { return s.ID == parent }) {
		return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s: changes not checked: %s holds no snapshot %d, its parent %s's, to compare columns with", file, key, parent, v.meta.Parents[0])}}
	}
	cols, tabs, err := columnDifferences(ctx, rd, parent, snap)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("check %s's changes against %s: %v", file, key, err), cause: err}}
	}
	between := fmt.Sprintf("between its parent %s's snapshot %d and its snapshot %d in %s", v.meta.Parents[0], parent, snap, key)
	var issues []Issue
	// Each breaking difference: some entry names it with breaking true.
	for _, d := range cols {
		if !d.breaking || d.tableLevel {
			continue
		}
		var naming []string
		claimed := false
		for i, c := range changes {
			if c.Column != "" && namesTable(d.tables, c.Table) && d.namesColumn(c.Column) {
				naming = append(naming, entryText(i, c))
				claimed = claimed || c.Breaking
			}
		}
		problem, why := ProblemMismatch, ""
		if d.retyped {
			problem, why = ProblemWarning, " where it leans on the old type (DuckDB casts a promoted column implicitly, so this is not a false claim)"
		}
		switch {
		case len(naming) == 0:
			issues = append(issues, Issue{Problem: problem, Detail: fmt.Sprintf("%s: changes has no entry for column %s of table %s, %s %s: SQL written for the parent that names it may fail%s (breaking); name the table and column in an entry with breaking true",
				file, oneline.Name(d.names[0]), d.shown, d.what, between, why)})
		case !claimed:
			issues = append(issues, Issue{Problem: problem, Detail: fmt.Sprintf("%s: %s says breaking false, but column %s of table %s was %s %s: SQL written for the parent that names it may fail%s",
				file, strings.Join(naming, " and "), oneline.Name(d.names[0]), d.shown, d.what, between, why)})
		}
	}
	// Each entry: names a table, and a column, that differ.
	for i, c := range changes {
		if c.Column == "" {
			if !slices.ContainsFunc(tabs, func(t tableDiff) bool { return namesTable(t.names, c.Table) }) &&
				!slices.ContainsFunc(cols, func(d colDiff) bool { return namesTable(d.tables, c.Table) }) {
				issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s: %s names a table with no difference %s (it is at neither snapshot, or neither its columns nor its partitioning, sort hint, comment or tags changed)", file, entryText(i, c), between)})
			}
			continue
		}
		if !slices.ContainsFunc(cols, func(d colDiff) bool { return namesTable(d.tables, c.Table) && d.namesColumn(c.Column) }) &&
			!slices.ContainsFunc(tabs, func(t tableDiff) bool {
				return namesTable(t.names, c.Table) && (t.view || t.altered && t.namesColumn(c.Column))
			}) {
			issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s: %s names a column with no difference %s (no column of that name in a table of that name was added, dropped, renamed, altered or commented, nor became or ceased to be a partition or sort key)", file, entryText(i, c), between)})
		}
	}
	// Whole tables dropped or renamed: SQL naming them fails, but the
	// spec's changes are column differences.
	for _, t := range tabs {
		if !t.breaking || slices.ContainsFunc(changes, func(c fdljson.Change) bool { return c.Breaking && namesTable(t.names, c.Table) }) {
			continue
		}
		issues = append(issues, Issue{Problem: ProblemWarning, Detail: fmt.Sprintf("%s: table %s was %s %s, and no entry of changes names it with breaking true: SQL written for the parent that names it fails; the spec's changes are column differences, so this is not a false claim, but hosts and users deciding whether to upgrade read breaking",
			file, oneline.Name(t.names[0]), t.what, between)})
	}
	// Differences that break nothing and no entry lists.
	var unlisted []string
	for _, d := range cols {
		if d.breaking || d.tableLevel || d.newTable {
			continue
		}
		if !slices.ContainsFunc(changes, func(c fdljson.Change) bool { return namesTable(d.tables, c.Table) && d.namesColumn(c.Column) }) {
			unlisted = append(unlisted, fmt.Sprintf("column %s of table %s %s", oneline.Name(d.names[0]), d.shown, d.what))
		}
	}
	for _, t := range tabs {
		if !t.altered {
			continue
		}
		if !slices.ContainsFunc(changes, func(c fdljson.Change) bool {
			return namesTable(t.names, c.Table) && (c.Column == "" || t.view || t.namesColumn(c.Column))
		}) {
			unlisted = append(unlisted, fmt.Sprintf("table %s %s", oneline.Name(t.names[0]), t.what))
		}
	}
	if len(unlisted) > 0 {
		issues = append(issues, Issue{Problem: ProblemWarning, Detail: fmt.Sprintf("%s: changes lists no entry for %s, %s; they break no SQL written for the parent, but changes are the differences from it",
			file, strings.Join(unlisted, "; "), between)})
	}
	return issues
}

// columnDifferences compares, in one catalog, every table's columns at
// snapshot from with those at snapshot to, by table_id and column_id.
func columnDifferences(ctx context.Context, rd *compare.Reader, from, to int64) ([]colDiff, []tableDiff, error) {
	before, err := rd.Tables(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	after, err := rd.Tables(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	byID := map[int64]compare.Table{}
	for _, t := range before {
		byID[t.ID] = t
	}
	extrasWere, err := rd.TableExtras(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	extrasNow, err := rd.TableExtras(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	var cols []colDiff
	var tabs []tableDiff
	seen := map[int64]bool{}
	for _, t := range after {
		seen[t.ID] = true
		now, err := rd.Columns(ctx, t.ID, to)
		if err != nil {
			return nil, nil, err
		}
		old, ok := byID[t.ID]
		if !ok {
			tabs = append(tabs, tableDiff{names: []string{t.DottedName()}, what: "created"})
			for _, c := range now {
				cols = append(cols, colDiff{tables: []string{t.DottedName()}, shown: t.Shown(), names: []string{c.Name}, what: "added with its table", newTable: true})
			}
			continue
		}
		keys := []string{t.DottedName()}
		if old.DottedName() != t.DottedName() {
			keys = append(keys, old.DottedName())
			tabs = append(tabs, tableDiff{names: []string{old.DottedName(), t.DottedName()}, what: "renamed to " + t.Shown(), breaking: true})
		}
		was, err := rd.Columns(ctx, t.ID, from)
		if err != nil {
			return nil, nil, err
		}
		xWas, xNow := extrasOf(extrasWere, t.ID), extrasOf(extrasNow, t.ID)
		for _, d := range diffColumns(was, now, xWas.ColumnTags, xNow.ColumnTags) {
			d.tables, d.shown = keys, t.Shown()
			cols = append(cols, d)
		}
		if what, named := diffTableExtras(xWas, xNow, was, now); len(what) > 0 {
			tabs = append(tabs, tableDiff{names: keys, what: strings.Join(what, ", "), altered: true, cols: named})
		}
	}
	// Views, by name (a view's SQL is not bound: its columns are not
	// read).
	viewsWere, err := rd.Views(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	viewsNow, err := rd.Views(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	viewExtrasWere, err := rd.ViewExtras(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	viewExtrasNow, err := rd.ViewExtras(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	sqlWas := map[string]string{}
	for _, v := range viewsWere {
		sqlWas[v.DottedName()] = v.SQL
	}
	for _, v := range viewsNow {
		key := v.DottedName()
		was, ok := sqlWas[key]
		delete(sqlWas, key)
		switch {
		case !ok:
			tabs = append(tabs, tableDiff{names: []string{key}, what: "created (a view)", view: true})
		case was != v.SQL:
			tabs = append(tabs, tableDiff{names: []string{key}, what: "redefined (a view)", view: true})
		default:
			if what := diffViewExtras(viewExtrasWere[key], viewExtrasNow[key]); len(what) > 0 {
				tabs = append(tabs, tableDiff{names: []string{key}, what: strings.Join(what, ", ") + " (a view)", view: true, altered: true})
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(sqlWas)) {
		tabs = append(tabs, tableDiff{names: []string{key}, what: "dropped (a view)", breaking: true, view: true})
	}
	for _, t := range before {
		if seen[t.ID] {
			continue
		}
		tabs = append(tabs, tableDiff{names: []string{t.DottedName()}, what: "dropped", breaking: true})
		was, err := rd.Columns(ctx, t.ID, from)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range was {
			cols = append(cols, colDiff{tables: []string{t.DottedName()}, shown: t.Shown(), names: []string{c.Name}, what: "dropped with its table", breaking: true, tableLevel: true})
		}
	}
	return cols, tabs, nil
}

// diffColumns compares one table's top-level columns at two snapshots
// (was, then now) by column_id, with their and their nested fields' tags
// (by column_id; a column's comment is its tag "comment"); tables and
// shown are left to the caller.
func diffColumns(was, now []*compare.Column, tagsWere, tagsNow map[int64]map[string]*string) []colDiff {
	nowByID := map[int64]*compare.Column{}
	for _, c := range now {
		nowByID[c.ID] = c
	}
	wasByID := map[int64]*compare.Column{}
	for _, c := range was {
		wasByID[c.ID] = c
	}
	var out []colDiff
	dropped := map[string]int{} // name -> index in out
	for _, c := range was {
		n, ok := nowByID[c.ID]
		if !ok {
			dropped[c.Name] = len(out)
			out = append(out, colDiff{names: []string{c.Name}, what: fmt.Sprintf("dropped (column_id %d)", c.ID), breaking: true})
			continue
		}
		var what []string
		breaking, retyped := false, false
		names := []string{c.Name}
		if n.Name != c.Name {
			names = append(names, n.Name)
			what = append(what, "renamed to "+oneline.Name(n.Name))
			breaking = true
		}
		if n.Type != c.Type {
			what = append(what, fmt.Sprintf("retyped to %s, was %s", oneline.Name(n.Type), oneline.Name(c.Type)))
			retyped = true
		}
		if fields, br, rt := diffFields(c.Name, c.Children, n.Children); len(fields) > 0 {
			what = append(what, fields...)
			breaking, retyped = breaking || br, retyped || rt
		}
		if n.NullsAllowed != c.NullsAllowed {
			what = append(what, fmt.Sprintf("nulls allowed %t, was %t", n.NullsAllowed, c.NullsAllowed))
		}
		if defaultText(n.DefaultValue) != defaultText(c.DefaultValue) {
			what = append(what, fmt.Sprintf("default %s, was %s", defaultText(n.DefaultValue), defaultText(c.DefaultValue)))
		}
		what = append(what, diffColumnTags("", c, n, tagsWere, tagsNow)...)
		if len(what) > 0 {
			out = append(out, colDiff{names: names, what: strings.Join(what, ", ") + fmt.Sprintf(" (column_id %d)", c.ID), breaking: breaking || retyped, retyped: retyped && !breaking})
		}
	}
	for _, c := range now {
		if _, ok := wasByID[c.ID]; ok {
			continue
		}
		if i, ok := dropped[c.Name]; ok {
			// Dropped and added again under the same name: SQL naming it
			// reads another column.
			out[i].what = fmt.Sprintf("recreated (column_id %d dropped, %d added under its name)", wasColumnID(was, c.Name), c.ID)
			continue
		}
		out = append(out, colDiff{names: []string{c.Name}, what: fmt.Sprintf("added (column_id %d)", c.ID)})
	}
	return out
}

// wasColumnID is the column_id of the column named name in was.
func wasColumnID(was []*compare.Column, name string) int64 {
	for _, c := range was {
		if c.Name == name {
			return c.ID
		}
	}
	return -1
}

// diffFields describes the differences of a nested column's fields (path
// names the column), by field id; breaking when a field was dropped or
// renamed, retyped when one's type changed.
func diffFields(path string, was, now []*compare.Column) (what []string, breaking, retyped bool) {
	nowByID := map[int64]*compare.Column{}
	for _, c := range now {
		nowByID[c.ID] = c
	}
	wasIDs := map[int64]bool{}
	for _, c := range was {
		wasIDs[c.ID] = true
		field := path + "." + c.Name
		n, ok := nowByID[c.ID]
		switch {
		case !ok:
			what, breaking = append(what, "field "+oneline.Name(field)+" dropped"), true
			continue
		case n.Name != c.Name:
			what, breaking = append(what, "field "+oneline.Name(field)+" renamed to "+oneline.Name(n.Name)), true
		}
		if n.Type != c.Type {
			what, retyped = append(what, fmt.Sprintf("field %s retyped to %s, was %s", oneline.Name(field), oneline.Name(n.Type), oneline.Name(c.Type))), true
		}
		sub, br, rt := diffFields(field, c.Children, n.Children)
		what, breaking, retyped = append(what, sub...), breaking || br, retyped || rt
	}
	for _, c := range now {
		if !wasIDs[c.ID] {
			what = append(what, "field "+oneline.Name(path+"."+c.Name)+" added")
		}
	}
	return what, breaking, retyped
}

// diffColumnTags describes the differences of the tags of a column at
// both snapshots (was, now: its rows, of the same column_id) and of its
// nested fields at both (by field id); path is "" for a top-level column,
// else the field's dotted path.
func diffColumnTags(path string, was, now *compare.Column, tagsWere, tagsNow map[int64]map[string]*string) []string {
	subject := ""
	if path != "" {
		subject = "field " + oneline.Name(path) + " "
	}
	what := diffTags(subject, tagsWere[was.ID], tagsNow[now.ID])
	nowByID := map[int64]*compare.Column{}
	for _, c := range now.Children {
		nowByID[c.ID] = c
	}
	for _, c := range was.Children {
		if n, ok := nowByID[c.ID]; ok {
			what = append(what, diffColumnTags(cmp.Or(path, was.Name)+"."+c.Name, c, n, tagsWere, tagsNow)...)
		}
	}
	return what
}

// diffTags describes the differences between an object's tags at two
// snapshots (was, now), by key in order: COMMENT ON writes the key
// "comment", named so; other keys are named as tags, and values as
// defaults are ("none": no tag). subject opens each ("" for the object
// itself).
func diffTags(subject string, was, now map[string]*string) []string {
	var what []string
	for _, k := range unionKeys(was, now) {
		// A tag whose value is NULL (COMMENT ON … IS NULL writes one) is
		// no tag: readers show no comment, as without a row.
		w, n := was[k], now[k]
		if defaultText(w) == defaultText(n) {
			continue
		}
		name := "comment"
		if k != "comment" {
			name = "tag " + strconv.Quote(k)
		}
		what = append(what, fmt.Sprintf("%s%s %s, was %s", subject, name, defaultText(n), defaultText(w)))
	}
	return what
}

// extrasOf is a table's partitioning, sort hint and tags (none when the
// catalog records none).
func extrasOf(m map[int64]*compare.TableExtras, id int64) compare.TableExtras {
	if x := m[id]; x != nil {
		return *x
	}
	return compare.TableExtras{}
}

// diffTableExtras describes the differences of what the catalog records of
// a table at both snapshots beside its columns (was, now; wasCols and
// nowCols its columns then and now): its partitioning, its sort hint and
// its tags, none of which makes SQL written for the parent fail. A
// partition key or sort hint decides where and in which order rows are
// written, never which rows a query returns or whether it binds (DuckLake
// prunes by partition values and reads every file otherwise; a sort hint
// orders writes only), and a comment or tag is text that only the
// catalog's own listing (duckdb_tables(), duckdb_columns()) returns, from
// queries that bind whatever it says. named are the columns (by their
// names at both snapshots) that became or ceased to be keys, or whose
// key's transform or place changed: entries may name them.
func diffTableExtras(was, now compare.TableExtras, wasCols, nowCols []*compare.Column) (what, named []string) {
	names := map[int64][]string{}
	for _, cs := range [][]*compare.Column{wasCols, nowCols} {
		for _, c := range cs {
			if !slices.Contains(names[c.ID], c.Name) {
				names[c.ID] = append(names[c.ID], c.Name)
			}
		}
	}
	if !slices.Equal(was.Partitioning, now.Partitioning) {
		what = append(what, fmt.Sprintf("partitioning %s, was %s", partitionText(now.Partitioning, nowCols), partitionText(was.Partitioning, wasCols)))
		for _, k := range changedKeys(was.Partitioning, now.Partitioning) {
			named = append(named, names[k.ColumnID]...)
		}
	}
	if !slices.Equal(was.Sorting, now.Sorting) {
		what = append(what, fmt.Sprintf("sort hint %s, was %s", sortText(now.Sorting), sortText(was.Sorting)))
		for _, k := range changedKeys(was.Sorting, now.Sorting) {
			named = append(named, sortColumn(k.Expression))
		}
	}
	what = append(what, diffTags("", was.Tags, now.Tags)...)
	slices.Sort(named)
	return what, slices.Compact(named)
}

// changedKeys are the keys of two specs (a partitioning or a sort hint,
// was and now) at the places where they differ: both keys where the place
// holds another key now, the one key where only one spec reaches.
func changedKeys[K comparable](was, now []K) []K {
	var changed []K
	for i := range max(len(was), len(now)) {
		if i < len(was) && i < len(now) && was[i] == now[i] {
			continue
		}
		if i < len(was) {
			changed = append(changed, was[i])
		}
		if i < len(now) {
			changed = append(changed, now[i])
		}
	}
	return changed
}

// partitionText is a partitioning as a message writes it, its keys by
// their columns' names (cols: the table's columns then).
func partitionText(keys []compare.PartitionKey, cols []*compare.Column) string {
	if len(keys) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range keys {
		name := fmt.Sprintf("column_id %d", k.ColumnID)
		if i := slices.IndexFunc(cols, func(c *compare.Column) bool { return c.ID == k.ColumnID }); i >= 0 {
			name = oneline.Name(cols[i].Name)
		}
		if k.Transform != "identity" {
			name = oneline.Name(k.Transform) + "(" + name + ")"
		}
		parts = append(parts, name)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// sortText is a sort hint as a message writes it.
func sortText(keys []compare.SortKey) string {
	if len(keys) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range keys {
		parts = append(parts, oneline.Name(strings.TrimSpace(k.Expression+" "+k.Direction+" "+k.NullOrder)))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// sortColumn is the column a sort key's expression names: DuckLake
// writes a column's name, double-quoted where SQL needs it.
func sortColumn(expr string) string {
	if len(expr) >= 2 && expr[0] == '"' && expr[len(expr)-1] == '"' {
		return strings.ReplaceAll(expr[1:len(expr)-1], `""`, `"`)
	}
	return expr
}

// diffViewExtras describes the differences of a view's tags and its
// columns' tags (by column name) at two snapshots.
func diffViewExtras(was, now compare.ViewExtras) []string {
	what := diffTags("", was.Tags, now.Tags)
	for _, col := range unionKeys(was.ColumnTags, now.ColumnTags) {
		what = append(what, diffTags("column "+oneline.Name(col)+" ", was.ColumnTags[col], now.ColumnTags[col])...)
	}
	return what
}

// unionKeys is the keys of a and b, sorted.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// defaultText is a default_value as a message writes it: Go-quoted, or
// "none".
func defaultText(v *string) string {
	if v == nil {
		return "none"
	}
	return strconv.Quote(*v)
}

// changesPart names version.json's changes in a content pass's key: absent,
// or each entry's table, kind, column and breaking.
func changesPart(changes []fdljson.Change) string {
	if changes == nil {
		return "changes absent"
	}
	var b strings.Builder
	b.WriteString("changes")
	for _, c := range changes {
		fmt.Fprintf(&b, " %q %q %q %t", c.Table, c.Kind, c.Column, c.Breaking)
	}
	return b.String()
}
