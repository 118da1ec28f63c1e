package compare

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBCannotBeReadWhereACan: a catalog B whose readers fail where A's
// read (a NULL where a value is needed, a column whose parent is not
// there, a data file only B names that does not exist) differs from A
// (ErrNotEquivalent, a "catalog" difference naming what failed in B), not
// "could not compare": the operator has no input to restore. A failing,
// or a data file both name missing, stays ErrIncomparable.
func TestBCannotBeReadWhereACan(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name, sql string
		onA       bool // tamper A, B the untouched catalog
		missing   string
		want      string // "" : ErrIncomparable
	}{
		{name: "column_id NULL", sql: `UPDATE ducklake_column SET column_id = NULL WHERE rowid = 0`, want: `column_id`},
		{name: "column_order NULL", sql: `UPDATE ducklake_column SET column_order = NULL WHERE rowid = 0`, want: `column_order`},
		{name: "unknown parent", sql: `UPDATE ducklake_column SET parent_column = parent_column - 1 WHERE rowid = 21`, want: `has unknown parent`},
		{name: "schema name NULL", sql: `UPDATE ducklake_schema SET schema_name = NULL WHERE rowid = 0`, want: `NULL id or name`},
		{name: "snapshot time NULL", sql: `UPDATE ducklake_snapshot SET snapshot_time = NULL WHERE rowid = 0`, want: `snapshot_time`},
		{name: "data file only B names", sql: `UPDATE ducklake_data_file SET path = path || 'x' WHERE rowid = 0`, want: `which does not exist and which A does not name`},
		{name: "A fails", sql: `UPDATE ducklake_column SET column_id = NULL WHERE rowid = 0`, onA: true},
		{name: "data file both name missing", missing: "main/d/ducklake-01a229fa-0fa7-702b-8d35-9500e7cd79f4.parquet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := catalog, filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, b)
			if tc.sql != "" {
				if tc.onA {
					a = tamper(t, catalog, tc.sql)
				} else {
					b = tamper(t, catalog, tc.sql)
				}
			}
			dp := data
			if tc.missing != "" {
				dp = filepath.Join(t.TempDir(), "data")
				copyTree(t, data, dp)
				if err := os.Remove(filepath.Join(dp, tc.missing)); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: dp})
			if tc.want == "" {
				if !errors.Is(err, ErrIncomparable) || errors.Is(err, ErrNotEquivalent) {
					t.Fatalf("want could not compare, got %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || errors.Is(err, ErrIncomparable) {
				t.Fatalf("want not equivalent, got %v", err)
			}
			if !hasDifference(rep, "catalog", "B cannot be read where A can") || !hasDifference(rep, "catalog", tc.want) || rep.Incomparable != "" {
				t.Fatalf("want a catalog difference naming %q: %+v", tc.want, rep.Differences)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %q: %v", tc.want, err)
			}
		})
	}
}
