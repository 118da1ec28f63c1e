package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestFileErrors: what a self-read asks of every table's files at every
// snapshot (fileErrors, which builds no entries) fails as fileEntries
// fails, on lakes as written and on a copy of 06_deletes whose delete
// files are gone (the positions cannot be read).
func TestFileErrors(t *testing.T) {
	ctx := context.Background()
	noDisk := func(string, int64, *int64, string) error { return nil }
	for _, name := range []string{"06_deletes", "16_data_inlining", "17_compaction", "06_deletes without delete files"} {
		lake, catalog := lastVersion(t, "lakes", "06_deletes")
		if name != "06_deletes without delete files" {
			lake, catalog = lastVersion(t, "lakes", name)
		}
		data := filepath.Join(lake, "data")
		if name == "06_deletes without delete files" {
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
		r := openForTest(t, catalog, data)
		failed := 0
		eachTable(t, r, func(s Snapshot, tb Table) {
			err := r.fileErrors(ctx, tb, s.ID, noDisk)
			_, _, want := r.fileEntries(ctx, tb, s.ID, noDisk)
			if fmt.Sprint(err) != fmt.Sprint(want) {
				t.Errorf("%s: table %s at snapshot %d: %v, want %v", name, tb.Shown(), s.ID, err, want)
			}
			if want != nil {
				failed++
			}
		})
		if (failed > 0) != (name == "06_deletes without delete files") {
			t.Errorf("%s: %d failures", name, failed)
		}
	}
}
