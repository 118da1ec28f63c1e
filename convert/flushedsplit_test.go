package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestFlushedPartialFilesAsSplitLists: format 0.2 cannot parse
// 'partial_max:N', but a file whose rows' stored snapshots are in file
// order reads, in 0.3, exactly as the split list of those snapshots reads
// in 0.2. 17_compaction (1.0, merged by DuckLake 1.0) goes to 0.2 with the
// data folder: its merged file 6 gets the list DuckLake 0.3 itself wrote
// for the same merge (lakes-0.3/17_compaction), no 'partial_max:' is left,
// and the proof holds. Without the data folder, and for 22_sorted_tables,
// whose sorted merge put a later row before an earlier one, it is refused
// naming why. Before, every 'partial_max:N' file was refused. The first
// version of 17_compaction is converted: the later ones hold data files
// merged with row_id_start NULL, which 0.2 is refused for
// (row-id-start-required, TestRowIDStartRequired13).
func TestFlushedPartialFilesAsSplitLists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lakes := testlakes.Dir(t, "lakes")
	for _, tc := range []struct {
		lake    string
		data    bool
		refused string // in the flushed-partial-files detail; "" converts
	}{
		{"17_compaction", true, ""},
		{"17_compaction", false, "data_file_id 6 ducklake-01a229fa-aed0-759f-a8d2-64315eb5722b.parquet (partial_max:7): no data folder"},
		{"22_sorted_tables", true, "data_file_id 6 ducklake-01a229fb-0bd4-7ccd-bff3-caaec8522f09.parquet (partial_max:13): its rows' snapshots are not in file order"},
	} {
		t.Run(tc.lake, func(t *testing.T) {
			vs := versionCatalogs(t, filepath.Join(lakes, tc.lake))
			src := vs[len(vs)-1]
			if tc.lake == "17_compaction" {
				src = vs[0]
			}
			var opts Options
			data := ""
			if tc.data {
				data = columnNamedFolder(t, t.TempDir())
				copyTree(t, filepath.Join(lakes, tc.lake, "data"), data)
				opts.DataPath = data
			}
			out := filepath.Join(t.TempDir(), "0.2.duckdb")
			_, err := Catalog(ctx, src, out, formats.V0_2, opts)
			if tc.refused != "" {
				var refused *RefusedError
				if !errors.As(err, &refused) {
					t.Fatalf("converted (%v), want refused naming %q", err, tc.refused)
				}
				i := slices.IndexFunc(refused.Findings, func(f Finding) bool { return f.Code == "flushed-partial-files" })
				if i < 0 || !strings.Contains(refused.Findings[i].Detail, tc.refused) {
					t.Fatalf("refused for %v, want flushed-partial-files naming %q", refused.Findings, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := query(t, out, "SELECT partial_file_info FROM c.ducklake_data_file WHERE data_file_id = 6"); len(got) != 1 || got[0][0] != "2:1|3:2|4:3|5:4|6:5|7:6" {
				t.Errorf("data file 6 split list %v, want 2:1|3:2|4:3|5:4|6:5|7:6 (DuckLake 0.3's for the same merge)", got)
			}
			if got := query(t, out, "SELECT count(*) FROM c.ducklake_data_file WHERE partial_file_info LIKE 'partial_max:%'"); got[0][0] != "0" {
				t.Errorf("%s files left with partial_max:N", got[0][0])
			}
			proveEquivalent(t, src, out, data)
		})
	}
}
