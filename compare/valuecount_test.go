package compare

import "testing"

// TestValueCountText: the value_count of a statistics entry's text, per
// row, and whether every row of an entry is 0 (a reader that skips files
// with value_count 0 keeps the file when one row passes).
func TestValueCountText(t *testing.T) {
	for _, tc := range []struct {
		text    string
		first   string
		allZero bool
	}{
		{`column_size_bytes="31" value_count="0" null_count="0" min_value=NULL`, `"0"`, true},
		{`column_size_bytes="31" value_count=NULL null_count="0"`, "NULL", false},
		{`value_count="3" null_count="0"`, `"3"`, false},
		{`value_count="0" null_count="3" | value_count="0" null_count=NULL`, `"0"`, true},
		{`value_count="0" null_count="3" | value_count="2" null_count="1"`, `"0"`, false},
		{`extra_stats="x value_count=\"5\"" null_count="0"`, "", false},
	} {
		if got := valueCountOf(tc.text); got != tc.first {
			t.Errorf("valueCountOf(%s) = %q, want %q", tc.text, got, tc.first)
		}
		if got := allValueCountsZero(tc.text); got != tc.allZero {
			t.Errorf("allValueCountsZero(%s) = %v, want %v", tc.text, got, tc.allZero)
		}
	}
}
