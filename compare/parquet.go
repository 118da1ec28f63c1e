package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// pnode is a node of a Parquet file's schema, with list and map wrapper
// groups folded away: a list node has one child (the element), a map node
// two (key, value).
type pnode struct {
	Name     string
	FieldID  *int64
	Kind     string // "leaf", "struct", "list", "map"
	DuckType string // leaf type as DuckDB reads it
	Children []*pnode
	repeated bool
	annot    string // converted and logical type, upper case
	// readAs is the name the Parquet reader gives this node among its
	// parent's children (setChildren), and byName and byID the positions
	// of a node's children by ASCII-lowered reader name and by field id
	// (the first child of each, and only for a node of many children),
	// with leadingIDs the number of children before the first without a
	// field id. All are set with the children, by setChildren, the one
	// place that sets Children: they cannot go stale, and a lookup, asked
	// once per column, costs no scan of a wide node. A built tree is only
	// read, by concurrent readers too (keepRunSchema), so never lazily.
	readAs     string
	byName     map[string]int
	byID       map[int64]int
	leadingIDs int
}

type schemaRow struct {
	name      string
	fieldID   sql.NullInt64
	nChildren sql.NullInt64
	repeat    sql.NullString
	converted sql.NullString
	logical   sql.NullString
	duckType  sql.NullString
}

// parquetSchema reads a file's schema tree (not possible for encrypted
// files: DuckDB's parquet_schema cannot decrypt). The first file of a
// table asked for brings the schemas of its table's other data files in
// the same query (prefetchSchemas): a proof reads them all.
func (r *Reader) parquetSchema(ctx context.Context, path string) (*pnode, error) {
	if n, ok := r.schemas[path]; ok {
		return n, nil // data files never change: one read per file
	}
	if n, ok := r.runSchema(path); ok {
		r.schemas[path] = n // another reader of the run read this copy
		return n, nil
	}
	n, before, ok := r.keptSchema(path)
	if ok {
		r.schemas[path] = n
		return n, nil
	}
	r.prefetchSchemas(ctx, path)
	if n, ok := r.schemas[path]; ok {
		return n, nil
	}
	runKey, _ := schemaRunKey(r.listings, path)
	n, err := r.readParquetSchema(ctx, path)
	if err == nil {
		r.schemas[path] = n
		r.keepSchema(path, before, runKey, n)
	}
	return n, err
}

const schemaColumns = `name, field_id, num_children, repetition_type, converted_type, logical_type::VARCHAR, duckdb_type`

func (r *Reader) readParquetSchema(ctx context.Context, path string) (*pnode, error) {
	if err := r.readable(ctx, path); err != nil {
		return nil, err
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM parquet_schema(%s)`, schemaColumns, parquetsql.Path(path)))
	if err != nil {
		return nil, fmt.Errorf("read parquet schema: %w", err)
	}
	defer rows.Close()
	var list []schemaRow
	for rows.Next() {
		var s schemaRow
		if err := rows.Scan(&s.name, &s.fieldID, &s.nChildren, &s.repeat, &s.converted, &s.logical, &s.duckType); err != nil {
			return nil, err
		}
		list = append(list, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return schemaTree(list)
}

// maxSchemaBatch caps the files of one parquet_schema query.
const maxSchemaBatch = 512

// prefetchSchemas reads, in one parquet_schema query, the schemas of the
// data files of path's table whose lifetime overlaps path's (every file a
// reader of one of path's snapshots reads, and the files a comparison reads
// next), that are not encrypted and not read yet. One query over N files
// costs a fraction of N queries. It never fails: a file the batch cannot
// read (missing, not Parquet) is read alone when asked for, which reports
// its error as before.
func (r *Reader) prefetchSchemas(ctx context.Context, path string) {
	all, ok := r.meta.tableOf[path]
	if !ok {
		return
	}
	self, ok := rowAt(all.data, path, func(f DataFile) string { return f.Path })
	if !ok {
		return
	}
	paths := []string{path}
	for _, row := range all.data {
		f := row.file
		if len(paths) == maxSchemaBatch {
			break
		}
		// A file its gate has not made readable is left to be asked for
		// (ReadGate.Ready): a proof may need no read of it at all.
		if f.Path == path || (f.encryptionKey != nil && *f.encryptionKey != "") || r.schemaTried[f.Path] || !lifetimesOverlap(self.file.BeginSnapshot, self.end, f.BeginSnapshot, row.end) || !r.ready(f.Path) {
			continue
		}
		if _, ok := r.schemas[f.Path]; ok {
			continue
		}
		if n, ok := r.runSchema(f.Path); ok {
			r.schemas[f.Path] = n
			continue
		}
		paths = append(paths, f.Path)
	}
	if len(paths) < 2 {
		return
	}
	// Each kept under its key as the copy is before the read (keepSchema).
	before := make(map[string]string, len(paths))
	runKeys := make(map[string]string, len(paths))
	for _, p := range paths {
		r.schemaTried[p] = true
		if r.memo != nil && r.memo.store != nil {
			before[p] = mirroredKey(r.listings, keptSchemaKind, p)
		}
		runKeys[p], _ = schemaRunKey(r.listings, p)
	}
	trees, err := r.readParquetSchemas(ctx, paths)
	if err != nil {
		return
	}
	for p, n := range trees {
		r.schemas[p] = n
		r.keepSchema(p, before[p], runKeys[p], n)
	}
}

// readParquetSchemas reads the schemas of several files in one query. It
// fails when any file cannot be read; a file it returns no rows for is
// left out.
func (r *Reader) readParquetSchemas(ctx context.Context, paths []string) (map[string]*pnode, error) {
	if err := r.readable(ctx, paths...); err != nil {
		return nil, err
	}
	list := make([]string, len(paths))
	want := make(map[string]bool, len(paths))
	for i, p := range paths {
		list[i], want[p] = parquetsql.Path(p), true
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT file_name, %s FROM parquet_schema([%s])`, schemaColumns, strings.Join(list, ", ")))
	if err != nil {
		return nil, fmt.Errorf("read parquet schemas: %w", err)
	}
	defer rows.Close()
	byFile := map[string][]schemaRow{}
	last := ""
	for rows.Next() {
		var file string
		var s schemaRow
		if err := rows.Scan(&file, &s.name, &s.fieldID, &s.nChildren, &s.repeat, &s.converted, &s.logical, &s.duckType); err != nil {
			return nil, err
		}
		if !want[file] {
			return nil, fmt.Errorf("read parquet schemas: unexpected file %s", oneline.Name(file))
		}
		// A file's rows come together and in order; a file seen again
		// after another one would make its tree unreliable.
		if file != last && byFile[file] != nil {
			return nil, fmt.Errorf("read parquet schemas: rows of %s are not contiguous", file)
		}
		last = file
		byFile[file] = append(byFile[file], s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]*pnode, len(byFile))
	for file, l := range byFile {
		n, err := schemaTree(l)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		out[file] = n
	}
	return out, nil
}

// schemaTree builds a file's schema tree from its parquet_schema rows
// (depth first, each node followed by its children).
func schemaTree(list []schemaRow) (*pnode, error) {
	if len(list) == 0 {
		return nil, fmt.Errorf("empty parquet schema")
	}
	i := 0
	var build func() (*pnode, error)
	build = func() (*pnode, error) {
		if i >= len(list) {
			return nil, fmt.Errorf("truncated parquet schema")
		}
		s := list[i]
		i++
		n := &pnode{Name: s.name, FieldID: nullInt(s.fieldID), DuckType: s.duckType.String}
		var children []*pnode
		for k := int64(0); k < s.nChildren.Int64; k++ {
			c, err := build()
			if err != nil {
				return nil, err
			}
			children = append(children, c)
		}
		n.setChildren(children)
		n.repeated = s.repeat.String == "REPEATED"
		n.annot = strings.ToUpper(s.converted.String + " " + s.logical.String)
		return n, nil
	}
	root, err := build()
	if err != nil {
		return nil, err
	}
	if i != len(list) {
		return nil, fmt.Errorf("parquet schema has %d nodes past its root's tree", len(list)-i)
	}
	fold(root)
	return root, nil
}

// fold classifies nodes top-down and removes Parquet's LIST/MAP wrapper
// groups, following the Parquet backward-compatibility rules for lists.
func fold(n *pnode) {
	switch {
	case strings.Contains(n.annot, "LIST") && len(n.Children) == 1:
		w := n.Children[0]
		el := w
		if len(w.Children) == 1 && w.Name != "array" && w.Name != n.Name+"_tuple" {
			el = w.Children[0]
		} else {
			cp := *w
			cp.repeated = false
			el = &cp
		}
		fold(el)
		n.Kind = "list"
		n.setChildren([]*pnode{el})
	case strings.Contains(n.annot, "MAP") && len(n.Children) == 1 && len(n.Children[0].Children) == 2:
		kv := n.Children[0]
		fold(kv.Children[0])
		fold(kv.Children[1])
		n.Kind = "map"
		n.setChildren(kv.Children)
	case len(n.Children) == 0:
		n.Kind = "leaf"
		if n.repeated {
			// A bare repeated primitive is a list of that primitive.
			n.Kind = "list"
			n.setChildren([]*pnode{{Name: "element", Kind: "leaf", DuckType: n.DuckType}})
		}
	default:
		for _, c := range n.Children {
			fold(c)
		}
		n.Kind = "struct"
		if n.repeated {
			el := &pnode{Name: n.Name, Kind: "struct"}
			el.setChildren(n.Children)
			n.Kind = "list"
			n.setChildren([]*pnode{el})
		}
	}
}

// physType is the DuckDB type of a physical node, with the names the
// Parquet reader gives its fields (readAs).
func (n *pnode) physType() string {
	switch n.Kind {
	case "struct":
		parts := make([]string, len(n.Children))
		for i, c := range n.Children {
			parts[i] = ident(c.readAs) + " " + c.physType()
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case "list":
		return n.Children[0].physType() + "[]"
	case "map":
		return "MAP(" + n.Children[0].physType() + ", " + n.Children[1].physType() + ")"
	}
	if strings.Contains(n.annot, "GEOMETRY") {
		return "GEOMETRY" // parquet_schema reports the BLOB underneath
	}
	return n.DuckType
}

// childByID finds the physical child with a field id (the first).
func (n *pnode) childByID(id int64) *pnode {
	if n.byID != nil {
		if i, ok := n.byID[id]; ok {
			return n.Children[i]
		}
		return nil
	}
	for _, c := range n.Children {
		if c.FieldID != nil && *c.FieldID == id {
			return c
		}
	}
	return nil
}

// byNameMin is the fewest children for which a node keeps their positions
// by name and by field id (byName, byID): fewer are searched in order.
const byNameMin = 16

// setChildren makes children n's children, the one place that sets
// Children, and names each as DuckDB's Parquet reader does (readAs): a
// child whose name equals a name already taken ignoring ASCII case gets
// the taken name's counter, bumped, appended (_1, _2, ...) until free, and
// its new name is then taken (ParquetReader::ParseSchemaRecursive,
// extension/parquet/parquet_reader.cpp, at every inner node, the root's
// columns and a struct's fields alike; the same in v1.3-ossivalis,
// v1.4-andium, v1.5-variegata and main). Columns KEYX, keyx, KEYX_1 are
// KEYX, keyx_1, KEYX_1_1. These are the names read_parquet, every
// DuckLake reader's name mapping (NameMapper) and positional mapping
// (CreatePositionalMapping) see; they are unique in any case. For a node
// of many children it keeps their positions by lowered reader name and by
// field id (byName, byID).
func (n *pnode) setChildren(children []*pnode) {
	n.Children, n.byName, n.byID, n.leadingIDs = children, nil, nil, len(children)
	wide := len(children) >= byNameMin
	if wide {
		n.byName = make(map[string]int, len(children))
		n.byID = make(map[int64]int, len(children))
	}
	taken := make(map[string]int, len(children))
	for i, c := range children {
		name := c.Name
		for {
			k := formats.ASCIILower(name)
			count, dup := taken[k]
			if !dup {
				break
			}
			count++
			taken[k] = count
			name += "_" + strconv.Itoa(count)
		}
		k := formats.ASCIILower(name)
		taken[k] = 0
		c.readAs = name
		if c.FieldID == nil && n.leadingIDs == len(children) {
			n.leadingIDs = i
		}
		if !wide {
			continue
		}
		n.byName[k] = i
		if c.FieldID != nil {
			if _, ok := n.byID[*c.FieldID]; !ok {
				n.byID[*c.FieldID] = i
			}
		}
	}
}

// readName is the name the Parquet reader gives n's child c (readAs,
// setChildren).
func (n *pnode) readName(c *pnode) string {
	return c.readAs
}

// childByName finds the child whose name, as the Parquet reader gives it
// (setChildren), equals name ignoring ASCII case, as DuckDB's NameMapper
// does (a case_insensitive_map_t filled by emplace, so of two names
// differing only in case the first would win; the reader's renaming
// leaves none: src/common/multi_file/multi_file_column_mapper.cpp, the
// same from v1.3.0 to v1.5.5). Every DuckLake release line reads a
// name-mapped file through it (MapColumns in
// src/storage/ducklake_multi_file_reader.cpp sets each column's identifier
// to its source name and maps BY_NAME).
func (n *pnode) childByName(name string) *pnode {
	if n.byName != nil {
		if i, ok := n.byName[formats.ASCIILower(name)]; ok {
			return n.Children[i]
		}
		return nil
	}
	for _, c := range n.Children {
		if formats.NamesEqual(c.readAs, name) {
			return c
		}
	}
	return nil
}

// allFieldIDs reports whether every top-level column of the file has a
// field id (and there is one): DuckLake 1.0+ maps such a file by field id
// and any other by position (ColumnsHaveFieldIds in
// src/storage/ducklake_multi_file_reader.cpp, v1.5-variegata from
// 1dcdba8f, first in 415a9ebd, DuckDB 1.5.2).
func (n *pnode) allFieldIDs() bool {
	for _, c := range n.Children {
		if c.FieldID == nil {
			return false
		}
	}
	return len(n.Children) > 0
}

// childByLeadingID finds the child with a field id among the children
// before the first one without: DuckDB's FieldIdMapper (multi-file column
// mapping) stops at the first column without a field id ("extra columns at
// the end will not have a field_id"), so no later column matches.
func (n *pnode) childByLeadingID(id int64) *pnode {
	if n.byID != nil {
		if i, ok := n.byID[id]; ok && i < n.leadingIDs {
			return n.Children[i]
		}
		return nil
	}
	for _, c := range n.Children {
		if c.FieldID == nil {
			return nil
		}
		if *c.FieldID == id {
			return c
		}
	}
	return nil
}

// matcher finds, for an expected column, the physical node that holds it
// below a physical parent: by field id, or through a name mapping.
type matcher interface {
	match(parent *pnode, c *Column, m *mapEntry) (*pnode, *mapEntry)
}

type byFieldID struct{}

func (byFieldID) match(parent *pnode, c *Column, _ *mapEntry) (*pnode, *mapEntry) {
	return parent.childByID(c.ID), nil
}

type byMapping struct{}

func (byMapping) match(parent *pnode, c *Column, m *mapEntry) (*pnode, *mapEntry) {
	e := m.childFor(c.ID)
	if e == nil {
		return nil, nil
	}
	if parent.Kind == "list" {
		return parent.Children[0], e
	}
	return parent.childByName(e.source), e
}

// valueExpr converts the physical value e (read with phys's own type) to the
// expected column's type, recursing into nested fields so that renamed,
// added, dropped and promoted fields follow the catalog.
func valueExpr(e string, phys *pnode, c *Column, mt matcher, m *mapEntry, depth int) (string, error) {
	dt, err := c.DuckType()
	if err != nil {
		return "", err
	}
	if !c.nested() || phys.Kind == "leaf" {
		if phys.Kind != "leaf" && !c.nested() {
			return "", fmt.Errorf("column %s (id %d) is %s in the catalog but nested in the file", c.Name, c.ID, c.Type)
		}
		return "CAST(" + e + " AS " + dt + ")", nil
	}
	v := fmt.Sprintf("x%d", depth)
	switch formats.ASCIILower(c.Type) {
	case "struct":
		if phys.Kind != "struct" {
			return "", fmt.Errorf("column %s (id %d) is a struct in the catalog, %s in the file", c.Name, c.ID, phys.Kind)
		}
		if depth == 0 && c.quirks&formats.QuirkStructWithoutFileFieldsNotNull != 0 && !mapsAnyField(phys, c, mt, m) {
			return defaultsStruct(phys, c, mt, m)
		}
		fields := make([]string, 0, len(c.Children))
		for _, ch := range c.Children {
			pc, me := mt.match(phys, ch, m)
			var fe string
			if pc == nil {
				if fe, err = ch.defaultExpr(); err != nil {
					return "", err
				}
			} else if fe, err = valueExpr(e+"."+ident(phys.readName(pc)), pc, ch, mt, me, depth+1); err != nil {
				return "", err
			}
			fields = append(fields, ident(ch.Name)+" := "+fe)
		}
		return fmt.Sprintf("CASE WHEN %s IS NULL THEN NULL ELSE struct_pack(%s) END", e, strings.Join(fields, ", ")), nil
	case "list":
		if phys.Kind != "list" {
			return "", fmt.Errorf("column %s (id %d) is a list in the catalog, %s in the file", c.Name, c.ID, phys.Kind)
		}
		el := c.Children[0]
		pe := phys.Children[0]
		var me *mapEntry
		if m != nil && len(m.children) > 0 {
			me = m.children[0]
		}
		inner, err := valueExpr(v, pe, el, mt, me, depth+1)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("CAST(list_transform(%s, lambda %s: %s) AS %s)", e, v, inner, dt), nil
	case "map":
		if phys.Kind != "map" {
			return "", fmt.Errorf("column %s (id %d) is a map in the catalog, %s in the file", c.Name, c.ID, phys.Kind)
		}
		var kme, vme *mapEntry
		if m != nil {
			for _, ch := range m.children {
				switch ch.target {
				case c.Children[0].ID:
					kme = ch
				case c.Children[1].ID:
					vme = ch
				}
			}
		}
		k, err := valueExpr(v+".key", phys.Children[0], c.Children[0], mt, kme, depth+1)
		if err != nil {
			return "", err
		}
		val, err := valueExpr(v+".value", phys.Children[1], c.Children[1], mt, vme, depth+1)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("CASE WHEN %[1]s IS NULL THEN NULL ELSE CAST(map_from_entries(list_transform(map_entries(%[1]s), lambda %[2]s: {'key': %[3]s, 'value': %[4]s})) AS %[5]s) END", e, v, k, val, dt), nil
	}
	return "", fmt.Errorf("column %s: unexpected type %s", c.Name, c.Type)
}
