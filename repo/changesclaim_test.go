package repo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// change is one entry of version.json's changes, as a test writes it.
func change(table, kind, column string, breaking bool) map[string]any {
	m := map[string]any{"table": table, "kind": kind, "breaking": breaking}
	if column != "" {
		m["column"] = column
	}
	return m
}

// TestCheckChangesClaims: check holds version.json's changes to the column
// differences between the parent's snapshot and the version's, read in the
// version's frozen catalog (lakegen's demo: version 2 adds
// measurements.unit and comments the table; version 3 renames temp to
// temperature and drops taken). A breaking difference no entry names, or only entries saying
// breaking false, and an entry naming a column that did not change, are
// differences (exit 3) naming the version, version.json, the table and
// the column; true claims, the changes lakegen writes, and no changes at
// all, pass. Before, every case passed the check.
func TestCheckChangesClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	const m = "main.measurements"
	comment := change(m, "set_comment", "", false)
	v2 := []any{change(m, "add_column", "unit", false), comment}
	v3 := []any{change(m, "rename_column", "temp", true), change(m, "drop_column", "taken", true)}
	for _, tc := range []struct {
		name string
		// changes by version (index into res.Versions); nil: the field
		// removed; a version not listed keeps the changes lakegen wrote.
		changes map[int][]any
		// want: the detail of the one difference, of version want.
		want  string
		wantV int
		// warn: a warning that must be reported ("" for none about changes).
		warn string
	}{
		{name: "no changes field", changes: map[int][]any{1: nil, 2: nil}},
		{name: "lakegen's changes"},
		{name: "true claims", changes: map[int][]any{1: v2, 2: v3}},
		// An unknown kind is not interpreted, and a renamed column may be
		// named by its new name.
		{name: "true claims, rename by its new name, own kinds", changes: map[int][]any{2: {
			change(m, "x-renamed", "temperature", true), change(m, "x-dropped", "taken", true)}}},
		{name: "breaking false on a drop", changes: map[int][]any{1: v2, 2: {change(m, "rename_column", "temp", true), change(m, "drop_column", "taken", false)}},
			want: `version.json: changes[1] (table main.measurements, kind drop_column, column taken, breaking false) says breaking false, but column taken of table main.measurements was dropped (column_id`, wantV: 2},
		{name: "no entry for a rename", changes: map[int][]any{1: v2, 2: {change(m, "drop_column", "taken", true)}},
			want: `version.json: changes has no entry for column temp of table main.measurements, renamed to temperature (column_id`, wantV: 2},
		{name: "entry for an untouched column", changes: map[int][]any{1: {change(m, "add_column", "unit", false), change(m, "add_column", "city", false), comment}, 2: v3},
			want: `version.json: changes[1] (table main.measurements, kind add_column, column city, breaking false) names a column with no difference between its parent`, wantV: 1},
		{name: "entry for an untouched table", changes: map[int][]any{1: {change(m, "add_column", "unit", false), change("main.stations", "add_column", "unit", false), comment}},
			want: `version.json: changes[1] (table main.stations, kind add_column, column unit, breaking false) names a column with no difference`, wantV: 1},
		// Version 2 creates the view main.by_city: an entry naming it
		// (dataset.json lists views among its tables), or a column of
		// it, names a difference; in version 3, which leaves it as it
		// was, one names none.
		{name: "entries for a view created", changes: map[int][]any{1: {change(m, "add_column", "unit", false), change("main.by_city", "create_view", "", false), change("main.by_city", "add_column", "n", false), comment}, 2: v3}},
		{name: "entry for an untouched view", changes: map[int][]any{1: v2, 2: {change(m, "rename_column", "temp", true), change(m, "drop_column", "taken", true), change("main.by_city", "replace_view", "", false)}},
			want: `version.json: changes[2] (table main.by_city, kind replace_view, breaking false) names a table with no difference`, wantV: 2},
		{name: "first version with changes", changes: map[int][]any{0: {change(m, "add_column", "id", false), change(m, "add_column", "city", false)}},
			want: `version.json: changes[0] (table main.measurements, kind add_column, column id, breaking false) (and 1 more), but the version has no parent`, wantV: 0},
		{name: "first version, empty changes", changes: map[int][]any{0: {}}},
		// "changes": [] claims no column differs: an added column is
		// only a warning (it breaks nothing).
		{name: "empty changes, a column added", changes: map[int][]any{1: {}},
			warn: "version.json: changes lists no entry for column unit of table main.measurements added (column_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "demo")
			if err := copyTree(golden, root); err != nil {
				t.Fatal(err)
			}
			for i, ch := range tc.changes {
				testlakes.EditVersion(t, filepath.Join(root, "versions", res.Versions[i].ID), func(m map[string]any) {
					if ch == nil {
						delete(m, "changes")
					} else {
						m["changes"] = ch
					}
				})
			}
			st, err := local.New(root)
			if err != nil {
				t.Fatal(err)
			}
			// The source's format alone: the claims are the content
			// pass's (changesIssues), which runs whatever the formats;
			// the other formats' missing cells would each be planned (a
			// dry-run conversion) for nothing this test looks at.
			rep, err := Check(ctx, st, Options{Formats: []string{"1.0"}})
			var details, warnings []string
			var diffs []Finding
			for _, f := range rep.Findings {
				details = append(details, fmt.Sprintf("%s %s: %s", f.Kind, f.Version, f.Detail))
				switch f.Kind {
				case KindWarning:
					warnings = append(warnings, f.Detail)
				case KindDifference, KindInvalid, KindUnverifiable:
					diffs = append(diffs, f)
				}
			}
			all := strings.Join(details, "\n")
			if tc.want == "" {
				// The demo has no published catalogs, and the source's
				// format needs none: a pass.
				if err != nil || len(diffs) > 0 {
					t.Fatalf("Check = %v, want no error:\n%s", err, all)
				}
			} else {
				if !errors.Is(err, ErrDifferences) {
					t.Fatalf("Check = %v, want differences:\n%s", err, all)
				}
				id := res.Versions[tc.wantV].ID
				if d := diffs; len(d) != 1 || d[0].Kind != KindDifference || d[0].Version != id ||
					!strings.Contains(d[0].Detail, "versions/"+id+"/"+tc.want) {
					t.Errorf("findings:\n%s\nwant one difference of version %s holding %q", all, id, tc.want)
				}
			}
			ws := strings.Join(warnings, "\n")
			if tc.warn != "" && !strings.Contains(ws, tc.warn) {
				t.Errorf("findings:\n%s\nwant a warning holding %q", all, tc.warn)
			}
			if tc.warn == "" && strings.Contains(ws, "changes") {
				t.Errorf("findings:\n%s\nwant no warning about changes", all)
			}
		})
	}
}

// TestCheckKeptContentPassNamesChanges: a content pass kept clean in the
// digest cache names version.json's changes in its key, so a version.json
// that later lists other changes for the same frozen catalog misses the
// kept pass and the check finds the false claim. Before (the key named
// the catalog, the snapshots and the parent's snapshot only), the second
// run took the kept pass and passed.
func TestCheckKeptContentPassNamesChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, res := sharedDemo(ctx, t)
	root, st := demoRepo(ctx, t)
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Versions: []string{"3"}, DigestCache: cache}
	id := res.Versions[2].ID
	for i, changes := range [][]any{nil, nil, {}} {
		testlakes.EditVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) {
			if changes == nil {
				delete(m, "changes")
			} else {
				m["changes"] = changes
			}
		})
		rep, err := Check(ctx, st, opts)
		var diffs []string
		for _, f := range rep.Findings {
			if f.Kind == KindDifference {
				diffs = append(diffs, f.Detail)
			}
		}
		if changes == nil {
			if err != nil && !errors.Is(err, ErrWorkMissing) {
				t.Fatalf("run %d, no changes: Check = %v (%q)", i, err, diffs)
			}
			continue
		}
		if !errors.Is(err, ErrDifferences) || len(diffs) != 2 || !strings.Contains(diffs[0]+diffs[1], "changes has no entry for column taken") {
			t.Errorf("run %d, changes []: Check = %v, differences %q; want the drop and the rename", i, err, diffs)
		}
	}
}

// TestDiffColumns: the column differences of one table, by column_id: a
// column dropped and added again under its name (a new column_id) is
// recreated, breaking, as a nested field dropped or renamed; a type change
// (DuckLake's new row of the same column_id) is retyped, which may break;
// an added column, an added field, nullability, a default and a column's
// or a nested field's tags (a comment) break nothing; tags unchanged, and
// a tag set to NULL where there was none (COMMENT ON … IS NULL), are no
// difference.
func TestDiffColumns(t *testing.T) {
	col := func(id int64, name, typ string, kids ...*compare.Column) *compare.Column {
		return &compare.Column{ID: id, Name: name, Type: typ, NullsAllowed: true, Children: kids}
	}
	def := "0"
	notNull := col(6, "n", "int32")
	notNull.NullsAllowed = false
	withDefault := col(7, "d", "int32")
	withDefault.DefaultValue = &def
	was := []*compare.Column{col(1, "id", "int32"), col(2, "city", "varchar"), col(3, "s", "struct", col(4, "a", "int32"), col(5, "b", "int32")),
		col(6, "n", "int32"), col(7, "d", "int32"), col(8, "keep", "varchar"), col(9, "t", "struct", col(10, "x", "int32"))}
	now := []*compare.Column{col(1, "id", "int64"), col(3, "s", "struct", col(4, "a", "int32"), col(5, "bb", "int32")),
		notNull, withDefault, col(8, "keep", "varchar"), col(9, "t", "struct", col(10, "x", "int32"), col(12, "y", "int32")), col(11, "city", "varchar"), col(13, "new", "date")}
	var got []string
	k, x := "key", "x field"
	tagsWere := map[int64]map[string]*string{1: {"comment": &k}, 8: {"comment": &k}}
	tagsNow := map[int64]map[string]*string{1: {"comment": &k}, 8: {"comment": nil, "owner": nil}, 10: {"comment": &x}}
	for _, d := range diffColumns(was, now, tagsWere, tagsNow) {
		line := fmt.Sprintf("%v %s breaking=%t", d.names, d.what, d.breaking)
		if d.retyped {
			line += " retyped=true"
		}
		got = append(got, line)
	}
	want := []string{
		`[id] retyped to int64, was int32 (column_id 1) breaking=true retyped=true`,
		`[city] recreated (column_id 2 dropped, 11 added under its name) breaking=true`,
		`[s] field s.b renamed to bb (column_id 3) breaking=true`,
		`[n] nulls allowed false, was true (column_id 6) breaking=false`,
		`[d] default "0", was none (column_id 7) breaking=false`,
		`[keep] comment none, was "key" (column_id 8) breaking=false`,
		`[t] field t.y added, field t.x comment "x field", was none (column_id 9) breaking=false`,
		`[new] added (column_id 13) breaking=false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diffColumns:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckChangesRecreated: a column dropped and added again under its
// name (a new column_id) is recreated, breaking: SQL written for the
// parent reads another column. A writer that lists it as an add only,
// breaking false, makes a false claim (a difference); listed as a drop
// saying breaking true and an add saying false, it is true. A table
// created in the version breaks nothing, and entries naming its columns
// name differences. Before, every case passed the check.
func TestCheckChangesRecreated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden := filepath.Join(t.TempDir(), "recreated")
	res, err := lakegen.Repository(ctx, golden, lakegen.Spec{Name: "recreated", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}}, Versions: []lakegen.Version{
		{Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}, {Name: "note", Type: "VARCHAR"}}}},
			{lakegen.Insert{Table: "t", Select: "SELECT range, 'n' || range FROM range(4)"}},
		}},
		{Snapshots: []lakegen.Snapshot{
			{lakegen.DropColumn{Table: "t", Column: "note"}},
			{lakegen.AddColumn{Table: "t", Column: lakegen.Column{Name: "note", Type: "VARCHAR"}}},
			{lakegen.CreateTable{Table: "u", Columns: []lakegen.Column{{Name: "k", Type: "INTEGER"}}}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Versions[1].ID
	for _, tc := range []struct {
		name    string
		changes []any
		want    string
	}{
		{"drop and add", []any{change("main.t", "drop_column", "note", true), change("main.t", "add_column", "note", false), change("main.u", "add_column", "k", false)}, ""},
		{"add only", []any{change("main.t", "add_column", "note", false)},
			"version.json: changes[0] (table main.t, kind add_column, column note, breaking false) says breaking false, but column note of table main.t was recreated (column_id 2 dropped, 3 added under its name)"},
		{"none", []any{},
			"version.json: changes has no entry for column note of table main.t, recreated (column_id 2 dropped, 3 added under its name)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			if err := copyTree(golden, root); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) { m["changes"] = tc.changes })
			st, err := local.New(root)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(ctx, st, Options{})
			var all []string
			var diffs int
			for _, f := range rep.Findings {
				all = append(all, fmt.Sprintf("%s %s: %s", f.Kind, f.Version, f.Detail))
				if f.Kind != KindWarning {
					diffs++
				}
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check = %v:\n%s", err, strings.Join(all, "\n"))
				}
				if strings.Contains(strings.Join(all, "\n"), "changes") {
					t.Errorf("findings about changes:\n%s", strings.Join(all, "\n"))
				}
				return
			}
			if !errors.Is(err, ErrDifferences) || diffs != 1 || !strings.Contains(strings.Join(all, "\n"), "difference "+id+": versions/"+id+"/"+tc.want) {
				t.Errorf("Check = %v:\n%s\nwant one difference holding %q", err, strings.Join(all, "\n"), tc.want)
			}
		})
	}
}

// TestCheckChangesTypeChanged: a column whose type changed (DuckLake's
// ALTER COLUMN TYPE, which allows only promotions, ends its row and
// starts one of the same column_id with the new type; here INTEGER to
// BIGINT written into the frozen catalog of version 2, and dataset.json
// says so) is retyped: SQL written for the parent reads it through
// implicit casts and fails only where it leans on the old type, so an
// entry saying breaking true is right, and one saying false, or none
// naming it, is a warning, not a false claim. Before, neither was
// reported (no check of changes); then breaking false, the spec's
// example's kind of claim for a widening, was a difference (exit 3).
func TestCheckChangesTypeChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden := filepath.Join(t.TempDir(), "retyped")
	res, err := lakegen.Repository(ctx, golden, lakegen.Spec{Name: "retyped", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}}, Versions: []lakegen.Version{
		{Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}, {Name: "k", Type: "INTEGER"}}}},
			{lakegen.Insert{Table: "t", Select: "SELECT range, range::INTEGER FROM range(4)"}},
		}},
		{Snapshots: []lakegen.Snapshot{
			{lakegen.Insert{Table: "t", Select: "SELECT range, range::INTEGER FROM range(4, 8)"}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v2 := res.Versions[1]
	vdir := filepath.Join(golden, "versions", v2.ID)
	db := testduck.Open(t, "")
	defer db.Close()
	last := v2.SnapshotID
	for _, q := range []string{
		"ATTACH '" + filepath.Join(vdir, "ducklake.duckdb") + "' AS c",
		fmt.Sprintf(`INSERT INTO c.ducklake_column SELECT * REPLACE (%d AS begin_snapshot, NULL AS end_snapshot, 'int64' AS column_type) FROM c.ducklake_column WHERE column_name = 'k'`, last),
		fmt.Sprintf(`UPDATE c.ducklake_column SET end_snapshot = %d WHERE column_name = 'k' AND begin_snapshot < %d`, last, last),
		"DETACH c",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var dataset map[string]any
	readJSON(t, filepath.Join(vdir, "dataset.json"), &dataset)
	for _, tb := range dataset["tables"].([]any) {
		for _, f := range tb.(map[string]any)["fields"].([]any) {
			if f := f.(map[string]any); f["name"] == "k" {
				f["type"] = "int64"
			}
		}
	}
	writeJSON(t, filepath.Join(vdir, "dataset.json"), dataset)
	testlakes.EditVersion(t, vdir, nil, "catalog", "dataset")
	for _, tc := range []struct {
		name    string
		changes []any
		want    string // a warning
	}{
		{"breaking true", []any{change("main.t", "alter_column", "k", true)}, ""},
		{"breaking false", []any{change("main.t", "alter_column", "k", false)}, "version.json: changes[0] (table main.t, kind alter_column, column k, breaking false) says breaking false, but column k of table main.t was retyped to int64, was int32 (column_id 2)"},
		{"no entry", []any{}, "version.json: changes has no entry for column k of table main.t, retyped to int64, was int32 (column_id 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			about, _, err := checkEditedChanges(ctx, t, golden, v2.ID, tc.changes)
			if err != nil {
				t.Errorf("Check = %v, want none", err)
			}
			got := strings.Join(about, "\n")
			if tc.want == "" && got != "" || tc.want != "" && (len(about) != 1 || !strings.Contains(got, "warning "+v2.ID+": versions/"+v2.ID+"/"+tc.want)) {
				t.Errorf("findings about changes:\n%s\nwant a warning %q", got, tc.want)
			}
		})
	}
}

// TestCheckChangesWholeTables: a table dropped or renamed after the
// parent's snapshot (written here into version 2's frozen catalog: the
// table's rows end, and the renamed one's start again under its new
// name with its table_id) breaks SQL naming it, but the spec's changes
// are column differences: no entry naming it with breaking true is a
// warning, not a difference, and an entry naming it (by either name)
// names a difference. Other findings (files.json and dataset.json now
// disagree with the catalog) are not this test's.
func TestCheckChangesWholeTables(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden := filepath.Join(t.TempDir(), "tables")
	cols := []lakegen.Column{{Name: "id", Type: "BIGINT"}}
	res, err := lakegen.Repository(ctx, golden, lakegen.Spec{Name: "tables", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}}, Versions: []lakegen.Version{
		{Snapshots: []lakegen.Snapshot{{lakegen.CreateTable{Table: "t", Columns: cols}, lakegen.CreateTable{Table: "gone", Columns: cols}, lakegen.CreateTable{Table: "old", Columns: cols}}}},
		{Snapshots: []lakegen.Snapshot{{lakegen.Insert{Table: "t", Select: "SELECT range FROM range(3)"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v2 := res.Versions[1]
	vdir := filepath.Join(golden, "versions", v2.ID)
	db := testduck.Open(t, "")
	defer db.Close()
	last := v2.SnapshotID
	for _, q := range []string{
		"ATTACH '" + filepath.Join(vdir, "ducklake.duckdb") + "' AS c",
		fmt.Sprintf(`INSERT INTO c.ducklake_table SELECT * REPLACE (%d AS begin_snapshot, 'new' AS table_name) FROM c.ducklake_table WHERE table_name = 'old'`, last),
		fmt.Sprintf(`UPDATE c.ducklake_table SET end_snapshot = %d WHERE table_name IN ('old', 'gone')`, last),
		fmt.Sprintf(`UPDATE c.ducklake_column SET end_snapshot = %d WHERE table_id = (SELECT table_id FROM c.ducklake_table WHERE table_name = 'gone')`, last),
		"DETACH c",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	testlakes.EditVersion(t, vdir, nil)
	for _, tc := range []struct {
		name    string
		changes []any
		want    []string // findings about changes, each "kind: text"
	}{
		{"none", []any{}, []string{
			"warning: version.json: table main.old was renamed to main.new between its parent",
			"warning: version.json: table main.gone was dropped between its parent",
		}},
		{"named", []any{change("main.gone", "drop_table", "", true), change("main.new", "rename_table", "", true)}, nil},
		{"named by the old name, a column of the dropped one", []any{change("main.gone", "drop_column", "id", true), change("main.old", "rename_table", "", true)}, nil},
		{"an untouched table", []any{change("main.gone", "drop_table", "", true), change("main.new", "rename_table", "", true), change("main.t", "x", "", false)}, []string{
			"difference: version.json: changes[2] (table main.t, kind x, breaking false) names a table with no difference",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			about, _, _ := checkEditedChanges(ctx, t, golden, v2.ID, tc.changes)
			ok := len(about) == len(tc.want)
			for i := 0; ok && i < len(about); i++ {
				ok = strings.HasPrefix(about[i], strings.Replace(tc.want[i], ": ", " "+v2.ID+": versions/"+v2.ID+"/", 1))
			}
			if !ok {
				t.Errorf("findings about changes:\n%s\nwant\n%s", strings.Join(about, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestCheckChangesTableExtras: what the catalog records of a table or a
// view beside its columns changed between the parent's snapshot and the
// version's (here: table t partitioned by k and k commented, through
// lakegen; written into version 2's frozen catalog: p's partitioning
// reset, a sort hint set on u and u commented, a nested field t.s.a
// commented, the view w commented) is a difference, none of them
// breaking: an entry naming the table, or a column the difference names
// (a partition or sort key, a commented column or field), is true, an
// unlisted one is a warning, and an entry naming a column that none of
// them names is still a difference. Before, every entry naming them was a
// difference ("names a table with no difference"), and none was warned
// about.
func TestCheckChangesTableExtras(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden := filepath.Join(t.TempDir(), "extras")
	cols := []lakegen.Column{{Name: "id", Type: "BIGINT"}, {Name: "k", Type: "INTEGER"}}
	res, err := lakegen.Repository(ctx, golden, lakegen.Spec{Name: "extras", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}}, Versions: []lakegen.Version{
		{Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: "t", Columns: append(slices.Clone(cols), lakegen.Column{Name: "s", Type: "STRUCT", Fields: []lakegen.Column{{Name: "a", Type: "INTEGER"}}})},
				lakegen.CreateTable{Table: "u", Columns: cols}, lakegen.CreateTable{Table: "p", Columns: cols}, lakegen.CreateTable{Table: "q", Columns: cols}},
			{lakegen.PartitionBy{Table: "p", Columns: []string{"k"}}, lakegen.CreateView{View: "w", SQL: "SELECT id FROM u"}},
			{lakegen.Insert{Table: "p", Select: "SELECT range, (range % 2)::INTEGER FROM range(4)"}},
		}},
		{Snapshots: []lakegen.Snapshot{
			{lakegen.PartitionBy{Table: "t", Columns: []string{"k"}}},
			{lakegen.Comment{Table: "t", Column: "k", Text: "the key"}},
			{lakegen.Insert{Table: "q", Select: "SELECT range, range::INTEGER FROM range(3)"}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v2 := res.Versions[1]
	vdir := filepath.Join(golden, "versions", v2.ID)
	db := testduck.Open(t, "")
	defer db.Close()
	last := v2.SnapshotID
	id := func(table string) string {
		return "(SELECT table_id FROM c.ducklake_table WHERE table_name = '" + table + "')"
	}
	for _, q := range []string{
		"ATTACH '" + filepath.Join(vdir, "ducklake.duckdb") + "' AS c",
		fmt.Sprintf(`UPDATE c.ducklake_partition_info SET end_snapshot = %d WHERE table_id = %s`, last, id("p")),
		fmt.Sprintf(`INSERT INTO c.ducklake_sort_info VALUES (900, %s, %d, NULL)`, id("u"), last),
		fmt.Sprintf(`INSERT INTO c.ducklake_sort_expression VALUES (900, %s, 0, 'k', 'duckdb', 'DESC', 'NULLS_LAST')`, id("u")),
		fmt.Sprintf(`INSERT INTO c.ducklake_tag VALUES (%s, %d, NULL, 'comment', 'the u table')`, id("u"), last),
		fmt.Sprintf(`INSERT INTO c.ducklake_column_tag SELECT table_id, column_id, %d, NULL, 'comment', 'a field' FROM c.ducklake_column WHERE table_id = %s AND column_name = 'a'`, last, id("t")),
		fmt.Sprintf(`INSERT INTO c.ducklake_tag SELECT view_id, %d, NULL, 'comment', 'a view' FROM c.ducklake_view WHERE view_name = 'w'`, last),
		"DETACH c",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	testlakes.EditVersion(t, vdir, nil)
	all := []any{change("main.t", "set_partitioned_by", "", false), change("main.t", "set_comment", "k", false), change("main.t", "set_comment", "s.a", false),
		change("main.p", "reset_partitioned_by", "", false), change("main.u", "set_sorted_by", "", false), change("main.u", "set_comment", "", false),
		change("main.w", "set_comment", "", false)}
	for _, tc := range []struct {
		name    string
		changes []any
		want    []string // findings about changes, each "kind: text"
	}{
		{"every table named", all, nil},
		// A partition or sort key names the difference, and a comment on
		// a nested field is its column's difference.
		{"by their key columns", []any{change("main.t", "set_partitioned_by", "k", false), change("main.t", "set_comment", "s", false),
			change("main.p", "reset_partitioned_by", "k", false), change("main.u", "set_sorted_by", "k", false), change("main.u", "set_comment", "", false),
			change("main.w", "set_comment", "id", false)}, nil},
		{"none", []any{}, []string{
			`warning: version.json: changes lists no entry for column k of table main.t comment "the key", was none (column_id 2); column s of table main.t field s.a comment "a field", was none (column_id 3); ` +
				`table main.p partitioning none, was (k); table main.t partitioning (k), was none; table main.u sort hint (k DESC NULLS_LAST), was none, comment "the u table", was none; table main.w comment "a view", was none (a view), between`,
		}},
		{"a column no difference names", append(slices.Clone(all), change("main.t", "set_comment", "id", false), change("main.p", "reset_partitioned_by", "id", false)), []string{
			"difference: version.json: changes[7] (table main.t, kind set_comment, column id, breaking false) names a column with no difference",
			"difference: version.json: changes[8] (table main.p, kind reset_partitioned_by, column id, breaking false) names a column with no difference",
		}},
		{"an untouched table", append(slices.Clone(all), change("main.q", "set_comment", "", false)), []string{
			"difference: version.json: changes[7] (table main.q, kind set_comment, breaking false) names a table with no difference",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			about, every, _ := checkEditedChanges(ctx, t, golden, v2.ID, tc.changes)
			ok := len(about) == len(tc.want)
			for i := 0; ok && i < len(about); i++ {
				ok = strings.HasPrefix(about[i], strings.Replace(tc.want[i], ": ", " "+v2.ID+": versions/"+v2.ID+"/", 1))
			}
			if !ok {
				t.Errorf("findings about changes:\n%s\nwant\n%s\nall findings:\n%s", strings.Join(about, "\n"), strings.Join(tc.want, "\n"), strings.Join(every, "\n"))
			}
		})
	}
}

// TestCheckChangesViewColumnComment: in format 1.1, COMMENT ON COLUMN of a
// view writes ducklake_view_column_tag (by column name); a comment set
// there after the parent's snapshot is a difference of the view (written
// here into version 2's frozen catalog, made 1.1), which an entry naming
// the view or a column of it names, and an unlisted one a warning. Before,
// the entry was a difference ("names a table with no difference") and the
// unlisted comment passed unremarked.
func TestCheckChangesViewColumnComment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden := filepath.Join(t.TempDir(), "viewcols")
	res, err := lakegen.Repository(ctx, golden, lakegen.Spec{Name: "viewcols", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}, {DuckLake: "1.1", DuckDB: ">= 2.0.0"}}, Versions: []lakegen.Version{
		{Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: "u", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}}}, lakegen.CreateView{View: "w", SQL: "SELECT id FROM u"}},
		}},
		{Snapshots: []lakegen.Snapshot{{lakegen.Insert{Table: "u", Select: "SELECT range FROM range(3)"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v2 := res.Versions[1]
	vdir := filepath.Join(golden, "versions", v2.ID)
	db := testduck.Open(t, "")
	defer db.Close()
	for _, q := range []string{
		"ATTACH '" + filepath.Join(vdir, "ducklake.duckdb") + "' AS c",
		"ALTER TABLE c.ducklake_data_file ADD COLUMN row_group_count BIGINT",
		"ALTER TABLE c.ducklake_delete_file ADD COLUMN row_group_count BIGINT",
		"CREATE TABLE c.ducklake_view_column_tag(view_id BIGINT, column_name VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT, key VARCHAR, value VARCHAR)",
		"UPDATE c.ducklake_metadata SET value = '1.1' WHERE key = 'version'",
		fmt.Sprintf(`INSERT INTO c.ducklake_view_column_tag SELECT view_id, 'id', %d, NULL, 'comment', 'the id' FROM c.ducklake_view WHERE view_name = 'w'`, v2.SnapshotID),
		"DETACH c",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	testlakes.EditVersion(t, vdir, func(m map[string]any) { m["ducklake"].(map[string]any)["format"] = "1.1" })
	for _, tc := range []struct {
		name    string
		changes []any
		want    string // the one finding about changes, "kind: text"
	}{
		{"the view", []any{change("main.w", "set_comment", "", false)}, ""},
		{"its column", []any{change("main.w", "set_comment", "id", false)}, ""},
		{"none", []any{}, `warning: version.json: changes lists no entry for table main.w column id comment "the id", was none (a view), between`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			about, every, _ := checkEditedChanges(ctx, t, golden, v2.ID, tc.changes)
			want := strings.Replace(tc.want, ": ", " "+v2.ID+": versions/"+v2.ID+"/", 1)
			if tc.want == "" && len(about) > 0 || tc.want != "" && (len(about) != 1 || !strings.HasPrefix(about[0], want)) {
				t.Errorf("findings about changes:\n%s\nwant %q\nall findings:\n%s", strings.Join(about, "\n"), want, strings.Join(every, "\n"))
			}
		})
	}
}

// checkEditedChanges checks a copy of the repository golden in which
// version id's version.json lists changes, and returns the findings about
// changes (an entry, or a table dropped or renamed without one) and every
// finding, each "kind version: detail", and Check's error.
func checkEditedChanges(ctx context.Context, t *testing.T, golden, id string, changes []any) (about, every []string, err error) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	if err := copyTree(golden, root); err != nil {
		t.Fatal(err)
	}
	testlakes.EditVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) { m["changes"] = changes })
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ctx, st, Options{})
	if rep == nil {
		t.Fatalf("Check = %v and no report", err)
	}
	for _, f := range rep.Findings {
		line := fmt.Sprintf("%s %s: %s", f.Kind, f.Version, f.Detail)
		every = append(every, line)
		if strings.Contains(f.Detail, "version.json: changes") || strings.Contains(f.Detail, "version.json: table") {
			about = append(about, line)
		}
	}
	return about, every, err
}
