package datapath

import "testing"

func TestUnder(t *testing.T) {
	for _, tc := range []struct {
		relative   bool
		rel        string
		clean, why string
	}{
		{true, "main/t/f.parquet", "main/t/f.parquet", ""},
		{true, "f.parquet", "f.parquet", ""},
		{true, "./main/f.parquet", "main/f.parquet", ""},
		{false, "main/t/f.parquet", "", ReasonAbsolute},
		{true, "x/../main/t/f.parquet", "", ReasonDotDot},
		{true, "../f.parquet", "", ReasonDotDot},
		{true, "main/..", "", ReasonDotDot},
		{true, "/abs/f.parquet", "", ReasonEmpty},
		{true, "main//f.parquet", "", ReasonEmpty},
		{true, "s3://b/f.parquet", "", ReasonEmpty},
		{true, "main/t/", "", ReasonEmpty},
	} {
		clean, why := Under(tc.relative, tc.rel)
		if clean != tc.clean || why != tc.why {
			t.Errorf("Under(%t, %q) = %q, %q; want %q, %q", tc.relative, tc.rel, clean, why, tc.clean, tc.why)
		}
	}
}
