package repo

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestFrozenNullRequiredField: a frozen catalog whose bytes are the ones
// version.json hashes, with NULL where DuckLake's writers always write a
// value (formats.CheckRequired), is not a valid DuckLake catalog: check
// finds the version invalid (exit 6), naming the version, the catalog's
// key, the metadata table, the column and the row, whether a published
// catalog's proof reads it or the frozen catalog is read alone; backfill
// writes nothing for the version and fails its cells as invalid, naming
// the same. Before, check passed a NULL table_id or table_name (the proof
// copied it to both sides) and backfill published catalogs holding it;
// and, until the check covered them, a NULL partition transform, a
// recorded table folder's NULL path_is_relative and a default's NULL
// default_value_type, which DuckLake's readers fail on, and a NULL
// next_row_id of a table's statistics (they fail on it too) or
// data_file_id of a file's column statistics (from DuckDB 1.5.4 a
// filter on the column then skips the files without statistics for it).
func TestFrozenNullRequiredField(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, _ := demoRepo(ctx, t)
	id := versionIDs(t, golden)[2]
	frozen := "versions/" + id + "/ducklake.duckdb"
	sourceOnly := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`
	withNew := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]}`
	for _, tc := range []struct{ table, column, fdl, where string }{
		{"ducklake_data_file", "table_id", sourceOnly, ""},
		{"ducklake_table", "table_name", withNew, ""},
		{"ducklake_column", "column_type", withNew, ""},
		{"ducklake_delete_file", "path", sourceOnly, ""},
		// The tables and conditions the check once skipped: the
		// partition spec, a recorded folder's path_is_relative, the
		// default_value_type of a default (formats.Column.NullWhen).
		{"ducklake_partition_column", "transform", withNew, ""},
		{"ducklake_table", "path_is_relative", sourceOnly, "path IS NOT NULL"},
		{"ducklake_column", "default_value_type", withNew, "default_value = 'C'"},
		// The statistics the readers load for every scan, or prune files
		// by.
		{"ducklake_table_stats", "next_row_id", sourceOnly, ""},
		{"ducklake_file_column_stats", "data_file_id", withNew, ""},
	} {
		t.Run(tc.table+"."+tc.column, func(t *testing.T) {
			t.Parallel()
			st, root := cloneRepo(t, golden)
			writeFile(t, filepath.Join(root, "fdl.json"), tc.fdl)
			vdir := filepath.Join(root, "versions", id)
			where := "rowid = (SELECT max(rowid) FROM c." + tc.table + ")"
			if tc.where != "" {
				where = tc.where
			}
			execCatalog(t, filepath.Join(vdir, "ducklake.duckdb"), "UPDATE c."+tc.table+" SET "+tc.column+" = NULL WHERE "+where)
			testlakes.EditVersion(t, vdir, nil) // the edited bytes hashed
			want := tc.table + "." + tc.column + " is NULL in the row "
			if tc.fdl == withNew {
				rep, err := Backfill(ctx, st, Options{Versions: []string{id}, Jobs: 2})
				if rep == nil || rep.Counts[Written] != 0 {
					t.Fatalf("Backfill = %v (%+v), want it to write nothing", err, rep)
				}
				cells := 0
				for _, vp := range rep.Plan.Versions {
					for _, c := range vp.Cells {
						if vp.ID != id || c.State != Error {
							continue
						}
						cells++
						if c.Problem != ProblemInvalid || !strings.Contains(strings.Join(c.Reasons, " "), want) || !strings.Contains(strings.Join(c.Reasons, " "), frozen) {
							t.Errorf("backfill cell %s %s: %v (%s), want invalid naming %s and %q", vp.ID, c.Format, c.Reasons, c.Problem, frozen, want)
						}
					}
				}
				if cells == 0 {
					t.Errorf("backfill: no cell of %s in error: %+v", id, rep.Plan.Versions)
				}
			}
			rep, err := Check(ctx, st, Options{Versions: []string{id}, Jobs: 2})
			if !errors.Is(err, ErrInvalidVersion) {
				t.Fatalf("Check = %v, want an invalid version", err)
			}
			found := false
			for _, f := range nonWarnings(rep) {
				if f.Kind == KindInvalid && f.Version == id && strings.Contains(f.Detail, frozen) && strings.Contains(f.Detail, want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no invalid finding naming %s and %q: %+v", frozen, want, nonWarnings(rep))
			}
		})
	}
}
