package compare

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// inlinedSQL builds the queries over the table's inlined data tables (§5.8)
// as the real reader of the catalog's format reads them: each with the
// table's columns as of the snapshot that reader looks up for its schema
// version (inlinedSchemaSnapshot), user and system columns taken by name.
// A column of that schema the inlined table lacks is what the real reader
// fails on (a binder error), one it holds with another type is what it
// misreads when rows are visible (inlinedReadColumns): an UnreadableError.
func (r *Reader) inlinedSQL(ctx context.Context, t Table, cols []*Column, snap int64, opts ScanOptions) ([]Part, error) {
	srcs, err := r.inlinedSources(ctx, t)
	if err != nil {
		return nil, err
	}
	var parts []Part
	for _, src := range srcs {
		if src.unreadable != nil {
			return nil, src.unreadable
		}
		g, phys, sys := src.reg, src.phys, src.sys
		asOf, err := r.inlinedSchemaSnapshot(ctx, t, g.sv, snap)
		if err != nil {
			return nil, err
		}
		then, none, err := r.inlinedReadColumns(ctx, t, src, asOf, snap)
		if err != nil {
			return nil, err
		}
		if none {
			continue // no row visible at snap: the reader reads nothing
		}
		sel, err := inlinedSelect(g.name, phys, then, cols)
		if err != nil {
			return nil, err
		}
		if opts.RowIDs {
			sel = append(sel, sys[0]+" AS "+RowIDColumn)
		}
		q := fmt.Sprintf("SELECT %s FROM cat.%s WHERE %s", strings.Join(sel, ", "), ident(g.name), inlinedVisible(sys, snap))
		parts = append(parts, Part{Kind: "inlined", Path: g.name, SQL: q})
	}
	return parts, nil
}

// inlinedSelect is the select list reading inlined table name, whose
// columns are phys, as columns cols: inlined columns carry the names of
// the schema read (then); their field ids come from the columns as they
// were then, and a column of cols none of them has reads its default.
func inlinedSelect(name string, phys []string, then, cols []*Column) ([]string, error) {
	byName := map[string]int{} // ASCII-lowered name -> position (DuckDB binds names in ASCII letter case only)
	for i, p := range phys {
		byName[formats.ASCIILower(p)] = i
	}
	physByID := map[int64]*pnode{}
	for _, c := range then {
		n := columnNode(c)
		n.Name = phys[byName[formats.ASCIILower(c.Name)]]
		physByID[c.ID] = n
	}
	var sel []string
	for _, c := range cols {
		var e string
		var err error
		if p, ok := physByID[c.ID]; ok {
			e, err = valueExpr(ident(p.Name), p, c, byFieldID{}, nil, 0)
		} else {
			e, err = c.defaultExpr()
		}
		if err != nil {
			return nil, fmt.Errorf("inlined table %s: %w", name, err)
		}
		sel = append(sel, e+" AS "+ident(c.Name))
	}
	return sel, nil
}

// inlinedSource is one registered inlined data table of a table, as the
// real reader finds it: its registration (with the table's name as the
// catalog spells it), its columns and its system columns (row id, begin
// and end snapshot, quoted), or why that reader cannot read it.
type inlinedSource struct {
	reg        inlinedReg
	phys       []string
	sys        [3]string
	unreadable error // an *UnreadableError
}

// inlinedSources lists a table's registered inlined data tables
// (inlinedTables) as inlinedSQL and inlinedBegins read them: a
// registration naming no table of the catalog, or a table without one of
// the format's system columns, is unreadable for the real reader.
func (r *Reader) inlinedSources(ctx context.Context, t Table) ([]inlinedSource, error) {
	if r.empty("ducklake_inlined_data_tables") {
		return nil, nil // absent, or without registrations
	}
	regs, err := r.inlinedTables(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	out := make([]inlinedSource, 0, len(regs))
	for _, g := range regs {
		name, ok := r.dynamicName(g.name)
		if !ok {
			out = append(out, inlinedSource{reg: g, unreadable: r.refused(refusedInlinedMissing, t, "inlined data table %s (schema version %d) is registered in ducklake_inlined_data_tables but is not a table of the catalog", g.name, g.sv)})
			continue
		}
		g.name = name
		src := inlinedSource{reg: g, phys: r.dynamic[name]}
		var missing string
		if src.sys, missing = r.inlinedSystemColumns(src.phys); missing != "" {
			src.unreadable = &UnreadableError{Format: r.format.Name, Quirk: inlinedColumnMissing, Table: t.FullName(),
				Detail: fmt.Sprintf("inlined table %s has no system column %s (its columns: %s)", g.name, missing, strings.Join(src.phys, ", "))}
		}
		out = append(out, src)
	}
	return out, nil
}

// inlinedVisible is the condition on an inlined table's rows (sys: its
// system columns, quoted) visible at snap.
func inlinedVisible(sys [3]string, snap int64) string {
	return fmt.Sprintf("%d >= %s AND (%d < %s OR %s IS NULL)", snap, sys[1], snap, sys[2], sys[2])
}

// inlinedColumnMissing is what every DuckLake reader does with an inlined
// data table that lacks a column it asks for by name: it fails.
var inlinedColumnMissing = formats.QuirkInfo{Name: "inlined-column-missing", Family: "inlined data",
	Behaviour: "the reader selects the inlined table's system columns (row_id, begin_snapshot, end_snapshot; _ducklake_-prefixed in 1.1) and the user columns of the schema it reads by name, and fails when one is missing (even without rows); a column stored with another type binds, and its visible rows are copied into vectors of the schema's type without a cast (wrong values or a crash; none visible: nothing read, no error)",
	Source:    "DuckLakeInlinedDataReader::TryInitializeScan and ::Scan, DuckLakeMetadataManager::ReadInlinedData and TransformInlinedData (a ColumnDataCollection of the stored types; src/storage/ducklake_inlined_data_reader.cpp, ducklake_metadata_manager.cpp), every release branch; DuckDB's ColumnDataCollection::Scan checks the types only by D_ASSERT (debug builds)",
	Error:     "Binder Error"}

// inlinedSystemNames are the system columns of an inlined data table as
// the format's readers name them in their queries.
func (r *Reader) inlinedSystemNames() (rowID, begin, end string) {
	if r.format.Has(formats.CapPrefixedInlinedColumns) {
		return "_ducklake_row_id", "_ducklake_begin_snapshot", "_ducklake_end_snapshot"
	}
	return "row_id", "begin_snapshot", "end_snapshot"
}

// inlinedSystemColumns finds the row id, begin_snapshot and end_snapshot
// columns (inlinedSystemNames) among an inlined table's columns phys, by
// name as DuckDB binds them (in ASCII letter case only: a column
// "begin_ſnapshot", with the long s, is another one), and returns them
// quoted for SQL. missing names the first one phys lacks
// ("" when it has all three): the real reader's read fails on it.
func (r *Reader) inlinedSystemColumns(phys []string) (sys [3]string, missing string) {
	rowID, begin, end := r.inlinedSystemNames()
	for i, n := range []string{rowID, begin, end} {
		for _, p := range phys {
			if formats.NamesEqual(p, n) {
				sys[i] = ident(p)
			}
		}
		if sys[i] == "" {
			return [3]string{}, n
		}
	}
	return sys, ""
}

// inlinedReadColumns is the table's columns as of asOf, the schema the real
// reader reads inlined table src with at snap, after checking that src
// holds each of them by name and with its type. A column it lacks is an
// UnreadableError whatever src holds: the reader's SELECT names it and
// fails to bind. A column stored with another type binds (the reader
// selects by name), and the reader builds its rows from the stored types
// (TransformInlinedData) but copies them into vectors of the schema's
// types without a cast (ColumnDataCollection::Scan checks the types only
// in a debug build's D_ASSERT): no rows visible at snap read nothing, no
// error (none is true); visible rows are read as garbage or crash the
// reader, an UnreadableError naming the column and the rows. The columns'
// check is done once per inlined table and snapshot of the schema, the
// visible rows once per snapshot read.
func (r *Reader) inlinedReadColumns(ctx context.Context, t Table, src inlinedSource, asOf, snap int64) (then []*Column, none bool, err error) {
	g := src.reg
	then, c, exists, err := r.inlinedSchemaAt(ctx, t, g, asOf)
	if err != nil {
		return nil, false, err
	}
	if !exists {
		q := formats.QuirkInlinedAtSnapshotZero.Info()
		if !r.readsWith(formats.QuirkInlinedAtSnapshotZero) {
			q = inlinedColumnMissing
		}
		return nil, false, &UnreadableError{Format: r.format.Name, Quirk: q, Table: t.FullName(),
			Detail: fmt.Sprintf("inlined table %s (schema version %d) is read with the table as of snapshot %d, where it does not exist", g.name, g.sv, asOf)}
	}
	if c.missing != "" {
		return nil, false, r.inlinedMisread(t, g, asOf, c.missing, true)
	}
	if c.retyped == "" {
		return then, false, nil
	}
	vkey := fmt.Sprintf("%s@%d", g.name, snap)
	n, ok := r.inl.visible[vkey]
	if !ok {
		if err := r.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM cat.%s WHERE %s", ident(g.name), inlinedVisible(src.sys, snap))).Scan(&n); err != nil {
			return nil, false, fmt.Errorf("count the rows of %s of %s visible at snapshot %d in %s: %w", g.name, t.Shown(), snap, oneline.Name(r.path), err)
		}
		r.inl.visible[vkey] = n
	}
	if n == 0 {
		return nil, true, nil
	}
	return nil, false, r.inlinedMisread(t, g, asOf, c.retyped+", and rows of it are visible at the snapshot read: the reader copies their stored values into vectors of the type read without a cast (wrong values, or a crash; no error)", false)
}

// inlinedSchemaAt is table t's columns as of asOf, the schema a reader
// reads inlined table g with, and what g holds of them
// (inlinedColumnsCheck, once per inlined table and asOf); exists is false
// where t is not there at asOf.
func (r *Reader) inlinedSchemaAt(ctx context.Context, t Table, g inlinedReg, asOf int64) (then []*Column, c inlinedColumns, exists bool, err error) {
	if exists, err = r.tableExistsAt(ctx, t.ID, asOf); err != nil || !exists {
		return nil, c, exists, err
	}
	if then, err = r.columnsAt(ctx, t.ID, asOf, false); err != nil {
		return nil, c, true, err
	}
	key := fmt.Sprintf("%s@%d", g.name, asOf)
	c, ok := r.inl.checked[key]
	if !ok {
		if c, err = r.inlinedColumnsCheck(ctx, t, g, asOf, then); err != nil {
			return nil, c, true, err
		}
		r.inl.checked[key] = c
	}
	return then, c, true, nil
}

// inlinedColumns is what inlinedReadColumns found comparing an inlined
// table's columns with a schema: the first column of the schema it lacks
// (missing) or, else, holds with another type (retyped); "" for none.
type inlinedColumns struct {
	missing, retyped string
}

// inlinedColumnsCheck compares inlined table g's stored columns with the
// table's columns then, as of snapshot asOf.
func (r *Reader) inlinedColumnsCheck(ctx context.Context, t Table, g inlinedReg, asOf int64, then []*Column) (inlinedColumns, error) {
	types, err := r.inlinedTypes(ctx, g.name)
	if err != nil {
		return inlinedColumns{}, err
	}
	var decl, stored, names []string
	for _, c := range then {
		st, ok := types[formats.ASCIILower(c.Name)]
		if !ok {
			return inlinedColumns{missing: fmt.Sprintf("column %s (id %d) is not in it", c.Name, c.ID)}, nil
		}
		dt, err := c.DuckType()
		if err != nil {
			return inlinedColumns{}, err
		}
		decl, stored, names = append(decl, "typeof(NULL::"+dt+")"), append(stored, st), append(names, c.Name)
	}
	if len(decl) == 0 {
		return inlinedColumns{}, nil
	}
	var got []any
	if err := r.conn.QueryRowContext(ctx, "SELECT ["+strings.Join(decl, ", ")+"]").Scan(&got); err != nil {
		return inlinedColumns{}, fmt.Errorf("types of the columns of %s as of snapshot %d: %w", t.Shown(), asOf, err)
	}
	for i, v := range got {
		if s, _ := v.(string); s != stored[i] {
			return inlinedColumns{retyped: fmt.Sprintf("column %s is read as %v but stored as %s", names[i], v, stored[i])}, nil
		}
	}
	return inlinedColumns{}, nil
}

// inlinedMisread is the UnreadableError of an inlined table whose columns
// are not those of the schema its reader reads it with; fails tells
// whether the reader's read fails to bind (a column missing) or reads
// without an error (a column of another type).
func (r *Reader) inlinedMisread(t Table, g inlinedReg, asOf int64, msg string, fails bool) error {
	q := inlinedColumnMissing
	if r.readsWith(formats.QuirkInlinedAtFirstSnapshot) {
		q = formats.QuirkInlinedAtFirstSnapshot.Info()
	}
	if !fails {
		q.Error = "" // not a Binder Error: the read succeeds with other values
	}
	return &UnreadableError{Format: r.format.Name, Quirk: q, Table: t.FullName(),
		Detail: fmt.Sprintf("inlined table %s (schema version %d) is read with the table's columns as of snapshot %d: %s", g.name, g.sv, asOf, msg)}
}

// inlinedTypes is the stored DuckDB type of each column of an inlined
// table, by its name with the ASCII letters lowered (as DuckDB binds it).
func (r *Reader) inlinedTypes(ctx context.Context, name string) (map[string]string, error) {
	if m, ok := r.inl.types[name]; ok {
		return m, nil
	}
	rows, err := r.conn.QueryContext(ctx, `SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = 'cat' AND schema_name = 'main' AND table_name = `+sqlString(name))
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s in %s: %w", name, oneline.Name(r.path), err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var c, ty string
		if err := rows.Scan(&c, &ty); err != nil {
			return nil, fmt.Errorf("read the columns of %s in %s: %w", name, oneline.Name(r.path), err)
		}
		m[formats.ASCIILower(c)] = ty
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the columns of %s in %s: %w", name, oneline.Name(r.path), err)
	}
	r.inl.types[name] = m
	return m, nil
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
		return fmt.Errorf("read column history of %s: %w", t.Shown(), err)
	}
	if len(renamed) > 0 {
		return &UnsupportedError{What: fmt.Sprintf("encrypted data files of %s with renamed nested fields (%s)", t.Shown(), strings.Join(renamed, ", "))}
	}
	return nil
}

// columnNode describes a column as stored at some schema version, as if it
// were a Parquet node carrying its field ids.
func columnNode(c *Column) *pnode {
	n := &pnode{Name: c.Name, FieldID: &c.ID, Kind: "leaf"}
	switch formats.ASCIILower(c.Type) {
	case "struct", "list", "map":
		n.Kind = formats.ASCIILower(c.Type)
		children := make([]*pnode, len(c.Children))
		for i, ch := range c.Children {
			children[i] = columnNode(ch)
		}
		n.setChildren(children)
	default:
		n.DuckType, _ = c.DuckType()
	}
	return n
}

// inlinedReg is a table's inlined data table and its schema version.
type inlinedReg struct {
	name string
	sv   int64
}

// inlinedTables lists a table's inlined data tables (registered ones; the
// registrations have no snapshot range, so they are read once).
func (r *Reader) inlinedTables(ctx context.Context, tableID int64) ([]inlinedReg, error) {
	if regs, ok := r.meta.inlined[tableID]; ok {
		return regs, nil
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT table_name, schema_version FROM cat.ducklake_inlined_data_tables WHERE table_id = %d ORDER BY schema_version`, tableID))
	if err != nil {
		return nil, fmt.Errorf("list inlined data tables of table %d in %s: %w", tableID, oneline.Name(r.path), err)
	}
	defer rows.Close()
	regs := []inlinedReg{}
	for rows.Next() {
		var g inlinedReg
		if err := rows.Scan(&g.name, &g.sv); err != nil {
			return nil, err
		}
		regs = append(regs, g)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	r.meta.inlined[tableID] = regs
	return regs, nil
}

// inlinedMemo keeps what the model of inlined reads asks the catalog,
// which does not change with the snapshot read.
type inlinedMemo struct {
	// svOf: each snapshot's schema_version.
	svOf map[int64]int64
	// first: each table's first snapshot as GetBeginSnapshotForTable
	// reads it (valid false: the row's begin_snapshot is NULL).
	first map[int64]sql.NullInt64
	// versionRows: ducklake_schema_versions' first begin_snapshot per
	// (table id, schema version), as GetBeginSnapshotForSchemaVersion reads it.
	versionRows  map[[2]int64]sql.NullInt64
	versionsRead bool
	// types: the stored types of an inlined table's columns.
	types map[string]map[string]string
	// checked: "table@snapshot" -> how the inlined table's columns differ
	// from that snapshot's schema (zero: they do not).
	checked map[string]inlinedColumns
	// visible: "table@snapshot" -> the inlined table's rows visible at
	// that snapshot (counted only for a table with a column retyped).
	visible map[string]int64
	// badDeletions: per table, the first begin_snapshot of its inlined
	// file deletions with a NULL or negative file_id or row_id (NULL:
	// none), which the reader fails on (inlinedDeletionRefusal).
	badDeletions map[int64]sql.NullInt64
	// begun: per table id and begin_snapshot of its row, inlinedBegins'
	// counts and sums at a batch of the catalog's snapshots (the last
	// batch read; see inlinedBegunAt).
	begun map[[2]int64]map[int64]inlinedBegun
	// begunAlone: the table rows whose batch failed, read one snapshot
	// at a time since.
	begunAlone map[[2]int64]bool
	// batch: how many of the catalog's snapshots inlinedBegunAt reads at
	// once (inlinedBegunBatch; tests lower it).
	batch int
}

func newInlinedMemo() inlinedMemo {
	return inlinedMemo{svOf: map[int64]int64{}, first: map[int64]sql.NullInt64{}, versionRows: map[[2]int64]sql.NullInt64{},
		types: map[string]map[string]string{}, checked: map[string]inlinedColumns{}, visible: map[string]int64{}, badDeletions: map[int64]sql.NullInt64{},
		begun: map[[2]int64]map[int64]inlinedBegun{}, begunAlone: map[[2]int64]bool{}, batch: inlinedBegunBatch}
}

// inlinedSchemaSnapshot is the snapshot whose schema of table t the real
// reader of the catalog's format reads an inlined table of schema version
// sv with, reading at snapshot snap. Every reader caches a catalog's
// schema by schema version, so when sv is snap's schema version it is
// snap's schema (a fresh session: the schema of snap was just loaded).
// Otherwise:
//
//   - 1.0 and 1.1 (GetBeginSnapshotForSchemaVersion): the begin_snapshot of
//     the first ducklake_schema_versions row with table_id = t and
//     schema_version = sv, else the table's first snapshot;
//   - 0.4, and 0.3 read as a source (DuckDB 1.4.5;
//     formats.QuirkInlinedAtFirstSnapshot): the table's first snapshot;
//   - 0.1, 0.2, and 0.3 read as a written catalog (DuckDB 1.4.0;
//     formats.QuirkInlinedAtSnapshotZero): snapshot 0.
//
// formats.InlinedSchemaSourceOf (SourceInlinedSchemaSourceOf for a
// source) makes that choice, for the converter too.
// The table's first snapshot is the begin_snapshot of its first
// ducklake_table row (GetBeginSnapshotForTable, no ORDER BY: storage
// order). A NULL begin_snapshot in the value taken (that row, or the
// ducklake_schema_versions row found) is an UnreadableError (the real
// reader reads it as a number and fails), never a fallback.
func (r *Reader) inlinedSchemaSnapshot(ctx context.Context, t Table, sv, snap int64) (int64, error) {
	cur, err := r.snapshotSchemaVersion(ctx, snap)
	if err != nil {
		return 0, err
	}
	if cur == sv {
		return snap, nil
	}
	var row sql.NullInt64
	found := false
	if r.inlinedSchemaSourceOf(true) == formats.InlinedSchemaFromVersionRow { // else the row is never read
		if row, found, err = r.schemaVersionRow(ctx, t.ID, sv); err != nil {
			return 0, err
		}
	}
	switch r.inlinedSchemaSourceOf(found) {
	case formats.InlinedSchemaFromSnapshotZero:
		return 0, nil
	case formats.InlinedSchemaFromVersionRow:
		if !row.Valid {
			return 0, &UnreadableError{Format: r.format.Name, Quirk: inlinedColumnMissing, Table: t.FullName(),
				Detail: fmt.Sprintf("the ducklake_schema_versions row of schema version %d has no begin_snapshot", sv)}
		}
		return row.Int64, nil
	}
	return r.tableFirstSnapshot(ctx, t)
}

// inlinedSchemaSourceOf is the lookup of the catalog's readers: the newest
// release's as a proof's source, every release's otherwise (readsWith).
func (r *Reader) inlinedSchemaSourceOf(versionRow bool) formats.InlinedSchemaSource {
	if r.asSource {
		return r.format.SourceInlinedSchemaSourceOf(versionRow)
	}
	return r.format.InlinedSchemaSourceOf(versionRow)
}

// snapshotSchemaVersion is a snapshot's schema_version.
func (r *Reader) snapshotSchemaVersion(ctx context.Context, snap int64) (int64, error) {
	if len(r.inl.svOf) == 0 {
		snaps, err := r.Snapshots(ctx)
		if err != nil {
			return 0, err
		}
		for _, s := range snaps {
			r.inl.svOf[s.ID] = s.SchemaVersion
		}
	}
	sv, ok := r.inl.svOf[snap]
	if !ok {
		return 0, fmt.Errorf("snapshot %d is not in %s", snap, oneline.Name(r.path))
	}
	return sv, nil
}

// tableFirstSnapshot is GetBeginSnapshotForTable: the begin_snapshot of
// the table's first ducklake_table row in storage order.
func (r *Reader) tableFirstSnapshot(ctx context.Context, t Table) (int64, error) {
	s, ok := r.inl.first[t.ID]
	if !ok {
		err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT begin_snapshot FROM cat.ducklake_table WHERE table_id = %d ORDER BY rowid LIMIT 1`, t.ID)).Scan(&s)
		if err != nil {
			return 0, fmt.Errorf("read the first snapshot of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		r.inl.first[t.ID] = s
	}
	if !s.Valid {
		return 0, &UnreadableError{Format: r.format.Name, Quirk: inlinedColumnMissing, Table: t.FullName(),
			Detail: fmt.Sprintf("the first ducklake_table row of table %d has no begin_snapshot", t.ID)}
	}
	return s.Int64, nil
}

// schemaVersionRow is GetBeginSnapshotForSchemaVersion's lookup: the
// begin_snapshot of the first ducklake_schema_versions row (storage
// order) with exactly this table_id and schema_version; ok is false when
// there is none (or the table has no table_id column).
func (r *Reader) schemaVersionRow(ctx context.Context, tableID, sv int64) (sql.NullInt64, bool, error) {
	if !r.inl.versionsRead {
		if r.has("ducklake_schema_versions", "table_id") && !r.empty("ducklake_schema_versions") {
			rows, err := r.conn.QueryContext(ctx, `SELECT table_id, schema_version, begin_snapshot FROM cat.ducklake_schema_versions
				WHERE table_id IS NOT NULL AND schema_version IS NOT NULL ORDER BY rowid`)
			if err != nil {
				return sql.NullInt64{}, false, fmt.Errorf("read ducklake_schema_versions of %s: %w", oneline.Name(r.path), err)
			}
			defer rows.Close()
			for rows.Next() {
				var k [2]int64
				var b sql.NullInt64
				if err := rows.Scan(&k[0], &k[1], &b); err != nil {
					return sql.NullInt64{}, false, fmt.Errorf("read ducklake_schema_versions of %s: %w", oneline.Name(r.path), err)
				}
				if _, seen := r.inl.versionRows[k]; !seen {
					r.inl.versionRows[k] = b
				}
			}
			if err := rows.Err(); err != nil {
				return sql.NullInt64{}, false, fmt.Errorf("read ducklake_schema_versions of %s: %w", oneline.Name(r.path), err)
			}
		}
		r.inl.versionsRead = true
	}
	s, ok := r.inl.versionRows[[2]int64{tableID, sv}]
	return s, ok, nil
}

// tableExistsAt reports whether the table has a ducklake_table row visible
// at a snapshot.
func (r *Reader) tableExistsAt(ctx context.Context, tableID, snap int64) (bool, error) {
	_, tables, err := r.schemaRows(ctx)
	if err != nil {
		return false, fmt.Errorf("read table %d of %s at snapshot %d: %w", tableID, oneline.Name(r.path), snap, err)
	}
	for _, t := range tables {
		if t.id.Valid && t.id.Int64 == tableID && visibleRow(t.begin, t.end, snap) {
			return true, nil
		}
	}
	return false, nil
}

// schemaVersionRows compares the ducklake_schema_versions rows of two
// catalogs whose formats both record them per table (0.4 and later; the
// converter copies them unchanged between these formats): DuckLake 1.0 and
// 1.1 readers look up the schema of an inlined data table in them
// (inlinedSchemaSnapshot). Per (table_id, schema_version) the
// begin_snapshots in storage order (the reader takes the first). Formats
// with global rows (0.3) or none are not compared: their readers never
// read them, and a conversion to or from them rewrites the rows.
func (c *comparison) schemaVersionRows() error {
	if !c.a.has("ducklake_schema_versions", "table_id") || !c.b.has("ducklake_schema_versions", "table_id") {
		return nil
	}
	ea, err := c.a.schemaVersionEntries(c.ctx)
	if err != nil {
		return markA(err)
	}
	eb, err := c.b.schemaVersionEntries(c.ctx)
	if err != nil {
		return markB(err)
	}
	c.diffEntries("schema", nil, "", ea, eb)
	return nil
}

// schemaVersionEntries describes the ducklake_schema_versions rows by
// table_id and schema_version, read once per reader (a Source's reader
// serves several proofs).
func (r *Reader) schemaVersionEntries(ctx context.Context) (entries, error) {
	if r.meta.schemaVersions != nil {
		return maps.Clone(r.meta.schemaVersions), nil
	}
	out, err := r.readSchemaVersionEntries(ctx)
	if err != nil {
		return nil, err
	}
	r.meta.schemaVersions = out
	return maps.Clone(out), nil
}

func (r *Reader) readSchemaVersionEntries(ctx context.Context) (entries, error) {
	out := entries{}
	if r.empty("ducklake_schema_versions") {
		return out, nil
	}
	rows, err := r.strings(ctx, `SELECT 'ducklake_schema_versions table_id=' || coalesce(table_id::VARCHAR, 'NULL') || ' schema_version=' || coalesce(schema_version::VARCHAR, 'NULL')
		|| chr(31) || 'begin_snapshot=' || string_agg(coalesce(begin_snapshot::VARCHAR, 'NULL'), ',' ORDER BY rowid)
		FROM cat.ducklake_schema_versions GROUP BY table_id, schema_version ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("read ducklake_schema_versions of %s: %w", oneline.Name(r.path), err)
	}
	for _, row := range rows {
		k, v, _ := strings.Cut(row, "\x1f")
		out[k] = v
	}
	return out, nil
}
