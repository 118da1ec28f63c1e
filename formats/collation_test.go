package formats

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestCollationsAsDuckDBRenders: the collations are read from the CREATE
// TABLE statements DuckDB itself gives (duckdb_tables().sql), with names,
// defaults and nested types that hold commas, parentheses, quotes and the
// word COLLATE.
func TestCollationsAsDuckDBRenders(t *testing.T) {
	db := testduck.Open(t, "")
	for name, tc := range map[string]struct {
		create string
		want   map[string]string
	}{
		"plain": {`CREATE TABLE t(a VARCHAR, b BIGINT PRIMARY KEY, c VARCHAR DEFAULT 'x')`, map[string]string{}},
		"collated": {`CREATE TABLE t(min_value VARCHAR COLLATE NOCASE, max_value VARCHAR COLLATE nfc.nocase, n BIGINT, s VARCHAR COLLATE noaccent NOT NULL)`,
			map[string]string{"min_value": "NOCASE", "max_value": "nfc.nocase", "s": "noaccent"}},
		"quoted": {`CREATE TABLE t("a, b (COLLATE x)" VARCHAR COLLATE NOCASE, "COLLATE" VARCHAR DEFAULT 'COLLATE y, z', "x""y" VARCHAR, st STRUCT(v VARCHAR, "collate" VARCHAR), last VARCHAR COLLATE NOCASE)`,
			map[string]string{"a, b (COLLATE x)": "NOCASE", "last": "NOCASE"}},
		// A COLLATE in a CHECK (DuckDB renders it as the table's,
		// after the columns) or in a DEFAULT or generated column's
		// expression is not the column's: before, each was taken for
		// a collation (the table's CHECK for a column "CHECK").
		"in a check or an expression": {`CREATE TABLE t(a VARCHAR CHECK ((a COLLATE NOCASE) <> 'x'), b VARCHAR DEFAULT ('y' COLLATE NOCASE), c VARCHAR, d VARCHAR COLLATE NOCASE CHECK (d <> 'q'), CHECK ((c COLLATE NOCASE) <> 'z'), CONSTRAINT k CHECK ((a COLLATE NOCASE) <> c), UNIQUE (c))`,
			map[string]string{"d": "NOCASE"}},
		"columns named as table constraints": {`CREATE TABLE t("check" VARCHAR COLLATE NOCASE, "primary" VARCHAR, "unique" VARCHAR COLLATE NOCASE, "foreign" VARCHAR, "constraint" VARCHAR COLLATE NOCASE)`,
			map[string]string{"check": "NOCASE", "unique": "NOCASE", "constraint": "NOCASE"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := db.Exec("DROP TABLE IF EXISTS t; " + tc.create); err != nil {
				t.Fatal(err)
			}
			var stmt string
			if err := db.QueryRow(`SELECT sql FROM duckdb_tables() WHERE table_name = 't'`).Scan(&stmt); err != nil {
				t.Fatal(err)
			}
			got := Collations(stmt)
			// DuckDB renders a collation's name as it was given, in
			// any letter case: compared so.
			norm := func(m map[string]string) map[string]string {
				out := map[string]string{}
				for k, v := range m {
					out[k] = strings.ToLower(v)
				}
				return out
			}
			if !maps.Equal(norm(got), norm(tc.want)) {
				t.Errorf("Collations(%s) = %v, want %v", stmt, got, tc.want)
			}
		})
	}
	for _, q := range []string{
		`DROP TABLE IF EXISTS t`,
		`CREATE TABLE t(a VARCHAR DEFAULT 'GENERATED', "GENERATED x" BIGINT, g VARCHAR GENERATED ALWAYS AS (current_setting('TimeZone')) VIRTUAL, v VARCHAR AS (version()), n BIGINT, "generated" STRUCT("generated" INTEGER, "collate" VARCHAR, always INTEGER), CHECK ("generated" IS NOT NULL))`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var stmt string
	if err := db.QueryRow(`SELECT sql FROM duckdb_tables() WHERE table_name = 't'`).Scan(&stmt); err != nil {
		t.Fatal(err)
	}
	if got := Generated(stmt); !slices.Equal(got, []string{"g", "v"}) {
		t.Errorf("Generated(%s) = %q, want g and v", stmt, got)
	}
	typed := TypedWithCollations(map[[2]string]string{{"t", "a"}: "VARCHAR", {"t", "b"}: "VARCHAR"},
		map[string]string{"t": `CREATE TABLE t(a VARCHAR COLLATE NOCASE, b VARCHAR GENERATED ALWAYS AS(version()), zz VARCHAR GENERATED ALWAYS AS(version()));`})
	if want := (map[[2]string]string{{"t", "a"}: "VARCHAR COLLATE NOCASE", {"t", "b"}: "VARCHAR GENERATED", {"t", "zz"}: "GENERATED"}); !maps.Equal(typed, want) {
		t.Errorf("TypedWithCollations = %v, want %v", typed, want)
	}
}
