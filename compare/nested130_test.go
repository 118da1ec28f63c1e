package compare

import "testing"

// TestRemappedNestedList: DuckDB 1.3.0 remaps a top-level column that is
// not trivially mappable (IsTriviallyMappable: type with struct field
// names, child count, children's field ids at their positions; never a
// MAP), and remap_struct's RemapList/RemapMap do not reserve room for a
// nested element, key or value (formats.QuirkRemapListsUnreserved). The
// file: s STRUCT(a TIMESTAMPTZ, l STRUCT(x INTEGER)[]) with field ids.
func TestRemappedNestedList(t *testing.T) {
	id := func(i int64) *int64 { return &i }
	leaf := func(name string, fid int64, typ string) *pnode {
		return &pnode{Name: name, FieldID: id(fid), Kind: "leaf", DuckType: typ}
	}
	// node gives n its children as every built tree does (setChildren).
	node := func(n *pnode, children ...*pnode) *pnode {
		n.setChildren(children)
		return n
	}
	file := func() *pnode {
		el := node(&pnode{Name: "element", FieldID: id(4), Kind: "struct"}, leaf("x", 5, "INTEGER"))
		l := node(&pnode{Name: "l", FieldID: id(3), Kind: "list"}, el)
		s := node(&pnode{Name: "s", FieldID: id(1), Kind: "struct"}, leaf("a", 2, "TIMESTAMP WITH TIME ZONE"), l)
		return node(&pnode{Kind: "struct"}, s)
	}
	col := func(aType, xName, xType string) *Column {
		return &Column{ID: 1, Name: "s", Type: "struct", Children: []*Column{
			{ID: 2, Name: "a", Type: aType},
			{ID: 3, Name: "l", Type: "list", Children: []*Column{
				{ID: 4, Name: "element", Type: "struct", Children: []*Column{{ID: 5, Name: xName, Type: xType}}}}},
		}}
	}
	mapFile := node(&pnode{Kind: "struct"}, node(&pnode{Name: "m", FieldID: id(1), Kind: "map"},
		leaf("key", 2, "VARCHAR"), node(&pnode{Name: "value", FieldID: id(3), Kind: "struct"}, leaf("i", 4, "INTEGER"))))
	mapCol := &Column{ID: 1, Name: "m", Type: "map", Children: []*Column{
		{ID: 2, Name: "key", Type: "varchar"},
		{ID: 3, Name: "value", Type: "struct", Children: []*Column{{ID: 4, Name: "i", Type: "int32"}}}}}
	// s STRUCT(x INTEGER, X INTEGER, l STRUCT(i INTEGER)[]) with field ids.
	dupFile := func() *pnode {
		el := node(&pnode{Name: "element", FieldID: id(5), Kind: "struct"}, leaf("i", 6, "INTEGER"))
		l := node(&pnode{Name: "l", FieldID: id(4), Kind: "list"}, el)
		s := node(&pnode{Name: "s", FieldID: id(1), Kind: "struct"}, leaf("x", 2, "INTEGER"), leaf("X", 3, "INTEGER"), l)
		return node(&pnode{Kind: "struct"}, s)
	}
	dupCol := func(second string) *Column {
		return &Column{ID: 1, Name: "s", Type: "struct", Children: []*Column{
			{ID: 2, Name: "x", Type: "int32"},
			{ID: 3, Name: second, Type: "int32"},
			{ID: 4, Name: "l", Type: "list", Children: []*Column{
				{ID: 5, Name: "element", Type: "struct", Children: []*Column{{ID: 6, Name: "i", Type: "int32"}}}}},
		}}
	}
	for _, tc := range []struct {
		name string
		root *pnode
		col  *Column
		want string
	}{
		{"unchanged (TIMESTAMPTZ spelled either way)", file(), col("timestamptz", "x", "int32"), ""},
		{"element field renamed", file(), col("timestamptz", "y", "int32"), "s.l.element"},
		{"element field widened", file(), col("timestamptz", "x", "int64"), "s.l.element"},
		{"sibling retyped, list unchanged", file(), col("timestamp", "x", "int32"), "s.l.element"},
		{"map of structs, unchanged", mapFile, mapCol, "m.value"},
		// The reader's type names a struct's case-duplicate fields as
		// ParseSchemaRecursive renames them (x, X read as x, X_1): the
		// catalog's x, X_1 is the file's type, its x, X is not.
		{"case-duplicate fields, catalog has the read names", dupFile(), dupCol("X_1"), ""},
		{"case-duplicate fields, catalog has the raw names", dupFile(), dupCol("X"), "s.l.element"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := remappedNestedList(tc.root, []*Column{tc.col}, false); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
