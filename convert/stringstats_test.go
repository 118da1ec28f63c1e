package convert

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// stringTableStatsRows lists the column ids of table 1's
// ducklake_table_column_stats rows with NULL min_value and max_value.
func stringTableStatsRows(t *testing.T, path string) []int64 {
	t.Helper()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	rows, err := conn.QueryContext(context.Background(), `SELECT column_id FROM c.ducklake_table_column_stats
		WHERE table_id = 1 AND min_value IS NULL AND max_value IS NULL ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// TestStringTableStatsWithoutMinMax: DuckDB 1.5.0 (DuckLake 7ea15644), a
// format 0.4 reader, reads a VARCHAR column's ducklake_table_column_stats
// row with NULL min_value and max_value as a column holding no string, so
// WHERE s = 'apple' returns no rows (formats.QuirkStringTableStatsEmpty;
// fixed in 1.5.1). Such a row is what the writers of 1.0 leave once one
// file of the column has no string statistics (the review's repro: file 1
// of s without min/max). A conversion to 0.4 drops the row of s (which
// holds values) and keeps the one of the all-NULL column n, with a note,
// and proves equivalent; the old output (the row kept) is not equivalent
// to its source, naming the table and column. 0.3 and 1.1 keep the row.
// Before, the row was copied to 0.4 and the proof passed.
func TestStringTableStatsWithoutMinMax(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := formats.QuirkStringTableStatsEmpty
	lake, data := textStatsLake(t,
		lakegen.Snapshot{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "INTEGER"}, {Name: "s", Type: "VARCHAR"}, {Name: "n", Type: "VARCHAR"}}}},
		lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT * FROM (VALUES (1, 'apple', NULL::VARCHAR), (2, 'banana', NULL), (3, NULL, NULL))"}},
		lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT * FROM (VALUES (4, 'cherry', NULL::VARCHAR))"}})
	src := editedCopy(t, lake,
		`UPDATE c.ducklake_file_column_stats SET min_value = NULL, max_value = NULL WHERE data_file_id = 1 AND column_id = 2`,
		`UPDATE c.ducklake_table_column_stats SET min_value = NULL, max_value = NULL WHERE column_id = 2`)
	if got := stringTableStatsRows(t, src); len(got) != 2 {
		t.Fatalf("source has table statistics without min/max for columns %v, want s and n (2, 3)", got)
	}
	// The proofs against the source read it once (compare.Source: each
	// still reads all of both catalogs), as a backfill's proofs of a
	// version's cells do; the subtests run one after the other.
	fromSrc := compare.NewSource()
	defer fromSrc.Close()
	for _, tc := range []struct {
		target *formats.Version
		// empty: some of the format's readers read the row as empty.
		empty bool
	}{{formats.V0_3, false}, {formats.V0_4, true}, {formats.V1_1, false}} {
		target := tc.target
		t.Run(target.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, target, Options{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			var notes []Finding
			for _, f := range res.Findings {
				if f.Code == q.Info().Name {
					notes = append(notes, f)
				}
			}
			got := stringTableStatsRows(t, out)
			if target.ReadsWith(q) != tc.empty {
				t.Errorf("format %s reads with %s: %v, want %v", target.Name, q.Info().Name, target.ReadsWith(q), tc.empty)
			}
			if !tc.empty {
				if len(notes) != 0 || len(got) != 2 {
					t.Errorf("format %s: findings %v, rows of columns %v, want none and 2, 3", target.Name, notes, got)
				}
				proveEquivalentFrom(t, fromSrc, src, out, data)
				return
			}
			if len(got) != 1 || got[0] != 3 {
				t.Errorf("format %s: table statistics without min/max left for columns %v, want only n (3)", target.Name, got)
			}
			if len(notes) != 1 || !strings.Contains(notes[0].Detail, "column s (id 2)") || strings.Contains(notes[0].Detail, "column n") {
				t.Errorf("format %s: %s findings %v, want one naming column s only", target.Name, q.Info().Name, notes)
			}
			proveEquivalentFrom(t, fromSrc, src, out, data)

			// The old output: the row of s kept.
			old := editedCopy(t, out, `INSERT INTO c.ducklake_table_column_stats (table_id, column_id, contains_null, contains_nan, min_value, max_value)
				VALUES (1, 2, true, NULL, NULL, NULL)`)
			rep, err := compare.Catalogs(ctx, src, old, compare.Options{DataPath: data, Source: fromSrc})
			if !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatalf("compare with the row kept: err = %v, want not equivalent", err)
			}
			if len(rep.Differences) != 1 {
				t.Fatalf("differences %v, want one", rep.Differences)
			}
			d := rep.Differences[0]
			if d.Kind != "stats" || d.Table != "t" || !strings.Contains(d.Reason, q.Info().Name) || !strings.Contains(d.Reason, "column s (id 2)") || !strings.Contains(d.Reason, old) {
				t.Errorf("difference does not name the behaviour, catalog, table and column: %s", d)
			}
		})
	}
}

// TestStringTableStatsWithoutMinMaxOnlyColumn: where the VARCHAR column's
// row is its table's only column statistics row, dropping it would leave
// the table's ducklake_table_stats row without column statistics, which
// every 0.4 reader fails on (table-stats-need-column-stats): the
// conversion to 0.4 is refused so, and with --allow-lossy table-stats the
// table statistics row goes too and the output proves equivalent.
func TestStringTableStatsWithoutMinMaxOnlyColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake, data := textStatsLake(t,
		lakegen.Snapshot{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "s", Type: "VARCHAR"}}}},
		lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT * FROM (VALUES ('apple'), ('banana'))"}},
		lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT 'cherry'"}})
	src := editedCopy(t, lake,
		`UPDATE c.ducklake_file_column_stats SET min_value = NULL, max_value = NULL WHERE data_file_id = 1`,
		`UPDATE c.ducklake_table_column_stats SET min_value = NULL, max_value = NULL`)
	out := filepath.Join(t.TempDir(), "out.duckdb")
	_, err := Catalog(ctx, src, out, formats.V0_4, Options{DataPath: data})
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("convert to 0.4: %v, want refused", err)
	}
	refused := false
	for _, f := range re.Findings {
		refused = refused || (f.Severity == Refuse && f.Code == formats.QuirkTableStatsNeedColumnStats.Info().Name)
	}
	if !refused {
		t.Errorf("refusal %v does not name %s", re.Findings, formats.QuirkTableStatsNeedColumnStats.Info().Name)
	}
	if _, err := Catalog(ctx, src, out, formats.V0_4, Options{DataPath: data, Lossy: []string{"table-stats"}}); err != nil {
		t.Fatal(err)
	}
	if got := stringTableStatsRows(t, out); len(got) != 0 {
		t.Errorf("table statistics without min/max left for columns %v", got)
	}
	proveEquivalent(t, src, out, data)
}

// TestStringTableStatsWithoutMinMaxAddedColumn: a VARCHAR column n added
// after table t's first file, never given a value, has table statistics
// with NULL min_value and max_value (contains_null). The first file has
// no statistics row for n: with no default it reads n as NULL there, so n
// holds no string and DuckDB 1.5.0 reading the row as an empty column
// changes no answer; the conversion to 0.4 keeps the row, with no note,
// and is not refused where n's row is the table's only column statistics
// row (dropping it would leave the table statistics without column
// statistics). With DEFAULT 'x' the first file reads n as 'x': the row is
// dropped with a note naming n. Before (dd6cda9), a file without a row
// counted as holding values whatever the column's default.
func TestStringTableStatsWithoutMinMaxAddedColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := formats.QuirkStringTableStatsEmpty
	for _, tc := range []struct {
		name    string
		def     string // n's default
		only    bool   // n's row is table t's only column statistics row
		dropped bool   // the conversion drops n's row
	}{
		{"no default", "", false, false},
		{"no default, only row", "", true, false},
		{"default x", "x", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, data := textStatsLake(t,
				lakegen.Snapshot{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "INTEGER"}, {Name: "s", Type: "VARCHAR"}}}},
				lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT * FROM (VALUES (1, 'apple'), (2, 'banana'))"}},
				lakegen.Snapshot{lakegen.AddColumn{Table: "t", Column: lakegen.Column{Name: "n", Type: "VARCHAR", Default: tc.def}}},
				lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT 3, 'cherry', NULL::VARCHAR"}})
			// n's row as the writers of 1.0 leave it (NULL min and max).
			edits := []string{`DELETE FROM c.ducklake_table_column_stats WHERE table_id = 1 AND column_id = 3`,
				`INSERT INTO c.ducklake_table_column_stats (table_id, column_id, contains_null, contains_nan, min_value, max_value) VALUES (1, 3, true, NULL, NULL, NULL)`}
			if tc.only {
				edits = append(edits, `DELETE FROM c.ducklake_table_column_stats WHERE table_id = 1 AND column_id <> 3`)
			}
			src := editedCopy(t, lake, edits...)
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, formats.V0_4, Options{DataPath: data})
			if err != nil {
				t.Fatalf("convert to 0.4: %v", err)
			}
			var notes []Finding
			for _, f := range res.Findings {
				if f.Code == q.Info().Name {
					notes = append(notes, f)
				}
			}
			got := stringTableStatsRows(t, out)
			kept := len(got) == 1 && got[0] == 3
			if kept == tc.dropped || (!tc.dropped && len(got) != 1) {
				t.Errorf("table statistics without min/max left for columns %v, want n (3) dropped %t", got, tc.dropped)
			}
			if tc.dropped != (len(notes) == 1 && strings.Contains(notes[0].Detail, "column n (id 3)")) || (!tc.dropped && len(notes) != 0) {
				t.Errorf("%s findings %v, want one naming column n: %t", q.Info().Name, notes, tc.dropped)
			}
			proveEquivalent(t, src, out, data)
		})
	}
}
