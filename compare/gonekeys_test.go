package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

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
			r, err := Open(ctx, cats[len(cats)-1], ReaderOptions{DataPath: data, Engines: readerDBs})
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
				r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
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

// TestDeletedRowsKeyNotBuiltAsText: a deleted-rows plan key is the sha256
// of its query (planKey), and building it allocates far less than the
// query's list of deleted positions: the key's input is hashed as it is
// written (goneKey). Before, the list was built as text, then the query
// around it, then the key's input around that: every new delete state of
// every file allocated its positions' text three or four times, which in
// a history deleting from the same files grows with the versions (a sixth
// of what a 40-version backfill allocated).
func TestDeletedRowsKeyNotBuiltAsText(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 6, RowsPerVersion: 3000, FilesPerVersion: 2, DeleteEvery: 2})
	r, err := Open(ctx, cats[len(cats)-1], ReaderOptions{DataPath: data, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The file and snapshot with the most deleted positions.
	var most struct {
		s   Snapshot
		tb  Table
		f   DataFile
		pos []int64
	}
	eachTable(t, r, func(s Snapshot, tb Table) {
		files, err := r.Files(ctx, tb, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			pos, err := r.DeletedPositions(ctx, tb, f, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(pos) > len(most.pos) {
				most.s, most.tb, most.f, most.pos = s, tb, f, pos
			}
		}
	})
	if len(most.pos) == 0 {
		t.Fatal("no file of the history has deletes")
	}
	tb, f, snap := most.tb, most.f, most.s.ID
	// The history deletes a few rows per file; the reader's positions of
	// the file at snap are made 5,000, inline (maxInlinePositions), so
	// that their text stands out from the rest of what a key allocates.
	if _, err := r.deletedPositions(ctx, tb, f, snap); err != nil {
		t.Fatal(err)
	}
	many := make([]int64, 5000)
	for i := range many {
		many[i] = int64(2*i + 1)
	}
	r.deletes[f.Delete.Path] = many
	if most.pos, err = r.deletedPositions(ctx, tb, f, snap); err != nil || len(most.pos) != len(many) {
		t.Fatalf("the file's positions are not the 5,000 set (%d, %v)", len(most.pos), err)
	}
	cols, names, types, err := r.rowColumns(ctx, tb, snap, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	build := func() string {
		clear(r.goneKeys) // build it again
		k, err := r.planKeyOf(ctx, tb, f, cols, snap, ScanOptions{}, names, types, deletesOnly, most.pos)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	got := build() // the reader's one-time parts (file identity, query parts) built
	id, err := fileIdentity(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := r.planSQL(ctx, tb, f, cols, snap, ScanOptions{}, names, types, deletesOnly, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := planKey(q, id); got != want {
		t.Fatalf("key %s, want %s (built from its query)", got, want)
	}
	listText := len(int64List(most.pos))
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		build()
	}
	runtime.ReadMemStats(&after)
	perKey := float64(after.TotalAlloc-before.TotalAlloc) / runs
	t.Logf("%d deleted positions (%d bytes as text): %.0f bytes allocated per key", len(most.pos), listText, perKey)
	if perKey > float64(listText)/2 {
		t.Errorf("building the deleted-rows key of %d positions allocated %.0f bytes, more than half their text's %d: the key's input was built as text", len(most.pos), perKey, listText)
	}
	// Positions staged in a temp table (more than maxInlinePositions):
	// the key is still the one of its query.
	r.maxInlinePositions = 1000
	got = build()
	if q, err = r.planSQL(ctx, tb, f, cols, snap, ScanOptions{}, names, types, deletesOnly, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(q, "fdl_del_") {
		t.Fatalf("the positions are not staged: %.200s", q)
	}
	if want := planKey(q, id); got != want {
		t.Errorf("staged positions: key %s, want %s (built from its query)", got, want)
	}
}

// TestDeletedRowsKeyIDInline: the memo key of a deleted-rows plan key
// (goneKeyID) fits in a map's own slots (Go keeps a key of more than 128
// bytes apart, one allocation per entry). A reader keeps one per delete
// state of every file: with the file's whole allRowsKeyID in it (200
// bytes) these entries were the largest part of what a proof keeps that
// grew with the history (docs/compare.md, "Figure 3, one cell").
func TestDeletedRowsKeyIDInline(t *testing.T) {
	if size := unsafe.Sizeof(goneKeyID{}); size > 128 {
		t.Errorf("goneKeyID is %d bytes: a map keeps each such key apart (more than 128)", size)
	}
}

// TestPrefetchScansShareShapes: the check and whole scans a prefetch
// queues for the data files of one table (the same plan shape) share one
// copy of their shape and group texts (intern), not one per file: a
// prefetch queues every data file of the history, so those copies grew
// with it (docs/compare.md, "Figure 3, one cell").
func TestPrefetchScansShareShapes(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 3000, FilesPerVersion: 2, DeleteEvery: 2})
	r, err := Open(ctx, cats[len(cats)-1], ReaderOptions{DataPath: data, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checked := 0
	eachTable(t, r, func(s Snapshot, tb Table) {
		tp, err := r.tablePlan(ctx, tb, s.ID, rowOptions())
		if err != nil {
			t.Fatal(err)
		}
		var checks []checkScan
		var wholes []wholeScan
		for _, fp := range tp.files {
			c, err := r.planCheck(ctx, tb, fp.f, tp.cols, s.ID, rowOptions(), tp.names, fp.all)
			if err != nil {
				t.Fatal(err)
			}
			w, err := r.planWhole(ctx, tb, fp.f, tp.cols, s.ID, rowOptions(), tp.names, tp.types, fp.all)
			if err != nil {
				t.Fatal(err)
			}
			checks, wholes = append(checks, c), append(wholes, w)
		}
		for i := 1; i < len(checks); i++ {
			checked++
			for _, p := range [][2]string{{checks[0].shape, checks[i].shape}, {checks[0].group, checks[i].group}, {wholes[0].shape, wholes[i].shape}, {wholes[0].group, wholes[i].group}} {
				if p[0] != p[1] {
					t.Fatalf("snapshot %d: files of one table planned with other shapes:\n%.200s\n%.200s", s.ID, p[0], p[1])
				}
				if unsafe.StringData(p[0]) != unsafe.StringData(p[1]) {
					t.Fatalf("snapshot %d: two files' scans hold copies of the same %d-byte text", s.ID, len(p[0]))
				}
			}
		}
	})
	if checked == 0 {
		t.Fatal("no snapshot with two data files")
	}
}
