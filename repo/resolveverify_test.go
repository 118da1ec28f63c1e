package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/duckblocks"
)

// TestResolveVerifyReadsAttachTables: resolve --verify opens a catalog as a
// DuckLake ATTACH does, so that one byte flipped in a block of a table the
// reader loads at attach (ducklake_snapshot first: every ATTACH reads it)
// makes the file passed over, with a reason naming the repository's file
// (never the run's copy), the table and the checksum, and the next file (the frozen catalog) is
// chosen. It "verified" such a 1.1 catalog, which only format detection
// had read, while check exited 3 on it.
func TestResolveVerifyReadsAttachTables(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills a lake")
	}
	ctx := context.Background()
	root := lake11(t) // shared: copied before any change
	st, dst := cloneRepo(t, root)
	res, err := Resolve(ctx, st, ResolveOptions{Version: "3", DuckDB: "2.0.0", Verify: true})
	if err != nil || res.File == nil || res.File.Format != "1.1" || !res.File.Verified {
		t.Fatalf("Resolve of the intact lake = %+v, %v; want its 1.1 catalog verified", res, err)
	}
	key := res.File.Key
	offsets, _, err := duckblocks.Offsets(filepath.Join(dst, key), "ducklake_snapshot", "ducklake_metadata", "ducklake_schema",
		"ducklake_table", "ducklake_column", "ducklake_table_stats", "ducklake_table_column_stats")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := offsets["ducklake_snapshot"]; !ok {
		t.Fatalf("ducklake_snapshot keeps no rows in a block of %s: %v", key, offsets)
	}
	for table, off := range offsets {
		t.Run(table, func(t *testing.T) {
			st, dst := cloneRepo(t, root)
			flipByte(t, filepath.Join(dst, key), off)
			res, err := Resolve(ctx, st, ResolveOptions{Version: "3", DuckDB: "2.0.0", Verify: true})
			if err != nil || res.File == nil {
				t.Fatalf("Resolve = %+v, %v; want the frozen catalog", res, err)
			}
			if !res.File.Frozen || !res.File.Verified {
				t.Errorf("chose %s (verified %v), want the frozen catalog verified", res.File.Key, res.File.Verified)
			}
			var bad *CatalogFile
			for _, f := range res.Files {
				if f.Key == key {
					bad = f
				}
			}
			if bad == nil || bad.Opens || bad.Verified {
				t.Fatalf("%s: %+v, want it passed over", key, bad)
			}
			// The metadata's block fails format detection already
			// ("open KEY: read version of KEY: ..."); the statistics'
			// the open's check of the fields DuckLake requires ("open
			// KEY: ... table ducklake_table_stats: ..."); the others
			// the read ("read KEY whole").
			wants := []string{"read " + key + " whole", table, "checksum"}
			if strings.Contains(bad.Reason, "read the fields DuckLake requires") {
				wants = []string{"open " + key, "table " + table + ":", "checksum"}
			}
			if table == "ducklake_metadata" {
				wants = []string{"open " + key + ": read version of " + key, "checksum"}
			}
			for _, want := range wants {
				if !strings.Contains(bad.Reason, want) {
					t.Errorf("reason %q does not say %q", bad.Reason, want)
				}
			}
			if strings.Contains(bad.Reason, os.TempDir()) || strings.Contains(bad.Reason, resolveWorkPrefix) {
				t.Errorf("reason %q names the run's copy", bad.Reason)
			}
		})
	}
}
