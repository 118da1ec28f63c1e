package formats

import (
	"context"
	"database/sql"
	"maps"
	"reflect"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestReadListingAsApart: ReadListing's one statement answers what its
// three parts answer as statements of their own: ReadObjects (tables,
// views and sequences named like DuckLake tables in any schema and ASCII
// letter case, not with the Kelvin sign: each kind's filter), the metadata schema's columns
// in order (a view's too), and its tables' statements that name a
// collation or a generated column (a DuckLake table's or another's, not
// another schema's).
func TestReadListingAsApart(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	for _, s := range []string{
		"ATTACH ':memory:' AS c",
		"CREATE SCHEMA c.other",
		"CREATE TABLE c.main.ducklake_metadata(key VARCHAR NOT NULL, value VARCHAR NOT NULL)",
		"CREATE TABLE c.main.\"DuckLake_Tag\"(b BIGINT, a VARCHAR COLLATE NOCASE)",
		"CREATE TABLE c.main.zz_inl(x BIGINT, y AS (x + 1))",
		"CREATE TABLE c.main.plain(z VARCHAR)",
		"CREATE TABLE c.other.ducklake_snapshot(s BIGINT, t VARCHAR COLLATE NOCASE)",
		"CREATE VIEW c.main.ducklake_view AS SELECT 1 AS one, 'x' AS two",
		"CREATE VIEW c.main.v AS SELECT 2 AS w",
		"CREATE SEQUENCE c.main.ducklake_seq",
		"CREATE SEQUENCE c.other.seq",
		"CREATE VIEW c.other.\"DUCKLAKE_V2\" AS SELECT 3 AS u",
		"CREATE VIEW c.main.\"duc\u212Alake_v3\" AS SELECT 4 AS r",
		"CREATE SEQUENCE c.other.\"DuckLake_Seq2\"",
		"CREATE SEQUENCE c.main.\"duc\u212Alake_seq3\"",
		"CREATE TABLE c.main.\"duc\u212Alake_x\"(k BIGINT)",
		"CREATE TABLE ducklake_other_db(q BIGINT)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	got, err := ReadListing(ctx, db, "c", "main")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := ReadObjects(ctx, db, "c")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Objects, objs) || len(objs) != 7 {
		t.Errorf("objects %v, ReadObjects %v (7)", got.Objects, objs)
	}
	var cols []ListedColumn
	rows, err := db.Query(`SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = 'c' AND schema_name = 'main' ORDER BY table_name, column_index`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c ListedColumn
		if err := rows.Scan(&c.Table, &c.Name, &c.Type); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if !reflect.DeepEqual(got.Columns, cols) || len(cols) != 12 {
		t.Errorf("columns %v, duckdb_columns() %v (12)", got.Columns, cols)
	}
	stmts := map[string]string{}
	rows, err = db.Query(`SELECT table_name, sql FROM duckdb_tables() WHERE database_name = 'c' AND schema_name = 'main' AND (sql ILIKE '%COLLATE%' OR sql ILIKE '%GENERATED%')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		var s sql.NullString
		if err := rows.Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		stmts[n] = s.String
	}
	rows.Close()
	if !maps.Equal(got.Statements, stmts) || len(stmts) != 2 {
		t.Errorf("statements %v, duckdb_tables() %v (2)", got.Statements, stmts)
	}
}
