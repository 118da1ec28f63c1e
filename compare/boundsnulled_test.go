package compare

import (
	"database/sql"
	"testing"
)

// TestBoundsNulled: B's row stands for A's with both bounds NULL only
// where they are one row each, equal column by column but min_value and
// max_value, A's bounds the folded ones. The printed rows are read back
// by column name and value (statsRows), so a value that prints like a
// column ("min_value=\"a\"" inside another value) or the columns in
// another order than the entries were written in decide nothing.
func TestBoundsNulled(t *testing.T) {
	cols := []string{"contains_null", "min_value", "max_value", "extra_stats"}
	entry := func(vals ...*string) string {
		e := entries{}
		row := []sql.NullString{{String: "1", Valid: true}}
		for _, v := range vals {
			if v == nil {
				row = append(row, sql.NullString{})
			} else {
				row = append(row, sql.NullString{String: *v, Valid: true})
			}
		}
		addStatsEntry(e, "s", []string{"table_id"}, cols, row)
		for _, v := range e {
			return v
		}
		return ""
	}
	p := func(s string) *string { return &s }
	lo, hi := p("a"), p("z")
	tricky := p(`min_value="a" max_value="z"`)
	for _, tc := range []struct {
		name   string
		ta, tb string
		cols   []string
		want   bool
	}{
		{"both bounds NULL", entry(p("false"), lo, hi, nil), entry(p("false"), nil, nil, nil), cols, true},
		{"both NULL, a value that prints like the bounds kept", entry(p("false"), lo, hi, tricky), entry(p("false"), nil, nil, tricky), cols, true},
		{"one bound NULL", entry(p("false"), lo, hi, nil), entry(p("false"), lo, nil, nil), cols, false},
		{"another column changed", entry(p("false"), lo, hi, nil), entry(p("true"), nil, nil, nil), cols, false},
		{"a value that prints like the bounds, changed", entry(p("false"), lo, hi, tricky), entry(p("false"), nil, nil, p(`min_value=NULL max_value=NULL`)), cols, false},
		{"A's bounds are not the folded ones", entry(p("false"), p("b"), hi, nil), entry(p("false"), nil, nil, nil), cols, false},
		{"the columns read in another order", entry(p("false"), lo, hi, nil), entry(p("false"), nil, nil, nil), []string{"contains_null", "max_value", "min_value", "extra_stats"}, false},
		{"two rows in A", entry(p("false"), lo, hi, nil) + " | " + entry(p("true"), lo, nil, nil), entry(p("false"), nil, nil, nil), cols, false},
		{"two rows in B", entry(p("false"), lo, hi, nil), entry(p("false"), nil, nil, nil) + " | " + entry(p("true"), nil, nil, nil), cols, false},
		{"not as addStatsEntry writes it", entry(p("false"), lo, hi, nil), "contains_null=false min_value=NULL max_value=NULL extra_stats=NULL", cols, false},
	} {
		if got := boundsNulled(tc.ta, tc.tb, tc.cols, lo, hi); got != tc.want {
			t.Errorf("%s: boundsNulled(%s, %s) = %v, want %v", tc.name, tc.ta, tc.tb, got, tc.want)
		}
	}
}
