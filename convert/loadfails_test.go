package convert

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestSourceNoReaderLoads: a source that DuckLake's readers cannot load at
// some snapshot (formats.LoadRefusal, the proof's catalog-load-fails) is
// refused before anything is written, naming the snapshots and the table,
// view or macro. Before, convert wrote it, and the proof refused every
// cell of it later in backfill.
func TestSourceNoReaderLoads(t *testing.T) {
	t.Parallel()
	const live = `table_id = (SELECT min(table_id) FROM ducklake_table WHERE end_snapshot IS NULL) AND end_snapshot IS NULL`
	for _, tc := range []struct {
		name, lake, stmt, want string
		target                 *formats.Version
		table                  string // the finding's metadata table
	}{
		{"table without columns", "06_deletes", `INSERT INTO ducklake_table SELECT * REPLACE (99 AS table_id, 'ghost' AS table_name, begin_snapshot + 1 AS begin_snapshot) FROM ducklake_table WHERE ` + live,
			`table ghost (id 99) has no ducklake_column row (Failed to load DuckLake - Table entry "ghost" does not have any columns)`, formats.V0_4, "ducklake_table"},
		{"view of no schema", "06_deletes", `INSERT INTO ducklake_view VALUES (98, '01a18fe9-0000-7000-8000-000000000098', 1, NULL, 999, 'gv', 'duckdb', 'SELECT 1', '')`,
			`view gv: names schema id 999, which no visible schema has`, formats.V1_1, "ducklake_view"},
		{"columns named alike in any case", "06_deletes", `UPDATE ducklake_column SET column_name = 'ID' WHERE column_name = 'v'`,
			`table del (id 1): columns "id" and "ID" are one name in any letter case (Column with name ID already exists!)`, formats.V0_4, "ducklake_table"},
		{"column tag other than a comment", "11_comments_tags", `INSERT INTO ducklake_column_tag VALUES (1, 1, 4, NULL, 'unit', 'm')`,
			`snapshots 4-14: table tagged (id 1): column i (id 1) has the tag "unit", not a comment`, formats.V1_1, "ducklake_table"},
		{"macro of another type", "10_macros", `UPDATE ducklake_macro_impl SET type = 'Scalar' WHERE macro_id = 1`,
			`has an implementation of type "Scalar" (Macro type Scalar is not implemented)`, formats.V1_1, "ducklake_macro"},
		// A nested field whose parent the readers have not added
		// before it (formats.ParentRefusal): the parent ended, or is a
		// field whose parent_column is greater than its own id.
		// Before, convert wrote the first (the proof then failed on
		// it) and the second (the proof read it).
		{"field of an ended struct", "12_nested_types", `UPDATE ducklake_column SET end_snapshot = 25 WHERE table_id = 3 AND column_id = 2`,
			`snapshots 25-29: table fevo (id 3): field j (id 4) has parent_column 2: no column with this id is visible (Failed to load DuckLake - Could not find parent column for column j)`, formats.V0_4, "ducklake_table"},
		{"field added before its parent", "12_nested_types", `UPDATE ducklake_column SET column_id = 100 WHERE table_id = 3 AND column_id = 5;
			UPDATE ducklake_column SET parent_column = 100 WHERE table_id = 3 AND parent_column = 5`,
			`table fevo (id 3): field i (id 7) has parent_column 6: the readers add that field after this one`, formats.V1_1, "ducklake_table"},
		// A negative id the load reads (GetValue<uint64_t>): before,
		// convert wrote it, and the proof excused it as A's.
		{"negative column id", "06_deletes", `UPDATE ducklake_column SET column_id = -7 WHERE table_id = 1 AND column_id = 2`,
			`table del (id 1): column v has column_id -7 and parent_column NULL`, formats.V1_1, "ducklake_table"},
		// A visible partition spec or sort hint of no table the readers
		// load: they look it up by id after every table and fail. Before,
		// convert left it to the proof.
		{"partition spec of no table", "08_partitioning", `INSERT INTO ducklake_partition_info VALUES (90, 99, 27, NULL); INSERT INTO ducklake_partition_column VALUES (90, 99, 0, 1, 'identity')`,
			`a partition spec of table_id 99: no table with this id is loaded at the snapshot (Could not find matching table for partition entry)`, formats.V1_1, "ducklake_partition_info"},
		{"partition spec of a table whose columns ended", "08_partitioning", `UPDATE ducklake_column SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot) WHERE table_id = (SELECT max(table_id) FROM ducklake_partition_info WHERE end_snapshot IS NULL)`,
			`Could not find matching table for partition entry`, formats.V1_1, "ducklake_partition_info"},
		{"sort hint of no table", "22_sorted_tables", `INSERT INTO ducklake_sort_info VALUES (90, 999, 18, NULL); INSERT INTO ducklake_sort_expression VALUES (90, 999, 0, 'a', 'duckdb', 'ASC', 'NULLS_LAST')`,
			`a sort hint of table_id 999: no table with this id is loaded at the snapshot (Could not find matching table for sort entry)`, formats.V1_1, "ducklake_sort_info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			vs := versionCatalogs(t, testlakes.Lake(t, "lakes", tc.lake))
			src := filepath.Join(t.TempDir(), "src.duckdb")
			copyFile(t, vs[len(vs)-1], src)
			execOn(t, src, tc.stmt)
			out := t.TempDir()
			res, err := Catalog(context.Background(), src, filepath.Join(out, "dst.duckdb"), tc.target, Options{})
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Catalog: %v (%+v), want it refused", err, res)
			}
			if len(refused.Findings) != 1 || refused.Findings[0].Code != "catalog-load-fails" || refused.Findings[0].Table != tc.table || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "snapshot") {
				t.Fatalf("refusal %v, want catalog-load-fails naming %q", err, tc.want)
			}
			t.Log(err)
			assertOnly(t, out)
		})
	}
}

// TestSourceLoadsDespiteLookAlikes: metadata close to a catalog-load-fails
// condition that every reader loads (compare's
// TestCatalogLoadsDespiteLookAlikes) is not refused: a second schema named
// alike stored after the first, holding nothing; a non-comment column tag
// with a NULL value, never visible, of a nested field or of a view's
// column; a dropped column named as a live one in another letter case.
func TestSourceLoadsDespiteLookAlikes(t *testing.T) {
	t.Parallel()
	for _, tc := range testlakes.LoadLookAlikes {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			vs := versionCatalogs(t, testlakes.Lake(t, "lakes", tc.Lake))
			src := filepath.Join(t.TempDir(), "src.duckdb")
			copyFile(t, vs[len(vs)-1], src)
			execOn(t, src, tc.Stmt)
			if _, err := Check(context.Background(), src, formats.V1_1, Options{}); err != nil && strings.Contains(err.Error(), "catalog-load-fails") {
				t.Fatalf("Check: %v", err)
			}
		})
	}
}

// TestSourceTableWithoutVisibleColumns: a table whose column rows have all
// ended at a snapshot, its row still visible, is left out by every
// release line's load there (formats.LoadRows.Loaded), and reads as no
// table; convert carries it as it is, and the proof reads it as the
// readers do. Before, the proof failed on it ("has no columns").
func TestSourceTableWithoutVisibleColumns(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_column SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot) WHERE table_id = 1`)
	for _, target := range []*formats.Version{formats.V1_1, formats.V0_4} {
		out := filepath.Join(t.TempDir(), target.Name+".duckdb")
		if _, err := Catalog(context.Background(), src, out, target, Options{DataPath: data}); err != nil {
			t.Fatalf("to %s: %v", target.Name, err)
		}
		proveEquivalent(t, src, out, data)
	}
}

// TestSourceRulesReadOnce: the load rules' reads of a source
// (readSourceRows, for loadFailures and nameClashes) read an optional
// table (column tags, views, macros, partition specs, sort hints) only
// where it holds a row, and then in one statement: a view or macro once
// for both rules, the column spans with the columns, partition specs and
// sort hints together. A backfill read all of them, views and macros
// twice, for every source, most of which have none.
func TestSourceRulesReadOnce(t *testing.T) {
	ctx := context.Background()
	read := regexp.MustCompile(`FROM (ducklake_column|ducklake_view|ducklake_macro|ducklake_partition_info|ducklake_sort_info|ducklake_column_tag)\b`)
	for _, tc := range []struct{ archive, lake string }{
		{"lakes", "06_deletes"},
		{"lakes", "08_partitioning"},
		{"lakes", "09_views"},
		{"lakes", "10_macros"},
		{"lakes", "11_comments_tags"},
		{"lakes-1.1-dev1", "26_v11_only_features"},
	} {
		t.Run(tc.lake, func(t *testing.T) {
			vs := versionCatalogs(t, testlakes.Lake(t, tc.archive, tc.lake))
			src := vs[len(vs)-1]
			// The source's tables that hold rows.
			filled := map[string]bool{}
			for _, row := range query(t, src, "SELECT table_name FROM duckdb_tables() WHERE database_name = 'c'") {
				if read.MatchString("FROM "+row[0]) && query(t, src, "SELECT count(*) FROM c."+row[0])[0][0] != "0" {
					filled[row[0]] = true
				}
			}
			engines := NewEngines(1)
			defer engines.Close()
			statements := statementLog(t, engines)
			if _, err := Check(ctx, src, formats.V1_1, Options{Engines: engines}); err != nil && !errors.Is(err, ErrRefused) {
				t.Fatal(err)
			}
			reads := map[string]int{}
			for _, q := range statements() {
				for _, m := range read.FindAllStringSubmatch(q, -1) {
					reads[m[1]]++
				}
			}
			t.Logf("holding rows %v; reads %v", filled, reads)
			var some bool
			for table, n := range reads {
				some = some || n > 0 && table != "ducklake_column"
				if table == "ducklake_column" {
					continue // the conversion's own checks read it too
				}
				if !filled[table] || n > 1 {
					t.Errorf("%s read by %d statements; holds rows: %t (want one statement where it does, none where not)", table, n, filled[table])
				}
			}
			if want := filled["ducklake_view"] || filled["ducklake_macro"] || filled["ducklake_partition_info"]; some != want {
				t.Errorf("reads %v of a source with rows in %v", reads, filled)
			}
		})
	}
}
