package compare

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// wideFile is the schema tree of a Parquet file of n top-level INTEGER
// columns named as DuckDB's COPY never names them but a foreign writer
// may: c0, C0, c1, C1, ... (every second one a duplicate in any case,
// which the Parquet reader renames C0_1, C1_1, ...), built as a read
// builds it (schemaTree), with the sources a name mapping would give
// them (the reader's names, in another case).
func wideFile(tb testing.TB, n int) (root *pnode, sources []string) {
	tb.Helper()
	rows := []schemaRow{{name: "duckdb_schema", nChildren: sql.NullInt64{Int64: int64(n), Valid: true}}}
	for i := range n {
		name, source := fmt.Sprintf("c%d", i/2), fmt.Sprintf("C%d", i/2)
		if i%2 == 1 {
			name, source = fmt.Sprintf("C%d", i/2), fmt.Sprintf("c%d_1", i/2)
		}
		rows = append(rows, schemaRow{name: name, duckType: sql.NullString{String: "INTEGER", Valid: true}})
		sources = append(sources, source)
	}
	root, err := schemaTree(rows)
	if err != nil {
		tb.Fatal(err)
	}
	return root, sources
}

// BenchmarkWideMappedFile: a name-mapped file of 2,000 columns, each
// found by its source (childByName, as projectByMapping and footerField
// find it) and named as the reader names it (readName, as valueExpr names
// a struct's field). Each lookup recomputed the whole node's reader names
// (then readNames): quadratic in the columns.
func BenchmarkWideMappedFile(b *testing.B) {
	root, sources := wideFile(b, 2000)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range sources {
			c := root.childByName(s)
			if c == nil {
				b.Fatalf("no column %s", s)
			}
			_ = root.readName(c)
		}
	}
}

// TestWideFileReadNames: the reader's names of a wide file with duplicate
// names in any case, looked up by source in any case and named back.
func TestWideFileReadNames(t *testing.T) {
	root, sources := wideFile(t, 2000)
	for i, s := range sources {
		c := root.childByName(s)
		if c != root.Children[i] {
			t.Fatalf("childByName(%q) = %v, want column %d", s, c, i)
		}
		want := fmt.Sprintf("c%d", i/2)
		if i%2 == 1 {
			want = fmt.Sprintf("C%d_1", i/2)
		}
		if got := root.readName(c); got != want {
			t.Fatalf("readName of column %d = %q, want %q", i, got, want)
		}
	}
}

// TestBuiltTreesKeepReadNames: every way a schema tree is built (a read,
// the digest cache's copy, an inlined table's columns) names each child as
// the reader does and keeps a wide node's positions by name and field id,
// and a lookup by name or field id in a wide node allocates nothing: none
// recomputes them per lookup.
func TestBuiltTreesKeepReadNames(t *testing.T) {
	root, _ := wideFile(t, 40)
	for i, c := range root.Children {
		c.FieldID = new(int64)
		*c.FieldID = int64(i + 2)
	}
	root.setChildren(root.Children)
	fields := make([]*Column, 20)
	for i := range fields {
		fields[i] = &Column{ID: int64(i + 2), Name: fmt.Sprintf("f%d", i), Type: "int32"}
	}
	for name, n := range map[string]*pnode{
		"read":          root,
		"digest cache":  toSchemaJSON(root).node(),
		"inlined table": columnNode(&Column{ID: 1, Name: "s", Type: "struct", Children: fields}),
		"file":          wideIDFile(t, 20),
	} {
		var walk func(n *pnode)
		walk = func(n *pnode) {
			for i, c := range n.Children {
				if c.readAs == "" {
					t.Errorf("%s: child %d (%q) of node %q has no reader name", name, i, c.Name, n.Name)
				}
				walk(c)
			}
			if len(n.Children) >= byNameMin && (len(n.byName) != len(n.Children) || len(n.byID) != len(n.Children)) {
				t.Errorf("%s: node %q keeps %d names and %d field ids for %d children", name, n.Name, len(n.byName), len(n.byID), len(n.Children))
			}
		}
		walk(n)
		last := n.Children[len(n.Children)-1]
		if last.Kind == "struct" {
			n = last
			last = n.Children[len(n.Children)-1]
		}
		lower := formats.ASCIILower(n.readName(last)) // lowering allocates
		if a := testing.AllocsPerRun(10, func() { _ = n.readName(n.childByName(lower)) }); a != 0 {
			t.Errorf("%s: a lookup by name allocates %v times, want 0", name, a)
		}
		if n.childByName(lower) != last || n.childByID(*last.FieldID) != last || n.childByLeadingID(*last.FieldID) != last {
			t.Errorf("%s: the last child %q is not found by its name and field id", name, last.Name)
		}
	}
}

// TestSetChildrenRenames: a node given other children, as many, names
// them afresh (before, names kept for as many children were taken as
// theirs), and finds them by their names and field ids, not the old ones.
func TestSetChildrenRenames(t *testing.T) {
	for _, width := range []int{2, 40} {
		root, _ := wideFile(t, width)
		old := root.Children
		fresh := make([]*pnode, width)
		for i := range fresh {
			id := int64(1000 + i)
			fresh[i] = &pnode{Name: "X", FieldID: &id, Kind: "leaf", DuckType: "INTEGER"}
		}
		root.setChildren(fresh)
		if got := root.readName(fresh[0]); got != "X" {
			t.Errorf("%d columns: readName of the first new column = %q, want X", width, got)
		}
		if got := root.readName(fresh[1]); got != "X_1" {
			t.Errorf("%d columns: readName of the second new column = %q, want X_1", width, got)
		}
		if root.childByName("x_1") != fresh[1] || root.childByName(old[0].Name) != nil {
			t.Errorf("%d columns: childByName finds the old columns, or not the new", width)
		}
		if root.childByID(1001) != fresh[1] || root.childByLeadingID(1001) != fresh[1] {
			t.Errorf("%d columns: childByID(1001) is not the second new column", width)
		}
	}
}

// TestWideMappingMatches: through a wide name mapping (and a narrow one),
// each column finds its first entry by target and its file column by the
// entry's source, in any case, and a column no entry maps finds none.
func TestWideMappingMatches(t *testing.T) {
	for _, n := range []int{3, 40} {
		root, cols, m := wideIDFile(t, n), wideColumns(n), wideMapping(n)
		dup := &mapEntry{id: 99, source: "c0", target: cols[1].ID}
		m.children = append(m.children, dup) // a later entry of a taken target is never the one
		indexMapping(m)
		for i, c := range cols {
			pc, e := (byMapping{}).match(root, c, m)
			if pc != root.Children[i] || e != m.children[i] {
				t.Fatalf("%d columns: column %d matches %v through %v, want file column %d through its entry", n, c.ID, pc, e, i)
			}
		}
		if pc, e := (byMapping{}).match(root, &Column{ID: 5000, Name: "gone"}, m); pc != nil || e != nil {
			t.Errorf("%d columns: an unmapped column matches %v through %v", n, pc, e)
		}
	}
}

// wideColumns are the catalog's columns of wideIDFile: n INTEGER columns
// with field ids 1..n.
func wideColumns(n int) []*Column {
	cols := make([]*Column, n)
	for i := range cols {
		cols[i] = &Column{ID: int64(i + 1), Name: fmt.Sprintf("c%d", i), Type: "int32"}
	}
	return cols
}

// wideIDFile is the schema tree of a Parquet file of n top-level INTEGER
// columns c0..c<n-1> with field ids 1..n, and one struct column s (field
// id n+1) of n such fields (field ids n+2...), as a read builds it.
func wideIDFile(tb testing.TB, n int) *pnode {
	tb.Helper()
	id := func(i int) sql.NullInt64 { return sql.NullInt64{Int64: int64(i), Valid: true} }
	count := func(i int) sql.NullInt64 { return sql.NullInt64{Int64: int64(i), Valid: true} }
	rows := []schemaRow{{name: "duckdb_schema", nChildren: count(n + 1)}}
	for i := range n {
		rows = append(rows, schemaRow{name: fmt.Sprintf("c%d", i), fieldID: id(i + 1), duckType: sql.NullString{String: "INTEGER", Valid: true}})
	}
	rows = append(rows, schemaRow{name: "s", fieldID: id(n + 1), nChildren: count(n)})
	for i := range n {
		rows = append(rows, schemaRow{name: fmt.Sprintf("f%d", i), fieldID: id(n + 2 + i), duckType: sql.NullString{String: "INTEGER", Valid: true}})
	}
	root, err := schemaTree(rows)
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// wideMapping is a name mapping of n columns: column i (field id i+1) is
// the file's c<i> in upper case.
func wideMapping(n int) *mapEntry {
	root := &mapEntry{id: -1}
	for i := range n {
		root.children = append(root.children, &mapEntry{id: int64(i + 1), source: fmt.Sprintf("C%d", i), target: int64(i + 1)})
	}
	indexMapping(root)
	return root
}

// BenchmarkWideFile: a file of 2,000 columns read as a projection finds
// each column by field id (projectByFieldID, projectByPosition) or
// through a name mapping (projectByMapping), and a struct of 2,000 fields
// is read field by field (valueExpr). Each lookup scanned every column
// or every mapping entry: quadratic in the width.
func BenchmarkWideFile(b *testing.B) {
	const n = 2000
	root, cols, mapping := wideIDFile(b, n), wideColumns(n), wideMapping(n)
	fields := make([]*Column, n)
	for i := range fields {
		fields[i] = &Column{ID: int64(n + 2 + i), Name: fmt.Sprintf("f%d", i), Type: "int32"}
	}
	s := &Column{ID: n + 1, Name: "s", Type: "struct", Children: fields}
	b.Run("by field id", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range cols {
				if root.childByID(c.ID) == nil || root.childByLeadingID(c.ID) == nil {
					b.Fatalf("no column %d", c.ID)
				}
			}
		}
	})
	b.Run("by name mapping", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range cols {
				if pc, _ := (byMapping{}).match(root, c, mapping); pc == nil {
					b.Fatalf("no column %d", c.ID)
				}
			}
		}
	})
	b.Run("wide struct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := valueExpr("s", root.childByID(s.ID), s, byFieldID{}, nil, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
