package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestInlinedBeginsReadOnce: inlinedBegins reads a table's inlined rows'
// snapshots at every snapshot in one statement per table row (the
// catalog's snapshots in one batch), not one per snapshot, and answers
// as it does reading one snapshot per statement, failing where that
// fails. Before, the statements grew with the snapshots.
func TestInlinedBeginsReadOnce(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		archive string
		edits   []string // of the lake's last catalog
	}{
		{"lakes", nil},
		{"lakes-1.1-dev1", nil},
		// A row id that does not cast, in the last row begun: only the
		// snapshots reading that row fail.
		{"lakes", []string{"ALTER TABLE ducklake_inlined_data_1_2 ALTER row_id TYPE VARCHAR",
			"UPDATE ducklake_inlined_data_1_2 SET row_id = 'x' WHERE begin_snapshot = (SELECT max(begin_snapshot) FROM ducklake_inlined_data_1_2)"}},
	} {
		t.Run(fmt.Sprintf("%s %d edits", tc.archive, len(tc.edits)), func(t *testing.T) {
			lake, catalog := lastVersion(t, tc.archive, "16_data_inlining")
			data := filepath.Join(lake, "data")
			if len(tc.edits) > 0 {
				catalog = tamper(t, catalog, tc.edits...)
			}
			// answers reads inlinedBegins at every snapshot of every table
			// of the catalog, and how many statements read the inlined
			// rows' snapshots, and how many table rows (id and
			// begin_snapshot) have inlined rows.
			answers := func(batch int) (map[string]string, int, int) {
				r := openForTest(t, catalog, data)
				if batch > 0 {
					r.inl.batch = batch
				}
				snaps, err := r.Snapshots(ctx)
				if err != nil {
					t.Fatal(err)
				}
				log := queryLog(t, r)
				got := map[string]string{}
				errors := 0
				rows := map[[2]int64]bool{}
				for _, s := range snaps {
					tables, err := r.Tables(ctx, s.ID)
					if err != nil {
						t.Fatal(err)
					}
					for _, x := range readable(tables) {
						vis, ended, err := r.inlinedBegins(ctx, x, s.ID)
						if err != nil {
							errors++
							got[fmt.Sprintf("%s@%d", x.FullName(), s.ID)] = err.Error()
							continue
						}
						got[fmt.Sprintf("%s@%d", x.FullName(), s.ID)] = vis + " | " + ended
						if vis != "" || ended != "" {
							rows[[2]int64{x.ID, x.BeginSnapshot}] = true
						}
					}
				}
				n := 0
				for _, q := range log() {
					if strings.Contains(q, "ducklake_inlined_data_") && strings.Contains(q, "hash(rid, b)") {
						n++
					}
				}
				if (errors > 0) != (len(tc.edits) > 0) || errors == len(got) {
					t.Errorf("%d of %d reads failed", errors, len(got))
				}
				return got, n, len(rows)
			}
			want, perSnap, _ := answers(1)
			got, n, rows := answers(0)
			if rows == 0 || perSnap <= rows {
				t.Fatalf("%d table rows with inlined rows, read in %d statements one snapshot at a time: not the case this test needs", rows, perSnap)
			}
			// A failed batch is read again at one snapshot, and that table
			// row's later snapshots one at a time: the batch that failed is
			// not asked again at each of them.
			if n > rows && len(tc.edits) == 0 {
				t.Errorf("the inlined rows' snapshots read by %d statements, want at most %d (one per table row; %d one snapshot at a time)", n, rows, perSnap)
			}
			if n > perSnap+rows {
				t.Errorf("the inlined rows' snapshots read by %d statements, want at most %d (one snapshot at a time %d, and a batch per table row)", n, perSnap+rows, perSnap)
			}
			if len(got) != len(want) {
				t.Errorf("%d answers, want %d", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %q, read one snapshot at a time %q", k, got[k], w)
				}
			}
		})
	}
}
