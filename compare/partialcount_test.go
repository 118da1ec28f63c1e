package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartialFileRecordCount: a partial data file's record_count is held
// to its Parquet file's row count, what DuckLake writes for merged and
// flushed files and what 0.4+ readers' count(*) takes for the whole file
// once partial_max is reached. Both catalogs carry the same wrong
// record_count (a catalog and its conversion), so only this check sees
// it. Before, partial files were not held to it and the pair proved
// equivalent: DuckDB 1.5.2+ answered count(*) = 6 on 17_compaction's
// main.small while SELECT * returned 7 rows.
func TestPartialFileRecordCount(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		archive, lake string
		file, count   int64
		want          string // "" for equivalent
	}{
		{"lakes", "17_compaction", 6, 5, "record_count is 5, the file has 6 rows"},     // merged, partial_max 7
		{"lakes", "16_data_inlining", 9, 4, "record_count is 4, the file has 3 rows"},  // flushed, partial_max 15
		{"lakes-0.3", "17_compaction", 6, 7, "record_count is 7, the file has 6 rows"}, // merged, split list
		// A split list hides the rows past its limit up to record_count:
		// 2^40 of them ran out of memory; rows past the file's 6 hide
		// none. (partial_max reads the rows' stored snapshots instead.)
		{"lakes-0.3", "17_compaction", 6, 1 << 40, "record_count is 1099511627776, the file has 6 rows"},
		{"lakes", "17_compaction", 6, 1 << 40, "record_count is 1099511627776, the file has 6 rows"},
		{"lakes", "17_compaction", 6, 6, ""}, // as written
	} {
		t.Run(fmt.Sprintf("%s/%s/file %d record_count %d", tc.archive, tc.lake, tc.file, tc.count), func(t *testing.T) {
			lake, src := lastVersion(t, tc.archive, tc.lake)
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.duckdb"), filepath.Join(dir, "b.duckdb")
			for _, c := range []string{a, b} {
				copyFile(t, src, c)
				execCatalog(t, c, fmt.Sprintf("UPDATE ducklake_data_file SET record_count = %d WHERE data_file_id = %d AND %s IS NOT NULL", tc.count, tc.file, partialColumn(tc.archive)))
			}
			rep, err := Catalogs(ctx, a, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unchanged record_count: %v", err)
				}
				return
			}
			if err == nil || rep == nil {
				t.Fatalf("proved equivalent with a wrong record_count on partial data file %d", tc.file)
			}
			found := false
			for _, d := range rep.Differences {
				found = found || (d.Kind == "files" && strings.Contains(d.Reason, tc.want))
			}
			if !found {
				t.Errorf("no files difference %q in %v", tc.want, rep.Differences)
			}
		})
	}
}

// partialColumn is the column that makes a data file partial in the
// archive's format: a split list in 0.3, partial_max from 0.4.
func partialColumn(archive string) string {
	if archive == "lakes-0.3" {
		return "partial_file_info"
	}
	return "partial_max"
}
