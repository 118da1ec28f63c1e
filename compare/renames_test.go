package compare

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestColumnsReadOtherwiseByNameFooters: a file counts by its footer's
// field ids, not its begin_snapshot alone. 17_compaction's main.calt has
// column i (id 4, VARCHAR) added at 21 under the name of a dropped i (id
// 2, snapshots 12-18); its files begin at 13 and 16 (merged, holding field
// 2: 10-40), 19 (neither field) and 22 (merged rows 7 and 8 of snapshots
// 22 and 23, holding field 4: hello, world). Told that i came at 23 with
// default 'x', the file begun at 22 counts for neither case: it holds
// field 4, which DuckLake and a reader by name read alike. By
// begin_snapshot alone it counted for the default (4 files, not 3).
func TestColumnsReadOtherwiseByNameFooters(t *testing.T) {
	t.Parallel()
	lake, orig := lastVersion(t, "lakes", "17_compaction")
	catalog := tamper(t, orig,
		`UPDATE ducklake_column SET begin_snapshot = 23, initial_default = 'x' WHERE column_id = 4 AND table_id = (SELECT table_id FROM ducklake_table WHERE table_name = 'calt')`)
	r := openForTest(t, catalog, filepath.Join(lake, "data"))
	ctx := context.Background()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.ColumnsReadOtherwiseByName(ctx, snaps[len(snaps)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, entries := range got {
		all = append(all, entries...)
	}
	for _, want := range []string{
		"i (added at snapshot 23 with default x, which DuckLake reads for it in 3 file(s) written before",
		"i (added at snapshot 23 under the name of a dropped column (column_id 2, snapshots 12-18) whose values 2 file(s) hold under it",
	} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("no entry %q among %q", want, all)
		}
	}
	if len(all) != 2 {
		t.Errorf("entries %q, want 2", all)
	}
}
