package lakegen

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
)

// TestCompareReaderReadsDemo reads every demo version with the project's
// independent DuckLake reader (package compare, with the local data folder
// as the data_path override) and checks that it finds the tables and row
// counts the generator wrote at every snapshot.
func TestCompareReaderReadsDemo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	res, err := Repository(ctx, dir, Demo())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Versions {
		r, err := compare.Open(ctx, filepath.Join(dir, "versions", v.ID, "ducklake.duckdb"), compare.ReaderOptions{DataPath: filepath.Join(dir, "data") + "/"})
		if err != nil {
			t.Fatal(err)
		}
		for s := int64(0); s <= v.SnapshotID; s++ {
			want, _ := res.Snapshot(s)
			tables, err := r.Tables(ctx, s)
			if err != nil {
				t.Fatalf("version %d snapshot %d: %v", v.Seq, s, err)
			}
			if len(tables) != len(want.Tables) {
				t.Errorf("version %d snapshot %d: %d tables, want %d", v.Seq, s, len(tables), len(want.Tables))
			}
			for _, tab := range tables {
				texts, err := r.RowTexts(ctx, tab, s, compare.ScanOptions{})
				if err != nil {
					t.Fatalf("version %d snapshot %d %s: %v", v.Seq, s, tab.Name, err)
				}
				var n int64
				for _, c := range texts {
					n += c
				}
				if w := want.Tables["main."+tab.Name].Rows; n != w {
					t.Errorf("version %d snapshot %d %s: compare reads %d rows, generator wrote %d", v.Seq, s, tab.Name, n, w)
				}
			}
		}
		r.Close()
	}
}
