package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCheckTableStatsWithoutColumnStats: DuckDB 1.5.2 and 1.5.3, format
// 1.0 readers, fail every read of a catalog with a ducklake_table_stats
// row whose table has no column statistics, which DuckDB 2.0's writer
// leaves (lakes-1.1-dev1/06_deletes, table whole, from its second
// version). backfill used to publish 1.0 catalogs with the row and check
// passed them. Now backfill drops it and check passes, the catalog as it
// was published before fails check naming the table, and a native 1.0
// frozen catalog with such a row (lakes-0.3-reader's
// q_stats__table_stats_without_column_stats) is a warning naming DuckDB
// 1.5.2 and 1.5.3, not a failure.
func TestCheckTableStatsWithoutColumnStats(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	t.Run("published from 1.1", func(t *testing.T) {
		st := copyLake(t, testlakes.Lake(t, "lakes-1.1-dev1", "06_deletes"))
		root := st.Root()
		opts := Options{Formats: []string{"1.0"}}
		if _, err := Backfill(ctx, st, opts); err != nil {
			t.Fatalf("backfill: %v", err)
		}
		if rep, err := Check(ctx, st, opts); err != nil || !rep.OK {
			t.Fatalf("check after backfill: %v", err)
		}
		ids := versionIDs(t, root)
		cat := filepath.Join(root, "versions", ids[len(ids)-1], "catalogs", "1.0.duckdb")
		if err := os.Chmod(cat, 0o644); err != nil {
			t.Fatal(err)
		}
		// What the old backfill published: the source's row kept.
		frozen := filepath.Join(root, "versions", ids[len(ids)-1], "ducklake.duckdb")
		execCatalog(t, cat, "ATTACH '"+frozen+"' AS f (READ_ONLY)",
			`INSERT INTO c.ducklake_table_stats SELECT * FROM (SELECT table_id, record_count, next_row_id, file_size_bytes FROM f.ducklake_table_stats WHERE table_id = 2)
			WHERE NOT EXISTS (SELECT 1 FROM c.ducklake_table_stats WHERE table_id = 2)`, "DETACH f")
		_, err := Check(ctx, st, opts)
		if !errors.Is(err, ErrDifferences) {
			t.Fatalf("check of the catalog with the row: %v, want differences", err)
		}
		var ce *CheckError
		if !errors.As(err, &ce) {
			t.Fatalf("check error %T", err)
		}
		for _, w := range []string{"table-stats-need-column-stats", "DuckDB >= 1.5.2 before 1.5.4", "main.whole"} {
			if !strings.Contains(ce.First.Detail, w) {
				t.Errorf("first finding %q lacks %q", ce.First.Detail, w)
			}
		}
	})
	t.Run("native 1.0", func(t *testing.T) {
		st := copyLake(t, testlakes.Lake(t, "lakes-0.3-reader", "q_stats__table_stats_without_column_stats"))
		cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Formats: []string{"1.0"}, DigestCache: cache}
		fdl := filepath.Join(st.Root(), "fdl.json")
		admitting, err := os.ReadFile(fdl)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(admitting), `"duckdb": ">= 1.5.2"`) {
			t.Fatalf("fdl.json does not declare 1.0 for DuckDB >= 1.5.2:\n%s", admitting)
		}
		narrowed := strings.Replace(string(admitting), `"duckdb": ">= 1.5.2"`, `"duckdb": ">= 1.5.4"`, 1)
		// Cold, then from the kept content pass, then with the range
		// narrowed past the releases that fail (no warning, though the pass
		// with it is kept), then admitting them again.
		for i, run := range []struct {
			fdl  string
			warn bool
		}{{string(admitting), true}, {string(admitting), true}, {narrowed, false}, {string(admitting), true}} {
			if err := os.WriteFile(fdl, []byte(run.fdl), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Check(ctx, st, opts)
			if err != nil {
				t.Fatalf("run %d: check: %v", i+1, err)
			}
			warned := warningsContaining(rep, "table-stats-need-column-stats")
			if !run.warn {
				if len(warned) > 0 {
					t.Errorf("run %d: 1.0 declared for DuckDB >= 1.5.4, yet warned %q", i+1, warned)
				}
				continue
			}
			if len(warned) != 1 || !strings.Contains(warned[0], "DuckDB before 1.5.4") || !strings.Contains(warned[0], "table id 1") {
				t.Errorf("run %d: want one warning naming DuckDB before 1.5.4 and table id 1, got %q", i+1, warned)
			}
		}
	})
}
