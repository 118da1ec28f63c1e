package compare

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCatalogLoadFailures: DuckLake's readers load a snapshot's whole
// catalog before any table is read (GetCatalogForSnapshot,
// LoadSchemaForSnapshot, alike in every release line) and fail, so that no
// table reads, on a table whose schema is not visible, a table_id with two
// visible rows (its columns joined once per row: "Column with name ...
// already exists!"), a table without any column row, a view whose schema
// is not visible, a partition spec of no visible table or a macro without
// an implementation. Before, the proof left out the first, read the second
// as one table (a B with one ducklake_table row inserted again was
// equivalent to its source) and described the others as entries, alike on
// both sides: a catalog A holding one and its B were equivalent, and a
// frozen catalog holding one read alone cleanly.
func TestCatalogLoadFailures(t *testing.T) {
	const live = `table_id = (SELECT min(table_id) FROM ducklake_table WHERE end_snapshot IS NULL) AND end_snapshot IS NULL`
	for _, tc := range []struct {
		name, lake, stmt string
		bOnly            bool   // B alone has it (else A and B both)
		want             string // in the unreadable difference
	}{
		{"table row twice", "06_deletes", `INSERT INTO ducklake_table SELECT * FROM ducklake_table WHERE ` + live, true,
			"table del (id 1) has 2 ducklake_table rows visible"},
		{"table row twice in both", "06_deletes", `INSERT INTO ducklake_table SELECT * FROM ducklake_table WHERE ` + live, false,
			"table del (id 1) has 2 ducklake_table rows visible"},
		{"table of no schema", "06_deletes", `INSERT INTO ducklake_table SELECT * REPLACE (99 AS table_id, 999 AS schema_id, 'ghost' AS table_name) FROM ducklake_table WHERE ` + live + `;
			INSERT INTO ducklake_column SELECT * REPLACE (99 AS table_id) FROM ducklake_column WHERE ` + live, true,
			"references schema id 999 that does not exist"},
		{"table without columns in both", "06_deletes", `INSERT INTO ducklake_table SELECT * REPLACE (99 AS table_id, 'ghost' AS table_name) FROM ducklake_table WHERE ` + live, false,
			`Table entry "ghost" does not have any columns`},
		{"columns named alike in any case in both", "06_deletes", `UPDATE ducklake_column SET column_name = 'ID' WHERE column_name = 'v'`, false,
			`columns "id" and "ID" are one name in any letter case`},
		{"table of a second schema named alike in both", "06_deletes", `INSERT INTO ducklake_schema SELECT * REPLACE (77 AS schema_id, '01a18fe9-0000-7000-8000-000000000077' AS schema_uuid, 'MAIN' AS schema_name) FROM ducklake_schema WHERE schema_name = 'main';
			UPDATE ducklake_table SET schema_id = 77 WHERE ` + live, false,
			`could not find schema that corresponds to the table entry`},
		{"column tag other than a comment in both", "11_comments_tags", `INSERT INTO ducklake_column_tag VALUES (1, 1, 4, NULL, 'unit', 'm')`, false,
			`has the tag "unit", not a comment`},
		{"list of two fields in both", "12_nested_types", `INSERT INTO ducklake_column SELECT * REPLACE (9999 AS column_id, 'extra' AS column_name) FROM ducklake_column
			WHERE parent_column = (SELECT min(column_id) FROM ducklake_column WHERE lower(column_type) = 'list' AND end_snapshot IS NULL AND table_id = 1) AND table_id = 1 AND end_snapshot IS NULL`, false,
			`(Lists must have a single child entry)`},
		// A nested field whose parent is not among the columns the
		// readers added before it (formats.ParentRefusal): its parent
		// ended, the table's top-level columns all ended (the table,
		// with visible fields, is loaded all the same), or its parent
		// is a field whose parent_column is greater than its own id.
		// Before, the proof failed ("has unknown parent"), and read the
		// last alike on both sides.
		{"field of an ended struct in both", "12_nested_types", `UPDATE ducklake_column SET end_snapshot = 25 WHERE table_id = 3 AND column_id = 2`, false,
			`table fevo (id 3): field j (id 4) has parent_column 2: no column with this id is visible (Failed to load DuckLake - Could not find parent column for column j)`},
		{"fields of a table whose top-level columns ended in both", "12_nested_types", `UPDATE ducklake_column SET end_snapshot = 25 WHERE table_id = 3 AND parent_column IS NULL`, false,
			`(Failed to load DuckLake - Could not find parent column for column j)`},
		{"field added before its parent in both", "12_nested_types", `UPDATE ducklake_column SET column_id = 100 WHERE table_id = 3 AND column_id = 5;
			UPDATE ducklake_column SET parent_column = 100 WHERE table_id = 3 AND parent_column = 5`, false,
			`table fevo (id 3): field i (id 7) has parent_column 6: the readers add that field after this one`},
		// A negative id the load reads with GetValue<uint64_t>: the
		// cast to UBIGINT fails. Before, a rule of the metadata values
		// (formats.ReaderValueRules) that A breaks too was excused, and
		// the catalog read alone was not checked.
		{"negative column id in both", "06_deletes", `UPDATE ducklake_column SET column_id = -7 WHERE table_id = 1 AND column_id = 2`, false,
			`table del (id 1): column v has column_id -7 and parent_column NULL (every release line's load reads it with GetValue<uint64_t>`},
		{"negative schema id in both", "06_deletes", `UPDATE ducklake_schema SET schema_id = -1 WHERE schema_id = 0; UPDATE ducklake_table SET schema_id = -1 WHERE schema_id = 0`, false,
			`schema main has schema_id -1 (every release line's load reads it with GetValue<uint64_t>, and a negative value fails its cast to UBIGINT: out of range)`},
		{"view aliases that do not parse in both", "09_views", `UPDATE ducklake_view SET column_aliases = 'a,b' WHERE view_id = (SELECT min(view_id) FROM ducklake_view)`, false,
			`(Failed to parse quoted value - expected a quote)`},
		{"view of no schema in both", "06_deletes", `INSERT INTO ducklake_view VALUES (98, '01a18fe9-0000-7000-8000-000000000098', 1, NULL, 999, 'gv', 'duckdb', 'SELECT 1', '')`, false,
			`the view entry "gv"`},
		{"partition spec of no table in both", "08_partitioning", `INSERT INTO ducklake_partition_info VALUES (90, 99, 27, NULL); INSERT INTO ducklake_partition_column VALUES (90, 99, 0, 1, 'identity')`, false,
			"Could not find matching table for partition entry"},
		{"macro of another type in both", "10_macros", `UPDATE ducklake_macro_impl SET type = 'Scalar' WHERE macro_id = 1`, false,
			`of type "Scalar" (Macro type Scalar is not implemented)`},
		{"macro without implementation in both", "10_macros", `INSERT INTO ducklake_macro VALUES (0, 99, 'ghost', 16, NULL)`, false,
			"Calling ListValue::GetChildren on a NULL value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
			b := tamper(t, catalog, tc.stmt)
			a := catalog
			if !tc.bOnly {
				a = tamper(t, catalog, tc.stmt)
			}
			rep, err := Catalogs(context.Background(), a, b, opts)
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("Catalogs: %v, want not equivalent\n%s", err, reportLines(rep))
			}
			// A column the readers refuse fails the load too; the
			// proof names the table, as for other column refusals.
			quirk := cmp.Or(map[string]string{"list of two fields in both": refusedNested.Name}[tc.name], refusedLoad.Name)
			if !hasDifference(rep, "unreadable", tc.want) || !hasDifference(rep, "unreadable", quirk) {
				t.Fatalf("no unreadable difference naming %s and %q\n%s", quirk, tc.want, reportLines(rep))
			}
			for _, d := range rep.Differences {
				if d.Kind == "unreadable" && !tc.bOnly && (!strings.HasPrefix(d.A, "cannot read") || !strings.HasPrefix(d.B, "cannot read")) {
					t.Errorf("%s: want both sides unreadable", d)
				}
				// The readers' message is the one the reason quotes,
				// not one for every condition.
				if strings.Contains(d.String(), `they fail with "Failed to load DuckLake...`) {
					t.Errorf("%s: names a message the readers fail with for every condition", d)
				}
			}
			// The catalog read alone fails the same way.
			self, err := Self(context.Background(), b, opts)
			if !errors.Is(err, ErrCatalogDiffers) || !hasDifference(self, "unreadable", tc.want) {
				t.Fatalf("Self: %v, want it to differ naming %q\n%s", err, tc.want, reportLines(self))
			}
		})
	}
}

// TestCatalogLoadsDespiteLookAlikes: metadata close to a catalog-load-fails
// condition that every release line's readers load (GetCatalogForSnapshot,
// LoadSchemaForSnapshot), so a frozen catalog holding it reads alone
// cleanly: a schema named as another in another letter case but stored
// after it, holding nothing (the readers keep the first, and every table
// names that one); a non-comment column tag whose value is NULL (LoadTags
// skips it), one never visible, and one of a nested field or of a view's
// column (the readers check the tags of a table's top-level columns only);
// a dropped column named as a live one in another letter case (the join
// reads visible columns only). A model stricter than the readers there
// would fail check on repositories every reader reads.
func TestCatalogLoadsDespiteLookAlikes(t *testing.T) {
	for _, tc := range testlakes.LoadLookAlikes {
		t.Run(tc.Name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", tc.Lake)
			opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
			self, err := Self(context.Background(), tamper(t, catalog, tc.Stmt), opts)
			if err != nil {
				t.Fatalf("Self: %v\n%s", err, reportLines(self))
			}
		})
	}
}
