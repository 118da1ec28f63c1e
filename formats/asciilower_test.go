package formats

import (
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestASCIILowerSQL: DuckDB computes ASCIILowerSQL's expression as
// ASCIILower lowers in Go, ASCII letters only, where its lower() also
// lowers the Kelvin sign and "İ" to ASCII letters (the strings a name
// compared with lower() was taken for another).
func TestASCIILowerSQL(t *testing.T) {
	t.Parallel()
	db := testduck.Open(t, "")
	for _, s := range []string{"", "TIME_NS", "Ducklake_Data_File", "duc\u212Alake_x", "t\u0130me_ns", "\u017Ftruct", "ÉA_é", "puff\u0130n", "a'B"} {
		var got, lower string
		if err := db.QueryRow("SELECT "+ASCIILowerSQL("?")+", lower(?)", s, s).Scan(&got, &lower); err != nil {
			t.Fatal(err)
		}
		if got != ASCIILower(s) {
			t.Errorf("%s of %q = %q, want %q", ASCIILowerSQL("?"), s, got, ASCIILower(s))
		}
		if (s == "duc\u212Alake_x" || s == "t\u0130me_ns") && lower == got {
			t.Errorf("lower(%q) = %q, the ASCII lowering too: the test's strings no longer tell them apart", s, lower)
		}
	}
}
