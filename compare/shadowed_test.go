package compare

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestShadowedTables: DuckLake's readers (every release line) add a
// snapshot's tables in table_id order, then its views, to one
// case-insensitive name map per schema, where a later entry of a name
// replaces the earlier: of two visible tables of one name they read the
// one of the larger table_id, and a view of the name hides the tables.
// Before, the proof paired tables by name keeping the last in storage
// order, so a B holding beside A's table an empty one of the same name
// and a larger table_id, stored before it, was equivalent to A, though its
// readers read the empty table.
func TestShadowedTables(t *testing.T) {
	const live = `table_id = (SELECT min(table_id) FROM ducklake_table WHERE end_snapshot IS NULL) AND end_snapshot IS NULL`
	// second adds an empty table of the live table's name (in the ASCII
	// letter case of name) with table_id 99 and the same columns, and
	// stores ducklake_table's rows in descending table_id order.
	second := func(name string) string {
		return `INSERT INTO ducklake_table SELECT * REPLACE (99 AS table_id, '01a18fe9-0000-7000-8000-000000000099' AS table_uuid, ` + name + ` AS table_name) FROM ducklake_table WHERE ` + live + `;
			INSERT INTO ducklake_column SELECT * REPLACE (99 AS table_id) FROM ducklake_column WHERE ` + live + `;
			CREATE TEMP TABLE kept AS SELECT * FROM ducklake_table;
			DELETE FROM ducklake_table;
			INSERT INTO ducklake_table SELECT * FROM kept ORDER BY table_id DESC`
	}
	tc0 := second("table_name")
	t.Run("a column tag of the hidden table in both", func(t *testing.T) {
		// The readers load the hidden table too, and fail on its tag
		// (LoadSchemaForSnapshot): every table is unreadable.
		lake, catalog := lastVersion(t, "lakes", "06_deletes")
		opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
		stmts := []string{tc0, `INSERT INTO ducklake_column_tag VALUES (1, 1, 1, NULL, 'unit', 'm')`}
		a, b := tamper(t, catalog, stmts...), tamper(t, catalog, stmts...)
		rep, err := Catalogs(context.Background(), a, b, opts)
		const want = `table main.del (id 1), whose name the readers resolve to table main.del (id 99): column id (id 1) has the tag "unit"`
		if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", want) {
			t.Fatalf("Catalogs: %v, want an unreadable difference naming %q\n%s", err, want, reportLines(rep))
		}
	})
	for _, tc := range []struct {
		name, stmt string
		want       string // in a difference of B's
		sameName   bool   // B's readers read the empty table under A's name
	}{
		{"a second table of the name", second("table_name"), `shadowed by table main.del (id 99)`, true},
		{"a second table of the name in another letter case", second("upper(table_name)"), `shadowed by table main.DEL (id 99)`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, a := lastVersion(t, "lakes", "06_deletes")
			opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
			b := tamper(t, a, tc.stmt)
			rep, err := Catalogs(context.Background(), a, b, opts)
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("Catalogs: %v, want not equivalent\n%s", err, reportLines(rep))
			}
			if !hasDifference(rep, "schema", tc.want) {
				t.Fatalf("no schema difference naming %q\n%s", tc.want, reportLines(rep))
			}
			// Its readers read the empty table.
			if tc.sameName && !hasDifference(rep, "rows", "B: 0 rows") {
				t.Fatalf("no rows difference with B's table empty\n%s", reportLines(rep))
			}
		})
	}
}

// TestTableHiddenByView: a visible view of a table's name (in any ASCII
// letter case) hides the table from every release line's readers (views
// are added to the schema's name map after the tables), so a B that is
// its source with the hidden table's files gone reads alike, and the
// table is described apart, with the view that hides it. Before, the proof
// read the hidden table and found its files and rows missing in B.
func TestTableHiddenByView(t *testing.T) {
	const view = `INSERT INTO ducklake_view SELECT 98, '01a18fe9-0000-7000-8000-000000000098', begin_snapshot, NULL, schema_id, 'DEL', 'duckdb', 'SELECT 42 AS x', '' FROM ducklake_table WHERE table_name = 'del'`
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
	a := tamper(t, catalog, view)
	b := tamper(t, catalog, view, `DELETE FROM ducklake_delete_file WHERE table_id = (SELECT table_id FROM ducklake_table WHERE table_name = 'del')`)
	rep, err := Catalogs(context.Background(), a, b, opts)
	if err != nil {
		t.Fatalf("Catalogs: %v, want equivalent\n%s", err, reportLines(rep))
	}
	self, err := Self(context.Background(), a, opts)
	if err != nil {
		t.Fatalf("Self: %v\n%s", err, reportLines(self))
	}
	r, err := Open(context.Background(), a, ReaderOptions{DataPath: opts.DataPath, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snaps, err := r.Snapshots(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e, err := r.schemaEntries(context.Background(), snaps[len(snaps)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := e["table main.del (id 1, shadowed)"]; !strings.HasSuffix(got, "shadowed by view DEL (id 98)") {
		t.Fatalf("the hidden table is described as %q", got)
	}
}
