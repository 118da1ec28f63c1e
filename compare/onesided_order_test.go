package compare

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// TestOneSidedDifferencesOrdered: the differences oneSidedTableStats adds
// for B's one-bound rows come in (table_id, column_id) order, so that a
// report, and the first difference its error names, is the same on every
// run. Before, they came in Go's map order: on 01_primitive_types against
// itself with every table column statistics row's min_value set to NULL,
// the report's 15 one-sided differences and the error's "first" changed
// from run to run.
func TestOneSidedDifferencesOrdered(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "01_primitive_types")
	// Each row keeps only its max, set to its type's maximum where
	// formats.OneSidedExtremes knows one (a row not at the extreme reads
	// as no statistics, no difference).
	var whens []string
	for _, typ := range formats.OneSidedStatsTypes {
		if _, _, hi, _, ok := formats.OneSidedExtremes(typ); ok {
			whens = append(whens, "WHEN '"+typ+"' THEN '"+hi+"'")
		}
	}
	b := tamper(t, catalog, `UPDATE ducklake_table_column_stats s SET min_value = NULL,
	max_value = coalesce((SELECT any_value(CASE lower(trim(c.column_type)) `+strings.Join(whens, " ")+` END) FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id), s.max_value)
	WHERE min_value IS NOT NULL AND max_value IS NOT NULL`)
	var first string
	for run := 0; run < 3; run++ {
		rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: lake + "/data", Engines: readerDBs})
		if err == nil || rep == nil {
			t.Fatalf("want differences, got %v", err)
		}
		var items []string
		for _, d := range rep.Differences {
			if d.Kind == "stats" && strings.Contains(d.Reason, "only one bound at or beyond its type's extreme") {
				items = append(items, d.Item)
			}
		}
		if len(items) < 2 {
			t.Fatalf("%d one-sided differences", len(items))
		}
		sorted := slices.SortedFunc(slices.Values(items), func(x, y string) int {
			return strings.Compare(oneSidedSortKey(x), oneSidedSortKey(y))
		})
		if !slices.Equal(items, sorted) {
			t.Fatalf("run %d: one-sided differences not in (table_id, column_id) order:\n%s", run, strings.Join(items, "\n"))
		}
		if run == 0 {
			first = err.Error()
		} else if err.Error() != first {
			t.Fatalf("error changed between runs:\n%s\n%s", first, err)
		}
	}
}

// oneSidedSortKey pads the ids of an item `... table_id="T" column_id="C"`
// so that the keys sort numerically.
func oneSidedSortKey(item string) string {
	var out []string
	for _, f := range strings.Fields(item) {
		if k, v, ok := strings.Cut(f, "="); ok {
			v = strings.Trim(v, `"`)
			out = append(out, k+"="+strings.Repeat("0", max(0, 20-len(v)))+v)
		}
	}
	return strings.Join(out, " ")
}
