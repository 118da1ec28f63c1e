package compare

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestFileRowsReadOnce: a reader reads the data and delete file rows of
// every table in two statements (allFileRows), and each table's rows are
// what its own two queries read (allTableFiles without them), paths
// resolved in the table's folder; a table read again in another folder
// is read by its own queries.
func TestFileRowsReadOnce(t *testing.T) {
	ctx := context.Background()
	for _, l := range fixedCostLakes {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, l.archive, l.name)
			r := openForTest(t, catalog, lake)
			alone := openForTest(t, catalog, lake)
			alone.meta.fileRows.done = true // no batch: allTableFiles' own queries
			log := queryLog(t, r)
			snaps, err := r.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			var tables []Table
			for _, s := range snaps {
				ts, err := r.Tables(ctx, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, tb := range ts {
					if k := fmt.Sprintf("%d %s", tb.ID, tb.dir); !seen[k] {
						seen[k] = true
						tables = append(tables, tb)
					}
				}
			}
			if len(tables) == 0 {
				t.Fatal("no tables")
			}
			// Another folder of a table read already, and a table of none.
			moved := tables[0]
			moved.dir += "elsewhere/"
			none := tables[0]
			none.ID = -7
			tables = append(tables, moved, none)
			log() // forget the statements so far
			for _, tb := range tables {
				got, err := r.allTableFiles(ctx, tb)
				if err != nil {
					t.Fatal(err)
				}
				want, err := alone.allTableFiles(ctx, tb)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.data, want.data) || !reflect.DeepEqual(got.dels, want.dels) {
					t.Errorf("table %d in %q: %+v, want %+v", tb.ID, tb.dir, got, want)
				}
			}
			n := 0
			for _, q := range log() {
				if strings.Contains(q, "FROM cat.ducklake_data_file d") || strings.Contains(q, "FROM cat.ducklake_delete_file x") {
					n++
				}
			}
			// Two for every table, and two for the table read again in
			// another folder.
			if n != 4 {
				t.Errorf("%d statements read the file rows of %d tables, want 4", n, len(tables))
			}
		})
	}
}
