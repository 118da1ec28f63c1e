package compare

import (
	"context"
	"path/filepath"
	"testing"
)

// TestReaderKeepsNoFileBytes: after a reader has digested every table of a
// lake with data and delete files, DuckDB holds none of the files' bytes in
// its external file cache (which would otherwise grow with the files a
// proof reads, and a backfill's peak RSS with the number of versions).
func TestReaderKeepsNoFileBytes(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"06_deletes", "03_renames"} {
		t.Run(name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", name)
			r, snaps := openWithSnapshots(t, catalog, filepath.Join(lake, "data"))
			parts := 0
			for _, s := range snaps {
				tables, err := r.Tables(ctx, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, tb := range tables {
					_, p, err := r.TableDigest(ctx, tb, s.ID, ScanOptions{RowIDs: true})
					if err != nil {
						t.Fatalf("%s at %d: %v", tb.FullName(), s.ID, err)
					}
					for _, x := range p {
						if x.Kind == "file" {
							parts++
						}
					}
				}
			}
			if parts == 0 {
				t.Fatal("no data file was digested")
			}
			var setting string
			if err := r.conn.QueryRowContext(ctx, "SELECT current_setting('enable_external_file_cache')::VARCHAR").Scan(&setting); err != nil {
				t.Fatal(err)
			}
			var held int64
			if err := r.conn.QueryRowContext(ctx, "SELECT COALESCE(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'EXTERNAL_FILE_CACHE'").Scan(&held); err != nil {
				t.Fatal(err)
			}
			if held != 0 || setting != "false" {
				t.Fatalf("after digesting %d file parts DuckDB keeps %d bytes of them in its external file cache (enable_external_file_cache = %s)", parts, held, setting)
			}
		})
	}
}
