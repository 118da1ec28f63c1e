package lakegen

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// incrementalSpecs are the repositories the incremental bookkeeping is
// checked on: the demo (every operation, several tables per version, three
// versions) and a small wide repository (many tables, each commit touching
// one of them, column additions and deletes on every other table).
func incrementalSpecs() []Spec {
	wide := wideSpec(WideOptions{Tables: 5, Inserts: 4, Alter: 2})
	// Two versions, so the second catalog's statistics must carry the first's.
	snaps := wide.Versions[0].Snapshots
	wide.Versions = []Version{{Snapshots: snaps[:len(snaps)/2]}, {Snapshots: snaps[len(snaps)/2:]}}
	return []Spec{Demo(), wide}
}

// TestSnapshotStateMatchesFullRecount commits every snapshot of the specs
// and checks, after each commit, that the recorded state of every table
// (rows, columns, row text), which only reads the tables the commit
// touched, equals a fresh read of every table.
func TestSnapshotStateMatchesFullRecount(t *testing.T) {
	for _, spec := range incrementalSpecs() {
		t.Run(spec.Name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			g, err := newGen(ctx, dir, "https://fdl.example/x/data/", time.Now(), true)
			if err != nil {
				t.Fatal(err)
			}
			defer g.close()
			for _, v := range spec.Versions {
				for _, s := range v.Snapshots {
					if err := g.commit(ctx, s); err != nil {
						t.Fatal(err)
					}
					got := g.snapshots[len(g.snapshots)-1]
					if got.ID != g.snap || len(got.Tables) != len(g.tables) {
						t.Fatalf("snapshot %d: recorded snapshot %d with %d tables, want %d", g.snap, got.ID, len(got.Tables), len(g.tables))
					}
					for _, tab := range g.tables {
						want, err := g.tableState(ctx, tab)
						if err != nil {
							t.Fatal(err)
						}
						st := got.Tables["main."+tab.name]
						if st.Rows != want.Rows || !slices.Equal(st.Columns, want.Columns) || !slices.Equal(st.Data, want.Data) {
							t.Errorf("snapshot %d %s: recorded %+v, full recount %+v", g.snap, tab.name, st, want)
						}
					}
				}
			}
		})
	}
}

// TestTableStatsFollowFiles checks, in every frozen catalog, that
// ducklake_table_stats and ducklake_table_column_stats hold, in table and
// column order, the totals of the catalog's own data files and file column
// statistics: records, next row id and bytes over every data file ever
// added; for the columns of a table's first data file, whether any file had
// a NULL (or NaN), and the smallest minimum and largest maximum (numbers
// compared as numbers). The statistics are kept in memory and written when
// a version is frozen, so a version whose catalog missed them, or got
// another version's, fails here.
func TestTableStatsFollowFiles(t *testing.T) {
	const wantTables = `
SELECT table_id, sum(record_count)::BIGINT, max(row_id_start + record_count), sum(file_size_bytes)::BIGINT
FROM c.ducklake_data_file GROUP BY table_id ORDER BY table_id`
	const wantColumns = `
WITH first AS (SELECT table_id, min(data_file_id) AS data_file_id FROM c.ducklake_data_file GROUP BY table_id),
tracked AS (SELECT s.table_id, s.column_id FROM c.ducklake_file_column_stats s JOIN first USING (table_id, data_file_id)),
types AS (SELECT DISTINCT table_id, column_id, column_type FROM c.ducklake_column),
numbers AS (SELECT s.*, t.column_type, TRY_CAST(s.min_value AS DOUBLE) AS lo, TRY_CAST(s.max_value AS DOUBLE) AS hi,
	regexp_matches(t.column_type, '^(u?int|float|decimal)') AS numeric
	FROM c.ducklake_file_column_stats s JOIN tracked USING (table_id, column_id) JOIN types t USING (table_id, column_id))
SELECT table_id, column_id, bool_or(null_count > 0),
	CASE WHEN any_value(column_type) IN ('float32', 'float64') THEN bool_or(coalesce(contains_nan, false)) END,
	CASE WHEN bool_and(numeric) THEN arg_min(min_value, lo) ELSE min(min_value) END,
	CASE WHEN bool_and(numeric) THEN arg_max(max_value, hi) ELSE max(max_value) END
FROM numbers GROUP BY table_id, column_id ORDER BY table_id, column_id`
	for _, spec := range incrementalSpecs() {
		t.Run(spec.Name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := Repository(context.Background(), dir, spec)
			if err != nil {
				t.Fatal(err)
			}
			db := openDB(t)
			for _, v := range res.Versions {
				exec(t, db, fmt.Sprintf("ATTACH '%s' AS c (READ_ONLY)", filepath.Join(dir, "versions", v.ID, "ducklake.duckdb")))
				for _, c := range []struct{ got, want string }{
					{"SELECT table_id, record_count, next_row_id, file_size_bytes FROM c.ducklake_table_stats ORDER BY rowid", wantTables},
					{"SELECT table_id, column_id, contains_null, contains_nan, min_value, max_value FROM c.ducklake_table_column_stats ORDER BY rowid", wantColumns},
				} {
					got, want := query(t, db, c.got), query(t, db, c.want)
					if len(want) == 0 || !slices.EqualFunc(got, want, slices.Equal) {
						t.Errorf("version %d: %s\n= %v\nwant %v", v.Seq, c.got, got, want)
					}
				}
				exec(t, db, "DETACH c")
			}
		})
	}
}
