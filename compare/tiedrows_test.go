package compare

import (
	"context"
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
		"INSERT INTO ducklake_data_file SELECT * EXCLUDE (i) REPLACE (data_file_id + 100000 + i AS data_file_id, 999999 AS table_id) FROM (SELECT * FROM ducklake_data_file WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)), range(50) r(i)",
		"INSERT INTO ducklake_data_file SELECT * REPLACE ('dup-' || path AS path) FROM ducklake_data_file WHERE data_file_id IN (SELECT data_file_id FROM ducklake_delete_file)",
		"INSERT INTO ducklake_column SELECT * EXCLUDE (i) REPLACE (column_id + 100000 + i AS column_id, 999999 AS table_id) FROM (SELECT * FROM ducklake_column WHERE parent_column IS NULL LIMIT 1), range(50) r(i)",
		"INSERT INTO ducklake_column SELECT * REPLACE (column_id + 1000 AS column_id, column_name || '_tied' AS column_name) FROM ducklake_column WHERE parent_column IS NULL AND table_id <> 999999")
	r := openForTest(t, c, lake)
	alone := openForTest(t, c, lake)
	alone.meta.fileRowsTried, alone.meta.columnRowsTried = true, true // each table's own queries
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		tables, err := alone.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			got, err1 := r.Files(ctx, tb, s.ID)
			want, err2 := alone.Files(ctx, tb, s.ID)
			if (err1 == nil) != (err2 == nil) {
				t.Errorf("%s at snapshot %d: files read at once %v, alone %v", tb.Name, s.ID, err1, err2)
			}
			if len(got) != len(want) {
				t.Errorf("%s at snapshot %d: %d files read at once, %d alone", tb.Name, s.ID, len(got), len(want))
				continue
			}
			for i := range got {
				if got[i].Path != want[i].Path || (got[i].Delete == nil) != (want[i].Delete == nil) {
					t.Errorf("%s at snapshot %d: file %d read at once %s (a delete file: %v), alone %s (%v)", tb.Name, s.ID, i, got[i].Path, got[i].Delete != nil, want[i].Path, want[i].Delete != nil)
				}
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
		}
	}
}
