package compare

import "testing"

// TestCanonBoolStats: a BOOLEAN column's statistics entry compares by
// value ('0' and 'false' alike, as TRY_CAST reads them); other columns of
// the entry, and text that does not cast, are kept.
func TestCanonBoolStats(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`column_size_bytes="31" value_count="2" min_value="0" max_value="1" contains_nan=NULL`,
			`column_size_bytes="31" value_count="2" min_value="false" max_value="true" contains_nan=NULL`},
		{`min_value="false" max_value="TRUE" table_id="1"`, `min_value="false" max_value="true" table_id="1"`},
		{`min_value=NULL max_value="yes"`, `min_value=NULL max_value="true"`},
		{`min_value="2" max_value="maybe" | min_value="f" max_value="t"`, `min_value="2" max_value="maybe" | min_value="false" max_value="true"`},
		{`extra_stats="x min_value=\"0\"" min_value="0"`, `extra_stats="x min_value=\"0\"" min_value="false"`},
	} {
		if got := canonBoolStats(tc.in); got != tc.want {
			t.Errorf("canonBoolStats(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
