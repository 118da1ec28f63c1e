package convert

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// tableStatsWithoutColumnStats lists the "table_id:record_count" of the
// ducklake_table_stats rows of the catalog at path whose table has no
// ducklake_table_column_stats row (what DuckDB 1.5.2 and 1.5.3 fail on).
func tableStatsWithoutColumnStats(t *testing.T, path string) []string {
	t.Helper()
	conn := attach(t, path, "READ_ONLY")
	rows, err := conn.QueryContext(context.Background(), `SELECT s.table_id || ':' || s.record_count FROM c.ducklake_table_stats s
		WHERE s.record_count IS NOT NULL AND s.file_size_bytes IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM c.ducklake_table_column_stats x WHERE x.table_id = s.table_id) ORDER BY s.table_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTableStatsWithoutColumnStatsTo10: DuckDB 1.5.2 and 1.5.3 (DuckLake
// 415a9ebd, e6a3bd0a), format 1.0 readers, fail every table read of a
// catalog with a ducklake_table_stats row whose table has no
// ducklake_table_column_stats row (fixed by db9cb183, first in 1.5.4).
// DuckDB 2.0's writer leaves such rows, e.g. after a whole-file DELETE:
// every version of lakes-1.1-dev1/06_deletes from the second (table 2,
// whole). Converted to 1.0 they were copied, and the proof passed. Now
// convert drops them with a note naming the table, and the proof of the
// output against its 1.1 source lists them as not compared.
func TestTableStatsWithoutColumnStatsTo10(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-1.1-dev1", "06_deletes")
	data := filepath.Join(lake, "data")
	seen := 0
	for i, src := range versionCatalogs(t, lake) {
		t.Run(fmt.Sprintf("version %d", i+1), func(t *testing.T) {
			had := tableStatsWithoutColumnStats(t, src)
			if len(had) > 0 {
				seen++
			}
			out := filepath.Join(t.TempDir(), "1.0.duckdb")
			res, err := Catalog(ctx, src, out, formats.V1_0, Options{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, f := range res.Findings {
				if f.Code == "table-stats-need-column-stats" {
					notes = append(notes, f.Detail)
					if f.Severity != Note || f.Table != "ducklake_table_stats" {
						t.Errorf("want a note on ducklake_table_stats, got %+v", f)
					}
				}
			}
			if left := tableStatsWithoutColumnStats(t, out); len(left) > 0 {
				t.Errorf("the 1.0 output still has table statistics without column statistics: %v (source: %v)", left, had)
			}
			switch {
			case len(had) == 0 && len(notes) > 0:
				t.Errorf("a note where the source has no such row: %v", notes)
			case len(had) > 0 && (len(notes) != 1 || !strings.Contains(notes[0], "table 2 whole")):
				t.Errorf("want one note naming table 2 whole, got %v", notes)
			}
			rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
			if err != nil {
				t.Fatalf("the output does not prove: %v", err)
			}
			dropped := slices.ContainsFunc(rep.NotCompared, func(s string) bool {
				return strings.HasPrefix(s, "ducklake_table_stats of table 2: absent from B")
			})
			if dropped != (len(had) > 0) {
				t.Errorf("want the dropped row listed as not compared (%v), got %q", len(had) > 0, rep.NotCompared)
			}
		})
	}
	if seen == 0 {
		t.Fatal("no version of 06_deletes has the rows: the test proves nothing")
	}
}

// TestTableStatsWithoutColumnStatsProof: a 1.0 catalog (B) with a
// ducklake_table_stats row of a table without column statistics is a
// `stats` difference naming the table where A does not hold that row or is
// not format 1.0 (what the old convert wrote from a 1.1 source was proved
// equivalent), and not where A is 1.0 and holds it too: one-sided, so a
// native 1.0 catalog with such rows (DuckDB 1.5.4+'s writer) still proves
// equal to its 1.1 conversion. The last version of
// lakes-1.1-dev1/06_deletes (table 2, whole), its 1.0 conversion without
// the row, and that conversion with the row put back.
func TestTableStatsWithoutColumnStatsProof(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-1.1-dev1", "06_deletes")
	data := filepath.Join(lake, "data")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	if got := tableStatsWithoutColumnStats(t, src); !slices.Equal(got, []string{"2:10"}) {
		t.Fatalf("the lake changed: table statistics without column statistics %v, want [2:10]", got)
	}
	without := filepath.Join(t.TempDir(), "1.0.duckdb")
	if _, err := Catalog(ctx, src, without, formats.V1_0, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	// The row as the source has it (1.1-dev1 and 1.0 share its columns).
	conn := attach(t, src, "READ_ONLY")
	var rec, next, size int64
	if err := conn.QueryRowContext(ctx, `SELECT record_count, next_row_id, file_size_bytes FROM c.ducklake_table_stats WHERE table_id = 2`).Scan(&rec, &next, &size); err != nil {
		t.Fatal(err)
	}
	with := editedCopy(t, without, fmt.Sprintf(`INSERT INTO ducklake_table_stats (table_id, record_count, next_row_id, file_size_bytes)
		SELECT 2, %d, %d, %d WHERE NOT EXISTS (SELECT 1 FROM ducklake_table_stats WHERE table_id = 2)`, rec, next, size))
	with11 := filepath.Join(t.TempDir(), "1.1.duckdb")
	if _, err := Catalog(ctx, with, with11, formats.V1_1, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		a, b string
		diff bool
	}{
		{"1.1 source, 1.0 with the row (the old conversion)", src, with, true},
		{"1.0 without, 1.0 with", without, with, true},
		{"1.0 with, 1.0 with", with, editedCopy(t, with), false},
		{"native 1.0 with, its 1.1 conversion", with, with11, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := compare.Catalogs(ctx, tc.a, tc.b, compare.Options{DataPath: data})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var stats, other []string
			for _, d := range rep.Differences {
				if d.Kind == "stats" && d.Table == "main.whole" && strings.Contains(d.Reason, "DuckDB >= 1.5.2 before 1.5.4") &&
					strings.Contains(d.Reason, "table-stats-need-column-stats") {
					stats = append(stats, d.String())
				} else {
					other = append(other, d.String())
				}
			}
			if len(other) > 0 {
				t.Errorf("other differences:\n%s", strings.Join(other, "\n"))
			}
			if tc.diff != (len(stats) == 1) || len(stats) > 1 {
				t.Errorf("want a stats difference naming main.whole: %v, got:\n%s", tc.diff, strings.Join(stats, "\n"))
			}
		})
	}
}
