package compare

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestReadEveryTableListedTables: ReadEveryTable reads the tables the
// listing found when the catalog was opened, without a statement of its
// own to list them, and reads what a reader that lists them in that
// statement reads.
func TestReadEveryTableListedTables(t *testing.T) {
	ctx := context.Background()
	for _, l := range []struct{ archive, name string }{{"lakes", "06_deletes"}, {"lakes", "16_data_inlining"}, {"lakes-1.1-dev1", "26_v11_only_features"}} {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, l.archive, l.name)
			r := openForTest(t, catalog, lake)
			alone := openForTest(t, catalog, lake)
			alone.tablesListed = false
			log := queryLog(t, r)
			if err := r.ReadEveryTable(ctx); err != nil {
				t.Fatal(err)
			}
			for _, q := range log() {
				if strings.Contains(q, "duckdb_tables()") {
					t.Errorf("ReadEveryTable listed the tables again: %s", q)
				}
			}
			want, err := alone.catalogTables(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.listedTables, want) || len(want) == 0 {
				t.Errorf("listed %v, want %v", r.listedTables, want)
			}
			if err := alone.ReadEveryTable(ctx); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.rowCounts, alone.rowCounts) || !reflect.DeepEqual(r.bookkept, alone.bookkept) || !reflect.DeepEqual(r.notRelative, alone.notRelative) {
				t.Errorf("read %v %v %v, want %v %v %v", r.rowCounts, r.bookkept, r.notRelative, alone.rowCounts, alone.bookkept, alone.notRelative)
			}
		})
	}
}
