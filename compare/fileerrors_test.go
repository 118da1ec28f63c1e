package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileErrors: what a self-read asks of every table's files at every
// snapshot (fileErrors, which builds no entries) fails as fileEntries
// fails, on lakes as written, on a copy of 06_deletes whose delete files
// are gone (the positions cannot be read), and on copies of
// 16_data_inlining's catalog with an inlined row whose row id does not
// cast: the read of the inlined rows' snapshots (inlinedBegins) fails at
// the snapshots reading that row, the last begun or one that ended. A
// self-read sees those failures only through fileErrors where the row is
// ended or unseen (its plan does not read such rows), so fileErrors must
// read the inlined rows and the ended files as fileEntries does.
func TestFileErrors(t *testing.T) {
	ctx := context.Background()
	noDisk := func(string, int64, *int64, string) error { return nil }
	const rowIDText = "ALTER TABLE ducklake_inlined_data_1_2 ALTER row_id TYPE VARCHAR"
	for _, tc := range []struct {
		name, lake    string
		noDeleteFiles bool     // remove the lake's delete files
		edits         []string // of the lake's last catalog
		wantFailures  bool
		wantInErrors  string // in every failure
	}{
		{name: "06_deletes", lake: "06_deletes"},
		{name: "16_data_inlining", lake: "16_data_inlining"},
		{name: "17_compaction", lake: "17_compaction"},
		{name: "06_deletes without delete files", lake: "06_deletes", noDeleteFiles: true, wantFailures: true},
		{name: "16_data_inlining with the last begun inlined row's id text", lake: "16_data_inlining", edits: []string{rowIDText,
			"UPDATE ducklake_inlined_data_1_2 SET row_id = 'x' WHERE begin_snapshot = (SELECT max(begin_snapshot) FROM ducklake_inlined_data_1_2)"},
			wantFailures: true, wantInErrors: "read the inlined rows' snapshots of"},
		{name: "16_data_inlining with an ended inlined row's id text", lake: "16_data_inlining", edits: []string{rowIDText,
			"UPDATE ducklake_inlined_data_1_2 SET row_id = 'x' WHERE end_snapshot IS NOT NULL"},
			wantFailures: true, wantInErrors: "read the inlined rows' snapshots of"},
	} {
		lake, catalog := lastVersion(t, "lakes", tc.lake)
		data := filepath.Join(lake, "data")
		if tc.noDeleteFiles {
			dst := t.TempDir()
			copyTree(t, data, dst)
			gone, err := filepath.Glob(filepath.Join(dst, "main", "*", "*-delete.parquet"))
			if err != nil || len(gone) == 0 {
				t.Fatalf("no delete files to remove: %v", err)
			}
			for _, p := range gone {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
			data = dst
		}
		if len(tc.edits) > 0 {
			catalog = tamper(t, catalog, tc.edits...)
		}
		r := openForTest(t, catalog, data)
		failed, pairs := 0, 0
		eachTable(t, r, func(s Snapshot, tb Table) {
			err := r.fileErrors(ctx, tb, s.ID, noDisk)
			_, _, want := r.fileEntries(ctx, tb, s.ID, noDisk)
			if fmt.Sprint(err) != fmt.Sprint(want) {
				t.Errorf("%s: table %s at snapshot %d: %v, want %v", tc.name, tb.Shown(), s.ID, err, want)
			}
			if want != nil {
				failed++
				if !strings.Contains(want.Error(), tc.wantInErrors) {
					t.Errorf("%s: table %s at snapshot %d: %v, want it to name %q", tc.name, tb.Shown(), s.ID, want, tc.wantInErrors)
				}
			}
			pairs++
		})
		if (failed > 0) != tc.wantFailures || failed == pairs {
			t.Errorf("%s: %d failures of %d tables at snapshots", tc.name, failed, pairs)
		}
	}
}
