package convert

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// work is the in-memory working copy of a catalog's metadata tables. All
// steps run against it; the source file is only ever attached read-only.
type work struct {
	conn   *sql.Conn
	db     string  // the working database (the connection's default one)
	schema string  // metadata schema of the source ("main" unless METADATA_SCHEMA)
	tables []table // the working tables as last listed; nil once a statement may have changed them
	// writes counts the statements that may have written to the working
	// copy (execCount, which exec and textStatsKind's rewrites use, and
	// copyIn): what was read of it before (run.facts) holds while it is
	// unchanged.
	writes int
	// columnsWritten: a statement since the copy-in (execCount) named
	// ducklake_column or ducklake_table (in any letter case, or a table
	// whose name starts so), and so may have changed what the defaults
	// checks read (defaultsCheck).
	columnsWritten bool
	// history digests every statement written to the working copy since
	// it was made, in order (copyIn, execCount): two working copies of
	// one pass's source with the same history hold the same rows (the
	// statements are deterministic: no random or clock function), so
	// what a declared check found in one holds in the other
	// (stepCheckMemo). A statement naming a scratch folder (a rewritten
	// delete file's COPY ... TO) makes the history of its output its own,
	// so a later output does not find the checks after it kept (where no
	// file is written, in a dry run or where the file is there already,
	// the statements, and so the rows, are the same).
	history [sha256.Size]byte
}

// record adds a statement written to the working copy to its history.
func (w *work) record(query string, args ...any) {
	h := sha256.New()
	h.Write(w.history[:])
	for _, part := range append([]any{query}, args...) {
		writeArg(h, part)
	}
	h.Sum(w.history[:0])
}

// writeArg writes a statement's argument to a history's digest: its type
// and Go syntax (%T, %#v), length-prefixed, a list's elements each so, as
// %v prints alike what a statement binds apart ([]string{"a b"} and
// []string{"a", "b"}; int64(1) and float64(1), which a VARCHAR column
// takes as '1' and '1.0', also within a []any).
func writeArg(w io.Writer, v any) {
	if rv := reflect.ValueOf(v); rv.IsValid() && (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) {
		fmt.Fprintf(w, "%T[%d](", v, rv.Len())
		for i := range rv.Len() {
			writeArg(w, rv.Index(i).Interface())
		}
		fmt.Fprint(w, ")")
		return
	}
	s := fmt.Sprintf("%T:%#v", v, v)
	fmt.Fprintf(w, "%d:%s", len(s), s)
}

// quote quotes an identifier for DuckDB.
func quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

// literal quotes a string literal for DuckDB.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// openSource attaches src read-only on conn and returns the metadata schema,
// the version row and its DuckLake tables (static and dynamic, by name).
// Errors say which of "missing", "not DuckDB", "newer storage", "truncated"
// or "not DuckLake" it is. With engines, what it read of a file is kept for
// the next conversion of the same file (a backfill converts each version
// to several formats).
func openSource(ctx context.Context, conn *sql.Conn, src string, engines *Engines) (schema, stamp string, tables []table, err error) {
	st, err := os.Stat(src)
	if err != nil {
		return "", "", nil, fmt.Errorf("open catalog %s: %w", oneline.Name(src), err)
	} else if st.IsDir() {
		return "", "", nil, fmt.Errorf("open catalog %s: %w: it is a directory", oneline.Name(src), ErrNotCatalog)
	}
	if err := checkComplete(src); err != nil {
		return "", "", nil, err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS src (READ_ONLY)", literal(src))); err != nil {
		msg := err.Error()
		switch duckfile.ClassifyAttach(msg, src) {
		case duckfile.AttachNewerStorage:
			saved, resave := duckfile.TooNewFile(src)
			return "", "", nil, fmt.Errorf("open catalog %s: %w: %s, which DuckDB %s cannot open (%s); %s", oneline.Name(src), ErrStorageTooNew, saved, duckdbVersion(ctx, conn), oneline.First(msg), resave)
		case duckfile.AttachLocked:
			// Not the file's fault: a runtime failure, not invalid input.
			return "", "", nil, fmt.Errorf("open catalog %s: another process holds it open read-write (DuckDB could not set its lock on the file); convert it once that process has closed it, or convert a copy: %s", oneline.Name(src), oneline.First(msg))
		case duckfile.AttachNotDuckDB:
			return "", "", nil, fmt.Errorf("open catalog %s: %w: not a DuckDB database file", oneline.Name(src), ErrNotCatalog)
		default:
			return "", "", nil, fmt.Errorf("open catalog %s: %w: unreadable DuckDB file (truncated or corrupt?): %s", oneline.Name(src), ErrNotCatalog, oneline.First(msg))
		}
	}
	// A write-ahead log beside the file changes the catalog without
	// changing the file (ATTACH replays it): what was read of such a
	// catalog is neither reused nor kept.
	keeper := engines
	if _, err := os.Lstat(src + ".wal"); err == nil {
		keeper = nil
	}
	if info, ok := keeper.source(src, st); ok {
		return info.schema, info.stamp, info.tables, nil
	}
	defer func() {
		if err == nil {
			keeper.keepSource(src, st, sourceInfo{schema: schema, stamp: stamp, tables: tables})
		}
	}()
	all, typed, err := listColumns(ctx, conn, "src", "ducklake_", true)
	if err != nil {
		return "", "", nil, sourceReadError(src, "read tables of", err)
	}
	for _, t := range all {
		if t.name == "ducklake_metadata" {
			if schema != "" {
				return "", "", nil, fmt.Errorf("open catalog %s: %w: DuckLake tables in schemas %s and %s", oneline.Name(src), ErrNotCatalog, schema, t.schema)
			}
			schema = t.schema
		}
	}
	for _, t := range all {
		if t.schema == schema {
			tables = append(tables, t)
		}
	}
	// A view (or another object) named like a DuckLake table would answer
	// DuckLake's queries in its place: the catalog is not what its tables
	// say. Without a ducklake_metadata table, main is where readers look.
	objs, err := formats.ReadObjects(ctx, conn, "src")
	if err != nil {
		return "", "", nil, sourceReadError(src, "read objects of", err)
	}
	if err := formats.CheckObjects(src, objs, cmp.Or(schema, "main")); err != nil {
		return "", "", nil, fmt.Errorf("open %w: %w", err, ErrNotCatalog)
	}
	if schema == "" {
		return "", "", nil, fmt.Errorf("open catalog %s: %w: no ducklake_metadata table", oneline.Name(src), ErrNotCatalog)
	}
	// The inlined tables are copied by name: the readers' (any name a
	// registration gives, inlined deletions in any letter case) must be
	// DuckLake's own.
	var regs []formats.Registration
	if slices.ContainsFunc(tables, func(t table) bool { return t.name == "ducklake_inlined_data_tables" }) {
		if regs, err = formats.ReadRegistrations(ctx, conn, "src", schema); err != nil {
			return "", "", nil, sourceReadError(src, "read the inlined data tables of", err)
		}
	}
	if err := formats.CheckInlined(src, objs, regs, schema); err != nil {
		return "", "", nil, fmt.Errorf("open %w: %w", err, ErrNotCatalog)
	}
	// ducklake_metadata is read once: its version rows (any scope: the
	// converter rewrites every one) and the rows DuckLake's readers refuse
	// (an unknown scope, two encrypted values, ...), as the proof holds a
	// catalog to them (formats.CheckMetadata).
	scoped := slices.ContainsFunc(tables, func(t table) bool {
		return t.name == "ducklake_metadata" && slices.Contains(t.columns, "scope")
	})
	meta, err := formats.ReadMetadata(ctx, conn, "src", schema, scoped)
	if err != nil {
		return "", "", nil, sourceReadError(src, "read version of", err)
	}
	var stamps []string
	for _, m := range meta {
		if m.Key != "version" {
			continue
		}
		if !m.Value.Valid {
			return "", "", nil, fmt.Errorf("open catalog %s: %w: a version row of ducklake_metadata is NULL", oneline.Name(src), ErrNotCatalog)
		}
		stamps = append(stamps, m.Value.String)
	}
	if len(stamps) != 1 {
		return "", "", nil, fmt.Errorf("open catalog %s: %w: %d version rows in ducklake_metadata, want 1", oneline.Name(src), ErrNotCatalog, len(stamps))
	}
	if _, err := formats.CheckMetadata(src, meta); err != nil {
		return "", "", nil, fmt.Errorf("open %w: %w", err, ErrNotCatalog)
	}
	// A NULL where DuckLake's writers always write a value (the registry's
	// Column.NullRead) makes the source no DuckLake catalog: refused before
	// anything is read into the working copy or written. Checked here, so
	// that a file kept (engines) is checked once; a format Detect does not
	// know is refused by the caller.
	layout, names := splitLayout(tables)
	dynamic := formats.Layout{}
	for _, t := range tables {
		if slices.Contains(names, t.name) {
			dynamic[t.name] = t.columns
		}
	}
	if v, err := formats.Detect(stamps[0], layout); err == nil {
		// The columns' types too, as the proof holds a catalog to them
		// (formats.Version.TypeDiffs): DuckLake's readers bind their SQL
		// to the types its writers give the columns.
		types, err := metadataColumnTypes(ctx, conn, schema, layout, all, typed)
		if err != nil {
			return "", "", nil, sourceReadError(src, "read the column types of", err)
		}
		if diffs := v.FrozenTypeDiffs(types); len(diffs) > 0 {
			return "", "", nil, fmt.Errorf("open catalog %s: %w: %w: version row says %q but %s (DuckLake's readers compare and cast each column as the type its writers give it)",
				oneline.Name(src), ErrNotCatalog, formats.ErrInconsistentLayout, stamps[0], strings.Join(diffs, "; "))
		}
		// A frozen catalog's stand-ins (a TIMESTAMP snapshot_time) are
		// copied in as the declared type's values, the same instants
		// whatever the session's TimeZone (copySQL).
		for k, expr := range v.StandInReads(types) {
			for i := range tables {
				if tables[i].name == k[0] {
					if tables[i].reads == nil {
						tables[i].reads = map[string]string{}
					}
					tables[i].reads[k[1]] = expr
				}
			}
		}
		if err := formats.CheckRequired(ctx, conn, src, "src", schema, v, layout, dynamic); err != nil {
			if nf, ok := errors.AsType[*formats.NullFieldError](err); ok {
				return "", "", nil, &NullFieldsError{Source: src, Err: nf}
			}
			return "", "", nil, sourceReadError(src, "open catalog", err)
		}
	}
	return schema, stamps[0], tables, nil
}

func duckdbVersion(ctx context.Context, conn *sql.Conn) string {
	var v string
	if err := conn.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "(unknown)"
	}
	return v
}

// layout lists the working copy's static tables with their columns in
// order, and its dynamic (inlined) tables.
func (w *work) layout(ctx context.Context) (formats.Layout, []string, error) {
	tables, err := w.workingTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	layout, dynamic := splitLayout(tables)
	return layout, dynamic, nil
}

// splitLayout returns the static tables with their columns, and the names
// of the dynamic (inlined) tables in the order given.
func splitLayout(tables []table) (formats.Layout, []string) {
	layout := formats.Layout{}
	var dynamic []string
	for _, t := range tables {
		if formats.IsDynamicTable(t.name) {
			dynamic = append(dynamic, t.name)
			continue
		}
		layout[t.name] = slices.Clone(t.columns)
	}
	return layout, dynamic
}

// workingTables lists the working copy's tables in name order, with their
// columns in order. The answer is kept until the next statement through
// exec that may change them: the steps ask again and again (issue 9).
// Statements that only change rows keep it (changesTables).
func (w *work) workingTables(ctx context.Context) ([]table, error) {
	if w.tables != nil {
		return w.tables, nil
	}
	tables, err := columnsOf(ctx, w.conn, w.db, "")
	if err != nil {
		return nil, fmt.Errorf("read working tables: %w", err)
	}
	w.tables = make([]table, 0, len(tables))
	for _, t := range tables {
		if t.schema == "main" {
			w.tables = append(w.tables, t)
		}
	}
	return w.tables, nil
}

// table is a table of an attached database with its columns in order.
type table struct {
	schema, name string
	columns      []string
	// reads are the source's columns copied in as another expression
	// than themselves, by name (a frozen catalog's stand-ins:
	// formats.Version.StandInReads).
	reads map[string]string
}

// columnsOf lists the tables of database db whose names start with prefix,
// ordered by schema and name, with their columns in order. It asks
// duckdb_tables() for the names and pragma_table_info for the columns, in
// two statements: duckdb_columns() binds every view of every attached
// database the first time it runs (the system catalog's
// information_schema and pg_catalog ones too), which took longer than the
// whole copy of the issue 9 wide catalog.
func columnsOf(ctx context.Context, conn *sql.Conn, db, prefix string) ([]table, error) {
	tables, _, err := listColumns(ctx, conn, db, prefix, false)
	return tables, err
}

// tableTypes are what listColumns reads of a table besides its columns
// when asked: each column's DuckDB type, in order, and the table's CREATE
// statement where it holds COLLATE or GENERATED (else "").
type tableTypes struct {
	types []string
	stmt  string
}

// listColumns is columnsOf; withTypes, it also gives each table's
// tableTypes (index by index), read by the same two statements, for
// metadataColumnTypes: reading them apart took two statements more of
// every conversion. Tables listed through duckdb_columns() (a name with a
// double quote) come without (nil).
func listColumns(ctx context.Context, conn *sql.Conn, db, prefix string, withTypes bool) ([]table, []tableTypes, error) {
	stmt := ""
	if withTypes {
		stmt = `, CASE WHEN sql ILIKE '%COLLATE%' OR sql ILIKE '%GENERATED%' THEN sql END`
	}
	rows, err := conn.QueryContext(ctx, `SELECT schema_name, table_name`+stmt+` FROM duckdb_tables()
		WHERE database_name = ? AND starts_with(table_name, ?) ORDER BY schema_name, table_name`, db, prefix)
	if err != nil {
		return nil, nil, err
	}
	var tables []table
	var typed []tableTypes
	for rows.Next() {
		var t table
		var create sql.NullString
		dest := []any{&t.schema, &t.name}
		if withTypes {
			dest = append(dest, &create)
		}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, nil, err
		}
		tables = append(tables, t)
		typed = append(typed, tableTypes{stmt: create.String})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(tables) == 0 {
		return nil, nil, nil
	}
	parts := make([]string, len(tables))
	typ := ""
	if withTypes {
		typ = ", type"
	}
	for i, t := range tables {
		if strings.Contains(t.schema+t.name, `"`) {
			// pragma_table_info's name parser drops a doubled quote.
			tables, err := columnsOfAll(ctx, conn, db, prefix)
			return tables, nil, err
		}
		name := fmt.Sprintf(`"%s"."%s"."%s"`, db, t.schema, t.name)
		parts[i] = fmt.Sprintf("SELECT %d AS i, cid, name%s FROM pragma_table_info(%s)", i, typ, literal(name))
	}
	crows, err := conn.QueryContext(ctx, "SELECT i, name"+typ+" FROM ("+strings.Join(parts, " UNION ALL ")+") ORDER BY i, cid")
	if err != nil {
		return nil, nil, err
	}
	defer crows.Close()
	for crows.Next() {
		var i int
		var c, ct string
		dest := []any{&i, &c}
		if withTypes {
			dest = append(dest, &ct)
		}
		if err := crows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		tables[i].columns = append(tables[i].columns, c)
		typed[i].types = append(typed[i].types, ct)
	}
	if err := crows.Err(); err != nil {
		return nil, nil, err
	}
	if !withTypes {
		typed = nil
	}
	return tables, typed, nil
}

// metadataColumnTypes gives the DuckDB type of each column of the source's
// static DuckLake tables (layout, in its metadata schema), by table and
// column name. As columnsOf, it asks pragma_table_info (duckdb_columns()
// binds every view of every attached database).
func metadataColumnTypes(ctx context.Context, conn *sql.Conn, schema string, layout formats.Layout, tables []table, typed []tableTypes) (map[[2]string]string, error) {
	if len(layout) == 0 {
		return map[[2]string]string{}, nil
	}
	if typed != nil && !strings.Contains(schema, `"`) {
		// As listed (listColumns): the types of the static tables, and
		// the statements of every table of the schema.
		types := map[[2]string]string{}
		stmts := map[string]string{}
		for i, t := range tables {
			if t.schema != schema {
				continue
			}
			if typed[i].stmt != "" {
				stmts[t.name] = typed[i].stmt
			}
			if _, static := layout[t.name]; !static {
				continue
			}
			for j, c := range t.columns {
				types[[2]string{t.name, c}] = typed[i].types[j]
			}
		}
		return formats.TypedWithCollations(types, stmts), nil
	}
	var parts []string
	for name := range layout {
		parts = append(parts, fmt.Sprintf("SELECT %s AS t, name, type FROM pragma_table_info(%s)", literal(name), literal(fmt.Sprintf(`"src"."%s"."%s"`, schema, name))))
	}
	query := strings.Join(parts, " UNION ALL ")
	if strings.Contains(schema, `"`) {
		// pragma_table_info's name parser drops a doubled quote (the
		// static tables' names hold none).
		query = `SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = 'src' AND schema_name = ` + literal(schema)
	}
	types := map[[2]string]string{}
	if len(parts) == 0 {
		return types, nil
	}
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t, c, typ string
		if err := rows.Scan(&t, &c, &typ); err != nil {
			return nil, err
		}
		types[[2]string{t, c}] = typ
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// A collated VARCHAR is named VARCHAR, a generated column by its
	// type: both are read from the table's statement
	// (formats.TypedWithCollations).
	srows, err := conn.QueryContext(ctx, `SELECT table_name, sql FROM duckdb_tables()
		WHERE database_name = 'src' AND schema_name = ? AND starts_with(table_name, 'ducklake_') AND (sql ILIKE '%COLLATE%' OR sql ILIKE '%GENERATED%')`, schema)
	if err != nil {
		return nil, err
	}
	defer srows.Close()
	stmts := map[string]string{}
	for srows.Next() {
		var t string
		var stmt sql.NullString
		if err := srows.Scan(&t, &stmt); err != nil {
			return nil, err
		}
		stmts[t] = stmt.String
	}
	if err := srows.Err(); err != nil {
		return nil, err
	}
	return formats.TypedWithCollations(types, stmts), nil
}

// columnsOfAll is columnsOf through duckdb_columns() (tables only, as
// duckdb_tables() lists them), for names pragma_table_info cannot take.
func columnsOfAll(ctx context.Context, conn *sql.Conn, db, prefix string) ([]table, error) {
	rows, err := conn.QueryContext(ctx, `SELECT schema_name, table_name, column_name FROM duckdb_columns()
		WHERE database_name = ? AND starts_with(table_name, ?)
		AND (schema_name, table_name) IN (SELECT (schema_name, table_name) FROM duckdb_tables() WHERE database_name = ?)
		ORDER BY schema_name, table_name, column_index`, db, prefix, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tables []table
	for rows.Next() {
		var s, t, c string
		if err := rows.Scan(&s, &t, &c); err != nil {
			return nil, err
		}
		if n := len(tables); n == 0 || tables[n-1].schema != s || tables[n-1].name != t {
			tables = append(tables, table{schema: s, name: t})
		}
		tables[len(tables)-1].columns = append(tables[len(tables)-1].columns, c)
	}
	return tables, rows.Err()
}

func (w *work) exec(ctx context.Context, query string, args ...any) error {
	_, err := w.execCount(ctx, query, args...)
	return err
}

// execCount runs a statement that may write to the working copy, and
// returns the rows it changed (0 where DuckDB does not say). Every such
// statement goes through it (or copyIn): it counts the writes, so that the
// facts read before one are read again (run.mayFind).
func (w *work) execCount(ctx context.Context, query string, args ...any) (int64, error) {
	kept := w.tables
	if changesTables(query) {
		w.tables = nil
	}
	w.writes++
	w.columnsWritten = w.columnsWritten || namesColumnTables(query)
	w.record(query, args...)
	res, err := w.conn.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
	}
	if name, ok := replacedTable(query); ok && kept != nil {
		// One table replaced (a step's CREATE OR REPLACE TABLE ... AS):
		// its columns are read again, not every table's.
		if w.tables, err = w.relisted(ctx, kept, name); err != nil {
			return 0, fmt.Errorf("read the columns of working table %s: %w", name, err)
		}
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, nil
	}
	return n, nil
}

// namesColumnTables tells whether a statement names ducklake_column or
// ducklake_table (or a table whose name starts so), in any letter case: the
// statements that may change the rows defaultsCheck reads.
func namesColumnTables(query string) bool {
	q := strings.ToLower(query)
	return strings.Contains(q, "ducklake_column") || strings.Contains(q, "ducklake_table")
}

// replacedTable gives the table a statement CREATE OR REPLACE TABLE name
// AS ... replaces, named by a plain identifier (a step's own statement);
// false for any other statement, and for text holding a semicolon (more
// statements may follow, changing other tables).
func replacedTable(query string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(query), "CREATE OR REPLACE TABLE ")
	if !ok || strings.Contains(rest, ";") {
		return "", false
	}
	words := strings.Fields(rest)
	if len(words) < 3 || words[1] != "AS" {
		return "", false
	}
	name := words[0]
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return "", false
		}
	}
	return name, true
}

// relisted is the listing kept with table name's columns read again (or
// the table added, in name order, when it is new).
func (w *work) relisted(ctx context.Context, kept []table, name string) ([]table, error) {
	rows, err := w.conn.QueryContext(ctx, "SELECT name FROM pragma_table_info("+literal(fmt.Sprintf(`"%s"."main"."%s"`, w.db, name))+") ORDER BY cid")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return tableCreated(name, cols)(slices.DeleteFunc(slices.Clone(kept), func(t table) bool { return t.name == name })), nil
}

// execShape runs a statement that creates, drops or reshapes a working
// table, and makes the same change to the listing workingTables keeps, so
// that the next step need not read it again (two statements of about 8 ms
// CPU on a catalog of 28 tables, issue 9). change gets a copy of the
// listing and must not modify the column slices in it.
func (w *work) execShape(ctx context.Context, query string, change func([]table) []table) error {
	kept := w.tables
	if err := w.exec(ctx, query); err != nil {
		return err
	}
	if kept != nil {
		w.tables = change(slices.Clone(kept))
	}
	return nil
}

// tableCreated, tableDropped, tableRenamed, columnAdded and columnDropped
// are execShape changes.
func tableCreated(name string, columns []string) func([]table) []table {
	return func(ts []table) []table {
		return sortTables(append(ts, table{schema: "main", name: name, columns: slices.Clone(columns)}))
	}
}

func tableDropped(name string) func([]table) []table {
	return func(ts []table) []table {
		return slices.DeleteFunc(ts, func(t table) bool { return t.name == name })
	}
}

func tableRenamed(from, to string) func([]table) []table {
	return func(ts []table) []table {
		for i := range ts {
			if ts[i].name == from {
				ts[i].name = to
			}
		}
		return sortTables(ts)
	}
}

func columnAdded(name, column string) func([]table) []table {
	return func(ts []table) []table {
		for i := range ts {
			if ts[i].name == name {
				ts[i].columns = append(slices.Clip(ts[i].columns), column)
			}
		}
		return ts
	}
}

func columnDropped(name, column string) func([]table) []table {
	return func(ts []table) []table {
		for i := range ts {
			if ts[i].name == name {
				ts[i].columns = slices.DeleteFunc(slices.Clone(ts[i].columns), func(c string) bool { return c == column })
			}
		}
		return ts
	}
}

// sortTables orders a listing as columnsOf does (by name: all are in main).
func sortTables(ts []table) []table {
	slices.SortFunc(ts, func(a, b table) int { return strings.Compare(a.name, b.name) })
	return ts
}

// eachRow runs a query and hands each of its rows to row, in order.
func (w *work) eachRow(ctx context.Context, query string, row func(*sql.Rows) error) error {
	rows, err := w.conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// strings runs a query returning one text column.
func (w *work) strings(ctx context.Context, query string) ([]string, error) {
	var out []string
	err := w.eachRow(ctx, query, func(rows *sql.Rows) error {
		var s sql.NullString
		err := rows.Scan(&s)
		out = append(out, s.String)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
	}
	return out, nil
}

// fields runs a query and returns its rows, each column as text (NULL as
// ""). Listings with names and paths read their fields as columns of their
// own, never joined in one text: a NULL field would make the whole row
// NULL, and a name or path may hold any separator.
func (w *work) fields(ctx context.Context, query string) ([][]string, error) {
	rows, err := w.conn.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func (w *work) count(ctx context.Context, query string) (int64, error) {
	var n int64
	if err := w.conn.QueryRowContext(ctx, query).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
	}
	return n, nil
}

func (w *work) hasTable(ctx context.Context, name string) (bool, error) {
	_, ok, err := w.columns(ctx, name)
	return ok, err
}

func (w *work) hasColumn(ctx context.Context, table, column string) (bool, error) {
	cols, _, err := w.columns(ctx, table)
	return slices.Contains(cols, column), err
}

// columns returns a working table's columns in order, and whether it exists.
func (w *work) columns(ctx context.Context, name string) ([]string, bool, error) {
	tables, err := w.workingTables(ctx)
	if err != nil {
		return nil, false, err
	}
	for _, t := range tables {
		if t.name == name {
			return t.columns, true, nil
		}
	}
	return nil, false, nil
}

// nonEmpty tells which of the named working tables hold a row, in one
// statement.
func (w *work) nonEmpty(ctx context.Context, names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("SELECT %d AS i FROM (SELECT 1 FROM %s.main.%s LIMIT 1)", i, quote(w.db), quote(n))
	}
	rows, err := w.conn.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
	if err != nil {
		return nil, fmt.Errorf("find the working tables that hold rows: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var i int
		if err := rows.Scan(&i); err != nil {
			return nil, err
		}
		out[names[i]] = true
	}
	return out, rows.Err()
}

// changesTables tells whether a statement may create, drop or reshape
// tables: anything but a query or a statement that only changes rows, and
// text holding a semicolon (another statement may follow).
func changesTables(query string) bool {
	if strings.Contains(query, ";") {
		return true
	}
	first, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	switch strings.ToUpper(strings.TrimSpace(first)) {
	case "SELECT", "UPDATE", "INSERT", "DELETE":
		return false
	}
	return true
}

// optimizerOff and optimizerOn bracket the batches of plain table copies
// (copyIn, the output's tables and rows): DuckDB's optimizer finds nothing
// to improve in `CREATE TABLE ... AS SELECT * FROM t` or `INSERT ...
// SELECT columns FROM t`, and planning them without it costs less (issue
// 9: about 5 ms of CPU a conversion). The setting belongs to the
// connection (a conversion's own, closed when the database goes back to
// the pool), so it never reaches another user; the statements that read
// data files (checks, rewritten deletes) run with it.
const (
	optimizerOff = "PRAGMA disable_optimizer"
	optimizerOn  = "PRAGMA enable_optimizer"
)

// withoutOptimizer brackets statements of plain copies with optimizerOff
// and optimizerOn.
func withoutOptimizer(stmts []namedStmt) []namedStmt {
	return slices.Concat([]namedStmt{{"plan without the optimizer", optimizerOff}}, stmts, []namedStmt{{"plan with the optimizer", optimizerOn}})
}

// copyIn copies the source's DuckLake tables (from openSource) into the
// working database, keeping column types and row order. The copies are
// made in one transaction, the copies sent as one batch
// (execInTransaction, which names the table whose copy failed, and runs
// them one by one only when the batch fails), planned without the
// optimizer (withoutOptimizer).
func (w *work) copyIn(ctx context.Context, tables []table) error {
	stmts := make([]namedStmt, 0, len(tables))
	copied := make([]table, 0, len(tables))
	for _, t := range tables {
		stmts = append(stmts, namedStmt{what: fmt.Sprintf("copy table %s.%s", w.schema, t.name), sql: w.copySQL(t)})
		copied = append(copied, table{schema: "main", name: t.name, columns: t.columns})
	}
	stmts = withoutOptimizer(stmts)
	w.writes++
	w.columnsWritten = false
	for _, s := range stmts {
		w.record(s.sql)
	}
	if _, err := w.conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return fmt.Errorf("copy the DuckLake tables: %w", err)
	}
	err := execInTransaction(ctx, w.conn, stmts)
	if err == nil {
		_, err = w.conn.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		w.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")  //nolint:errcheck // already failing; fails when nothing is open
		w.conn.ExecContext(context.WithoutCancel(ctx), optimizerOn) //nolint:errcheck // already failing
		return fmt.Errorf("copy the DuckLake tables: %w", err)
	}
	// The copies have the source's columns: no need to list them again.
	w.tables = copied
	return nil
}

// namedStmt is a statement and what an error in it is about.
type namedStmt struct {
	what, sql string
}

// execBatch runs statements sent as one string. It goes through
// QueryContext, not ExecContext: for a string of several statements the
// driver's ExecContext watches the context with a goroutine of its own for
// each statement, started and waited for (about a fifth of the CPU of
// copying 28 small tables in), QueryContext with one for them all.
func execBatch(ctx context.Context, conn *sql.Conn, stmts []string) error {
	rows, err := conn.QueryContext(ctx, strings.Join(stmts, ";\n"))
	if err != nil {
		return err
	}
	return rows.Close()
}

// execInTransaction runs statements in the transaction open on conn, in
// one batch (execBatch). When the batch fails it names the statement that
// failed: the transaction is rolled back and begun again, and the
// statements run again one at a time until one fails; the caller's
// transaction is then open and holds what ran before it.
func execInTransaction(ctx context.Context, conn *sql.Conn, stmts []namedStmt) error {
	if len(stmts) == 0 {
		return nil
	}
	sqls := make([]string, len(stmts))
	for i, s := range stmts {
		sqls[i] = s.sql
	}
	err := execBatch(ctx, conn, sqls)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if _, rbErr := conn.ExecContext(ctx, "ROLLBACK; BEGIN TRANSACTION"); rbErr != nil {
		return errors.Join(err, rbErr)
	}
	for _, s := range stmts {
		if _, sErr := conn.ExecContext(ctx, s.sql); sErr != nil {
			return fmt.Errorf("%s: %w", s.what, sErr)
		}
	}
	return fmt.Errorf("%d statements in one batch (each alone ran): %w", len(stmts), err)
}

// copySQL copies the source's table t into the working database, its
// columns in order, each as it is or as t.reads says: a frozen catalog's
// TIMESTAMP snapshot_time becomes the format's TIMESTAMPTZ of the same
// instants (the output's INSERT would cast it in the session's TimeZone,
// the machine's local zone: New York's 01:00 UTC became 06:00 UTC).
func (w *work) copySQL(t table) string {
	list := "*"
	if len(t.reads) > 0 {
		var repl []string
		for _, c := range slices.Sorted(maps.Keys(t.reads)) {
			repl = append(repl, t.reads[c]+" AS "+quote(c))
		}
		list = "* REPLACE (" + strings.Join(repl, ", ") + ")"
	}
	return fmt.Sprintf("CREATE TABLE main.%s AS SELECT %s FROM src.%s.%s", quote(t.name), list, quote(w.schema), quote(t.name))
}

var errInternal = errors.New("internal error")
