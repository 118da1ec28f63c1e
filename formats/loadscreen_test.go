package formats

import (
	"database/sql"
	"slices"
	"testing"
)

// TestMayRefuse: MayRefuse is true for rows LoadRefusal refuses at some
// snapshot (each of its conditions), so that a caller skipping LoadRefusal
// on false misses no refusal; and false for rows every reader loads, a
// renamed table and a column dropped and added again among them (the
// wide catalogs convert screens).
func TestMayRefuse(t *testing.T) {
	n := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: true} }
	s := func(v string) sql.NullString { return sql.NullString{String: v, Valid: true} }
	var none sql.NullInt64
	base := func() *LoadRows {
		return &LoadRows{
			Schemas:     []LoadSchema{{ID: n(0), Name: s("main"), Begin: n(0)}},
			Tables:      []LoadTable{{ID: n(1), SchemaID: n(0), Name: s("t"), Begin: n(1), End: n(4)}, {ID: n(1), SchemaID: n(0), Name: s("t2"), Begin: n(4)}},
			WithColumns: map[int64]bool{1: true},
			Columns:     []LoadColumn{{TableID: n(1), ID: n(1), Order: n(1), Name: s("a"), Begin: n(1)}, {TableID: n(1), ID: n(2), Order: n(2), Name: s("b"), Begin: n(1), End: n(3)}, {TableID: n(1), ID: n(3), Order: n(3), Name: s("B"), Begin: n(3)}},
			ColumnTags:  []LoadColumnTag{{TableID: n(1), ColumnID: n(1), Key: s("comment"), Begin: n(2)}},
			// a struct with a field x and a struct field y of one
			// field z.
			ColumnTree: []LoadColumn{{TableID: n(1), ID: n(1), Order: n(1), Name: s("a"), Begin: n(1)},
				{TableID: n(1), ID: n(4), Order: n(1), Name: s("x"), Parent: n(1), Begin: n(1)},
				{TableID: n(1), ID: n(5), Order: n(2), Name: s("y"), Parent: n(1), Begin: n(1)},
				{TableID: n(1), ID: n(6), Order: n(1), Name: s("z"), Parent: n(5), Begin: n(1)}},
		}
	}
	if got, want := base().ChangePoints(), []int64{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("ChangePoints = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		name   string
		change func(r *LoadRows)
		refuse bool
	}{
		{"loads: a renamed table, a column dropped and added again in another case", func(*LoadRows) {}, false},
		{"a view", func(r *LoadRows) { r.Views = []LoadView{{SchemaID: n(0), Name: s("v"), Begin: n(2)}} }, false},
		{"a view of no schema", func(r *LoadRows) { r.Views = []LoadView{{SchemaID: n(7), Name: s("v"), Begin: n(2)}} }, true},
		{"a macro without implementation", func(r *LoadRows) {
			r.Macros = []LoadMacro{{SchemaID: n(0), Name: s("m"), NoImpl: true, Begin: n(2)}}
		}, true},
		{"a second schema named alike", func(r *LoadRows) {
			r.Schemas = append(r.Schemas, LoadSchema{ID: n(5), Name: s("MAIN"), Begin: n(2)})
			r.Tables = append(r.Tables, LoadTable{ID: n(6), SchemaID: n(5), Name: s("u"), Begin: n(2)})
			r.WithColumns[6] = true
		}, true},
		{"a table whose schema ends before it", func(r *LoadRows) { r.Schemas[0].End = n(3) }, true},
		{"a table of no schema", func(r *LoadRows) { r.Tables[1].SchemaID = n(9) }, true},
		{"a table without columns", func(r *LoadRows) { delete(r.WithColumns, 1) }, true},
		{"a table's two rows visible together", func(r *LoadRows) { r.Tables[0].End = none }, true},
		{"two columns named alike visible together", func(r *LoadRows) { r.Columns[1].End = none }, true},
		{"a tag other than a comment", func(r *LoadRows) { r.ColumnTags[0].Key = s("unit") }, true},
		{"a field whose parent ends before it", func(r *LoadRows) { r.ColumnTree[0].End = n(3) }, true},
		{"a negative column id", func(r *LoadRows) { r.Columns[0].ID = n(-1) }, true},
		{"a negative table id", func(r *LoadRows) { r.Tables[1].ID = n(-1); r.WithColumns[-1] = true }, true},
		{"a field of no column", func(r *LoadRows) { r.ColumnTree[1].Parent = n(9) }, true},
		{"a field whose parent the readers add after it", func(r *LoadRows) {
			r.ColumnTree[2].ID, r.ColumnTree[3].Parent = n(0), n(0)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := base()
			tc.change(rows)
			refused := ""
			for snap := int64(0); snap < 8 && refused == ""; snap++ {
				refused = LoadRefusal(rows, snap)
			}
			if (refused != "") != tc.refuse {
				t.Fatalf("LoadRefusal at snapshots 0-7: %q, want a refusal %v (the case does not hold)", refused, tc.refuse)
			}
			if tc.refuse && !rows.MayRefuse() {
				t.Errorf("MayRefuse = false for rows LoadRefusal refuses: %s", refused)
			}
			if !tc.refuse && tc.name[:5] == "loads" && rows.MayRefuse() {
				t.Errorf("MayRefuse = true for rows every reader loads")
			}
		})
	}
}
