package compare

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Catalog metadata rows are visible at snapshot s when begin_snapshot <= s
// and (end_snapshot IS NULL or s < end_snapshot) (see visible). What a query
// over such rows returns can therefore change only at a snapshot where one
// of them begins or ends: a change point. A comparison reads every snapshot,
// so answers that depend only on visibility (tables, columns, data and delete
// files, the schema description) are kept per epoch, the last change point
// at or before the snapshot, and reused until the next change point: a long
// history costs a read per change, not a read per snapshot and question.
// Change points come from the rows themselves, not from schema_version, so
// a catalog whose bookkeeping is wrong is still read row by row.

// metaMemo holds a reader's answers by epoch. Values are shared: callers
// must not modify them (Tables hands out copies of its slices; columns and
// entries are read-only once built). A table's data and delete files are
// read whole once (tableFiles) and filtered per snapshot.
type metaMemo struct {
	points  map[string]map[int64][]int64 // "table column" -> key value -> sorted change points
	tables  map[[2]int64][]Table         // (tablesEpoch epoch, the last columnSpans point)
	columns map[[2]int64]*epochColumns   // (table id, epoch)
	// tableFiles: every file row of a table, by table id and dir.
	tableFiles map[tableFilesKey]*tableFiles
	// tableOf: a data file's path -> its table's file rows.
	tableOf map[string]*tableFiles
	schema  map[int64]entries
	commits map[int64]string       // snapshot -> commit info (nil until read)
	changes map[int64]*string      // snapshot -> changes_made (nil until read; a nil value is SQL NULL)
	inlined map[int64][]inlinedReg // table id -> its inlined data tables
	stats   map[string]entries     // statistics entries by table and columns (statsEntries)
	facts   map[string]statsFacts  // what the entries' rows tell, by the same key (statsFacts)
	// schemaRows and tableRows: every row of ducklake_schema and
	// ducklake_table (nil until read; see Reader.schemaRows).
	schemaRows []catSchemaRow
	tableRows  []catTableRow
	// snapshots: every row of ducklake_snapshot (nil until read; see
	// Reader.Snapshots).
	snapshots *[]Snapshot
	// schemaVersions: the ducklake_schema_versions entries (nil until
	// read; see Reader.schemaVersionEntries).
	schemaVersions entries
	// extras: the partition specs', tags', views' and macros' rows (see
	// schemaExtras).
	extras schemaExtras
	// loadRefusals: why the readers' load of the catalog fails, by epoch
	// of the schema description ("" where it loads; see
	// Reader.loadRefusal); withColumns:
	// the table_ids with a ducklake_column row (nil until read).
	loadRefusals, loadRefusalAt map[int64]string // by epoch, by snapshot
	withColumns                 map[int64]bool
	// columnSpans, spanPoints: see Reader.columnSpans (nil until read).
	columnSpans map[int64][]formats.Span
	spanPoints  []int64
	// lakeTypes and columnTypes: every lower(column_type), and every
	// lower(trim(column_type)), of ducklake_column (nil until read; see
	// Reader.readColumnRows, hasLakeType, HasColumnOfType).
	lakeTypes, columnTypes map[string]bool
	// columnTree: some ducklake_column row is a nested field or has a
	// negative column_id, the rows formats.ColumnTreeQuery selects (see
	// Reader.readColumnRows, loadRows).
	columnTree bool
	// loadRows: the rows formats.LoadRefusal checks (nil until read;
	// see Reader.loadRows).
	loadRows *formats.LoadRows
	// otherTags: the column tags other than comments, by table_id (nil
	// until read; see Reader.otherColumnTags).
	otherTags map[int64][]tagRow
	// defaultCasts: whether a default's text casts to a type, by type and
	// text (see Reader.defaultCastRefusal).
	defaultCasts map[[2]string]bool
	// columnRows: every ducklake_column row by table_id, in readColumns'
	// order (see Reader.allColumnRows).
	columnRows atOnce[*columnRows]
	// fileRows: every data and delete file row by table_id, until
	// allTableFiles takes a table's (see Reader.allFileRows).
	fileRows atOnce[*fileRows]
	// statsCounts: ducklake_table_stats' record counts by table_id (see
	// Reader.allStatsCounts).
	statsCounts atOnce[map[int64][]int64]
}

// epochColumns is a table's columns over one columns epoch (Columns) and
// what is made of them once, kept with them: the refusal verdict
// (columnsVerdictOf) and a digest's names and types, without and with
// the row id (rowColumns); nil until asked.
type epochColumns struct {
	cols    []*Column
	verdict *columnsVerdict
	rows    [2]*rowColumnsOf // by ScanOptions.RowIDs
}

// tableFilesKey keys metaMemo.tableFiles: a table id and its folder
// (Table.dir), a value, not a formatted string (asked at every snapshot).
type tableFilesKey struct {
	id  int64
	dir string
}

// atOnce is a read of every table's rows of a metadata table made once
// per reader, where a query per table ran before (allColumnRows,
// allFileRows, allStatsCounts): done once it was made, or cannot be
// (rows then nil: each table is read by its own query, with its errors).
type atOnce[T any] struct {
	rows T
	done bool
}

// get gives the rows, read by read the first time. None where a key
// column (metadata table, column) is not a BIGINT (SQL compares it as its
// own type, the per-table queries too), or where read fails (a value of
// a row no one may ask); a read cut by ctx is made again at the next call.
func (a *atOnce[T]) get(ctx context.Context, r *Reader, keys [][2]string, read func() (T, error)) T {
	var none T
	if a.done {
		return a.rows
	}
	for _, k := range keys {
		if r.columnTypes[k] != "BIGINT" {
			a.done = true
			return none
		}
	}
	rows, err := read()
	if err != nil {
		if ctx.Err() != nil {
			return none // not made: asked again
		}
		rows = none
	}
	a.rows, a.done = rows, true
	return rows
}

func newMetaMemo() *metaMemo {
	return &metaMemo{
		points:     map[string]map[int64][]int64{},
		tables:     map[[2]int64][]Table{},
		columns:    map[[2]int64]*epochColumns{},
		tableFiles: map[tableFilesKey]*tableFiles{},
		tableOf:    map[string]*tableFiles{},
		schema:     map[int64]entries{},
		inlined:    map[int64][]inlinedReg{},
		stats:      map[string]entries{},
		facts:      map[string]statsFacts{},

		loadRefusals:  map[int64]string{},
		loadRefusalAt: map[int64]string{},
		defaultCasts:  map[[2]string]bool{},
	}
}

// wholeTable keys the change points of a metadata table taken as a whole.
const wholeTable = math.MinInt64

// changePoints returns the change points of a metadata table's rows, by the
// value of column by (wholeTable for the table as a whole when by is "").
// Each table is read once per reader; the first call reads, in the same
// query, every table the epochs of a comparison ask for (epochTables).
func (r *Reader) changePoints(ctx context.Context, table, by string) (map[int64][]int64, error) {
	key := table + " " + by
	if p, ok := r.meta.points[key]; ok {
		return p, nil
	}
	want := [][2]string{{table, by}}
	for _, tb := range r.epochTables() {
		if _, ok := r.meta.points[tb[0]+" "+tb[1]]; !ok && tb != want[0] {
			want = append(want, tb)
		}
	}
	if err := r.readChangePoints(ctx, want); err != nil {
		return nil, err
	}
	return r.meta.points[key], nil
}

// epochTables are the (table, by) pairs whose change points the reader's
// epochs use: the schema description's tables, the tables' and the
// columns'.
func (r *Reader) epochTables() [][2]string {
	return append(append(r.schemaTables(), tablesEpoch...), columnsEpoch...)
}

// readChangePoints reads the change points of several (table, by) pairs in
// one query into r.meta.points (tables absent or known empty: none). The
// rows' snapshots are sorted and deduplicated here: metadata tables are
// small, and a plain scan plans faster than grouping in DuckDB.
func (r *Reader) readChangePoints(ctx context.Context, want [][2]string) error {
	var parts []string
	var names []string
	for i, tb := range want {
		table, by := tb[0], tb[1]
		if _, ok := r.layout[table]; !ok || r.empty(table) {
			r.meta.points[table+" "+by] = map[int64][]int64{} // no rows: no change points
			continue
		}
		group := fmt.Sprintf("%d", int64(wholeTable))
		if by != "" {
			group = ident(by)
		}
		end := "NULL"
		if r.has(table, "end_snapshot") {
			end = "end_snapshot"
		}
		parts = append(parts, fmt.Sprintf(`SELECT %d, %s, begin_snapshot, %s FROM cat.%s`, i, group, end, table))
		names = append(names, table)
	}
	if len(parts) == 0 {
		return nil
	}
	rows, err := r.conn.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
	if err != nil {
		return fmt.Errorf("read change points of %s in %s: %w", strings.Join(names, ", "), oneline.Name(r.path), err)
	}
	defer rows.Close()
	got := map[int]map[int64][]int64{}
	for rows.Next() {
		var i int
		var k, begin, end sql.NullInt64
		if err := rows.Scan(&i, &k, &begin, &end); err != nil {
			return fmt.Errorf("read change points of %s in %s: %w", strings.Join(names, ", "), oneline.Name(r.path), err)
		}
		if !k.Valid {
			continue
		}
		if got[i] == nil {
			got[i] = map[int64][]int64{}
		}
		for _, p := range []sql.NullInt64{begin, end} {
			if p.Valid {
				got[i][k.Int64] = append(got[i][k.Int64], p.Int64)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read change points of %s in %s: %w", strings.Join(names, ", "), oneline.Name(r.path), err)
	}
	for i, tb := range want {
		key := tb[0] + " " + tb[1]
		if _, done := r.meta.points[key]; done {
			continue
		}
		out := got[i]
		if out == nil {
			out = map[int64][]int64{}
		}
		for k, pts := range out {
			slices.Sort(pts)
			out[k] = slices.Compact(pts)
		}
		r.meta.points[key] = out
	}
	return nil
}

// epoch is the last change point at or before snap of the given metadata
// tables (rows whose column by equals id, or all rows when by is ""), or
// math.MinInt64 before the first one. Two snapshots with the same epoch see
// the same rows of those tables.
func (r *Reader) epoch(ctx context.Context, snap int64, id int64, tables ...[2]string) (int64, error) {
	e := int64(math.MinInt64)
	for _, tb := range tables {
		if _, ok := r.layout[tb[0]]; !ok {
			continue
		}
		byKey, err := r.changePoints(ctx, tb[0], tb[1])
		if err != nil {
			return 0, err
		}
		k := id
		if tb[1] == "" {
			k = wholeTable
		}
		pts := byKey[k]
		// The last point <= snap.
		if i := sort.Search(len(pts), func(i int) bool { return pts[i] > snap }); i > 0 {
			e = max(e, pts[i-1])
		}
	}
	return e, nil
}

// schemaTables are the metadata tables a schema description reads: every
// table of the catalog with a begin_snapshot column except the data and
// delete files (which change at nearly every snapshot and are described per
// table by fileEntries). Taking every such table is conservative: a table
// the description does not read only splits epochs.
func (r *Reader) schemaTables() [][2]string {
	var out [][2]string
	for _, t := range slices.Sorted(maps.Keys(r.layout)) {
		if t == "ducklake_data_file" || t == "ducklake_delete_file" || !r.has(t, "begin_snapshot") {
			continue
		}
		out = append(out, [2]string{t, ""})
	}
	return out
}

// tablesEpoch keys Tables: the schemas, tables and views visible (a view
// hides the tables of its name: shadowTables).
var tablesEpoch = [][2]string{{"ducklake_schema", ""}, {"ducklake_table", ""}, {"ducklake_view", ""}}

// columnsEpoch keys a table's columns.
var columnsEpoch = [][2]string{{"ducklake_column", "table_id"}}
