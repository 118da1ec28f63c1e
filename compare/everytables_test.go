package compare

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"
)

// TestReadEveryTableListedTables: ReadEveryTable reads the tables the
// listing found when the catalog was opened, without a statement of its
// own to list them: every table duckdb_tables() lists, in schema and
// name order.
func TestReadEveryTableListedTables(t *testing.T) {
	ctx := context.Background()
	for _, l := range []struct{ archive, name string }{{"lakes", "06_deletes"}, {"lakes", "16_data_inlining"}, {"lakes-1.1-dev1", "26_v11_only_features"}} {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, l.archive, l.name)
			r := openForTest(t, catalog, lake)
			log := queryLog(t, r)
			if err := r.ReadEveryTable(ctx); err != nil {
				t.Fatal(err)
			}
			for _, q := range log() {
				if strings.Contains(q, "duckdb_tables()") {
					t.Errorf("ReadEveryTable listed the tables again: %s", q)
				}
			}
			var want [][2]string
			if err := r.eachRow(ctx, `SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'cat' ORDER BY schema_name, table_name`, func(rows *sql.Rows) error {
				var n [2]string
				want = append(want, n)
				return rows.Scan(&want[len(want)-1][0], &want[len(want)-1][1])
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.listedTables, want) || len(want) == 0 {
				t.Errorf("listed %v, want %v", r.listedTables, want)
			}
			if len(r.rowCounts) != len(want) {
				t.Errorf("read %d tables' rows, want %d", len(r.rowCounts), len(want))
			}
		})
	}
}
