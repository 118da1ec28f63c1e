package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestDeletedRowsKeysPerDeleteState walks every snapshot of a history whose
// files gain deletes over time, asking for each file's deleted-rows plan
// key as a comparison does. The keys are those built from the plan's query
// (planSQL), and they are built once per delete state of a file, not once
// per snapshot: before, every snapshot built the query with its list of
// positions again, and a backfill's memory grew with versions x files.
func TestDeletedRowsKeysPerDeleteState(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 6, RowsPerVersion: 3000, FilesPerVersion: 2, DeleteEvery: 2})
	for _, tc := range []struct {
		name string
		opts ScanOptions
	}{{"rows", ScanOptions{}}, {"rows with row ids", ScanOptions{RowIDs: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(ctx, cats[len(cats)-1], ReaderOptions{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			type state struct {
				file int64
				n    int
				sum  [32]byte
			}
			states := map[state]string{}
			asked := 0
			eachTable(t, r, func(s Snapshot, tb Table) {
				cols, names, types, err := r.rowColumns(ctx, tb, s.ID, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				files, err := r.Files(ctx, tb, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					pos, err := r.DeletedPositions(ctx, tb, f, s.ID)
					if err != nil || len(pos) == 0 {
						if err != nil {
							t.Fatal(err)
						}
						continue
					}
					got, err := r.planKeyOf(ctx, tb, f, cols, s.ID, tc.opts, names, types, deletesOnly, nil)
					if err != nil {
						t.Fatal(err)
					}
					asked++
					id, err := fileIdentity(f, nil)
					if err != nil {
						t.Fatal(err)
					}
					q, err := r.planSQL(ctx, tb, f, cols, s.ID, tc.opts, names, types, deletesOnly, false)
					if err != nil {
						t.Fatal(err)
					}
					if want := planKey(q, id); got != want {
						t.Errorf("snapshot %d, file %d (%d deleted): key %s, want %s (built from its query)", s.ID, f.ID, len(pos), got, want)
					}
					st := state{f.ID, len(pos), positionsSum(pos)}
					if k, ok := states[st]; ok && k != got {
						t.Errorf("snapshot %d, file %d: two keys for one delete state", s.ID, f.ID)
					}
					states[st] = got
				}
			})
			if asked <= len(states) {
				t.Fatalf("%d keys asked for %d delete states: the history does not repeat a delete state across snapshots", asked, len(states))
			}
			if r.keysBuilt != len(states) {
				t.Errorf("%d deleted-rows keys built for %d delete states (%d asked): want one per delete state", r.keysBuilt, len(states), asked)
			}
			t.Logf("%d keys asked, %d delete states, %d built", asked, len(states), r.keysBuilt)
		})
	}
}

// TestDeletedRowsQueryPerPlan: a deleted-rows key's query, built from the
// part kept per file plan and the positions (goneSQL), is planSQL's text,
// in lakes with partial files, deletion vectors, inlined deletions, renames
// and compaction, with the positions inline or staged in a temp table.
func TestDeletedRowsQueryPerPlan(t *testing.T) {
	ctx := context.Background()
	checked := 0
	defer func() {
		if checked == 0 && !t.Failed() {
			t.Error("no file with deletes in any lake")
		}
	}()
	for _, l := range fixedCostLakes {
		for _, inline := range []int{10000, 1} {
			t.Run(fmt.Sprintf("%s/%s/inline %d", l.archive, l.name, inline), func(t *testing.T) {
				lake, catalog := lastVersion(t, l.archive, l.name)
				r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data")})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				r.maxInlinePositions = inline
				eachTable(t, r, func(s Snapshot, tb Table) {
					cols, names, types, err := r.rowColumns(ctx, tb, s.ID, rowOptions())
					if err != nil {
						return // a table the proof reports unreadable
					}
					files, err := r.Files(ctx, tb, s.ID)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range files {
						pos, err := r.deletedPositions(ctx, tb, f, s.ID)
						if err != nil || len(pos) == 0 {
							continue
						}
						q, err := r.planSQL(ctx, tb, f, cols, s.ID, rowOptions(), names, types, deletesOnly, false)
						if err != nil {
							continue // planSQL's own error: not this test's
						}
						kid := allRowsKeyID{table: tb.ID, file: rowOf(f), rowIDs: true}
						if f.PartialMax != nil || f.PartialInfo != nil {
							kid.snap = s.ID // as planKeyOf keys them
						}
						if kid.columns, err = r.epoch(ctx, s.ID, tb.ID, columnsEpoch...); err != nil {
							t.Fatal(err)
						}
						got, err := r.goneSQL(ctx, tb, f, cols, s.ID, rowOptions(), names, types, kid)
						if err != nil {
							t.Fatal(err)
						}
						if got != q {
							t.Errorf("snapshot %d, file %d: goneSQL\n%s\nplanSQL\n%s", s.ID, f.ID, got, q)
						}
						checked++
					}
				})
			})
		}
	}
}
