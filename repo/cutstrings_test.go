package repo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCheckCutStringBoundsFrozen: DuckDB 2.0 answers SELECT min(s),
// max(s) of a top-level VARCHAR column of a 1.0 or 1.1 catalog from its
// exact table statistics, which DuckDB's Parquet writer cuts past 256
// bytes: a value no row holds. A repository whose frozen catalogs (lakegen's
// demo) hold a bound of measurements.city that no row holds (its max with
// '~' appended, as a cut max with its last byte incremented is) passed
// check silently; now a warning names the catalog, the table and column
// and DuckDB 2.0, and the check still passes. The untouched demo has none.
func TestCheckCutStringBoundsFrozen(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a repository")
	}
	ctx := context.Background()
	for _, tamper := range []bool{false, true} {
		root, st := demoRepo(ctx, t)
		ids := versionIDs(t, root)
		// Only the frozen catalogs' format: no catalog to backfill.
		raw, err := os.ReadFile(filepath.Join(root, "versions", ids[0], "version.json"))
		if err != nil {
			t.Fatal(err)
		}
		var first struct {
			DuckLake struct{ Format string } `json:"ducklake"`
		}
		if err := json.Unmarshal(raw, &first); err != nil {
			t.Fatal(err)
		}
		fdl := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "` + first.DuckLake.Format + `"}]}`
		if err := os.WriteFile(filepath.Join(root, "fdl.json"), []byte(fdl), 0o644); err != nil {
			t.Fatal(err)
		}
		if tamper {
			for _, id := range ids {
				v := filepath.Join(root, "versions", id)
				frozen := filepath.Join(v, "ducklake.duckdb")
				if err := os.Chmod(frozen, 0o644); err != nil {
					t.Fatal(err)
				}
				execCatalog(t, frozen, `UPDATE c.ducklake_table_column_stats SET max_value = max_value || '~' WHERE (table_id, column_id) IN (SELECT (col.table_id, col.column_id) FROM c.ducklake_column col JOIN c.ducklake_table tab ON tab.table_id = col.table_id WHERE tab.table_name = 'measurements' AND col.column_name = 'city' AND col.end_snapshot IS NULL AND tab.end_snapshot IS NULL)`)
				testlakes.EditVersion(t, v, nil) // the frozen catalog's new size and sum
			}
		}
		rep, err := Check(ctx, st, Options{Versions: ids})
		if err != nil {
			t.Fatalf("tampered %t: check: %v", tamper, err)
		}
		if bad := nonWarnings(rep); len(bad) > 0 {
			t.Fatalf("tampered %t: check found %v", tamper, bad)
		}
		warned := warningsContaining(rep, "string-minmax-folded")
		if !tamper {
			if len(warned) > 0 {
				t.Errorf("untouched demo warned %q", warned)
			}
			continue
		}
		if len(warned) == 0 {
			t.Fatalf("no warning of the bound no row holds; findings: %+v", rep.Findings)
		}
		for _, w := range warned {
			for _, want := range []string{"ducklake.duckdb (format 1.", "measurements.city (table id", "DuckDB 2.0", "whatever range fdl.json declares"} {
				if !strings.Contains(w, want) {
					t.Errorf("warning %q lacks %q", w, want)
				}
			}
		}
	}
}
