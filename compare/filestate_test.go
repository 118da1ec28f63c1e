package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestFileStateMemoMatchesFresh walks every snapshot of every version of
// the conformance lakes whose files change state, and of a lakegen history (partial deletion files
// cut at each snapshot), in a comparison's order (every table's plan at
// every snapshot, then each snapshot's file descriptions and plans again)
// and requires every file plan and description a reader reuses by file
// state (filestate.go) to be the one a reader building each afresh gets:
// the same plan keys, deleted positions, entries and errors.
func TestFileStateMemoMatchesFresh(t *testing.T) {
	ctx := context.Background()
	type version struct{ name, catalog, data string }
	var versions []version
	// The lakes whose files change state (deletes, updates, inlined
	// deletions, compaction, partial files, expiry, added files, deletion
	// vectors), in every archive that has them.
	states := []string{"06_", "07_", "16_", "17_", "18_", "19_", "24_", "c_"}
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "lakes-0.3-compaction"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			name := filepath.Base(lake)
			if !slices.ContainsFunc(states, func(p string) bool { return strings.HasPrefix(name, p) }) {
				continue
			}
			for _, v := range readManifest(t, lake).Versions {
				versions = append(versions, version{archive + "/" + name + "/" + v.ID, filepath.Join(lake, "versions", v.ID, "ducklake.duckdb"), filepath.Join(lake, "data")})
			}
		}
	}
	dir := t.TempDir()
	if _, err := lakegen.History(ctx, dir, lakegen.HistoryOptions{Versions: 7, RowsPerVersion: 500, FilesPerVersion: 2, DeleteEvery: 2}); err != nil {
		t.Fatal(err)
	}
	cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
	slices.Sort(cats)
	versions = append(versions, version{"lakegen history", cats[len(cats)-1], filepath.Join(dir, "data")})
	moved, movedData := movedTableFolder(t)
	versions = append(versions, version{"06_deletes, main.del moved to another folder mid-history", moved, movedData})

	noDisk := func(string, int64, *int64, string) error { return nil }
	hits := 0
	engines := readerDBs
	for _, v := range versions {
		// Read whole (as a proof's reader is) and walked twice (as a
		// Source's reader is, by several proofs).
		memo := openPooled(t, v.catalog, v.data, engines)
		if err := memo.ReadEveryTable(ctx); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		snaps, err := memo.Snapshots(ctx)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		// The reader that builds afresh keeps nothing between snapshots
		// that plans depend on (file states, files, identities, plan keys;
		// a new reader at every snapshot gave the same answers, ten times
		// slower).
		fresh := openPooled(t, v.catalog, v.data, engines)
		fresh.noStateMemo = true
		// What fresh plans in the first pass it plans again in the
		// second (it keeps nothing a plan depends on between snapshots):
		// kept, by snapshot, table and scan options.
		type freshPlan struct {
			err   string
			files []filePlan
		}
		freshPlans := map[[3]int64]freshPlan{}
		for pass := range 2 {
			for _, s := range snaps {
				fresh.filesAt, fresh.identities, fresh.deleteSnapsOf, fresh.inlinedDelTables, fresh.inlinedDelBegins = nil, nil, nil, nil, nil
				fresh.allRowsKeys, fresh.goneKeys, fresh.goneParts = map[allRowsKeyID]string{}, map[goneKeyID]string{}, map[allRowsKeyID]goneParts{}
				tables, err := fresh.Tables(ctx, s.ID)
				if err != nil {
					t.Fatalf("%s: %v", v.name, err)
				}
				for _, tb := range tables {
					if pass == 1 {
						ea, pa, errA := memo.fileEntries(ctx, tb, s.ID, noDisk)
						eb, pb, errB := fresh.fileEntries(ctx, tb, s.ID, noDisk)
						if fmt.Sprint(errA) != fmt.Sprint(errB) || !reflect.DeepEqual(ea, eb) || !reflect.DeepEqual(pa, pb) {
							t.Fatalf("%s snapshot %d %s: files %v %v (%v), afresh %v %v (%v)", v.name, s.ID, tb.FullName(), ea, pa, errA, eb, pb, errB)
						}
					}
					before, planned := len(memo.plans.cur)+len(memo.plans.prev), 0
					// Both scan options a comparison plans with: its digests'
					// (row ids) and its row listings' (plain).
					for i, opts := range []ScanOptions{rowOptions(), {}} {
						a, errA := memo.tablePlan(ctx, tb, s.ID, opts)
						key := [3]int64{s.ID, tb.ID, int64(i)}
						b, ok := freshPlans[key]
						if !ok {
							p, err := fresh.tablePlan(ctx, tb, s.ID, opts)
							b.err = fmt.Sprint(err)
							if err == nil {
								for _, f := range p.files {
									f.deleted = slices.Clone(f.deleted)
									b.files = append(b.files, f)
								}
							}
							freshPlans[key] = b
						}
						if fmt.Sprint(errA) != b.err {
							t.Fatalf("%s snapshot %d %s %+v: plan error %v, afresh %v", v.name, s.ID, tb.FullName(), opts, errA, b.err)
						}
						if errA != nil {
							continue
						}
						if len(a.files) != len(b.files) {
							t.Fatalf("%s snapshot %d %s: %d files planned, afresh %d", v.name, s.ID, tb.FullName(), len(a.files), len(b.files))
						}
						planned += len(a.files)
						for i := range a.files {
							x, y := a.files[i], b.files[i]
							if x.f.ID != y.f.ID || x.all != y.all || x.gone != y.gone || x.same != y.same || !slices.Equal(x.deleted, y.deleted) {
								t.Fatalf("%s snapshot %d %s %+v data file %s: plan (%s, %s, %d deleted), afresh (%s, %s, %d deleted)",
									v.name, s.ID, tb.FullName(), opts, x.f.Path, x.all, x.gone, len(x.deleted), y.all, y.gone, len(y.deleted))
							}
						}
					}
					// Plans found kept add nothing new to the window.
					if planned > 0 && len(memo.plans.cur)+len(memo.plans.prev) == before {
						hits++
					}
				}
			}
		}
		// Their databases go back to the pool for the next version's
		// readers (openPooled closes them only when the test ends).
		memo.Close()
		fresh.Close()
	}
	if hits == 0 {
		t.Fatal("no plan was found kept by file state: the memo was not exercised")
	}
}

// TestSourceProofsCheckEveryFileOnDisk: catalog A records its data files
// one byte too large; every proof sharing A's reader (Source) reports A's
// disagreement with the disk as a proof alone does (the reader keeps A's
// file descriptions from one proof to the next; the disk check is each
// proof's own).
func TestSourceProofsCheckEveryFileOnDisk(t *testing.T) {
	for _, name := range []string{"06_deletes", "02_add_drop_columns", "20_time_travel"} {
		t.Run(name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", name)
			data := filepath.Join(lake, "data")
			a := tamper(t, catalog, `UPDATE ducklake_data_file SET file_size_bytes = file_size_bytes + 1`)
			ctx := context.Background()
			want, wantErr := Catalogs(ctx, a, catalog, Options{DataPath: data, Engines: readerDBs})
			diskA := func(rep *Report) (out []string) {
				for _, d := range rep.Differences {
					if strings.Contains(d.Reason, "catalog A:") {
						out = append(out, d.String())
					}
				}
				return out
			}
			if want == nil || len(diskA(want)) == 0 {
				t.Fatalf("no disk difference of A without a Source: %v", wantErr)
			}
			src := NewSource()
			defer src.Close()
			for i := range 3 {
				got, err := Catalogs(ctx, a, catalog, Options{DataPath: data, Source: src, Engines: readerDBs})
				if (err == nil) != (wantErr == nil) || got == nil {
					t.Fatalf("proof %d: %v, without a Source %v", i, err, wantErr)
				}
				if g, w := diskA(got), diskA(want); !reflect.DeepEqual(g, w) {
					t.Errorf("proof %d with a Source: A's disk differences %v, without a Source %v", i, g, w)
				}
			}
		})
	}
}

// TestSourceProofsCheckDeleteFilesOnDisk: catalog A records a wrong size
// for a delete file that B records right, the only difference (a delete
// file's size is in no description: the disk check alone finds it). A
// second proof of the same A sharing its reader (Source) must find it too.
func TestSourceProofsCheckDeleteFilesOnDisk(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes-0.3", "06_deletes")
	data := filepath.Join(lake, "data")
	// Data file 0's last delete file, visible from the first snapshot.
	early := []string{
		`DELETE FROM ducklake_delete_file WHERE data_file_id = 0 AND end_snapshot IS NOT NULL`,
		`UPDATE ducklake_delete_file SET begin_snapshot = 1 WHERE data_file_id = 0`,
	}
	b := tamper(t, catalog, early...)
	a := tamper(t, catalog, append(early, `UPDATE ducklake_delete_file SET file_size_bytes = file_size_bytes + 1 WHERE data_file_id = 0`)...)
	ctx := context.Background()
	want, wantErr := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
	if want == nil || want.Equivalent {
		t.Fatalf("without a Source: %v", wantErr)
	}
	src := NewSource()
	defer src.Close()
	for i := range 2 {
		got, err := Catalogs(ctx, a, b, Options{DataPath: data, Source: src, Engines: readerDBs})
		if got == nil || got.Equivalent || !reflect.DeepEqual(got.Differences, want.Differences) {
			t.Errorf("proof %d with a Source: %v (%v), without %v", i, got.Differences, err, want.Differences)
		}
	}
}

// movedTableFolder is 06_deletes with table main.del's folder changed at
// the middle snapshot (its ducklake_table row ended and begun again with
// path 'moved/'), and a data folder where main/moved is that folder: the
// table's files are read through two folders (two tableFiles), whose plan
// keys must not be mixed up.
func movedTableFolder(t *testing.T) (catalog, data string) {
	t.Helper()
	ctx := context.Background()
	lake, orig := lastVersion(t, "lakes", "06_deletes")
	r := openForTest(t, orig, filepath.Join(lake, "data"))
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := r.Tables(ctx, snaps[len(snaps)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tables, func(x Table) bool { return x.FullName() == "main.del" })
	if i < 0 {
		t.Fatal("06_deletes has no main.del")
	}
	tb := tables[i]
	data = t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "main"), 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(lake, "data", "main"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.Symlink(filepath.Join(lake, "data", "main", e.Name()), filepath.Join(data, "main", e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(strings.TrimSuffix(tb.dir, "/"), filepath.Join(data, "main", "moved")); err != nil {
		t.Fatal(err)
	}
	k := snaps[len(snaps)/2].ID
	catalog = tamper(t, orig,
		fmt.Sprintf(`INSERT INTO ducklake_table SELECT * REPLACE (%d AS begin_snapshot, 'moved/' AS path) FROM ducklake_table WHERE table_id = %d AND end_snapshot IS NULL`, k, tb.ID),
		fmt.Sprintf(`UPDATE ducklake_table SET end_snapshot = %d WHERE table_id = %d AND end_snapshot IS NULL AND path <> 'moved/'`, k, tb.ID))
	return catalog, data
}

// TestFilesIsTheCallers: what Files returns is the caller's own: writing
// to it (through its pointers too) changes nothing the reader reads.
func TestFilesIsTheCallers(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	r := openForTest(t, catalog, filepath.Join(lake, "data"))
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := snaps[len(snaps)-1].ID
	tables, err := r.Tables(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, tb := range tables {
		files, err := r.Files(ctx, tb, s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range files {
			files[i].Path = "written"
			if files[i].FooterSize != nil {
				*files[i].FooterSize = -7
			}
			if d := files[i].Delete; d != nil {
				d.DeleteCount = -42
				written++
			}
		}
		again, err := r.Files(ctx, tb, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range again {
			if f.Path == "written" || (f.FooterSize != nil && *f.FooterSize == -7) || (f.Delete != nil && f.Delete.DeleteCount == -42) {
				t.Fatalf("%s: a write to what Files returned reached the reader: %+v", tb.FullName(), f)
			}
		}
	}
	if written == 0 {
		t.Fatal("06_deletes has no delete file at its last snapshot")
	}
}

// TestPlanWindowTurnsWithoutCopies: a file plan found in the window's older
// map (the snapshot before) is taken into the current one without a heap
// copy. A filePlan is more than 128 bytes, which a map stores apart from
// its table: kept by value, each snapshot of a walk copied every unchanged
// file's plan again (a twentieth of what a 40-version backfill allocated).
func TestPlanWindowTurnsWithoutCopies(t *testing.T) {
	var r Reader
	if got := windowTurnAllocs(&r.plans, 200); got != 0 {
		t.Errorf("turning the plan window to a new snapshot with 200 unchanged plans made %.0f allocations, want 0", got)
	}
}

// windowTurnAllocs puts n values (V's zero) in w, then counts the
// allocations of turning it to a new snapshot and getting all of them.
func windowTurnAllocs[V any](w *stateWindow[planState, V], n int) float64 {
	var v V
	snap := int64(1)
	for i := range n {
		w.put(snap, planState{columns: int64(i)}, v)
	}
	turn := func() {
		snap++
		for i := range n {
			if _, ok := w.get(snap, planState{columns: int64(i)}); !ok {
				panic("a plan put in the window is not found at the next snapshot")
			}
		}
	}
	turn() // both maps sized
	turn()
	return testing.AllocsPerRun(10, turn)
}
