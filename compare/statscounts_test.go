package compare

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestStatsCountsReadOnce: a reader reads the record counts of every
// table's statistics in one statement (allStatsCounts), and each table's
// are what foldedMinMax's own query of the table reads, in its order:
// also two rows of a table (the first is the one read), one without a
// file size (left out), and a table without a row.
func TestStatsCountsReadOnce(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	tampered := tamper(t, catalog,
		"INSERT INTO ducklake_table_stats SELECT table_id, record_count + 7, next_row_id, file_size_bytes FROM ducklake_table_stats WHERE table_id = (SELECT min(table_id) FROM ducklake_table_stats)",
		"INSERT INTO ducklake_table_stats SELECT table_id, record_count + 9, next_row_id, NULL FROM ducklake_table_stats WHERE table_id = (SELECT max(table_id) FROM ducklake_table_stats)",
		"DELETE FROM ducklake_table_stats WHERE table_id = (SELECT max(table_id) FROM ducklake_table_stats) AND file_size_bytes IS NOT NULL")
	for _, c := range []string{catalog, tampered} {
		r := openForTest(t, c, lake)
		log := queryLog(t, r)
		ids := map[int64]bool{-1: true}
		eachTable(t, r, func(_ Snapshot, tb Table) { ids[tb.ID] = true })
		all := r.allStatsCounts(ctx)
		if all == nil {
			t.Fatal("statistics not read at once")
		}
		twice := 0
		for id := range ids {
			want, err := r.int64s(ctx, fmt.Sprintf(`SELECT record_count FROM cat.ducklake_table_stats WHERE table_id = %d AND record_count IS NOT NULL AND file_size_bytes IS NOT NULL`, id))
			if err != nil {
				t.Fatal(err)
			}
			if got := all[id]; !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
				t.Errorf("%s: table %d: %v, want %v", c, id, got, want)
			}
			if len(want) == 2 {
				twice++
			}
		}
		if want := map[bool]int{false: 0, true: 1}[c == tampered]; twice != want {
			t.Errorf("%s: %d tables with two rows, want %d", c, twice, want)
		}
		r.allStatsCounts(ctx)
		n := 0
		for _, q := range log() {
			if strings.Contains(q, "ORDER BY table_id, rowid") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d statements read every table's statistics, want 1", c, n)
		}
	}
}
