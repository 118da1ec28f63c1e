package oneline

import "testing"

func TestFirstAndBrief(t *testing.T) {
	for _, tc := range []struct {
		in          string
		n           int
		first, want string
	}{
		{"", 5, "", ""},
		{"one line", 20, "one line", "one line"},
		{"first\nsecond", 20, "first", "first"},
		{"a long first line\nsecond", 6, "a long first line", "a long…"},
	} {
		if got := First(tc.in); got != tc.first {
			t.Errorf("First(%q) = %q, want %q", tc.in, got, tc.first)
		}
		if got := Brief(tc.in, tc.n); got != tc.want {
			t.Errorf("Brief(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
