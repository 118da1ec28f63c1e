package convert

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestRemapListsUnreserved130: DuckDB 1.3.0's remap_struct (RemapList and
// RemapMap, remap_struct.cpp at v1.3.0) sets a remapped list's or map's
// size without reserving room, so a nested element, key or value of more
// than 2048 entries in a chunk corrupts the heap (fixed by 03442e963e2,
// first in v1.3.1). 12_nested_types without data file 6 (which the
// list-map-struct-fields-missing-fail refusal names) was converted to 0.1
// and proved equivalent, though its tables hold lists of structs whose
// fields were renamed and widened, and maps of structs, which DuckDB
// 1.3.0 reads through remap_struct. Now convert refuses it for 0.1 naming
// the quirk, table, file and element, the proof reads those tables in a
// 0.1 catalog as unreadable, the whole lake names the new reason too, and
// 0.2 (DuckDB 1.3.1+) is still proved.
func TestRemapListsUnreserved130(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "12_nested_types")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	src := withoutDataFile6(t, vs[len(vs)-1])

	refusedAt130(t, src, data, []string{"remapped-nested-lists-unreserved", "fevo", "data_file_id 7", "mp.value", "at snapshot 17"},
		"a table unreadable for remapped-nested-lists-unreserved", func(d compare.Difference) bool {
			return d.Kind == "unreadable" && strings.Contains(d.Reason, "remapped-nested-lists-unreserved")
		})
	if _, err := Check(ctx, vs[len(vs)-1], formats.V0_1, Options{DataPath: data}); err == nil || !strings.Contains(err.Error(), "remapped-nested-lists-unreserved") || !strings.Contains(err.Error(), "list-map-struct-fields-missing-fail") {
		t.Errorf("whole lake to 0.1: %v, want both nested refusals", err)
	}
}

// TestRemappedNestedField: which columns DuckDB 1.3.0 remaps
// (IsTriviallyMappable fails) and holds a nested list element or map
// value, from the catalog's history: a file written at snapshot 1 and read
// at snapshot 2, the table s STRUCT(a, l LIST(STRUCT(x))).
func TestRemappedNestedField(t *testing.T) {
	const cur = 1 << 62
	base := func() []nestedColumn {
		return []nestedColumn{
			{table: 1, id: 1, parent: -1, name: "s", typ: "struct", begin: 1, end: cur},
			{table: 1, id: 2, parent: 1, name: "a", typ: "int32", begin: 1, end: cur},
			{table: 1, id: 3, parent: 1, name: "l", typ: "list", begin: 1, end: cur},
			{table: 1, id: 4, parent: 3, name: "element", typ: "struct", begin: 1, end: cur},
			{table: 1, id: 5, parent: 4, name: "x", typ: "int32", begin: 1, end: cur},
		}
	}
	change := func(id int64, f func(c *nestedColumn)) []nestedColumn {
		cs := base()
		for i := range cs {
			if cs[i].id == id {
				old := cs[i]
				old.end = 2
				f(&cs[i])
				cs[i].begin = 2
				cs = append(cs, old)
			}
		}
		return cs
	}
	for _, tc := range []struct {
		name string
		cols []nestedColumn
		want string
	}{
		{"unchanged", base(), ""},
		{"element field renamed", change(5, func(c *nestedColumn) { c.name = "y" }), "s.l.element"},
		{"element field widened", change(5, func(c *nestedColumn) { c.typ = "int64" }), "s.l.element"},
		{"sibling widened, list unchanged", change(2, func(c *nestedColumn) { c.typ = "int64" }), "s.l.element"},
		{"element field added", append(base(), nestedColumn{table: 1, id: 6, parent: 4, name: "z", typ: "int32", begin: 2, end: cur}), "s.l.element"},
		{"sibling dropped", change(2, func(c *nestedColumn) { c.end = 2 }), "s.l.element"},
		{"list element primitive", []nestedColumn{
			{table: 1, id: 1, parent: -1, name: "l", typ: "list", begin: 1, end: cur},
			{table: 1, id: 2, parent: 1, name: "element", typ: "int64", begin: 2, end: cur},
			{table: 1, id: 2, parent: 1, name: "element", typ: "int32", begin: 1, end: 2},
		}, ""},
		{"map of structs, unchanged", []nestedColumn{
			{table: 1, id: 1, parent: -1, name: "m", typ: "map", begin: 1, end: cur},
			{table: 1, id: 2, parent: 1, name: "key", typ: "varchar", begin: 1, end: cur},
			{table: 1, id: 3, parent: 1, name: "value", typ: "struct", begin: 1, end: cur},
			{table: 1, id: 4, parent: 3, name: "i", typ: "int32", begin: 1, end: cur},
		}, "m.value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := map[int64]int64{}
			for _, c := range tc.cols {
				if v, ok := first[c.id]; !ok || c.begin < v {
					first[c.id] = c.begin
				}
			}
			inFile := func(c nestedColumn) bool { return first[c.id] <= 1 }
			if got := remappedNestedField(tc.cols, 2, 1, inFile); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
