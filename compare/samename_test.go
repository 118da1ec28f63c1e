package compare

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// TestObjectsOfOneName: every release line lists a snapshot's views, and
// v1.5-variegata and main its macros, by queries without ORDER BY, and
// adds them to the schema's case-insensitive name map in the order the
// rows come, the later replacing the earlier: of two visible views, or
// two macros of one kind, named alike in ASCII letter case, which one the
// readers read is not determined by the catalog. A B holding, beside A's
// view or macro, another of its name with another definition, stored
// first, was equivalent to A: the description keyed by name kept the last
// row. It is now a schema difference naming the objects; two identical
// definitions are described as such.
func TestObjectsOfOneName(t *testing.T) {
	// stored first: the table's rows again after the ones stmt adds.
	storedFirst := func(table, stmt string) []string {
		return []string{`CREATE TEMP TABLE kept AS SELECT * FROM ` + table, `DELETE FROM ` + table, stmt,
			`INSERT INTO ` + table + ` SELECT * FROM kept`}
	}
	const view = `SELECT * REPLACE (99 AS view_id, '01a18fe9-0000-7000-8000-000000000099' AS view_uuid%s) FROM kept WHERE view_id = (SELECT max(view_id) FROM kept WHERE end_snapshot IS NULL)`
	const macro = `INSERT INTO ducklake_macro SELECT * REPLACE (99 AS macro_id%[1]s) FROM kept WHERE macro_id = 2;
		INSERT INTO ducklake_macro_impl SELECT * REPLACE (99 AS macro_id%[2]s) FROM ducklake_macro_impl WHERE macro_id = 2;
		INSERT INTO ducklake_macro_parameters SELECT * REPLACE (99 AS macro_id) FROM ducklake_macro_parameters WHERE macro_id = 2`
	for _, tc := range []struct {
		name, lake, table, stmt string
		want                    string // in B's schema difference
	}{
		{"a view of another query", "09_views", "ducklake_view", `INSERT INTO ducklake_view ` + fmtSQL(view, `, 'SELECT 42 AS x' AS sql`), "unreadable: the readers list them without ORDER BY"},
		{"a view of another letter case", "09_views", "ducklake_view", `INSERT INTO ducklake_view ` + fmtSQL(view, `, upper(view_name) AS view_name`), "unreadable: the readers list them without ORDER BY"},
		{"the same view twice", "09_views", "ducklake_view", `INSERT INTO ducklake_view ` + fmtSQL(view, ``), "identical"},
		{"a macro of another body", "10_macros", "ducklake_macro", fmtSQL(macro, ``, `, '(a + 40)' AS sql`), "unreadable: the readers list them without ORDER BY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, a := lastVersion(t, "lakes", tc.lake)
			opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
			b := tamper(t, a, storedFirst(tc.table, tc.stmt)...)
			rep, err := Catalogs(context.Background(), a, b, opts)
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "schema", "of one name") || !hasDifference(rep, "schema", tc.want) {
				t.Fatalf("Catalogs: %v, want a schema difference naming the objects of one name, %q\n%s", err, tc.want, reportLines(rep))
			}
		})
	}
}

// fmtSQL is fmt.Sprintf for the statements above.
func fmtSQL(format string, args ...any) string { return fmt.Sprintf(format, args...) }
