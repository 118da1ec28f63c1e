package formats

import "testing"

func TestDecimalWidthScale(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w, s int
		ok   bool
	}{
		{"DECIMAL(4,2)", 4, 2, true},
		{"DECIMAL(38, 0)", 38, 0, true},
		{"DECIMAL(1,1)", 1, 1, true},
		{"DECIMAL(39,2)", 0, 0, false},
		{"DECIMAL(4,5)", 0, 0, false},
		{"DECIMAL(0,0)", 0, 0, false},
		{"DECIMAL(4,2", 0, 0, false},
		{"DECIMAL(4)", 0, 0, false},
		{"DECIMAL(4,2)[]", 0, 0, false},
		{"decimal(4,2)", 0, 0, false},
		{"VARCHAR", 0, 0, false},
	} {
		w, s, ok := DecimalWidthScale(tc.in)
		if w != tc.w || s != tc.s || ok != tc.ok {
			t.Errorf("DecimalWidthScale(%q) = %d, %d, %v; want %d, %d, %v", tc.in, w, s, ok, tc.w, tc.s, tc.ok)
		}
	}
}
