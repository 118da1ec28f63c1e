package formats

import (
	"context"
	"reflect"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestReadListingTables: the listing's tables are what a statement of
// their own lists: every base table of the database, of every schema, in
// schema and name order (not its views or sequences, a sequence named as
// a table aside; not another database's or a temporary table).
func TestReadListingTables(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	for _, s := range []string{
		"ATTACH ':memory:' AS c",
		"CREATE SCHEMA c.other",
		"CREATE SCHEMA c.\"Zeta\"",
		"CREATE TABLE c.main.ducklake_metadata(key VARCHAR, value VARCHAR)",
		"CREATE TABLE c.main.plain(z VARCHAR)",
		"CREATE TABLE c.main.\"Upper\"(z VARCHAR)",
		"CREATE TABLE c.other.ducklake_snapshot(s BIGINT)",
		"CREATE TABLE c.other.x(s BIGINT)",
		"CREATE TABLE c.\"Zeta\".y(s BIGINT)",
		"CREATE SEQUENCE c.other.x2",
		"CREATE SEQUENCE c.main.plain",
		"CREATE VIEW c.main.v AS SELECT 2 AS w",
		"CREATE TABLE ducklake_other_db(q BIGINT)",
		"CREATE TEMP TABLE tmp(q BIGINT)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	got, err := ReadListing(ctx, db, "c", "main")
	if err != nil {
		t.Fatal(err)
	}
	var want [][2]string
	rows, err := db.Query(`SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'c' ORDER BY schema_name, table_name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n [2]string
		if err := rows.Scan(&n[0], &n[1]); err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}
	rows.Close()
	if !reflect.DeepEqual(got.Tables, want) || len(want) != 6 {
		t.Errorf("tables %v, duckdb_tables() %v (6)", got.Tables, want)
	}
}
