package lakegen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestMatchesRealCatalog puts the demo's last catalog next to one that the
// ducklake extension wrote (conformance lake 06_deletes, which has first and
// repeated deletes) and checks that they agree in kind: the same tables,
// columns, types and constraints, the same metadata keys, the same shape of
// column, data file and delete file rows, and delete files with the same
// Parquet schema.
func TestMatchesRealCatalog(t *testing.T) {
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	versions, err := os.ReadDir(filepath.Join(lake, "versions"))
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(lake, "versions", versions[len(versions)-1].Name(), "ducklake.duckdb")

	dir := t.TempDir()
	res, err := Repository(context.Background(), dir, Demo())
	if err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "versions", res.Versions[len(res.Versions)-1].ID, "ducklake.duckdb")

	db := openDB(t)
	exec(t, db, fmt.Sprintf("ATTACH '%s' AS r (READ_ONLY)", real))
	exec(t, db, fmt.Sprintf("ATTACH '%s' AS m (READ_ONLY)", mine))

	same := func(what, q string) {
		t.Helper()
		r := query(t, db, fmt.Sprintf(q, "r"))
		m := query(t, db, fmt.Sprintf(q, "m"))
		if !slices.EqualFunc(r, m, slices.Equal) {
			t.Errorf("%s differ:\nreal %v\nmine %v", what, r, m)
		}
	}
	same("columns", "SELECT table_name, column_index, column_name, data_type, is_nullable FROM duckdb_columns() WHERE database_name = '%s' ORDER BY ALL")
	same("constraints", "SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints() WHERE database_name = '%s' ORDER BY ALL")
	same("metadata keys", "SELECT key, scope FROM %s.ducklake_metadata ORDER BY ALL")
	same("snapshot 0", "SELECT s.schema_version, s.next_catalog_id, s.next_file_id, c.* FROM %[1]s.ducklake_snapshot s JOIN %[1]s.ducklake_snapshot_changes c USING (snapshot_id) WHERE snapshot_id = 0")
	same("schema row", "SELECT schema_id, begin_snapshot, end_snapshot, schema_name, path, path_is_relative FROM %s.ducklake_schema")
	// A plain varchar column with no default (06_deletes: del.v; demo: measurements.city).
	same("column row kind", "SELECT DISTINCT column_type, initial_default, default_value, nulls_allowed, parent_column, default_value_type, default_value_dialect FROM %s.ducklake_column WHERE column_type = 'varchar' AND initial_default IS NULL AND nulls_allowed")
	same("data file kind", "SELECT DISTINCT file_order, path_is_relative, file_format, encryption_key, mapping_id, partial_max, regexp_matches(path, '^(region=[a-z]+/)?ducklake-[0-9a-f-]{36}\\.parquet$') FROM %s.ducklake_data_file WHERE partition_id IS NULL")
	same("delete file kind", "SELECT DISTINCT end_snapshot, path_is_relative, format, encryption_key, partial_max IS NULL, regexp_matches(path, '^ducklake-[0-9a-f-]{36}-delete\\.parquet$') FROM %s.ducklake_delete_file WHERE partial_max IS NOT NULL")
	same("scheduled file kind", "SELECT DISTINCT path_is_relative, regexp_matches(path, '^main/[a-z_]+/ducklake-[0-9a-f-]{36}-delete\\.parquet$') FROM %s.ducklake_files_scheduled_for_deletion")

	// Delete files: the two-column and the partial (three-column) layout.
	for _, partial := range []string{"false", "true"} {
		q := "SELECT s.path || t.path || d.path FROM %[1]s.ducklake_delete_file d JOIN %[1]s.ducklake_table t ON t.table_id = d.table_id JOIN %[1]s.ducklake_schema s ON s.schema_id = t.schema_id WHERE (d.partial_max IS NOT NULL) = " + partial + " LIMIT 1"
		var schemas [2][][]string
		for i, side := range []struct{ db, root string }{{"r", lake}, {"m", dir}} {
			p := query(t, db, fmt.Sprintf(q, side.db))
			if len(p) == 0 {
				// The real lake's two-column files were all replaced; take one from its data folder.
				p = query(t, db, "SELECT 'main/del/' || parse_filename(file) FROM glob(?) LIMIT 1", filepath.Join(side.root, "data", "main", "del", "*-delete.parquet"))
			}
			schemas[i] = query(t, db, "SELECT name, type, converted_type, repetition_type, field_id FROM parquet_schema(?) WHERE name <> 'duckdb_schema'", filepath.Join(side.root, "data", filepath.FromSlash(p[0][0])))
		}
		if len(schemas[0]) != len(schemas[1]) && partial == "false" {
			// The glob fallback may have found a partial file; only compare like with like.
			continue
		}
		if !slices.EqualFunc(schemas[0], schemas[1], slices.Equal) {
			t.Errorf("delete file schema (partial=%s) differs:\nreal %v\nmine %v", partial, schemas[0], schemas[1])
		}
	}
	tokens := regexp.MustCompile(`^((created_(schema|table|view):"[^"]+"(\."[^"]+")?|(inserted_into|deleted_from|altered)_table:\d+),?)+$`)
	for _, side := range []string{"r", "m"} {
		for _, r := range query(t, db, fmt.Sprintf("SELECT changes_made FROM %s.ducklake_snapshot_changes", side)) {
			if !tokens.MatchString(r[0]) {
				t.Errorf("%s: changes_made %q", side, r[0])
			}
		}
	}
}
