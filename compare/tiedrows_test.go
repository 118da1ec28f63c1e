package compare

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
)

// TestTiedRowsReadAsAlone: a catalog without its primary keys may hold
// two data file rows of one id, or two column rows of one parent and
// column_order visible at one snapshot. DuckDB's sort is not stable, so
// the order of such rows in one read of every table's rows (allFileRows,
// allColumnRows) may differ from the order of the table's own query
// (filesOf keeps the last row of an id): such a table is read by its own
// query, and every table's files and columns at every snapshot are what
// a reader reading each table alone finds. The filler rows of a table no
// one asks for change where the sort puts the tied rows.
func TestTiedRowsReadAsAlone(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	c := tamper(t, catalog,
		"CREATE TABLE x AS SELECT * FROM ducklake_data_file", "DROP TABLE ducklake_data_file", "ALTER TABLE x RENAME TO ducklake_data_file",
		"CREATE TABLE x AS SELECT * FROM ducklake_delete_file", "DROP TABLE ducklake_delete_file", "ALTER TABLE x RENAME TO ducklake_delete_file",
		"INSERT INTO ducklake_data_file SELECT * EXCLUDE (i) REPLACE (data_file_id + 100000 + i AS data_file_id, 999999 AS table_id) FROM (SELECT * FROM ducklake_data_file WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)), range(50) r(i)",
		"INSERT INTO ducklake_data_file SELECT * REPLACE ('dup-' || path AS path) FROM ducklake_data_file WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_delete_file)",
		"INSERT INTO ducklake_delete_file SELECT * REPLACE ('dup-' || path AS path) FROM ducklake_delete_file WHERE delete_file_id = (SELECT max(delete_file_id) FROM ducklake_delete_file)",
		"INSERT INTO ducklake_column SELECT * EXCLUDE (i) REPLACE (column_id + 100000 + i AS column_id, column_order + 100000 + i AS column_order, 999999 AS table_id) FROM (SELECT * FROM ducklake_column WHERE parent_column IS NULL LIMIT 1), range(50) r(i)",
		"INSERT INTO ducklake_column SELECT * REPLACE (column_id + 1000 AS column_id, column_name || '_tied' AS column_name) FROM ducklake_column WHERE parent_column IS NULL AND table_id = (SELECT min(table_id) FROM ducklake_column)")
	r := openForTest(t, c, lake)
	alone := openForTest(t, c, lake)
	alone.meta.fileRows.done, alone.meta.columnRows.done = true, true // each table's own queries
	seen := map[int64]bool{}
	eachTable(t, alone, func(s Snapshot, tb Table) {
		seen[tb.ID] = true
		got, err1 := r.Files(ctx, tb, s.ID)
		want, err2 := alone.Files(ctx, tb, s.ID)
		if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(paths(got), paths(want)) {
			t.Errorf("%s at snapshot %d: files read at once %v (%v), alone %v (%v)", tb.Name, s.ID, paths(got), err1, paths(want), err2)
		}
		gotCols, err := r.readColumns(ctx, tb.ID, s.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		wantCols, err := alone.readColumns(ctx, tb.ID, s.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotCols, wantCols) {
			t.Errorf("%s at snapshot %d: columns read at once %s, alone %s", tb.Name, s.ID, columnsJSON(t, gotCols), columnsJSON(t, wantCols))
		}
	})
	// The tables without tied rows were read at once.
	if r.meta.fileRows.rows == nil || r.meta.columnRows.rows == nil {
		t.Fatal("the rows were not read at once")
	}
	if n := len(r.meta.fileRows.rows.tied); n == 0 || n >= len(seen) {
		t.Errorf("%d of %d tables' files tied, want some, not all", n, len(seen))
	}
	if n := len(r.meta.columnRows.rows.tied); n != 1 {
		t.Errorf("%d tables' columns tied, want 1", n)
	}
}

// TestOverlappingColumnRows: tied column rows count only where two are
// visible at one snapshot (from begin, before end), however many rows of
// one column's versions there are and in whatever order.
func TestOverlappingColumnRows(t *testing.T) {
	row := func(begin, end int64) columnRow {
		x := columnRow{begin: sql.NullInt64{Int64: begin, Valid: begin >= 0}}
		if end >= 0 {
			x.end = sql.NullInt64{Int64: end, Valid: true}
		}
		return x
	}
	for _, tc := range []struct {
		name string
		rows []columnRow
		want bool
	}{
		{"one after the other", []columnRow{row(5, 9), row(1, 5), row(9, -1)}, false},
		{"open end met later", []columnRow{row(1, -1), row(7, 8)}, true},
		{"a long row met past a short one", []columnRow{row(1, 20), row(2, 3), row(10, 11)}, true},
		{"never visible", []columnRow{row(-1, -1), row(4, 4), row(6, 2), row(1, -1)}, false},
		{"same begin", []columnRow{row(3, 4), row(3, 5)}, true},
	} {
		if got := overlapping(tc.rows); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
