package compare

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// TestColumnsReadOnce: a reader reads the columns of every table at every
// snapshot in one statement (allColumnRows), and answers what one query
// per table and snapshot answers (readColumns' own query, which a reader
// that could not read them at once runs), nested fields, renames and
// defaults included. The same statement answers what readColumnRows asks
// of the table as a whole (the tables with columns, their spans, the
// column types, whether a row is of the column tree), as its own
// statement answers it.
func TestColumnsReadOnce(t *testing.T) {
	ctx := context.Background()
	for _, l := range fixedCostLakes {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, l.archive, l.name)
			sameColumns(t, ctx, catalog, lake)
		})
	}
}

// sameColumns checks that a reader of catalog answers Columns of every
// table at every snapshot as readColumns' own query does, in one
// statement.
func sameColumns(t *testing.T, ctx context.Context, catalog, lake string) {
	t.Helper()
	r := openForTest(t, catalog, lake)
	alone := openForTest(t, catalog, lake)
	alone.meta.columnRows.done = true // no batch: readColumns' own query
	log := queryLog(t, r)
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, s := range snaps {
		ids := map[int64]bool{}
		for _, c := range []*Reader{r, alone} {
			tables, err := c.Tables(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range tables {
				ids[tb.ID] = true
			}
		}
		ids[-1] = true // no such table: no columns
		for id := range ids {
			for _, top := range []bool{false, true} {
				got, err := r.readColumns(ctx, id, s.ID, top)
				if err != nil {
					t.Fatal(err)
				}
				want, err := alone.readColumns(ctx, id, s.ID, top)
				if err != nil {
					t.Fatal(err)
				}
				asked++
				if !reflect.DeepEqual(got, want) {
					t.Errorf("table %d at snapshot %d (top only %v): %s, want %s", id, s.ID, top, columnsJSON(t, got), columnsJSON(t, want))
				}
			}
		}
	}
	for _, c := range []*Reader{r, alone} {
		if err := c.readColumnRows(ctx); err != nil {
			t.Fatal(err)
		}
	}
	type whole struct {
		WithColumns            map[int64]bool
		Spans                  map[int64][]formats.Span
		Points                 []int64
		LakeTypes, ColumnTypes map[string]bool
		Tree                   bool
	}
	of := func(c *Reader) whole {
		m := c.meta
		return whole{m.withColumns, m.columnSpans, m.spanPoints, m.lakeTypes, m.columnTypes, m.columnTree}
	}
	if got, want := of(r), of(alone); !reflect.DeepEqual(got, want) {
		t.Errorf("the columns as a whole: %+v, by readColumnRows' own statement %+v", got, want)
	}
	n := 0
	for _, q := range log() {
		// The epochs' change points read ducklake_column's
		// snapshots alone.
		if strings.Contains(q, "FROM cat.ducklake_column c") || strings.Contains(q, "ducklake_column") && strings.Contains(q, "column_type") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d statements read ducklake_column for %d answers and the columns as a whole, want 1", n, asked)
	}
}

func columnsJSON(t *testing.T, cs []*Column) string {
	t.Helper()
	b, err := json.Marshal(cs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
