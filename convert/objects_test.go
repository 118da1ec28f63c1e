package convert

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestImpostorObjects: DuckLake reads its bookkeeping tables with SQL by
// name (in any letter case), so a view named ducklake_data_file answers in
// the table's place. The converter saw only base tables (the view's table
// "missing", a layout error); the proof's reader listed the view's columns
// as a table's and read the catalog as the view said. Both now refuse a
// catalog in which an object named like a DuckLake table is not a base
// table of its metadata schema, naming the file, the object and its kind:
// views, sequences, tables of another schema. Types, indexes, macros and
// table macros of such names answer no table reference and pass, as do
// other objects.
func TestImpostorObjects(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	vs := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	orig := vs[len(vs)-1]
	cases := []struct {
		name  string
		stmts []string
		want  string // "" converts
	}{
		{"view", []string{
			"ALTER TABLE ducklake_data_file RENAME TO zz_data_file",
			"CREATE VIEW ducklake_data_file AS SELECT * FROM zz_data_file WHERE version() = 'v1.5.6' OR data_file_id <> 0",
		}, "main.ducklake_data_file is a view"},
		{"view in other letter case", []string{
			"ALTER TABLE ducklake_delete_file RENAME TO zz_delete_file",
			`CREATE VIEW "DUCKLAKE_DELETE_FILE" AS SELECT * FROM zz_delete_file`,
		}, "main.DUCKLAKE_DELETE_FILE is a view"},
		{"view beside the tables", []string{"CREATE VIEW ducklake_extra AS SELECT 1 AS x"}, "main.ducklake_extra is a view"},
		{"view in another schema", []string{"CREATE SCHEMA other", "CREATE VIEW other.ducklake_snapshot AS SELECT * FROM main.ducklake_snapshot"}, "other.ducklake_snapshot is a view"},
		{"sequence", []string{"CREATE SEQUENCE ducklake_ids"}, "main.ducklake_ids is a sequence"},
		{"table of another schema", []string{"CREATE SCHEMA meta", "CREATE TABLE meta.ducklake_snapshot AS SELECT * FROM main.ducklake_snapshot"},
			"meta.ducklake_snapshot is a table outside the metadata schema main"},
		{"type, index, macros and other objects", []string{
			"CREATE TYPE ducklake_kind AS ENUM ('a', 'b')", "CREATE INDEX ducklake_idx ON ducklake_tag(key)",
			"CREATE MACRO ducklake_now() AS now()", "CREATE MACRO ducklake_files() AS TABLE SELECT * FROM ducklake_data_file",
			"CREATE VIEW my_view AS SELECT 1 AS x", "CREATE MACRO my_macro(a) AS a + 1", "CREATE SEQUENCE my_ids",
		}, ""},
		// DuckDB resolves names in ASCII letter case only: a view
		// "duc\u212Alake_data_file" (U+212A, the Kelvin sign, which SQL
		// lower() and strings.ToLower lower to "k") answers no query of
		// DuckLake's. Before, both refused the catalog.
		{"names like DuckLake's beyond ASCII letter case", []string{
			"CREATE VIEW \"duc\u212Alake_data_file\" AS SELECT * FROM ducklake_data_file WHERE version() = 'v1.5.6'",
			"CREATE SEQUENCE \"DUC\u212ALAKE_IDS\"",
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := editedCopy(t, orig, tc.stmts...)
			_, err := Check(ctx, src, formats.V1_1, Options{})
			rd, rerr := compare.Open(ctx, src, compare.ReaderOptions{})
			if rd != nil {
				rd.Close()
			}
			if tc.want == "" {
				if err != nil || rerr != nil {
					t.Fatalf("convert: %v; reader: %v; want both to read it", err, rerr)
				}
				return
			}
			for who, err := range map[string]error{"convert": err, "reader": rerr} {
				var nb *formats.NotBaseTableError
				switch {
				case !errors.Is(err, formats.ErrNotBaseTable) || !errors.As(err, &nb):
					t.Errorf("%s: %v, want ErrNotBaseTable", who, err)
				case nb.Catalog != src || !strings.Contains(err.Error(), tc.want):
					t.Errorf("%s: %v, want it to name %s and %q", who, err, src, tc.want)
				}
			}
			if !errors.Is(err, ErrNotCatalog) {
				t.Errorf("convert: %v, want ErrNotCatalog (exit 6)", err)
			}
		})
	}
}

// TestInlinedRegistrations: the real readers read every table a row of
// ducklake_inlined_data_tables names, whatever its name, and find
// ducklake_inlined_delete_<table id> in any letter case; the converter
// copies inlined tables by their lower-case names, so a registered zz_inl
// (or a registration of a table that is not there, or in other letters)
// was dropped from the converted catalog. Such a catalog is refused,
// naming the registration (review r2 #1-#3).
func TestInlinedRegistrations(t *testing.T) {
	ctx := context.Background()
	vs := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	orig := vs[len(vs)-1]
	cases := []struct {
		name  string
		stmts []string
		want  string // "" converts
	}{
		{"table registered under another name", []string{
			"CREATE TABLE zz_inl AS SELECT 999::BIGINT AS row_id, 1::BIGINT AS begin_snapshot, NULL::BIGINT AS end_snapshot",
			"INSERT INTO ducklake_inlined_data_tables VALUES (1, 'zz_inl', 1)",
		}, `registers "zz_inl" for table 1, schema version 1 (DuckLake names it ducklake_inlined_data_1_1)`},
		{"registered table missing", []string{"INSERT INTO ducklake_inlined_data_tables VALUES (1, 'ducklake_inlined_data_1_1', 1)"},
			"registers ducklake_inlined_data_1_1, which is not a base table of schema main"},
		{"inlined deletions in other letters", []string{`CREATE TABLE "DuckLake_Inlined_Delete_1"(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)`},
			"main.DuckLake_Inlined_Delete_1 is named like an inlined table in other letters"},
		// No reader finds "duc\u212Alake_inlined_delete_1" (the Kelvin sign):
		// DuckDB resolves names in ASCII letter case only. Before, lowered
		// by strings.ToLower, it was refused as the one above.
		{"inlined deletions beyond ASCII letter case", []string{"CREATE TABLE \"duc\u212Alake_inlined_delete_1\"(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)"}, ""},
		{"table registered as DuckLake names it", []string{
			"CREATE TABLE ducklake_inlined_data_1_1 AS SELECT 999::BIGINT AS row_id, 1::BIGINT AS begin_snapshot, NULL::BIGINT AS end_snapshot, 1::BIGINT AS id, 'x'::VARCHAR AS v LIMIT 0",
			"INSERT INTO ducklake_inlined_data_tables VALUES (1, 'ducklake_inlined_data_1_1', 1)",
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := editedCopy(t, orig, tc.stmts...)
			_, err := Check(ctx, src, formats.V1_1, Options{})
			if tc.want == "" {
				if errors.Is(err, formats.ErrInlinedRegistration) {
					t.Fatalf("convert: %v; want no registration refused", err)
				}
				return
			}
			if !errors.Is(err, formats.ErrInlinedRegistration) || !errors.Is(err, ErrNotCatalog) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), src) {
				t.Fatalf("convert: %v, want ErrInlinedRegistration and ErrNotCatalog naming %s and %q", err, src, tc.want)
			}
		})
	}
}
