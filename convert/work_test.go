package convert

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestColumnsOf checks the cheap listing of tables and columns against
// DuckDB's own duckdb_columns(), on schemas whose names pragma_table_info
// parses (dots, spaces) and on one it cannot (a double quote), where the
// listing falls back to duckdb_columns().
func TestColumnsOf(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, schema string
	}{
		{"main schema", "main"},
		{"metadata schema with dots and spaces", "my lake.meta"},
		{"metadata schema with a double quote", `meta"data`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, closeDB, err := openDuckDB(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			s := quote(tc.schema)
			stmts := []string{
				`CREATE TABLE ducklake_a (x INTEGER, "y z" VARCHAR, "Q" BIGINT)`,
				`CREATE TABLE ducklake_inlined_data_1_2 (row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, v DOUBLE)`,
				`CREATE TABLE other (u INTEGER)`,
				`CREATE VIEW ducklake_view AS SELECT 1 AS one`,
			}
			if tc.schema != "main" {
				stmts = append([]string{"CREATE SCHEMA " + s}, stmts...)
				for i := 1; i < len(stmts); i++ {
					stmts[i] = strings.Replace(stmts[i], "ducklake_", s+".ducklake_", 1)
					stmts[i] = strings.Replace(stmts[i], "TABLE other", "TABLE "+s+".other", 1)
				}
			}
			for _, q := range stmts {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			got, err := columnsOf(ctx, conn, "memory", "ducklake_")
			if err != nil {
				t.Fatal(err)
			}
			want := []table{
				{schema: tc.schema, name: "ducklake_a", columns: []string{"x", "y z", "Q"}},
				{schema: tc.schema, name: "ducklake_inlined_data_1_2", columns: []string{"row_id", "begin_snapshot", "end_snapshot", "v"}},
			}
			if !slices.EqualFunc(got, want, equalTable) {
				t.Errorf("columnsOf = %v, want %v", got, want)
			}
			all, err := columnsOfAll(ctx, conn, "memory", "ducklake_")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(all, want, equalTable) {
				t.Errorf("columnsOfAll = %v, want %v", all, want)
			}
		})
	}
}

// newTestWork opens a private DuckDB (closed when the test ends) and a
// working database on it, as a conversion has.
func newTestWork(t *testing.T) (*sql.Conn, *work) {
	t.Helper()
	conn, closeDB, err := openDuckDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeDB)
	return conn, &work{conn: conn, db: "memory", schema: "main"}
}

func equalTable(a, b table) bool {
	return a.schema == b.schema && a.name == b.name && slices.Equal(a.columns, b.columns)
}

// TestWorkingTablesFollowStatements checks that the kept listing of the
// working tables follows every statement that changes tables (created,
// renamed, reshaped, dropped, replaced) and is kept across statements that
// only change rows.
func TestWorkingTablesFollowStatements(t *testing.T) {
	ctx := context.Background()
	conn, w := newTestWork(t)
	steps := []struct {
		stmt    string
		table   string
		columns []string // nil: the table does not exist
		relist  bool     // the statement may change tables
	}{
		{"CREATE TABLE ducklake_t (a INTEGER, b VARCHAR)", "ducklake_t", []string{"a", "b"}, true},
		{"INSERT INTO ducklake_t VALUES (1, 'x')", "ducklake_t", []string{"a", "b"}, false},
		{"\n\tUPDATE ducklake_t SET b = 'y'", "ducklake_t", []string{"a", "b"}, false},
		{"ALTER TABLE ducklake_t ADD COLUMN c BIGINT DEFAULT 7", "ducklake_t", []string{"a", "b", "c"}, true},
		{"alter table ducklake_t drop column a", "ducklake_t", []string{"b", "c"}, true},
		{"ALTER TABLE ducklake_t RENAME COLUMN b TO bb", "ducklake_t", []string{"bb", "c"}, true},
		{"CREATE OR REPLACE TABLE ducklake_t AS SELECT c, bb FROM ducklake_t", "ducklake_t", []string{"c", "bb"}, true},
		{"DELETE FROM ducklake_t", "ducklake_t", []string{"c", "bb"}, false},
		{"ALTER TABLE ducklake_t RENAME TO ducklake_u", "ducklake_u", []string{"c", "bb"}, true},
		{"SELECT 1", "ducklake_t", nil, false},
		{"DROP TABLE ducklake_u", "ducklake_u", nil, true},
	}
	for _, s := range steps {
		if got := changesTables(s.stmt); got != s.relist {
			t.Errorf("changesTables(%q) = %v, want %v", s.stmt, got, s.relist)
		}
		if err := w.exec(ctx, s.stmt); err != nil {
			t.Fatal(err)
		}
		cols, ok, err := w.columns(ctx, s.table)
		if err != nil {
			t.Fatal(err)
		}
		if ok != (s.columns != nil) || !slices.Equal(cols, s.columns) {
			t.Errorf("after %q: %s has %v (exists %v), want %v", s.stmt, s.table, cols, ok, s.columns)
		}
		fresh, err := columnsOf(ctx, conn, "memory", "")
		if err != nil {
			t.Fatal(err)
		}
		if kept, _ := w.workingTables(ctx); !slices.EqualFunc(kept, fresh, equalTable) {
			t.Errorf("after %q: kept listing %v, DuckDB has %v", s.stmt, kept, fresh)
		}
	}
}

// TestNonEmpty checks which working tables write copies rows from: a table
// whose rows were all deleted is empty, one with a row is not.
func TestNonEmpty(t *testing.T) {
	ctx := context.Background()
	_, w := newTestWork(t)
	for _, q := range []string{
		"CREATE TABLE ducklake_empty (a INTEGER)",
		"CREATE TABLE ducklake_one (a INTEGER)",
		"INSERT INTO ducklake_one VALUES (1)",
		"CREATE TABLE ducklake_emptied AS SELECT range AS a FROM range(5000)",
		"DELETE FROM ducklake_emptied",
		`CREATE TABLE "ducklake_we""ird" AS SELECT NULL AS a`,
	} {
		if err := w.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		names []string
		want  map[string]bool
	}{
		{nil, nil},
		{[]string{"ducklake_empty"}, map[string]bool{}},
		{[]string{"ducklake_empty", "ducklake_one", "ducklake_emptied", `ducklake_we"ird`},
			map[string]bool{"ducklake_one": true, `ducklake_we"ird`: true}},
	}
	for _, tc := range cases {
		got, err := w.nonEmpty(ctx, tc.names)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("nonEmpty(%v) = %v, want %v", tc.names, got, tc.want)
		}
		for k := range tc.want {
			if !got[k] {
				t.Errorf("nonEmpty(%v) = %v, want %v", tc.names, got, tc.want)
			}
		}
	}
}

// TestExecShapeKeepsListing checks that the engine's own table statements
// (reshape, prune, renames) keep the listing of the working tables, changed
// as DuckDB changes the tables, instead of making the next step read it
// again.
func TestExecShapeKeepsListing(t *testing.T) {
	ctx := context.Background()
	conn, w := newTestWork(t)
	for _, q := range []string{
		"CREATE TABLE ducklake_b (a INTEGER, b VARCHAR)",
		"CREATE TABLE ducklake_m (x BIGINT)",
	} {
		if err := w.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.workingTables(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		stmt   string
		change func([]table) []table
	}{
		{"CREATE TABLE ducklake_a (k VARCHAR NOT NULL, v VARCHAR)", tableCreated("ducklake_a", []string{"k", "v"})},
		{"CREATE TABLE ducklake_z (q BIGINT PRIMARY KEY)", tableCreated("ducklake_z", []string{"q"})},
		{`ALTER TABLE "ducklake_b" ADD COLUMN "c" BIGINT DEFAULT 7`, columnAdded("ducklake_b", "c")},
		{`ALTER TABLE "ducklake_b" ADD COLUMN "d" VARCHAR`, columnAdded("ducklake_b", "d")},
		{`ALTER TABLE "ducklake_b" DROP COLUMN "b"`, columnDropped("ducklake_b", "b")},
		{`ALTER TABLE "ducklake_m" RENAME TO "ducklake_c"`, tableRenamed("ducklake_m", "ducklake_c")},
		{`DROP TABLE "ducklake_a"`, tableDropped("ducklake_a")},
	} {
		if err := w.execShape(ctx, s.stmt, s.change); err != nil {
			t.Fatal(err)
		}
		if w.tables == nil {
			t.Fatalf("after %q: the listing was dropped, not kept", s.stmt)
		}
		fresh, err := columnsOf(ctx, conn, "memory", "")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(w.tables, fresh, equalTable) {
			t.Errorf("after %q: kept listing %v, DuckDB has %v", s.stmt, w.tables, fresh)
		}
	}
	// A failing statement leaves nothing kept: the next step reads again.
	if err := w.execShape(ctx, `DROP TABLE "ducklake_missing"`, tableDropped("ducklake_missing")); err == nil {
		t.Fatal("dropping a missing table succeeded")
	}
	if w.tables != nil {
		t.Error("a failed statement kept the listing")
	}
}

// TestListedColumnTypes holds the source's column types as the listing
// reads them (listColumns, with the listing's two statements) to what
// metadataColumnTypes read in two statements of its own (and still reads
// for a listing without them): collated and generated columns, a type
// changed, a dynamic table's collated column, a table of another schema,
// in schemas pragma_table_info parses and one it cannot.
func TestListedColumnTypes(t *testing.T) {
	ctx := context.Background()
	for _, schema := range []string{"main", "my lake.meta", `meta"data`} {
		t.Run(schema, func(t *testing.T) {
			conn, closeDB, err := openDuckDB(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			s := quote(schema)
			stmts := []string{
				"ATTACH ':memory:' AS src",
				"CREATE SCHEMA IF NOT EXISTS src." + s,
				"CREATE SCHEMA src.elsewhere",
				`CREATE TABLE src.` + s + `.ducklake_metadata (key VARCHAR NOT NULL, value VARCHAR COLLATE NOCASE, scope VARCHAR, scope_id BIGINT)`,
				`CREATE TABLE src.` + s + `.ducklake_snapshot (snapshot_id BIGINT, snapshot_time TIMESTAMP, schema_version INTEGER, g BIGINT GENERATED ALWAYS AS (snapshot_id + 1) VIRTUAL)`,
				`CREATE TABLE src.` + s + `.ducklake_inlined_data_1_2 (row_id BIGINT, v VARCHAR COLLATE NOCASE)`,
				`CREATE TABLE src.elsewhere.ducklake_metadata (key VARCHAR COLLATE NOCASE, other DOUBLE)`,
			}
			for _, q := range stmts {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			all, typed, err := listColumns(ctx, conn, "src", "ducklake_", true)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := typed == nil, strings.Contains(schema, `"`); got != want {
				t.Fatalf("listed without types: %v, want %v", got, want)
			}
			var tables []table
			for _, tab := range all {
				if tab.schema == schema {
					tables = append(tables, tab)
				}
			}
			layout, _ := splitLayout(tables)
			got, err := metadataColumnTypes(ctx, conn, schema, layout, all, typed)
			if err != nil {
				t.Fatal(err)
			}
			want, err := metadataColumnTypes(ctx, conn, schema, layout, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) {
				t.Errorf("types as listed %v, want %v", got, want)
			}
			for k, typ := range map[[2]string]string{
				{"ducklake_metadata", "value"}:          "VARCHAR COLLATE NOCASE",
				{"ducklake_snapshot", "g"}:              "BIGINT GENERATED",
				{"ducklake_snapshot", "schema_version"}: "INTEGER",
			} {
				if got[k] != typ {
					t.Errorf("%v: %q, want %q", k, got[k], typ)
				}
			}
			if typ, ok := got[[2]string{"ducklake_metadata", "other"}]; ok {
				t.Errorf("another schema's column typed %q", typ)
			}
		})
	}
}
