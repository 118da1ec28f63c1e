package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestFileStateMemoMatchesFresh walks every snapshot of every version of
// the conformance lakes, and of a lakegen history (partial deletion files
// cut at each snapshot), in a comparison's order (every table's plan at
// every snapshot, then each snapshot's file descriptions and plans again)
// and requires every file plan and description a reader reuses by file
// state (filestate.go) to be the one a reader building each afresh gets:
// the same plan keys, deleted positions, entries and errors.
func TestFileStateMemoMatchesFresh(t *testing.T) {
	ctx := context.Background()
	type version struct{ name, catalog, data string }
	var versions []version
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "lakes-0.3-compaction"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			name := filepath.Base(lake)
			if name == "zz_storage_v2_unreadable" {
				continue // DuckDB cannot open it (TestStorageV2Unreadable)
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

	noDisk := func(string, int64, *int64, string) error { return nil }
	reused := 0
	for _, v := range versions {
		memo := openForTest(t, v.catalog, v.data)
		fresh := openForTest(t, v.catalog, v.data)
		fresh.noStateMemo = true
		snaps, err := fresh.Snapshots(ctx)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		plans := func(s int64, tb Table) {
			opts := rowOptions()
			a, errA := memo.tablePlan(ctx, tb, s, opts)
			b, errB := fresh.tablePlan(ctx, tb, s, opts)
			if fmt.Sprint(errA) != fmt.Sprint(errB) {
				t.Fatalf("%s snapshot %d %s: plan error %v, afresh %v", v.name, s, tb.FullName(), errA, errB)
			}
			if errA != nil {
				return
			}
			for i := range a.files {
				x, y := a.files[i], b.files[i]
				if x.f.ID != y.f.ID || x.all != y.all || x.gone != y.gone || !slices.Equal(x.deleted, y.deleted) {
					t.Fatalf("%s snapshot %d %s data file %s: plan (%s, %s, %d deleted), afresh (%s, %s, %d deleted)",
						v.name, s, tb.FullName(), x.f.Path, x.all, x.gone, len(x.deleted), y.all, y.gone, len(y.deleted))
				}
			}
		}
		for pass := range 2 {
			for _, s := range snaps {
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
					plans(s.ID, tb)
				}
			}
		}
		reused += len(memo.plans.cur) + len(memo.plans.prev)
	}
	if reused == 0 {
		t.Fatal("no file plan was kept by file state: the memo was not exercised")
	}
}
