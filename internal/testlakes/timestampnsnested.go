package testlakes

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// NestedTimestampNSColumns are the columns TimestampNSEarlyNested adds to
// main.prim, each holding TIMESTAMP_NS values nested another way.
var NestedTimestampNSColumns = []string{"ns_s", "ns_l", "ns_m", "ns_d"}

// nestedColumn is a column TimestampNSEarlyNested adds: its catalog rows
// (id, parent, name, DuckLake type; the first is the column itself), its
// value from v (a TIMESTAMP_NS) and r and r2 (TIMESTAMP_NS values DuckDB
// renders, r2 other than v and r), and its leaves (column id, SQL of their values from the
// file f, DuckLake type) for the statistics.
type nestedColumn struct {
	name, duckType, value string
	rows                  []nestedColumnRow
	leaves                []nestedLeaf
}

type nestedColumnRow struct {
	id, parent int64
	name, typ  string
}

type nestedLeaf struct {
	id       int64
	sql, typ string
}

// nestedColumns: ns_s STRUCT(t, n), ns_l a LIST, ns_m a MAP whose keys
// and LIST values hold the value, ns_d a STRUCT of a LIST of STRUCTs and
// of a MAP of LISTs. Column ids follow main.prim's 27.
var nestedColumns = []nestedColumn{
	{"ns_s", "STRUCT(t TIMESTAMP_NS, n INTEGER)", "{'t': %[1]s, 'n': id}",
		[]nestedColumnRow{{28, 0, "ns_s", "struct"}, {29, 28, "t", "timestamp_ns"}, {30, 28, "n", "int32"}},
		[]nestedLeaf{{29, "SELECT ns_s.t AS x FROM %s", "timestamp_ns"}, {30, "SELECT ns_s.n AS x FROM %s", "int32"}}},
	{"ns_l", "TIMESTAMP_NS[]", "[%[1]s, NULL, %[2]s]",
		[]nestedColumnRow{{31, 0, "ns_l", "list"}, {32, 31, "element", "timestamp_ns"}},
		[]nestedLeaf{{32, "SELECT unnest(ns_l) AS x FROM %s", "timestamp_ns"}}},
	{"ns_m", "MAP(TIMESTAMP_NS, TIMESTAMP_NS[])", "MAP {%[1]s: [%[1]s, NULL], %[3]s: []}",
		[]nestedColumnRow{{33, 0, "ns_m", "map"}, {34, 33, "key", "timestamp_ns"}, {35, 33, "value", "list"}, {36, 35, "element", "timestamp_ns"}},
		[]nestedLeaf{{34, "SELECT unnest(map_keys(ns_m)) AS x FROM %s", "timestamp_ns"}, {36, "SELECT unnest(flatten(map_values(ns_m))) AS x FROM %s", "timestamp_ns"}}},
	{"ns_d", "STRUCT(ls STRUCT(t TIMESTAMP_NS)[], m MAP(VARCHAR, TIMESTAMP_NS[]))", "{'ls': [{'t': %[1]s}, NULL, {'t': NULL}], 'm': MAP {'k': [%[1]s]}}",
		[]nestedColumnRow{{37, 0, "ns_d", "struct"}, {38, 37, "ls", "list"}, {39, 38, "element", "struct"}, {40, 39, "t", "timestamp_ns"},
			{41, 37, "m", "map"}, {42, 41, "key", "varchar"}, {43, 41, "value", "list"}, {44, 43, "element", "timestamp_ns"}},
		[]nestedLeaf{{40, "SELECT e.t AS x FROM (SELECT unnest(ns_d.ls) AS e FROM %s)", "timestamp_ns"},
			{42, "SELECT unnest(map_keys(ns_d.m)) AS x FROM %s", "varchar"}, {44, "SELECT unnest(flatten(map_values(ns_d.m))) AS x FROM %s", "timestamp_ns"}}},
}

// nestedFieldIDs is nestedColumns' part of COPY's FIELD_IDS.
const nestedFieldIDs = `ns_s: {__duckdb_field_id: 28, t: 29, n: 30}, ns_l: {__duckdb_field_id: 31, element: 32}, ` +
	`ns_m: {__duckdb_field_id: 33, key: 34, value: {__duckdb_field_id: 35, element: 36}}, ` +
	`ns_d: {__duckdb_field_id: 37, ls: {__duckdb_field_id: 38, element: {__duckdb_field_id: 39, t: 40}}, m: {__duckdb_field_id: 41, key: 42, value: {__duckdb_field_id: 43, element: 44}}}`

// TimestampNSEarlyNested copies lakes' 01_primitive_types (its catalog
// src, its data folder data) with the columns NestedTimestampNSColumns
// added to main.prim (as if created with the table) and written into its
// data files, with their statistics in the copy of the catalog. Each
// holds, nested in a STRUCT, LIST or MAP (or deeper), ts[column] in the
// rows where pick is true (a TIMESTAMP_NS, e.g. one before 1677-09-22,
// which DuckDB reads, compares and hashes but cannot render as text), and
// elsewhere values DuckDB renders (each row's own, with nanoseconds); a
// column without an entry in ts holds those everywhere. Every column is
// NULL where id % 7 = 3. ts_ns is left as it is. It returns the catalog
// copy and the copied data folder.
func TimestampNSEarlyNested(tb testing.TB, src, data, pick string, ts map[string]string) (catalog, dataCopy string) {
	tb.Helper()
	catalog, dataCopy = copyLake(tb, src, data)
	db := testduck.Open(tb, "")
	must := func(q string) {
		tb.Helper()
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	must("ATTACH " + quoteSQL(catalog) + " AS c")
	for _, c := range nestedColumns {
		for _, r := range c.rows {
			parent := "NULL"
			if r.parent != 0 {
				parent = fmt.Sprint(r.parent)
			}
			must(fmt.Sprintf("INSERT INTO c.ducklake_column SELECT * REPLACE (%d AS column_id, %d AS column_order, %s AS column_name, %s AS column_type, %s AS parent_column) FROM c.ducklake_column WHERE table_id = 1 AND column_id = 22",
				r.id, r.id, quoteSQL(r.name), quoteSQL(r.typ), parent))
		}
	}
	var ids string
	if err := db.QueryRow(`SELECT '{' || string_agg('"' || column_name || '": ' || column_id, ', ' ORDER BY column_id) || ', ` + nestedFieldIDs + `}' FROM c.ducklake_column WHERE table_id = 1 AND end_snapshot IS NULL AND parent_column IS NULL AND column_id <= 27`).Scan(&ids); err != nil {
		tb.Fatal(err)
	}
	var sel []string
	for _, c := range nestedColumns {
		r := "make_timestamp_ns(946684800000000000 + id * 1000000 + 7)"
		r2 := "make_timestamp_ns(946684800000000000 + id * 1000000 + 1007)"
		v := r
		if x, ok := ts[c.name]; ok {
			v = "CASE WHEN " + pick + " THEN TIMESTAMP_NS " + quoteSQL(x) + " ELSE " + r + " END"
		}
		sel = append(sel, fmt.Sprintf("CASE WHEN id %% 7 = 3 THEN NULL ELSE CAST("+c.value+" AS %[4]s) END AS %[5]s", v, r, r2, c.duckType, c.name))
	}
	files := liveDataFiles(tb, db)
	type bounds struct {
		lo, hi   sql.NullString
		hasNulls bool
	}
	table := map[int64]*bounds{}
	for _, f := range files {
		file := filepath.Join(dataCopy, "main", "prim", f.path)
		tmp := file + ".new"
		must(`COPY (SELECT *, ` + strings.Join(sel, ", ") + ` FROM read_parquet(` + quoteSQL(file) + `)) TO ` + quoteSQL(tmp) + ` (FORMAT parquet, FIELD_IDS ` + ids + `)`)
		if err := os.Rename(tmp, file); err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		must(fmt.Sprintf("UPDATE c.ducklake_data_file SET file_size_bytes = %d, footer_size = %d WHERE data_file_id = %d", len(b), binary.LittleEndian.Uint32(b[len(b)-8:]), f.id))
		for _, c := range nestedColumns {
			for _, l := range c.leaves {
				minSQL, maxSQL := "min(x)::VARCHAR", "max(x)::VARCHAR"
				if l.typ == "timestamp_ns" {
					minSQL, maxSQL = "epoch_ns(min(x))::VARCHAR", "epoch_ns(max(x))::VARCHAR"
				}
				// column_size_bytes is an estimate: DuckDB's parquet_metadata
				// fails on a footer with an early TIMESTAMP_NS bound (it
				// renders the bound as text).
				q := fmt.Sprintf("SELECT count(x), count(*) - count(x), %s, %s, 8 * count(*) FROM (%s)",
					minSQL, maxSQL, fmt.Sprintf(l.sql, "read_parquet("+quoteSQL(file)+")"))
				var values, nulls, size int64
				var lo, hi sql.NullString
				if err := db.QueryRow(q).Scan(&values, &nulls, &lo, &hi, &size); err != nil {
					tb.Fatalf("%s: %v", q, err)
				}
				if l.typ == "timestamp_ns" {
					lo, hi = nsText(tb, lo), nsText(tb, hi)
				}
				must(fmt.Sprintf("INSERT INTO c.ducklake_file_column_stats (data_file_id, table_id, column_id, column_size_bytes, value_count, null_count, min_value, max_value) VALUES (%d, 1, %d, %d, %d, %d, %s, %s)",
					f.id, l.id, size, values, nulls, optSQL(lo), optSQL(hi)))
				t := table[l.id]
				if t == nil {
					t = &bounds{}
					table[l.id] = t
				}
				t.hasNulls = t.hasNulls || nulls > 0
				t.lo = pickBound(db, tb, l.typ, t.lo, lo, "min")
				t.hi = pickBound(db, tb, l.typ, t.hi, hi, "max")
			}
		}
	}
	for id, t := range table {
		must(fmt.Sprintf("INSERT INTO c.ducklake_table_column_stats (table_id, column_id, contains_null, min_value, max_value) VALUES (1, %d, %t, %s, %s)", id, t.hasNulls, optSQL(t.lo), optSQL(t.hi)))
	}
	must("DETACH c")
	return catalog, dataCopy
}

// nsText is a TIMESTAMP_NS's text, as DuckDB writes it, from its epoch_ns.
func nsText(tb testing.TB, ns sql.NullString) sql.NullString {
	tb.Helper()
	if !ns.Valid {
		return ns
	}
	var n int64
	if _, err := fmt.Sscan(ns.String, &n); err != nil {
		tb.Fatal(err)
	}
	return sql.NullString{String: time.Unix(0, n).UTC().Format("2006-01-02 15:04:05.999999999"), Valid: true}
}

// pickBound is the min or max (f) of two bounds' texts of DuckLake type typ.
func pickBound(db *sql.DB, tb testing.TB, typ string, a, b sql.NullString, f string) sql.NullString {
	tb.Helper()
	if !a.Valid {
		return b
	}
	if !b.Valid {
		return a
	}
	cast := map[string]string{"timestamp_ns": "TIMESTAMP_NS", "int32": "INTEGER", "varchar": "VARCHAR"}[typ]
	var ns sql.NullString
	x := "x"
	if typ == "timestamp_ns" {
		x = "epoch_ns(x)"
	}
	if err := db.QueryRow(fmt.Sprintf("SELECT %s(%s)::VARCHAR FROM (VALUES (CAST(%s AS %s)), (CAST(%s AS %s))) v(x)", f, x, quoteSQL(a.String), cast, quoteSQL(b.String), cast)).Scan(&ns); err != nil {
		tb.Fatal(err)
	}
	if typ == "timestamp_ns" {
		return nsText(tb, ns)
	}
	return ns
}

func optSQL(s sql.NullString) string {
	if !s.Valid {
		return "NULL"
	}
	return quoteSQL(s.String)
}
