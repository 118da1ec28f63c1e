package compare

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestBatchReadFallsBack: where the one read of every table's file or
// column rows is not made (a key column that is not a BIGINT, which SQL
// compares as its own type: a reader refuses such a catalog at open, so
// the column's type is relabelled here after it), that read is left to
// each table's own query, the other still made at once; a read cut by the
// caller's context is made again at the next question. Either way the
// files and columns of every table at every snapshot are those of a
// reader reading each table alone, and so are the columns as a whole
// (readColumnRows), which the one read of the column rows answers too.
func TestBatchReadFallsBack(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	type tc struct {
		name                    string
		relabel                 [2]string // a column whose type is not a BIGINT
		filesAtOnce, colsAtOnce bool
		cancelled               bool // the first question is asked with a cancelled context
	}
	cases := []tc{{name: "the first read cancelled", filesAtOnce: true, colsAtOnce: true, cancelled: true}}
	for _, table := range []string{"ducklake_data_file", "ducklake_delete_file"} {
		cases = append(cases, tc{name: table + ".table_id", relabel: [2]string{table, "table_id"}, colsAtOnce: true})
	}
	for _, c := range []string{"table_id", "column_id", "column_order", "parent_column", "begin_snapshot", "end_snapshot"} {
		cases = append(cases, tc{name: "ducklake_column." + c, relabel: [2]string{"ducklake_column", c}, filesAtOnce: true})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := openForTest(t, catalog, lake)
			if tc.relabel != ([2]string{}) {
				r.columnTypes[tc.relabel] = "INTEGER"
			}
			alone := openForTest(t, catalog, lake)
			alone.meta.fileRows.done, alone.meta.columnRows.done = true, true // each table's own queries
			cancelFirst := tc.cancelled
			eachTable(t, alone, func(s Snapshot, tb Table) {
				if cancelFirst {
					cancelFirst = false
					cut, cancel := context.WithCancel(ctx)
					cancel()
					if _, err := r.Files(cut, tb, s.ID); err == nil {
						t.Errorf("%s at snapshot %d: files read with a cancelled context", tb.Name, s.ID)
					}
					if _, err := r.readColumns(cut, tb.ID, s.ID, false); err == nil {
						t.Errorf("%s at snapshot %d: columns read with a cancelled context", tb.Name, s.ID)
					}
				}
				got, err1 := r.Files(ctx, tb, s.ID)
				want, err2 := alone.Files(ctx, tb, s.ID)
				if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(paths(got), paths(want)) {
					t.Errorf("%s at snapshot %d: files %v (%v), alone %v (%v)", tb.Name, s.ID, paths(got), err1, paths(want), err2)
				}
				gotCols, err1 := r.readColumns(ctx, tb.ID, s.ID, false)
				wantCols, err2 := alone.readColumns(ctx, tb.ID, s.ID, false)
				if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(gotCols, wantCols) {
					t.Errorf("%s at snapshot %d: columns %s (%v), alone %s (%v)", tb.Name, s.ID, columnsJSON(t, gotCols), err1, columnsJSON(t, wantCols), err2)
				}
			})
			if cancelFirst {
				t.Fatal("no table to ask with a cancelled context")
			}
			// What the one read of the column rows also answers: the
			// columns as a whole (readColumnRows).
			for _, c := range []*Reader{r, alone} {
				if err := c.readColumnRows(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if g, w := r.meta, alone.meta; !reflect.DeepEqual(g.columnSpans, w.columnSpans) || !reflect.DeepEqual(g.columnTypes, w.columnTypes) || !reflect.DeepEqual(g.lakeTypes, w.lakeTypes) || g.columnTree != w.columnTree {
				t.Errorf("the columns as a whole: spans %v, types %v, alone spans %v, types %v", g.columnSpans, g.columnTypes, w.columnSpans, w.columnTypes)
			}
			if atOnce := r.meta.fileRows.rows != nil; atOnce != tc.filesAtOnce {
				t.Errorf("file rows read at once: %v, want %v", atOnce, tc.filesAtOnce)
			}
			if atOnce := r.meta.columnRows.rows != nil; atOnce != tc.colsAtOnce {
				t.Errorf("column rows read at once: %v, want %v", atOnce, tc.colsAtOnce)
			}
		})
	}
}

// paths lists files' paths and ids, each with its delete file's.
func paths(files []DataFile) []string {
	var out []string
	for _, f := range files {
		p := fmt.Sprintf("%d %s", f.ID, f.Path)
		if f.Delete != nil {
			p += fmt.Sprintf(" - %d %s", f.Delete.ID, f.Delete.Path)
		}
		out = append(out, p)
	}
	return out
}
