package formats

import (
	"database/sql"
	"slices"
	"testing"
)

// TestQuotedListParses: a view's column_aliases as DuckLakeUtil's
// ParseQuotedList reads them.
func TestQuotedListParses(t *testing.T) {
	for in, ok := range map[string]bool{
		``: true, `"a"`: true, `"a","b"`: true, `"a""b"`: true, `"a,b"`: true, `""`: true,
		`a`: false, `"a",b`: false, `"a"` + ` `: false, `"a`: false, `"a",`: false, `"a";"b"`: false, ` "a"`: false,
	} {
		if why := QuotedListParses(in); (why == "") != ok {
			t.Errorf("QuotedListParses(%q) = %q, want it to parse: %t", in, why, ok)
		}
	}
}

// TestColumnSpans: the snapshots a table has a visible column row at,
// merged from its rows: a row that ends where it begins, or has no
// begin_snapshot, is never visible; adjoining and overlapping rows are
// one span; a row without end_snapshot never ends.
func TestColumnSpans(t *testing.T) {
	n := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: true} }
	none := sql.NullInt64{}
	spans := ColumnSpans([][2]sql.NullInt64{{n(5), n(8)}, {n(1), n(3)}, {n(3), n(4)}, {n(9), n(9)}, {none, n(20)}, {n(7), n(10)}, {n(12), none}})
	want := []Span{{Begin: 1, End: 4}, {Begin: 5, End: 10}, {Begin: 12, Open: true}}
	if !slices.Equal(spans, want) {
		t.Fatalf("ColumnSpans = %+v, want %+v", spans, want)
	}
	rows := &LoadRows{WithColumns: map[int64]bool{1: true}, ColumnSpans: map[int64][]Span{1: spans}}
	for snap, loaded := range map[int64]bool{0: false, 1: true, 3: true, 4: false, 9: true, 10: false, 11: false, 12: true, 99: true} {
		if got := rows.Loaded(1, snap); got != loaded {
			t.Errorf("Loaded(1, %d) = %v, want %v", snap, got, loaded)
		}
	}
	// A table without any column row is loaded, and fails the load.
	if !rows.Loaded(2, 0) {
		t.Error("a table without column rows is not loaded")
	}
}
