package compare

import (
	"path/filepath"
	"testing"
)

// TestFoldersNamedLikeColumns copies lakes under folders named like the
// columns of delete files and partial data files (pos=1,
// _ducklake_internal_snapshot_id=0): DuckDB's Hive detection would take
// such a folder name for a column and read every position as 1, or every
// row's snapshot as 0. DuckLake reads no values from paths, so every table
// must give the digests of the lake under a plain folder: delete files read
// alone (15_encryption), in batches (06_deletes), and partial files read
// for their per-row snapshot ids (17_compaction).
func TestFoldersNamedLikeColumns(t *testing.T) {
	for _, name := range []string{"15_encryption", "06_deletes", "17_compaction"} {
		t.Run(name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", name)
			want, _ := tableDigests(t, catalog, filepath.Join(lake, "data"))
			dir := filepath.Join(t.TempDir(), "pos=1", "_ducklake_internal_snapshot_id=0")
			c, d := filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "data")
			copyFile(t, catalog, c)
			copyTree(t, filepath.Join(lake, "data"), d)
			got, _ := tableDigests(t, c, d)
			if len(got) != len(want) {
				t.Fatalf("%d table digests, want %d", len(got), len(want))
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %v under folders named like columns, %v under plain ones", k, got[k], w)
				}
			}
		})
	}
}
