package compare

import (
	"context"
	"errors"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestDottedNamesDoNotCollide: schema "main.x" with table "t" and schema
// "main" with table "x.t" are different tables although their names joined
// with a dot are the same; a catalog that has one and its copy that has the
// other must not compare equal.
func TestDottedNamesDoNotCollide(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 1, RowsPerVersion: 50, FilesPerVersion: 1})
	cat := cats[0]
	// Both sides get the same second schema, "<schema>.x", with the first
	// schema's folder.
	addSchema := `INSERT INTO ducklake_schema SELECT * REPLACE (999 AS schema_id, '00000000-0000-0000-0000-000000000999'::UUID AS schema_uuid, schema_name || '.x' AS schema_name)
		FROM ducklake_schema WHERE schema_id = (SELECT min(schema_id) FROM ducklake_table)`
	for _, tc := range []struct {
		name   string
		a, b   string
		wantIn string
	}{
		{"table", `UPDATE ducklake_table SET table_name = 'x.' || table_name`, `UPDATE ducklake_table SET schema_id = 999`, `table main."x.events" only in A`},
		// The same for a view, in the table's schema or the second one.
		{"view",
			`INSERT INTO ducklake_view VALUES (998, '00000000-0000-0000-0000-000000000998'::UUID, 1, NULL, (SELECT min(schema_id) FROM ducklake_table), 'x.v', 'duckdb', 'SELECT 1', '')`,
			`INSERT INTO ducklake_view VALUES (998, '00000000-0000-0000-0000-000000000998'::UUID, 1, NULL, 999, 'v', 'duckdb', 'SELECT 1', '')`,
			`view main."x.v" only in A`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tamper(t, cat, addSchema, tc.a)
			b := tamper(t, cat, addSchema, tc.b)
			rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want not equivalent, got %v\n%v", err, rep)
			}
			if !hasDifference(rep, "schema", tc.wantIn) {
				t.Errorf("no difference %q: %v", tc.wantIn, rep.Differences)
			}
		})
	}
}

// TestColumnEntryFieldsDoNotCollide: a column's initial default "1
// default=2" with default "3" and its initial default "1" with default "2
// default=3" are different columns although the fields joined with their
// names are the same text. Passes before and after: the defaults are
// written quoted, and the name, the one field written as it is, is followed
// by fields whose text is quoted or from a fixed vocabulary (types, numbers,
// true/false/NULL, default kinds), so a name cannot imitate them.
func TestColumnEntryFieldsDoNotCollide(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 1, RowsPerVersion: 50, FilesPerVersion: 1})
	cat := cats[0]
	a := tamper(t, cat, `UPDATE ducklake_column SET initial_default = '1 default=2', default_value = '3' WHERE column_name = 'label'`)
	b := tamper(t, cat, `UPDATE ducklake_column SET initial_default = '1', default_value = '2 default=3' WHERE column_name = 'label'`)
	rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
	if !errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("want not equivalent, got %v\n%v", err, rep)
	}
	if !hasDifference(rep, "schema", "differs: default, initial_default") {
		t.Errorf("no default difference: %v", rep.Differences)
	}
}
