package formats

import "testing"

// TestOnlyGeometry: CheckRequired leaves out of a catalog without a
// GEOMETRY column the conditions that hold only in a GEOMETRY column's
// rows. A condition that merely starts with one of them and goes on with
// OR holds in other rows too and must stay in the query.
func TestOnlyGeometry(t *testing.T) {
	for _, tc := range []struct {
		name, when string
		want       bool
	}{
		{"geometryStatsRead", geometryStatsRead, true},
		{"geometryStatsNoTypes", geometryStatsNoTypes, true},
		{"geometryStatsRead OR more", geometryStatsRead + " OR {self}.min_value IS NULL", false},
		{"columnStatsRead", columnStatsRead, false},
		{"every row", "", false},
	} {
		if got := onlyGeometry(tc.when); got != tc.want {
			t.Errorf("%s: onlyGeometry = %v, want %v", tc.name, got, tc.want)
		}
	}
}
