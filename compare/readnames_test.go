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
// (readNames): quadratic in the columns.
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
// the digest cache's copy, an inlined table's columns) keeps the reader
// names at each node with children, and a lookup by name in a wide node
// allocates nothing: none recomputes them per lookup.
func TestBuiltTreesKeepReadNames(t *testing.T) {
	root, _ := wideFile(t, 40)
	fields := make([]*Column, 20)
	for i := range fields {
		fields[i] = &Column{ID: int64(i + 2), Name: fmt.Sprintf("f%d", i), Type: "int32"}
	}
	for name, n := range map[string]*pnode{
		"read":          root,
		"digest cache":  toSchemaJSON(root).node(),
		"inlined table": columnNode(&Column{ID: 1, Name: "s", Type: "struct", Children: fields}),
	} {
		var walk func(n *pnode)
		walk = func(n *pnode) {
			if len(n.Children) > 0 && len(n.names) != len(n.Children) {
				t.Errorf("%s: node %q keeps %d reader names for %d children", name, n.Name, len(n.names), len(n.Children))
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(n)
		last := n.Children[len(n.Children)-1]
		lower := formats.ASCIILower(n.readName(last)) // lowering allocates
		if a := testing.AllocsPerRun(10, func() { _ = n.readName(n.childByName(lower)) }); a != 0 {
			t.Errorf("%s: a lookup by name allocates %v times, want 0", name, a)
		}
	}
}
