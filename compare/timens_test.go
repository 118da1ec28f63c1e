package compare

import (
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestTimeNSFilesUnreadable: DuckDB 1.5.0 and 1.5.1, the readers of 0.4,
// and 1.5.2-1.5.5, the first readers of 1.0, read a data file's Parquet
// TIME field as TIME and cannot cast it to the column's time_ns
// (time-ns-files-unreadable; formats' TestRealReleasesReadTimeNS runs
// them); a field stored as text, as DuckDB wrote TIME_NS before, reads.
// 01_primitive_types (1.0) with main.prim's tm made time_ns, its files
// written again by DuckDB 1.5.6 (testlakes.TimeNS), reads as a 1.0 source
// (DuckDB 1.5.6), but as a B of 1.0 or 0.4 it is unreadable, unless tm is
// stored as text. Before, the 0.4 stamp
// was proved equivalent to the 1.0 catalog.
func TestTimeNSFilesUnreadable(t *testing.T) {
	lake, src := lastVersion(t, "lakes", "01_primitive_types")
	const want = "time-ns-files-unreadable"
	for _, stored := range []string{"TIME_NS", "VARCHAR"} {
		catalog, data := testlakes.TimeNS(t, src, filepath.Join(lake, "data"), stored)
		for _, tc := range []struct {
			name string
			a, b []string
			want string // "" equivalent
		}{
			{"1.0 against itself (B held to DuckDB 1.5.2-1.5.5)", nil, nil, want},
			{"1.0 against its 0.4 stamp", nil, as04SQL(), want},
			{"0.4 against 0.4", as04SQL(), as04SQL(), want},
		} {
			if stored == "VARCHAR" {
				tc.want = ""
			}
			t.Run(stored+" "+tc.name, func(t *testing.T) {
				proveTamperedUnreadable(t, catalog, data, tc.a, tc.b, tc.want)
			})
		}
	}
}

// TestHoldsParquetTime: the column types DuckDB describes for an encrypted
// file hold a TIME where a TIME or TIME_NS appears, nested or not, and not
// for TIME WITH TIME ZONE, TIMESTAMP* or a field merely named so.
func TestHoldsParquetTime(t *testing.T) {
	for typ, want := range map[string]bool{
		"TIME": true, "TIME_NS": true, "STRUCT(a INTEGER, b TIME_NS)": true, "TIME[]": true, "MAP(VARCHAR, TIME)": true,
		"TIME WITH TIME ZONE": false, "TIMESTAMP": false, "TIMESTAMP_NS": false, "TIMESTAMP WITH TIME ZONE": false,
		"VARCHAR": false, "STRUCT(\"time\" VARCHAR)": false, "STRUCT(time_ns BIGINT)": false,
	} {
		if got := holdsParquetTime(typ); got != want {
			t.Errorf("holdsParquetTime(%q) = %v, want %v", typ, got, want)
		}
	}
}
