package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestCheckEmptyStringStatsFrozen04: DuckDB 1.5.0, a format 0.4 reader,
// reads a ducklake_table_column_stats row of a VARCHAR column with NULL
// min_value and max_value as an empty column (string-table-stats-without-
// minmax-empty) and returns no rows for WHERE city = 'Kobe', where 1.5.1
// returns them; DuckDB 1.5.0 and 1.5.1 write such rows. A repository of
// frozen 0.4 catalogs (lakegen's demo converted to 0.4, city's statistics
// without min and max) passed check silently. Now it is a warning naming
// the version's catalog, the table and column and DuckDB 1.5.1, cold and
// from the kept content pass, also where fdl.json declares 0.4 for DuckDB
// >= 1.5.1 only: DuckDB 1.5.0 opens the frozen 0.4 catalog all the same (a
// DuckDB opens the newest format it can, whatever fdl.json promises;
// before, narrowing the range silenced the warning, as its advice said).
// The same for nested VARCHAR children (DuckLake
// builds a STRUCT, LIST or MAP column's statistics from its children's
// rows): lakes-0.3/12_nested_types, whose DuckDB 1.4 writer left the map
// key (id 8) and list element (id 23) of table 1 without min and max.
func TestCheckEmptyStringStatsFrozen04(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts catalogs")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		repo  func(t *testing.T) (string, *local.Store)
		where string   // the ducklake_table_column_stats rows left without min and max
		want  []string // in every warning
		all   bool     // a warning per version checked
		vs    []string // the versions checked (none: all)
	}{
		{"top-level", func(t *testing.T) (string, *local.Store) { return demoRepo(ctx, t) },
			`(table_id, column_id) IN (SELECT (col.table_id, col.column_id) FROM c.ducklake_column col JOIN c.ducklake_table tab ON tab.table_id = col.table_id WHERE tab.table_name = 'measurements' AND col.column_name = 'city')`,
			[]string{"measurements.city (table id"}, true, nil},
		{"nested", func(t *testing.T) (string, *local.Store) {
			st := copyLake(t, testlakes.Lake(t, "lakes-0.3", "12_nested_types"))
			return st.Root(), st
		}, `table_id = 1 AND column_id IN (8, 23)`,
			// Version 3's files.json differs from its catalog (renamed_columns).
			[]string{".key (table id 1, column id 8)", ".element (table id 1, column id 23)"}, true, []string{"1", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkEmptyStringStats(ctx, t, tc.repo, tc.where, tc.want, tc.all, tc.vs) })
	}
}

func checkEmptyStringStats(ctx context.Context, t *testing.T, repo func(t *testing.T) (string, *local.Store), where string, want []string, all bool, vs []string) {
	root, st := repo(t)
	if _, err := Backfill(ctx, st, Options{Formats: []string{"0.4"}}); err != nil {
		t.Fatalf("backfill 0.4: %v", err)
	}
	// Every version's 0.4 catalog becomes its frozen catalog.
	for _, id := range versionIDs(t, root) {
		v := filepath.Join(root, "versions", id)
		frozen := filepath.Join(v, "ducklake.duckdb")
		if err := os.Rename(filepath.Join(v, "catalogs", "0.4.duckdb"), frozen); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(v, "catalogs")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(frozen, 0o644); err != nil {
			t.Fatal(err)
		}
		execCatalog(t, frozen,
			`UPDATE c.ducklake_table_column_stats SET min_value = NULL, max_value = NULL WHERE `+where,
			`UPDATE c.ducklake_file_column_stats SET min_value = NULL, max_value = NULL WHERE `+where)
		testlakes.EditVersion(t, v, func(m map[string]any) {
			m["catalog"].(map[string]any)["storage"] = "duckdb-v1.5.0" // backfill's 0.4 catalogs
			m["ducklake"].(map[string]any)["format"] = "0.4"
		})
	}
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if vs == nil {
		vs = versionIDs(t, root)
	}
	opts := Options{DigestCache: cache, Versions: vs}
	const fdl = `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "0.4", "duckdb": "%s"}]}`
	admitting, narrowed := strings.Replace(fdl, "%s", ">= 1.5.0, < 1.5.2", 1), strings.Replace(fdl, "%s", ">= 1.5.1, < 1.5.2", 1)
	for i, run := range []struct {
		fdl  string
		warn bool
	}{{admitting, true}, {admitting, true}, {narrowed, true}, {admitting, true}} {
		if err := os.WriteFile(filepath.Join(root, "fdl.json"), []byte(run.fdl), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Check(ctx, st, opts)
		if err != nil {
			t.Fatalf("run %d: check: %v", i+1, err)
		}
		if bad := nonWarnings(rep); len(bad) > 0 {
			t.Fatalf("run %d: check found %v", i+1, bad)
		}
		warned := warningsContaining(rep, "string-table-stats-without-minmax-empty")
		if !run.warn {
			if len(warned) > 0 {
				t.Errorf("run %d: 0.4 declared for DuckDB >= 1.5.1, yet warned %q", i+1, warned)
			}
			continue
		}
		if n := len(vs); len(warned) == 0 || all && len(warned) != n {
			t.Fatalf("run %d: want a warning (all versions: %t), got %q", i+1, all, warned)
		}
		for _, w := range warned {
			for _, want := range append([]string{"ducklake.duckdb (format 0.4)", "DuckDB before 1.5.1", ">= 1.5.1", "whatever range fdl.json declares"}, want...) {
				if !strings.Contains(w, want) {
					t.Errorf("run %d: warning %q lacks %q", i+1, w, want)
				}
			}
		}
	}
}
