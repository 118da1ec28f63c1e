package compare

import (
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// TestCanonTextStats: a BOOLEAN column's statistics entry compares by
// value ('0' and 'false' alike, as TRY_CAST reads them); other columns of
// the entry, and text that does not cast, are kept; temporal statistics
// are compared as they are.
func TestCanonTextStats(t *testing.T) {
	for _, tc := range []struct {
		kind     *formats.TextStats
		in, want string
	}{
		{formats.BooleanTextStats, `column_size_bytes="31" value_count="2" min_value="0" max_value="1" contains_nan=NULL`,
			`column_size_bytes="31" value_count="2" min_value="false" max_value="true" contains_nan=NULL`},
		{formats.BooleanTextStats, `min_value="false" max_value="TRUE" table_id="1"`, `min_value="false" max_value="true" table_id="1"`},
		{formats.BooleanTextStats, `min_value=NULL max_value="yes"`, `min_value=NULL max_value="true"`},
		{formats.BooleanTextStats, `min_value="2" max_value="maybe" | min_value="f" max_value="t"`, `min_value="2" max_value="maybe" | min_value="false" max_value="true"`},
		{formats.BooleanTextStats, `extra_stats="x min_value=\"0\"" min_value="0"`, `extra_stats="x min_value=\"0\"" min_value="false"`},
		{formats.TemporalTextStats, `min_value="2024-01-01" max_value="10000-01-01"`, `min_value="2024-01-01" max_value="10000-01-01"`},
	} {
		if got := canonTextStats(tc.kind, tc.in); got != tc.want {
			t.Errorf("canonTextStats(%s, %s) = %s, want %s", tc.kind.Kind, tc.in, got, tc.want)
		}
	}
}

// TestNullsFrom: a NULL min_value or max_value of B's entry takes A's;
// B's other columns and statistics are kept; entries of several rows are
// not lined up.
func TestNullsFrom(t *testing.T) {
	for _, tc := range []struct {
		a, b, want string
		ok         bool
	}{
		{`value_count="3" min_value="2024-01-01" max_value="10000-01-01"`, `value_count="3" min_value=NULL max_value=NULL`,
			`value_count="3" min_value="2024-01-01" max_value="10000-01-01"`, true},
		{`value_count="3" min_value="2024-01-01" max_value=NULL`, `value_count="2" min_value=NULL max_value="2025-01-01"`,
			`value_count="2" min_value="2024-01-01" max_value="2025-01-01"`, true},
		{`min_value="a" | min_value="b"`, `min_value=NULL`, `min_value=NULL`, false},
	} {
		got, ok := nullsFrom(tc.a, tc.b)
		if got != tc.want || ok != tc.ok {
			t.Errorf("nullsFrom(%s, %s) = %s, %v, want %s, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
}
