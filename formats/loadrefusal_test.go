package formats

import "testing"

// TestQuotedListParses: a view's column_aliases as DuckLakeUtil's
// ParseQuotedList reads them.
func TestQuotedListParses(t *testing.T) {
	for in, ok := range map[string]bool{
		``: true, `"a"`: true, `"a","b"`: true, `"a""b"`: true, `"a,b"`: true, `""`: true,
		`a`: false, `"a",b`: false, `"a"` + ` `: false, `"a`: false, `"a",`: false, `"a";"b"`: false, ` "a"`: false,
	} {
		if why := QuotedListParses(in); (why == "") != ok {
			t.Errorf("QuotedListParses(%q) = %q, want it to parse: %t", in, why, ok)
		}
	}
}
