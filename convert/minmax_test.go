package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestMinMaxFromStatistics converts real lakes, edits the table statistics
// where a step says, and proves each source against its conversion: DuckDB
// 1.5.4+ and 2.0 answer SELECT min(c)/max(c) of 1.0 and 1.1 catalogs from
// ducklake_table_column_stats when record_count is the net row count, so
// every answer the output's readers give must be one the source's readers
// give (compare/minmax.go). The statistics compare equal between the two
// catalogs (convert copies them): only kind minmax can see it.
func TestMinMaxFromStatistics(t *testing.T) {
	t.Parallel()
	// 05_defaults_not_null, table t (id 1) column i (id 1): rows 1..1000,
	// statistics '1'..'1000'; edited to a max of '100'.
	const wrongMax = `UPDATE ducklake_table_column_stats SET max_value = '100' WHERE table_id = 1 AND column_id = 1`
	// 06_deletes, table 1 column id: many rows deleted, so its statistics
	// are not exact and every reader scans.
	const wrongMaxDeleted = `UPDATE ducklake_table_column_stats SET max_value = '99999999' WHERE table_id = 1 AND column_id = 1`
	type step struct {
		to    *formats.Version
		edit  string // run on this step's output
		editB bool   // the edit is on B only: a stats difference too
	}
	// The conversions of a lake's unedited source (and of those), made
	// once for the cases (05_defaults_not_null's to 1.1 was made by three
	// cases, 04_type_promotion's by two), a case that edits one editing a
	// copy; by source and target.
	unedited, shared := map[string]string{}, t.TempDir()
	for _, tc := range []struct {
		name, lake string
		editSrc    string // run on the 1.0 source before anything
		steps      []step // conversions from the source: A is the next to last catalog, B the last
		column     string // "" when equivalent
	}{
		{name: "1.0 edited to 0.4: 0.4 readers scan, an answer 1.5.2 gives too", lake: "05_defaults_not_null", editSrc: wrongMax,
			steps: []step{{to: formats.V0_4}}},
		{name: "1.0 edited to 1.1: both fold the same statistics", lake: "05_defaults_not_null", editSrc: wrongMax,
			steps: []step{{to: formats.V1_1}}},
		{name: "0.4 edited to 1.0: 1.0 folds what 0.4 never answers", lake: "05_defaults_not_null",
			steps: []step{{to: formats.V0_4, edit: wrongMax}, {to: formats.V1_0}}, column: "column i"},
		{name: "1.1 edited to 1.0: DuckDB 1.5.2 scans what 2.0 never answers", lake: "05_defaults_not_null",
			steps: []step{{to: formats.V1_1, edit: wrongMax}, {to: formats.V1_0}}, column: "column i"},
		{name: "1.0 to 1.1 with B's statistics edited", lake: "05_defaults_not_null",
			steps: []step{{to: formats.V1_1, edit: wrongMax, editB: true}}, column: "column i"},
		{name: "1.0 to 1.0 unedited", lake: "05_defaults_not_null",
			steps: []step{{to: formats.V1_1}, {to: formats.V1_0}}},
		{name: "deletes: not exact, every reader scans", lake: "06_deletes", editSrc: wrongMaxDeleted,
			steps: []step{{to: formats.V1_1, edit: wrongMaxDeleted}, {to: formats.V1_0}}},
		{name: "type promotion 1.0 to 1.1", lake: "04_type_promotion", steps: []step{{to: formats.V1_1}}},
		{name: "type promotion 1.0 to 0.4 to 1.0", lake: "04_type_promotion", steps: []step{{to: formats.V0_4}, {to: formats.V1_0}}},
		{name: "type promotion 1.1 to 1.0", lake: "04_type_promotion", steps: []step{{to: formats.V1_1}, {to: formats.V1_0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			lake := testlakes.Lake(t, "lakes", tc.lake)
			data := filepath.Join(lake, "data")
			vs := versionCatalogs(t, lake)
			cats := []string{vs[len(vs)-1]}
			if tc.editSrc != "" {
				cats[0] = editedCopy(t, cats[0], tc.editSrc)
			}
			// pristine: no edit yet on the way from the lake's source.
			pristine := tc.editSrc == ""
			for i, st := range tc.steps {
				from := cats[len(cats)-1]
				key := from + " to " + st.to.Name
				out, ok := unedited[key]
				if !pristine || !ok {
					dir := t.TempDir()
					if pristine {
						dir = shared
					}
					var err error
					if out, err = os.MkdirTemp(dir, ""); err != nil {
						t.Fatal(err)
					}
					out = filepath.Join(out, st.to.Name+".duckdb")
					if _, err := Catalog(ctx, from, out, st.to, Options{DataPath: data}); err != nil {
						t.Fatalf("step %d to %s: %v", i, st.to, err)
					}
					if pristine {
						unedited[key] = out
					}
				}
				if st.edit != "" {
					if pristine {
						// The shared conversion stays unedited: a copy.
						edited := filepath.Join(t.TempDir(), st.to.Name+".duckdb")
						copyFile(t, out, edited)
						out = edited
					}
					execOn(t, out, st.edit)
					pristine = false
				}
				cats = append(cats, out)
			}
			a, b := cats[len(cats)-2], cats[len(cats)-1]
			rep, err := compare.Catalogs(ctx, a, b, compare.Options{DataPath: data})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var minmax, other []string
			for _, d := range rep.Differences {
				if d.Kind == "minmax" {
					minmax = append(minmax, d.String())
				} else if d.Kind != "stats" || !tc.steps[len(tc.steps)-1].editB {
					other = append(other, d.String())
				}
			}
			if len(other) > 0 {
				t.Errorf("other differences:\n%s", strings.Join(other, "\n"))
			}
			t.Log(strings.Join(minmax, "\n"))
			if tc.column == "" {
				if len(minmax) > 0 {
					t.Errorf("want no minmax difference, got:\n%s", strings.Join(minmax, "\n"))
				}
				return
			}
			if len(minmax) != 1 || !strings.Contains(minmax[0], tc.column) || !strings.Contains(minmax[0], "max 100") || !strings.Contains(minmax[0], "max 1000") {
				t.Errorf("want one minmax difference of %s naming max 100 and max 1000, got:\n%s", tc.column, strings.Join(minmax, "\n"))
			}
		})
	}
}

// TestMinMaxRenamedColumn converts a 0.3 catalog with exact statistics
// (01_primitive_types) to 1.0 and renames column i32 in B: 1.0 readers
// fold its min/max, so A's scan is read, under A's name of the column.
// It scanned A with B's name and stopped on a Binder Error; now the report
// has the schema difference and the walk completes.
func TestMinMaxRenamedColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-0.3", "01_primitive_types")
	data := filepath.Join(lake, "data")
	vs := versionCatalogs(t, lake)
	a := vs[len(vs)-1]
	b := filepath.Join(t.TempDir(), "1.0.duckdb")
	if _, err := Catalog(ctx, a, b, formats.V1_0, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	execOn(t, b, `UPDATE ducklake_column SET column_name = 'i_renamed' WHERE table_id = 1 AND column_id = 5`)
	rep, err := compare.Catalogs(ctx, a, b, compare.Options{DataPath: data})
	if !errors.Is(err, compare.ErrNotEquivalent) {
		t.Fatalf("want not equivalent, got %v", err)
	}
	if rep.Incomparable != "" {
		t.Errorf("the comparison stopped: %s", rep.Incomparable)
	}
	var schema, other []string
	for _, d := range rep.Differences {
		if d.Kind == "schema" && strings.Contains(d.String(), "i_renamed") {
			schema = append(schema, d.String())
		} else {
			other = append(other, d.String())
		}
	}
	if len(schema) == 0 {
		t.Errorf("want the rename as a schema difference, got:\n%s", strings.Join(other, "\n"))
	}
	if len(other) > 0 {
		t.Errorf("other differences:\n%s", strings.Join(other, "\n"))
	}
}

// TestUncastableColumnStats: a table statistics text that does not cast to
// its column's type fails every query reading the column in every reader
// (DuckDB asks the scan for its statistics while planning, and DuckLake
// casts them), formats 0.1-0.3 where both min_value and max_value are set,
// 0.4 and newer for each one set. A 0.3 catalog of 01_primitive_types
// (table prim, column i32) and its 1.0 conversion, both edited alike: with
// a max of 'many' both readers fail (it was a minmax difference, as if
// they answered); with a min of 'many' and no max, 0.3 readers read and
// 1.0 readers fail (it was proved equivalent).
func TestUncastableColumnStats(t *testing.T) {
	t.Parallel()
	const col = `table_id = 1 AND column_id = 5`
	for _, tc := range []struct {
		name, edit string
		a, b       bool // the side's readers fail
		oneSided   bool // B keeps one bound that does not cast, which the proof counts as misread (one-sided-table-stats)
	}{
		{"max does not cast: every reader fails", `UPDATE ducklake_table_column_stats SET max_value = 'many' WHERE ` + col, true, true, false},
		{"min does not cast, no max: 1.0 readers fail", `UPDATE ducklake_table_column_stats SET min_value = 'many', max_value = NULL WHERE ` + col, false, true, true},
		{"both cast: readable", `UPDATE ducklake_table_column_stats SET max_value = '+2147483647' WHERE ` + col, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			lake := testlakes.Lake(t, "lakes-0.3", "01_primitive_types")
			data := filepath.Join(lake, "data")
			vs := versionCatalogs(t, lake)
			b := filepath.Join(t.TempDir(), "1.0.duckdb")
			if _, err := Catalog(ctx, vs[len(vs)-1], b, formats.V1_0, Options{DataPath: data}); err != nil {
				t.Fatal(err)
			}
			a := editedCopy(t, vs[len(vs)-1], tc.edit)
			execOn(t, b, tc.edit)
			rep, err := compare.Catalogs(ctx, a, b, compare.Options{DataPath: data})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var unreadable, other []string
			for _, d := range rep.Differences {
				if d.Kind == "unreadable" && d.Table == "main.prim" &&
					(d.A != "") == tc.a && (d.B != "") == tc.b && strings.Contains(d.Reason, "uncastable-column-stats") &&
					strings.Contains(d.Reason, "column i32 (id 5)") && strings.Contains(d.Reason, "Could not convert string 'many' to INT32") {
					unreadable = append(unreadable, d.String())
				} else if !tc.oneSided || d.Kind != "stats" || !strings.Contains(d.Reason, "only one bound at or beyond its type's extreme") || !strings.Contains(d.Reason, "column id 5 of table id 1") {
					// (The edit that leaves B one bound is a true stats
					// difference too, and not this test's subject.)
					other = append(other, d.String())
				}
			}
			if len(other) > 0 {
				t.Errorf("other differences:\n%s", strings.Join(other, "\n"))
			}
			if want := tc.a || tc.b; want != (len(unreadable) > 0) {
				t.Errorf("want unreadable (A %v, B %v): got %d such differences", tc.a, tc.b, len(unreadable))
			}
		})
	}
}

// TestUncastableStatsCurrentSnapshotOnly: DuckLake main, the only reader
// of format 1.1, gives the planner table statistics only for a scan at the
// catalog's current snapshot (d2f4b9c0, CanUseGlobalStats), so a text that
// does not cast fails a 1.1 read at the latest snapshot only; every
// DuckLake of DuckDB 1.5.x, which read 1.0, casts them for time travel too.
// lakes/01_primitive_types (1.0, table prim at snapshots 1-5) and its 1.1
// conversion, both with max_value 'many' for column i32: the 1.0 side is
// unreadable at every snapshot, the 1.1 side at the latest only (before,
// at every snapshot, as 1.0).
func TestUncastableStatsCurrentSnapshotOnly(t *testing.T) {
	t.Parallel()
	const edit = `UPDATE ducklake_table_column_stats SET max_value = 'many' WHERE table_id = 1 AND column_id = 5`
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	data := filepath.Join(lake, "data")
	vs := versionCatalogs(t, lake)
	b := filepath.Join(t.TempDir(), "1.1.duckdb")
	if _, err := Catalog(ctx, vs[len(vs)-1], b, formats.V1_1, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	a := editedCopy(t, vs[len(vs)-1], edit)
	execOn(t, b, edit)
	b2 := editedCopy(t, b)
	type span struct {
		from, through int64
		a, b          bool // the side's readers fail
	}
	for _, tc := range []struct {
		name string
		a, b string
		want []span
	}{
		{"1.0 and 1.1", a, b, []span{{1, 4, true, false}, {5, 5, true, true}}},
		{"1.1 and 1.1", b, b2, []span{{5, 5, true, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := compare.Catalogs(ctx, tc.a, tc.b, compare.Options{DataPath: data})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var got []span
			var other []string
			for _, d := range rep.Differences {
				if d.Kind != "unreadable" || d.Table != "main.prim" || d.Snapshot == nil || !strings.Contains(d.Reason, "uncastable-column-stats") {
					other = append(other, d.String())
					continue
				}
				s := span{from: *d.Snapshot, through: *d.Snapshot, a: d.A != "", b: d.B != ""}
				if d.Through != nil {
					s.through = *d.Through
				}
				got = append(got, s)
			}
			if len(other) > 0 {
				t.Errorf("other differences:\n%s", strings.Join(other, "\n"))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("unreadable main.prim: got %+v, want %+v", got, tc.want)
			}
		})
	}
}
