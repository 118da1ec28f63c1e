package compare

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMinMaxFoldedValues edits B's table statistics of a 1.0 catalog
// (05_defaults_not_null, table d, column i: rows 1..1000, statistics
// '1'..'1000') and compares it with the original: DuckDB 1.5.4+ folds
// min/max of B from them, and each folded answer must be one A's readers
// give (its own folded value, or its scan, which DuckDB 1.5.2 answers).
// The statistics rows differ in every case (kind stats); only the kind
// minmax is asserted here.
func TestMinMaxFoldedValues(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	const col = `table_id = 1 AND column_id = 1`
	for _, tc := range []struct {
		name, edit string
		want       string // in the minmax difference; "" for none
		unreadable bool   // B's readers fail on the statistics (refused.go)
	}{
		{"wrong max folds", `UPDATE ducklake_table_column_stats SET max_value = '100' WHERE ` + col, "max 100", false},
		{"same value, other text", `UPDATE ducklake_table_column_stats SET max_value = '+1000' WHERE ` + col, "", false},
		{"does not cast: every reader fails, unreadable", `UPDATE ducklake_table_column_stats SET max_value = 'many' WHERE ` + col, "", true},
		{"min above max: not folded", `UPDATE ducklake_table_column_stats SET min_value = '2000' WHERE ` + col, "", false},
		{"no max: not folded", `UPDATE ducklake_table_column_stats SET max_value = NULL WHERE ` + col, "", false},
		{"record_count not net: not exact", `UPDATE ducklake_table_column_stats SET max_value = '100' WHERE ` + col + `; UPDATE ducklake_table_stats SET record_count = 6 WHERE table_id = 1`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, catalog, strings.Split(tc.edit, "; ")...)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: filepath.Join(lake, "data")})
			if err != nil && !errors.Is(err, ErrNotEquivalent) {
				t.Fatal(err)
			}
			var got []string
			unreadable := false
			for _, d := range rep.Differences {
				if d.Kind == "minmax" {
					got = append(got, d.String())
				}
				unreadable = unreadable || (d.Kind == "unreadable" && d.A == "" && strings.Contains(d.Reason, "uncastable-column-stats"))
			}
			if unreadable != tc.unreadable {
				t.Errorf("B unreadable: got %v, want %v", unreadable, tc.unreadable)
			}
			if tc.want == "" {
				if len(got) > 0 {
					t.Errorf("want no minmax difference, got:\n%s", strings.Join(got, "\n"))
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], "column i") || !strings.Contains(got[0], tc.want) || !strings.Contains(got[0], "min 1, max 1000 by a scan") {
				t.Errorf("want one minmax difference of column i with %q and A's scan, got:\n%s", tc.want, strings.Join(got, "\n"))
			}
		})
	}
}
