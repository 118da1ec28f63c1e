package compare

import (
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestTimeNSFilesUnreadable: DuckDB 1.5.0 and 1.5.1, the readers of 0.4,
// read a data file's TIME_NS field as TIME and cannot cast it to the
// column's time_ns (time-ns-files-unreadable; formats'
// TestRealReleasesReadTimeNS runs them). 01_primitive_types (1.0) with
// main.prim's tm made time_ns, its files written again by DuckDB 1.5.6
// (testlakes.TimeNS), reads in 1.0; stamped 0.4 it is unreadable, against
// the 1.0 catalog and against itself. Before, the 0.4 stamp was proved
// equivalent to the 1.0 catalog.
func TestTimeNSFilesUnreadable(t *testing.T) {
	lake, src := lastVersion(t, "lakes", "01_primitive_types")
	catalog, data := testlakes.TimeNS(t, src, filepath.Join(lake, "data"))
	const want = "time-ns-files-unreadable"
	for _, tc := range []struct {
		name string
		a, b []string
		want string // "" equivalent
	}{
		{"1.0 against itself", nil, nil, ""},
		{"1.0 against its 0.4 stamp", nil, as04SQL(), want},
		{"0.4 against 0.4", as04SQL(), as04SQL(), want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proveTamperedUnreadable(t, catalog, data, tc.a, tc.b, tc.want)
		})
	}
}
