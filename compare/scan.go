package compare

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
)

// Reserved field ids of DuckLake's internal columns in data files (§5.4).
const (
	rowIDFieldID    = 2147483540
	snapshotFieldID = 2147483539
)

// RowIDColumn is the name of the row-id column Scan adds when asked.
const RowIDColumn = "__fdl_row_id"

// ScanOptions tune the SQL a scan produces.
type ScanOptions struct {
	// RowIDs adds the row id (§5.7) as a last column named RowIDColumn.
	RowIDs bool
}

// Part is the SQL of one source of a table's rows at a snapshot: one data
// file (with its deletes applied) or the table's inlined rows. Digests are
// built per part so that they can be cached per file.
type Part struct {
	Kind   string // "file" or "inlined"
	FileID int64
	Path   string
	SQL    string
}

// Scan builds the SQL that returns a table's rows at a snapshot, one part
// per data file plus the inlined rows. Every part yields the table's columns
// (names and types as at snap) in column order.
func (r *Reader) Scan(ctx context.Context, t Table, snap int64, opts ScanOptions) ([]Part, error) {
	cols, err := r.Columns(ctx, t.ID, snap)
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%s in %s at snapshot %d has no columns", t.FullName(), r.path, snap)
	}
	files, err := r.Files(ctx, t, snap)
	if err != nil {
		return nil, err
	}
	var parts []Part
	for _, f := range files {
		q, err := r.fileSQL(ctx, t, f, cols, snap, opts)
		if err != nil {
			return nil, fmt.Errorf("%s at snapshot %d, data file %s: %w", t.FullName(), snap, f.Path, err)
		}
		parts = append(parts, Part{Kind: "file", FileID: f.ID, Path: f.Path, SQL: q})
	}
	inl, err := r.inlinedSQL(ctx, t, cols, snap, opts)
	if err != nil {
		return nil, fmt.Errorf("%s at snapshot %d, inlined data: %w", t.FullName(), snap, err)
	}
	parts = append(parts, inl...)
	return parts, nil
}

// Query is the whole table at a snapshot as one SQL statement.
func (r *Reader) Query(ctx context.Context, t Table, snap int64, opts ScanOptions) (string, error) {
	parts, err := r.Scan(ctx, t, snap, opts)
	if err != nil {
		return "", err
	}
	if len(parts) == 0 {
		return r.emptySQL(ctx, t, snap, opts)
	}
	qs := make([]string, len(parts))
	for i, p := range parts {
		qs[i] = "(" + p.SQL + ")"
	}
	return strings.Join(qs, "\nUNION ALL BY NAME\n"), nil
}

// emptySQL is a typed query with no rows, for tables without data.
func (r *Reader) emptySQL(ctx context.Context, t Table, snap int64, opts ScanOptions) (string, error) {
	cols, err := r.Columns(ctx, t.ID, snap)
	if err != nil {
		return "", err
	}
	sel := make([]string, 0, len(cols)+1)
	for _, c := range cols {
		dt, err := c.DuckType()
		if err != nil {
			return "", fmt.Errorf("%s: %w", t.FullName(), err)
		}
		sel = append(sel, "CAST(NULL AS "+dt+") AS "+ident(c.Name))
	}
	if opts.RowIDs {
		sel = append(sel, "CAST(NULL AS BIGINT) AS "+RowIDColumn)
	}
	return "SELECT " + strings.Join(sel, ", ") + " WHERE false", nil
}

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
// files: DuckDB's parquet_schema cannot decrypt).
func (r *Reader) parquetSchema(ctx context.Context, path string) (*pnode, error) {
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT name, field_id, num_children, repetition_type, converted_type, logical_type::VARCHAR, duckdb_type FROM parquet_schema(%s)`, sqlString(path)))
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
		for k := int64(0); k < s.nChildren.Int64; k++ {
			c, err := build()
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, c)
		}
		n.repeated = s.repeat.String == "REPEATED"
		n.annot = strings.ToUpper(s.converted.String + " " + s.logical.String)
		return n, nil
	}
	root, err := build()
	if err != nil {
		return nil, err
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
		n.Kind, n.Children = "list", []*pnode{el}
	case strings.Contains(n.annot, "MAP") && len(n.Children) == 1 && len(n.Children[0].Children) == 2:
		kv := n.Children[0]
		fold(kv.Children[0])
		fold(kv.Children[1])
		n.Kind, n.Children = "map", kv.Children
	case len(n.Children) == 0:
		n.Kind = "leaf"
		if n.repeated {
			// A bare repeated primitive is a list of that primitive.
			el := &pnode{Name: "element", Kind: "leaf", DuckType: n.DuckType}
			n.Kind, n.Children = "list", []*pnode{el}
		}
	default:
		for _, c := range n.Children {
			fold(c)
		}
		n.Kind = "struct"
		if n.repeated {
			el := &pnode{Name: n.Name, Kind: "struct", Children: n.Children}
			n.Kind, n.Children = "list", []*pnode{el}
		}
	}
}

// physType is the DuckDB type of a physical node, keeping the file's names.
func (n *pnode) physType() string {
	switch n.Kind {
	case "struct":
		parts := make([]string, len(n.Children))
		for i, c := range n.Children {
			parts[i] = ident(c.Name) + " " + c.physType()
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

// childByID finds the physical child with a field id.
func (n *pnode) childByID(id int64) *pnode {
	for _, c := range n.Children {
		if c.FieldID != nil && *c.FieldID == id {
			return c
		}
	}
	return nil
}

func (n *pnode) childByName(name string) *pnode {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	for _, c := range n.Children {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

func (n *pnode) hasFieldIDs() bool {
	for _, c := range n.Children {
		if c.FieldID != nil {
			return true
		}
	}
	return false
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
	if m == nil {
		return nil, nil
	}
	for _, e := range m.children {
		if e.target == c.ID {
			if parent.Kind == "list" {
				return parent.Children[0], e
			}
			return parent.childByName(e.source), e
		}
	}
	return nil, nil
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
	switch strings.ToLower(c.Type) {
	case "struct":
		if phys.Kind != "struct" {
			return "", fmt.Errorf("column %s (id %d) is a struct in the catalog, %s in the file", c.Name, c.ID, phys.Kind)
		}
		fields := make([]string, 0, len(c.Children))
		for _, ch := range c.Children {
			pc, me := mt.match(phys, ch, m)
			var fe string
			if pc == nil {
				if fe, err = ch.defaultExpr(); err != nil {
					return "", err
				}
			} else if fe, err = valueExpr(e+"."+ident(pc.Name), pc, ch, mt, me, depth+1); err != nil {
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

// fileSQL builds the query of one data file at a snapshot (§5.4–5.7).
func (r *Reader) fileSQL(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions) (string, error) {
	if err := checkExists(f.Path); err != nil {
		return "", err
	}
	kp, err := r.keyParam(ctx, f.encryptionKey)
	if err != nil {
		return "", err
	}
	var root *pnode
	if kp == "" {
		if root, err = r.parquetSchema(ctx, f.Path); err != nil {
			return "", err
		}
	} else if err := r.checkEncryptedNested(ctx, t, cols); err != nil {
		return "", err
	}
	var sel []string
	var from string
	var snapCol, rowCol string
	switch {
	case f.MappingID != nil:
		mapping, err := r.nameMapping(ctx, *f.MappingID)
		if err != nil {
			return "", err
		}
		if root == nil {
			return "", &UnsupportedError{What: "encrypted file with a name mapping"}
		}
		from = fmt.Sprintf("read_parquet(%s, file_row_number = true, hive_partitioning = false%s)", sqlString(f.Path), kp)
		for _, c := range cols {
			pc, me := byMapping{}.match(root, c, mapping)
			var e string
			switch {
			case me != nil && me.isPartition:
				e, err = hiveValue(f.Path, me.source, c)
			case pc == nil:
				e, err = c.defaultExpr()
			default:
				e, err = valueExpr(ident(pc.Name), pc, c, byMapping{}, me, 0)
			}
			if err != nil {
				return "", err
			}
			sel = append(sel, e+" AS "+ident(c.Name))
		}
		if root.childByName("_ducklake_internal_row_id") != nil {
			rowCol = ident("_ducklake_internal_row_id")
		}
		if root.childByName("_ducklake_internal_snapshot_id") != nil {
			snapCol = ident("_ducklake_internal_snapshot_id")
		}
	case root != nil && !root.hasFieldIDs():
		// Reader leniency: no field ids and no mapping -> by position.
		from = fmt.Sprintf("read_parquet(%s, file_row_number = true%s)", sqlString(f.Path), kp)
		for i, c := range cols {
			var e string
			if i < len(root.Children) {
				e, err = valueExpr(ident(root.Children[i].Name), root.Children[i], c, byFieldID{}, nil, 0)
			} else {
				e, err = c.defaultExpr()
			}
			if err != nil {
				return "", err
			}
			sel = append(sel, e+" AS "+ident(c.Name))
		}
	default:
		// Field ids: DuckDB maps them to names, types and defaults through
		// read_parquet's schema parameter; nested columns are read with the
		// file's own shape and rebuilt field by field by valueExpr.
		var entries []string
		for _, c := range cols {
			dt, err := c.DuckType()
			if err != nil {
				return "", err
			}
			name := fmt.Sprintf("c%d", c.ID)
			var pc *pnode
			if root != nil {
				pc = root.childByID(c.ID)
			}
			typ := dt
			if pc != nil && c.nested() {
				typ = pc.physType()
			}
			def := "NULL"
			if c.InitialDefault != nil && pc == nil {
				def = sqlString(*c.InitialDefault)
			}
			entries = append(entries, fmt.Sprintf("%d: {name: %s, type: %s, default_value: %s}", c.ID, sqlString(name), sqlString(typ), def))
			e := ident(name)
			if pc != nil && c.nested() {
				if e, err = valueExpr(e, pc, c, byFieldID{}, nil, 0); err != nil {
					return "", err
				}
			} else if pc == nil && root != nil {
				if e, err = c.defaultExpr(); err != nil {
					return "", err
				}
			}
			sel = append(sel, e+" AS "+ident(c.Name))
		}
		entries = append(entries,
			fmt.Sprintf("%d: {name: '__fdl_rid', type: 'BIGINT', default_value: NULL}", rowIDFieldID),
			fmt.Sprintf("%d: {name: '__fdl_snap', type: 'BIGINT', default_value: NULL}", snapshotFieldID))
		from = fmt.Sprintf("read_parquet(%s, schema = MAP {%s}, file_row_number = true%s)", sqlString(f.Path), strings.Join(entries, ", "), kp)
		rowCol, snapCol = "__fdl_rid", "__fdl_snap"
	}
	if opts.RowIDs {
		start := "NULL"
		if f.RowIDStart != nil {
			start = fmt.Sprintf("%d", *f.RowIDStart)
		}
		e := fmt.Sprintf("CAST(%s + file_row_number AS BIGINT)", start)
		if rowCol != "" {
			e = fmt.Sprintf("COALESCE(%s, %s)", rowCol, e)
		}
		sel = append(sel, e+" AS "+RowIDColumn)
	}
	var where []string
	switch {
	case f.PartialMax != nil && *f.PartialMax > snap:
		if snapCol == "" {
			return "", fmt.Errorf("partial file (partial_max %d) has no _ducklake_internal_snapshot_id column", *f.PartialMax)
		}
		where = append(where, fmt.Sprintf("%s <= %d", snapCol, snap))
	case f.PartialInfo != nil && *f.PartialInfo != "":
		info := *f.PartialInfo
		if rest, ok := strings.CutPrefix(info, "partial_max:"); ok {
			var n int64
			if _, err := fmt.Sscan(rest, &n); err != nil {
				return "", fmt.Errorf("bad partial_file_info %q", info)
			}
			if n > snap {
				if snapCol == "" {
					return "", fmt.Errorf("partial file (%s) has no _ducklake_internal_snapshot_id column", info)
				}
				where = append(where, fmt.Sprintf("%s <= %d", snapCol, snap))
			}
		} else {
			limit, _, err := splitLimit(info, snap)
			if err != nil {
				return "", err
			}
			where = append(where, fmt.Sprintf("file_row_number < %d", limit))
		}
	}
	deleted, err := r.DeletedPositions(ctx, t, f, snap)
	if err != nil {
		return "", err
	}
	if len(deleted) > 0 {
		set, err := r.positionSet(ctx, deleted)
		if err != nil {
			return "", err
		}
		where = append(where, "file_row_number NOT IN ("+set+")")
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + from
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return q, nil
}

// positionSet returns a subquery yielding the positions: a literal list
// when short, else a temporary table named after the positions' hash (so
// the part's SQL still determines its rows, and digests can be reused).
func (r *Reader) positionSet(ctx context.Context, pos []int64) (string, error) {
	if len(pos) <= r.maxInlinePositions {
		return "SELECT unnest(" + int64List(pos) + "::BIGINT[])", nil
	}
	h := sha256.New()
	for _, p := range pos {
		fmt.Fprintf(h, "%d,", p)
	}
	name := "fdl_del_" + hex.EncodeToString(h.Sum(nil))[:24]
	if !r.tempTables[name] {
		if _, err := r.conn.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS "+name+" AS SELECT unnest(?::BIGINT[]) AS pos", pos); err != nil {
			return "", fmt.Errorf("stage %d deleted positions: %w", len(pos), err)
		}
		r.tempTables[name] = true
	}
	return "SELECT pos FROM " + name, nil
}

func int64List(v []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", x)
	}
	b.WriteByte(']')
	return b.String()
}

// hiveValue takes a partition column's value from the Hive path segment
// name=value of a data file path (§5.4, is_partition).
func hiveValue(path, name string, c *Column) (string, error) {
	dt, err := c.DuckType()
	if err != nil {
		return "", err
	}
	for _, seg := range strings.Split(path, "/") {
		k, v, ok := strings.Cut(seg, "=")
		if ok && k == name {
			if v == "__HIVE_DEFAULT_PARTITION__" {
				return "CAST(NULL AS " + dt + ")", nil
			}
			return "CAST(url_decode(" + sqlString(v) + ") AS " + dt + ")", nil
		}
	}
	return "", fmt.Errorf("partition column %s: no %s=... segment in %s", c.Name, name, path)
}

// mapEntry is one node of a name mapping (§5.4).
type mapEntry struct {
	id          int64
	source      string
	target      int64
	isPartition bool
	children    []*mapEntry
}

// nameMapping loads a mapping as a tree under a synthetic root.
func (r *Reader) nameMapping(ctx context.Context, mappingID int64) (*mapEntry, error) {
	var kind sql.NullString
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT type FROM cat.ducklake_column_mapping WHERE mapping_id = %d`, mappingID)).Scan(&kind); err != nil {
		return nil, fmt.Errorf("read column mapping %d: %w", mappingID, err)
	}
	if kind.String != "map_by_name" {
		return nil, &UnsupportedError{What: fmt.Sprintf("column mapping %d of type %q", mappingID, kind.String)}
	}
	q := fmt.Sprintf(`SELECT column_id, source_name, target_field_id, parent_column, %s
		FROM cat.ducklake_name_mapping n WHERE mapping_id = %d ORDER BY parent_column NULLS FIRST, column_id`,
		r.col("ducklake_name_mapping", "n", "is_partition"), mappingID)
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read name mapping %d: %w", mappingID, err)
	}
	defer rows.Close()
	root := &mapEntry{id: -1}
	byID := map[int64]*mapEntry{}
	type kid struct {
		e      *mapEntry
		parent int64
	}
	var kids []kid
	for rows.Next() {
		e := &mapEntry{}
		var parent sql.NullInt64
		var part sql.NullBool
		if err := rows.Scan(&e.id, &e.source, &e.target, &parent, &part); err != nil {
			return nil, err
		}
		e.isPartition = part.Valid && part.Bool
		byID[e.id] = e
		if parent.Valid {
			kids = append(kids, kid{e, parent.Int64})
		} else {
			root.children = append(root.children, e)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, k := range kids {
		p, ok := byID[k.parent]
		if !ok {
			return nil, fmt.Errorf("name mapping %d: entry %d has unknown parent %d", mappingID, k.e.id, k.parent)
		}
		p.children = append(p.children, k.e)
	}
	return root, nil
}

// inlinedSQL builds the queries over the table's inlined data tables (§5.8).
func (r *Reader) inlinedSQL(ctx context.Context, t Table, cols []*Column, snap int64, opts ScanOptions) ([]Part, error) {
	if _, ok := r.layout["ducklake_inlined_data_tables"]; !ok {
		return nil, nil
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT table_name, schema_version FROM cat.ducklake_inlined_data_tables WHERE table_id = %d ORDER BY schema_version`, t.ID))
	if err != nil {
		return nil, fmt.Errorf("list inlined data tables: %w", err)
	}
	type reg struct {
		name string
		sv   int64
	}
	var regs []reg
	for rows.Next() {
		var g reg
		if err := rows.Scan(&g.name, &g.sv); err != nil {
			rows.Close()
			return nil, err
		}
		regs = append(regs, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var parts []Part
	for _, g := range regs {
		phys, ok := r.dynamic[g.name]
		if !ok {
			continue // registered but dropped
		}
		if len(phys) < 3 {
			return nil, fmt.Errorf("inlined table %s has %d columns", g.name, len(phys))
		}
		asOf, err := r.schemaVersionSnapshot(ctx, t, g.sv)
		if err != nil {
			return nil, err
		}
		then, err := r.columnsAt(ctx, t.ID, asOf, false)
		if err != nil {
			return nil, err
		}
		byName := map[string]*Column{}
		for _, c := range then {
			byName[c.Name] = c
		}
		// Inlined columns carry the names and shapes of that schema version;
		// their field ids come from the columns as they were then.
		physByID := map[int64]*pnode{}
		for _, p := range phys[3:] {
			if c, ok := byName[p]; ok {
				physByID[c.ID] = columnNode(c)
			}
		}
		var sel []string
		for _, c := range cols {
			var e string
			if p, ok := physByID[c.ID]; ok {
				e, err = valueExpr(ident(p.Name), p, c, byFieldID{}, nil, 0)
			} else {
				e, err = c.defaultExpr()
			}
			if err != nil {
				return nil, fmt.Errorf("inlined table %s: %w", g.name, err)
			}
			sel = append(sel, e+" AS "+ident(c.Name))
		}
		// The first three columns are the system columns, whatever their
		// names (unprefixed up to 1.0, _ducklake_-prefixed in 1.1).
		rid, begin, end := ident(phys[0]), ident(phys[1]), ident(phys[2])
		if opts.RowIDs {
			sel = append(sel, rid+" AS "+RowIDColumn)
		}
		q := fmt.Sprintf("SELECT %s FROM cat.%s WHERE %d >= %s AND (%d < %s OR %s IS NULL)",
			strings.Join(sel, ", "), ident(g.name), snap, begin, snap, end, end)
		parts = append(parts, Part{Kind: "inlined", Path: g.name, SQL: q})
	}
	return parts, nil
}

// checkEncryptedNested refuses what this reader cannot do right: DuckDB's
// parquet_schema cannot open encrypted files, so their nested fields are
// matched by name, which is wrong once a nested field was renamed.
func (r *Reader) checkEncryptedNested(ctx context.Context, t Table, cols []*Column) error {
	var ids []string
	var walk func(cs []*Column, nested bool)
	walk = func(cs []*Column, nested bool) {
		for _, c := range cs {
			if nested {
				ids = append(ids, fmt.Sprint(c.ID))
			}
			walk(c.Children, true)
		}
	}
	walk(cols, false)
	if len(ids) == 0 {
		return nil
	}
	renamed, err := r.strings(ctx, fmt.Sprintf(`SELECT any_value(column_name) FROM cat.ducklake_column WHERE table_id = %d AND column_id IN (%s)
		GROUP BY column_id HAVING count(DISTINCT column_name) > 1`, t.ID, strings.Join(ids, ", ")))
	if err != nil {
		return fmt.Errorf("read column history of %s: %w", t.FullName(), err)
	}
	if len(renamed) > 0 {
		return &UnsupportedError{What: fmt.Sprintf("encrypted data files of %s with renamed nested fields (%s)", t.FullName(), strings.Join(renamed, ", "))}
	}
	return nil
}

// columnNode describes a column as stored at some schema version, as if it
// were a Parquet node carrying its field ids.
func columnNode(c *Column) *pnode {
	n := &pnode{Name: c.Name, FieldID: &c.ID, Kind: "leaf"}
	switch strings.ToLower(c.Type) {
	case "struct", "list", "map":
		n.Kind = strings.ToLower(c.Type)
		for _, ch := range c.Children {
			n.Children = append(n.Children, columnNode(ch))
		}
	default:
		n.DuckType, _ = c.DuckType()
	}
	return n
}

// schemaVersionSnapshot finds a snapshot at which a table had a given
// schema version: ducklake_schema_versions when it names it, else the first
// snapshot with that schema version, else the latest before it.
func (r *Reader) schemaVersionSnapshot(ctx context.Context, t Table, sv int64) (int64, error) {
	if _, ok := r.layout["ducklake_schema_versions"]; ok {
		q := fmt.Sprintf(`SELECT min(begin_snapshot) FROM cat.ducklake_schema_versions s WHERE schema_version = %d`, sv)
		if r.has("ducklake_schema_versions", "table_id") {
			q += fmt.Sprintf(" AND (table_id = %d OR table_id IS NULL)", t.ID)
		}
		var s sql.NullInt64
		if err := r.conn.QueryRowContext(ctx, q).Scan(&s); err != nil {
			return 0, err
		}
		if s.Valid {
			return s.Int64, nil
		}
	}
	var s sql.NullInt64
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT min(snapshot_id) FROM cat.ducklake_snapshot WHERE schema_version = %d`, sv)).Scan(&s); err != nil {
		return 0, err
	}
	if s.Valid {
		return s.Int64, nil
	}
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT max(snapshot_id) FROM cat.ducklake_snapshot WHERE schema_version < %d`, sv)).Scan(&s); err != nil {
		return 0, err
	}
	if s.Valid && s.Int64 >= t.BeginSnapshot {
		return s.Int64, nil
	}
	return t.BeginSnapshot, nil
}

// Rows runs the query of a table ("schema.table") at a snapshot on the
// reader's connection. Close the rows before using the reader again.
func (r *Reader) Rows(ctx context.Context, table string, snap int64, opts ScanOptions) (*sql.Rows, error) {
	t, err := r.Table(ctx, table, snap)
	if err != nil {
		return nil, err
	}
	q, err := r.Query(ctx, t, snap, opts)
	if err != nil {
		return nil, err
	}
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read %s at snapshot %d of %s: %w", table, snap, r.path, err)
	}
	return rows, nil
}
