package lakegen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// gen holds the state of one generation: a private in-memory DuckDB whose
// attached database "cat" holds the catalog's metadata tables and whose
// main schema holds one truth table per DuckLake table.
type gen struct {
	db       *sql.DB
	conn     *sql.Conn
	dataDir  string // local folder of the published data/
	dataPath string // published URL of data/
	format   *formats.Version
	record   bool

	snap          int64
	snapTime      time.Time
	schemaVersion int64
	nextCatalogID int64
	nextFileID    int64

	tables []*table // every table ever created, by table_id
	views  []*view

	// per-commit state
	tokens        []token
	schemaChanged bool
	svTables      []int64
	touched       []*table // tables whose rows or columns the commit changed

	snapshots []SnapshotResult
}

type token struct {
	rank int
	text string
}

// Token kinds in the order DuckLake writes them into changes_made.
const (
	rankCreatedTable = iota
	rankCreatedView
	rankInserted
	rankDeleted
	rankAlteredTable
)

type table struct {
	id        int64
	uuid      string
	name      string
	path      string // relative to the schema path, with trailing '/'
	begin     int64
	cols      []*col // live top-level columns, in order
	nextColID int64
	nextRowID int64
	files     []*dataFile
	partID    int64  // 0: not partitioned
	partCols  []*col // identity partition keys
	renamed   bool
	comment   *string
	// table_stats / table_column_stats
	hasStats  bool
	records   int64
	sizeBytes int64
	colStats  []*colStat
}

type col struct {
	id       int64
	name     string
	typ      string // DuckDB type of a leaf, or STRUCT / LIST
	initDef  *string
	defVal   *string
	notNull  bool
	children []*col
	comment  *string // COMMENT ON COLUMN
}

type colStat struct {
	id           int64
	dl           string
	containsNull bool
	containsNaN  *bool
	min, max     *string
}

type dataFile struct {
	id         int64
	path       string // relative to the table path
	rowIDStart int64
	count      int64
	begin, end int64
	del        *deleteFile
}

type deleteFile struct {
	id    int64
	path  string
	begin int64
}

type view struct {
	id   int64
	name string
	sql  string
}

const (
	schemaPath = "main/"
)

var plainName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func newGen(ctx context.Context, dataDir, dataPath string, start time.Time, record bool) (*gen, error) {
	db, err := duckpool.Open()
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open duckdb connection: %w", err)
	}
	g := &gen{db: db, conn: conn, dataDir: dataDir, dataPath: dataPath, format: formats.V1_0,
		record: record, snapTime: start.UTC().Truncate(time.Microsecond), nextCatalogID: 1}
	if err := g.init(ctx); err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

func (g *gen) close() {
	g.conn.Close()
	g.db.Close()
}

func (g *gen) exec(ctx context.Context, query string, args ...any) error {
	if _, err := g.conn.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%s: %w", oneline.Brief(query, 120), err)
	}
	return nil
}

// init creates the metadata tables and the rows DuckLake writes when it
// creates a catalog (ducklake-formats.md §2.6).
func (g *gen) init(ctx context.Context) error {
	if err := g.exec(ctx, "ATTACH ':memory:' AS cat"); err != nil {
		return err
	}
	for _, t := range g.format.Tables {
		if err := g.exec(ctx, qualify(t.DDL(), "cat")); err != nil {
			return err
		}
	}
	var sourceID string
	if err := g.conn.QueryRowContext(ctx, "SELECT source_id FROM pragma_version()").Scan(&sourceID); err != nil {
		return fmt.Errorf("read duckdb source id: %w", err)
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{"INSERT INTO cat.ducklake_metadata VALUES ('version', ?, NULL, NULL), ('created_by', ?, NULL, NULL), ('data_path', ?, NULL, NULL), ('encrypted', 'false', NULL, NULL)",
			[]any{g.format.Stamp, "DuckDB " + sourceID, g.dataPath}},
		{"INSERT INTO cat.ducklake_snapshot VALUES (0, ?, 0, 1, 0)", []any{g.snapTime}},
		{`INSERT INTO cat.ducklake_snapshot_changes VALUES (0, 'created_schema:"main"', NULL, NULL, NULL)`, nil},
		{"INSERT INTO cat.ducklake_schema VALUES (0, ?, 0, NULL, 'main', ?, true)", []any{uuid.NewString(), schemaPath}},
	}
	for _, s := range stmts {
		if err := g.exec(ctx, s.q, s.args...); err != nil {
			return err
		}
	}
	g.snapshots = append(g.snapshots, SnapshotResult{ID: 0, Time: g.snapTime, Tables: map[string]TableState{}})
	return nil
}

// qualify puts a CREATE TABLE into the given database.
func qualify(ddl, db string) string {
	return strings.Replace(ddl, "CREATE TABLE ", "CREATE TABLE "+db+".", 1)
}

// commit applies one snapshot's operations and writes its snapshot rows.
func (g *gen) commit(ctx context.Context, ops Snapshot) error {
	if len(ops) == 0 {
		return errors.New("empty snapshot")
	}
	g.snap++
	g.snapTime = g.snapTime.Add(time.Second)
	g.tokens, g.schemaChanged, g.svTables, g.touched = nil, false, nil, nil
	for _, op := range ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := op.apply(ctx, g); err != nil {
			return fmt.Errorf("snapshot %d: %w", g.snap, err)
		}
	}
	if len(g.tokens) == 0 {
		// DuckLake writes no snapshot for a commit that changes nothing.
		return fmt.Errorf("snapshot %d changes nothing (a delete that matched no row?)", g.snap)
	}
	if g.schemaChanged {
		g.schemaVersion++
		for _, tid := range g.svTables {
			if err := g.exec(ctx, "INSERT INTO cat.ducklake_schema_versions VALUES (?, ?, ?)", g.snap, g.schemaVersion, tid); err != nil {
				return err
			}
		}
	}
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_snapshot VALUES (?, ?, ?, ?, ?)",
		g.snap, g.snapTime, g.schemaVersion, g.nextCatalogID, g.nextFileID); err != nil {
		return err
	}
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_snapshot_changes VALUES (?, ?, NULL, NULL, NULL)", g.snap, g.changes()); err != nil {
		return err
	}
	// The table statistics are written when a version is frozen: they are
	// running totals kept in memory, and rewriting them on every commit
	// made a commit cost as much as all tables together.
	return g.recordSnapshot(ctx)
}

// touch marks a table as changed by the current commit: its rows or columns
// are read again when the snapshot is recorded.
func (g *gen) touch(t *table) {
	if !slices.Contains(g.touched, t) {
		g.touched = append(g.touched, t)
	}
}

func (g *gen) changes() string {
	slices.SortStableFunc(g.tokens, func(a, b token) int { return a.rank - b.rank })
	var out []string
	for _, t := range g.tokens {
		if !slices.Contains(out, t.text) {
			out = append(out, t.text)
		}
	}
	return strings.Join(out, ",")
}

func (g *gen) change(rank int, text string) { g.tokens = append(g.tokens, token{rank, text}) }

// schemaChange marks a change of the catalog schema; tid >= 0 also adds a
// ducklake_schema_versions row for that table.
func (g *gen) schemaChange(tid int64) {
	g.schemaChanged = true
	if tid >= 0 && !slices.Contains(g.svTables, tid) {
		g.svTables = append(g.svTables, tid)
	}
}

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// live returns the live table with that name.
func (g *gen) live(name string) (*table, error) {
	for _, t := range g.tables {
		if t.name == name {
			return t, nil
		}
	}
	return nil, fmt.Errorf("no table %q", name)
}

func (t *table) col(name string) (*col, error) {
	for _, c := range t.cols {
		if c.name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("table %s has no column %q", t.name, name)
}

func (t *table) truth() string { return fmt.Sprintf("main.truth_%d", t.id) }

// ---------------------------------------------------------------- columns

// newCol builds a column tree, allocating field ids depth first.
func (t *table) newCol(c Column) (*col, error) {
	typ := strings.ToUpper(strings.TrimSpace(c.Type))
	if _, err := duckLakeType(typ); err != nil {
		return nil, fmt.Errorf("column %s: %w", c.Name, err)
	}
	t.nextColID++
	out := &col{id: t.nextColID, name: c.Name, typ: typ, notNull: c.NotNull}
	if c.Default != "" {
		d := c.Default
		out.initDef, out.defVal = &d, &d
	}
	switch typ {
	case "STRUCT":
		if len(c.Fields) == 0 {
			return nil, fmt.Errorf("struct column %s has no fields", c.Name)
		}
	case "LIST":
		if len(c.Fields) != 1 {
			return nil, fmt.Errorf("list column %s needs exactly one field (the element)", c.Name)
		}
		c.Fields[0].Name = "element"
	default:
		if len(c.Fields) > 0 {
			return nil, fmt.Errorf("column %s of type %s cannot have fields", c.Name, typ)
		}
	}
	for _, f := range c.Fields {
		child, err := t.newCol(f)
		if err != nil {
			return nil, err
		}
		out.children = append(out.children, child)
	}
	return out, nil
}

// sqlType is the DuckDB type of a column (nested types spelled out).
func (c *col) sqlType() string {
	switch c.typ {
	case "STRUCT":
		parts := make([]string, len(c.children))
		for i, ch := range c.children {
			parts[i] = quoteName(ch.name) + " " + ch.sqlType()
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case "LIST":
		return c.children[0].sqlType() + "[]"
	}
	return c.typ
}

// duckLakeType maps a DuckDB type name to DuckLake's column_type.
func duckLakeType(typ string) (string, error) {
	if strings.HasPrefix(typ, "DECIMAL(") {
		return strings.ToLower(strings.ReplaceAll(typ, " ", "")), nil
	}
	names := map[string]string{
		"BOOLEAN": "boolean", "TINYINT": "int8", "SMALLINT": "int16", "INTEGER": "int32", "BIGINT": "int64",
		"HUGEINT": "int128", "UTINYINT": "uint8", "USMALLINT": "uint16", "UINTEGER": "uint32", "UBIGINT": "uint64",
		"FLOAT": "float32", "DOUBLE": "float64", "VARCHAR": "varchar", "BLOB": "blob", "DATE": "date",
		"TIME": "time", "TIMESTAMP": "timestamp", "TIMESTAMPTZ": "timestamptz", "UUID": "uuid",
		"STRUCT": "struct", "LIST": "list",
	}
	if n, ok := names[typ]; ok {
		return n, nil
	}
	return "", fmt.Errorf("type %s is not supported by lakegen", typ)
}

// insertColumnRows writes the ducklake_column rows of a column tree.
func (g *gen) insertColumnRows(ctx context.Context, t *table, c *col, parent *int64) error {
	dl, _ := duckLakeType(c.typ)
	defVal := "NULL" // 0.4+ writes the string 'NULL' for "no default"
	if c.defVal != nil {
		defVal = *c.defVal
	}
	defType := "literal"
	if len(c.children) > 0 {
		defType = "" // what DuckLake writes for struct/list/map parents
	}
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_column VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'duckdb')",
		c.id, g.snap, t.id, c.id, c.name, dl, c.initDef, defVal, !c.notNull, parent, defType); err != nil {
		return err
	}
	for _, ch := range c.children {
		if err := g.insertColumnRows(ctx, t, ch, &c.id); err != nil {
			return err
		}
	}
	return nil
}

// endColumnRows ends the live ducklake_column rows of a column tree.
func (g *gen) endColumnRows(ctx context.Context, t *table, c *col) error {
	if err := g.exec(ctx, "UPDATE cat.ducklake_column SET end_snapshot = ? WHERE table_id = ? AND column_id = ? AND end_snapshot IS NULL",
		g.snap, t.id, c.id); err != nil {
		return err
	}
	for _, ch := range c.children {
		if err := g.endColumnRows(ctx, t, ch); err != nil {
			return err
		}
	}
	return nil
}

// leaves lists a column's leaf fields with the dotted path DuckDB's
// RETURN_STATS uses for them ("s"."b"."element").
func (c *col) leaves(prefix string) []leaf {
	path := quoteName(c.name)
	if prefix != "" {
		path = prefix + "." + path
	}
	if len(c.children) == 0 {
		dl, _ := duckLakeType(c.typ)
		return []leaf{{c, path, dl}}
	}
	var out []leaf
	for _, ch := range c.children {
		out = append(out, ch.leaves(path)...)
	}
	return out
}

type leaf struct {
	c    *col
	path string
	dl   string
}

// fieldIDs is the FIELD_IDS value of COPY for a column.
func (c *col) fieldIDs() string {
	if len(c.children) == 0 {
		return strconv.FormatInt(c.id, 10)
	}
	parts := []string{"__duckdb_field_id: " + strconv.FormatInt(c.id, 10)}
	for _, ch := range c.children {
		parts = append(parts, quoteName(ch.name)+": "+ch.fieldIDs())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// ---------------------------------------------------------------- operations

func (op CreateTable) apply(ctx context.Context, g *gen) error {
	if _, err := g.live(op.Table); err == nil {
		return fmt.Errorf("create table %s: already exists", op.Table)
	}
	if len(op.Columns) == 0 {
		return fmt.Errorf("create table %s: no columns", op.Table)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	t := &table{id: g.nextCatalogID, uuid: id.String(), name: op.Table, begin: g.snap}
	g.nextCatalogID++
	t.path = op.Table + "/"
	if !plainName.MatchString(op.Table) {
		t.path = t.uuid + "/"
	}
	for _, c := range op.Columns {
		cc, err := t.newCol(c)
		if err != nil {
			return fmt.Errorf("create table %s: %w", op.Table, err)
		}
		t.cols = append(t.cols, cc)
	}
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_table VALUES (?, ?, ?, NULL, 0, ?, ?, true)", t.id, t.uuid, g.snap, t.name, t.path); err != nil {
		return err
	}
	defs := []string{"_row_id BIGINT", "_begin BIGINT", "_end BIGINT", "_file BIGINT", "_pos BIGINT"}
	for _, c := range t.cols {
		if err := g.insertColumnRows(ctx, t, c, nil); err != nil {
			return err
		}
		defs = append(defs, fmt.Sprintf("c%d %s", c.id, c.sqlType()))
	}
	if err := g.exec(ctx, fmt.Sprintf("CREATE TABLE %s(%s)", t.truth(), strings.Join(defs, ", "))); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(g.dataDir, schemaPath, t.path), 0o755); err != nil {
		return fmt.Errorf("create table folder: %w", err)
	}
	g.tables = append(g.tables, t)
	g.touch(t)
	g.change(rankCreatedTable, fmt.Sprintf("created_table:%s.%s", quoteName("main"), quoteName(t.name)))
	g.schemaChange(t.id)
	return nil
}

func (op AddColumn) apply(ctx context.Context, g *gen) error {
	t, err := g.live(op.Table)
	if err != nil {
		return fmt.Errorf("add column: %w", err)
	}
	if _, err := t.col(op.Column.Name); err == nil {
		return fmt.Errorf("add column %s.%s: already exists", t.name, op.Column.Name)
	}
	c, err := t.newCol(op.Column)
	if err != nil {
		return fmt.Errorf("add column %s.%s: %w", t.name, op.Column.Name, err)
	}
	if err := g.insertColumnRows(ctx, t, c, nil); err != nil {
		return err
	}
	t.cols = append(t.cols, c)
	if err := g.exec(ctx, fmt.Sprintf("ALTER TABLE %s ADD COLUMN c%d %s", t.truth(), c.id, c.sqlType())); err != nil {
		return err
	}
	// Rows written before the column existed read as its initial_default.
	if c.initDef != nil {
		if err := g.exec(ctx, fmt.Sprintf("UPDATE %s SET c%d = CAST(%s AS %s)", t.truth(), c.id, quoteString(*c.initDef), c.sqlType())); err != nil {
			return err
		}
	}
	g.touch(t)
	g.change(rankAlteredTable, fmt.Sprintf("altered_table:%d", t.id))
	g.schemaChange(t.id)
	return nil
}

func (op RenameColumn) apply(ctx context.Context, g *gen) error {
	t, err := g.live(op.Table)
	if err != nil {
		return fmt.Errorf("rename column: %w", err)
	}
	c, err := t.col(op.From)
	if err != nil {
		return fmt.Errorf("rename column: %w", err)
	}
	if _, err := t.col(op.To); err == nil {
		return fmt.Errorf("rename column %s.%s: %s already exists", t.name, op.From, op.To)
	}
	// A rename ends the column's row and starts a new one with the same id.
	if err := g.exec(ctx, "UPDATE cat.ducklake_column SET end_snapshot = ? WHERE table_id = ? AND column_id = ? AND end_snapshot IS NULL", g.snap, t.id, c.id); err != nil {
		return err
	}
	c.name = op.To
	dl, _ := duckLakeType(c.typ)
	defVal := "NULL"
	if c.defVal != nil {
		defVal = *c.defVal
	}
	defType := "literal"
	if len(c.children) > 0 {
		defType = ""
	}
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_column VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, NULL, ?, 'duckdb')",
		c.id, g.snap, t.id, c.id, c.name, dl, c.initDef, defVal, !c.notNull, defType); err != nil {
		return err
	}
	t.renamed = true
	g.touch(t)
	g.change(rankAlteredTable, fmt.Sprintf("altered_table:%d", t.id))
	g.schemaChange(t.id)
	return nil
}

func (op DropColumn) apply(ctx context.Context, g *gen) error {
	t, err := g.live(op.Table)
	if err != nil {
		return fmt.Errorf("drop column: %w", err)
	}
	c, err := t.col(op.Column)
	if err != nil {
		return fmt.Errorf("drop column: %w", err)
	}
	if slices.Contains(t.partCols, c) {
		return fmt.Errorf("drop column %s.%s: it is a partition key", t.name, c.name)
	}
	if len(t.cols) == 1 {
		return fmt.Errorf("drop column %s.%s: the last column", t.name, c.name)
	}
	if err := g.endColumnRows(ctx, t, c); err != nil {
		return err
	}
	t.cols = slices.DeleteFunc(t.cols, func(x *col) bool { return x == c })
	g.touch(t)
	g.change(rankAlteredTable, fmt.Sprintf("altered_table:%d", t.id))
	g.schemaChange(t.id)
	return nil
}

func (op PartitionBy) apply(ctx context.Context, g *gen) error {
	t, err := g.live(op.Table)
	if err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	var keys []*col
	for _, name := range op.Columns {
		c, err := t.col(name)
		if err != nil {
			return fmt.Errorf("partition: %w", err)
		}
		if len(c.children) > 0 {
			return fmt.Errorf("partition %s by %s: nested column", t.name, name)
		}
		keys = append(keys, c)
	}
	if t.partID != 0 {
		if err := g.exec(ctx, "UPDATE cat.ducklake_partition_info SET end_snapshot = ? WHERE partition_id = ?", g.snap, t.partID); err != nil {
			return err
		}
	}
	t.partID, t.partCols = g.nextCatalogID, keys
	g.nextCatalogID++
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_partition_info VALUES (?, ?, ?, NULL)", t.partID, t.id, g.snap); err != nil {
		return err
	}
	for i, c := range keys {
		if err := g.exec(ctx, "INSERT INTO cat.ducklake_partition_column VALUES (?, ?, ?, ?, 'identity')", t.partID, t.id, i, c.id); err != nil {
			return err
		}
	}
	g.touch(t)
	g.change(rankAlteredTable, fmt.Sprintf("altered_table:%d", t.id))
	g.schemaChange(t.id)
	return nil
}

func (op CreateView) apply(ctx context.Context, g *gen) error {
	for _, v := range g.views {
		if v.name == op.View {
			return fmt.Errorf("create view %s: already exists", op.View)
		}
	}
	v := &view{id: g.nextCatalogID, name: op.View, sql: op.SQL}
	g.nextCatalogID++
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_view VALUES (?, ?, ?, NULL, 0, ?, 'duckdb', ?, '')", v.id, uuid.NewString(), g.snap, v.name, v.sql); err != nil {
		return err
	}
	g.views = append(g.views, v)
	g.change(rankCreatedView, fmt.Sprintf("created_view:%s.%s", quoteName("main"), quoteName(v.name)))
	g.schemaChange(-1)
	return nil
}

func (op Comment) apply(ctx context.Context, g *gen) error {
	t, err := g.live(op.Table)
	if err != nil {
		return fmt.Errorf("comment: %w", err)
	}
	text := op.Text
	if op.Column == "" {
		if err := g.exec(ctx, "UPDATE cat.ducklake_tag SET end_snapshot = ? WHERE object_id = ? AND key = 'comment' AND end_snapshot IS NULL", g.snap, t.id); err != nil {
			return err
		}
		if err := g.exec(ctx, "INSERT INTO cat.ducklake_tag VALUES (?, ?, NULL, 'comment', ?)", t.id, g.snap, text); err != nil {
			return err
		}
		t.comment = &text
	} else {
		c, err := t.col(op.Column)
		if err != nil {
			return fmt.Errorf("comment: %w", err)
		}
		if err := g.exec(ctx, "UPDATE cat.ducklake_column_tag SET end_snapshot = ? WHERE table_id = ? AND column_id = ? AND key = 'comment' AND end_snapshot IS NULL", g.snap, t.id, c.id); err != nil {
			return err
		}
		if err := g.exec(ctx, "INSERT INTO cat.ducklake_column_tag VALUES (?, ?, ?, NULL, 'comment', ?)", t.id, c.id, g.snap, text); err != nil {
			return err
		}
		c.comment = &text
	}
	// A comment changes the schema version but adds no schema_versions row.
	g.touch(t)
	g.change(rankAlteredTable, fmt.Sprintf("altered_table:%d", t.id))
	g.schemaChange(-1)
	return nil
}
