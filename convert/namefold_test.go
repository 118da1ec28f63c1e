package convert

import (
	"slices"
	"testing"
)

// TestUserSystemNamesASCIIOnly: DuckDB compares column names in ASCII
// letter case only, so an inlined table's user column
// "_ducklake_begin_ſnapshot" (long s) does not clash with the system
// column "_ducklake_begin_snapshot" and the table's system columns can be
// renamed, while "_DuckLake_Begin_Snapshot" does clash.
func TestUserSystemNamesASCIIOnly(t *testing.T) {
	cols := []string{"row_id", "begin_snapshot", "end_snapshot", "_ducklake_begin_\u017fnapshot", "duc\u212a", "_DuckLake_Begin_Snapshot"}
	got := userSystemNames(cols, prefixedSystemColumns)
	if want := []string{"_DuckLake_Begin_Snapshot"}; !slices.Equal(got, want) {
		t.Errorf("userSystemNames = %q, want %q", got, want)
	}
}
