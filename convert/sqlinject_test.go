package convert

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestRewriteDeletesSnapshotTextIsNotSQL: a partial deletion file is data
// anyone may have written; its snapshot column, stored as text holding SQL
// (a statement that writes a marker file), must not reach a query as SQL
// (rewritePartialDeletes puts the snapshots it reads into its queries as
// numbers). A file whose snapshot column is not BIGINT is no partial
// deletion file (formats.IsPartialDeleteFile), so it is not rewritten: the
// conversion runs and the marker is not written.
func TestRewriteDeletesSnapshotTextIsNotSQL(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	marker := filepath.Join(t.TempDir(), "injected.csv")
	injected := fmt.Sprintf("0); COPY (SELECT 42 AS x) TO %s (FORMAT csv); SELECT count(*) FROM (SELECT 1", literal(marker))

	db := testduck.Open(t, "")
	defer db.Close()
	var crafted []string
	for _, p := range listTree(t, data) {
		if !strings.HasSuffix(p, ".parquet") {
			continue
		}
		var partial bool
		if err := db.QueryRow(`SELECT count(*) > 0 FROM parquet_schema(?) WHERE name = '_ducklake_internal_snapshot_id'`, p).Scan(&partial); err != nil {
			t.Fatal(err)
		}
		if !partial {
			continue
		}
		tmp := p + ".tmp"
		if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT file_path, pos, %s AS _ducklake_internal_snapshot_id FROM read_parquet(%s)) TO %s (FORMAT parquet, FIELD_IDS {file_path: %d, pos: %d})`,
			literal(injected), literal(p), literal(tmp), formats.DeleteFilePathFieldID, formats.DeletePosFieldID)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
		crafted = append(crafted, p)
	}
	if len(crafted) == 0 {
		t.Fatal("06_deletes has no partial deletion file")
	}
	_, err := Catalog(context.Background(), src, filepath.Join(t.TempDir(), "0.3.duckdb"), formats.V0_3, Options{RewriteDeletes: true, DataPath: data})
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Fatalf("a snapshot value of a delete file ran as SQL: %s was written (conversion: %v)", marker, err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// hostilePayload ends an identifier, a literal or a line, then runs a COPY
// writing marker.
func hostilePayload(marker string) string {
	copyTo := "COPY (SELECT 1) TO " + literal(marker) + " (FORMAT csv)"
	return `"'); ` + copyTo + `; -- ` + "\n" + `'"; ` + copyTo + `; --*?[{}%s`
}

// TestHostileCatalogTextRunsNoSQL: conformance catalogs edited with SQL so
// that their schema, table, column, view and macro names, tags, settings
// and VARCHAR defaults (literal and expression) end in text that would end
// the quoting it lands in and write a marker file. Converting each to every
// other format and proving the result (compare) runs none of it.
func TestHostileCatalogTextRunsNoSQL(t *testing.T) {
	lakes := testlakes.Dir(t, "lakes")
	for _, name := range []string{"05_defaults_not_null", "08_partitioning", "10_macros", "11_comments_tags", "16_data_inlining", "21_multi_schema_options", "24_deletion_vectors"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			vs := versionCatalogs(t, filepath.Join(lakes, name))
			src := filepath.Join(t.TempDir(), "ducklake.duckdb")
			copyFile(t, vs[len(vs)-1], src)
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lakes, name, "data"), data)
			markers := t.TempDir()
			suffix := hostilePayload(filepath.Join(markers, "ran"))
			hostileEdit(t, src, suffix)
			from, err := detectFile(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			// Every other format in one pass, each proved against the
			// hostile catalog read once, as a backfill writes and proves a
			// version's cells (TestCatalogsOnePass: each output is the
			// catalog Catalog writes alone; compare.Source: each proof
			// still reads all of both catalogs).
			var outs []Output
			for _, to := range []string{"0.3", "0.4", "1.0", "1.1"} {
				if to == from {
					continue
				}
				v, err := formats.Lookup(to)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, Output{Target: v, Dst: filepath.Join(t.TempDir(), to+".duckdb")})
			}
			written := Catalogs(ctx, src, outs, Options{DataPath: data, RewriteDeletes: true, Lossy: LossyOptions})
			var errs []error
			for _, w := range written {
				errs = append(errs, w.Err)
			}
			if ents, _ := os.ReadDir(markers); len(ents) > 0 {
				t.Fatalf("convert %s to the other formats: a name or value of the catalog ran as SQL (%v)", from, errors.Join(errs...))
			}
			source := compare.NewSource()
			defer source.Close()
			for i, out := range outs {
				to, err := out.Target.Name, written[i].Err
				if err != nil {
					t.Logf("convert %s to %s: %v", from, to, err)
					continue
				}
				rep, err := compare.Catalogs(ctx, src, out.Dst, compare.Options{DataPath: data, Source: source})
				if ents, _ := os.ReadDir(markers); len(ents) > 0 {
					t.Fatalf("compare %s with %s: a name or value of the catalog ran as SQL (%v)", from, to, err)
				}
				if err != nil || !rep.Equivalent {
					t.Errorf("compare %s with %s: %v %+v", from, to, err, rep)
				}
			}
		})
	}
}

// detectFile is the DuckLake format of a catalog file.
func detectFile(ctx context.Context, path string) (string, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v string
	err = db.QueryRowContext(ctx, "ATTACH "+literal(path)+" AS c (READ_ONLY); SELECT value FROM c.main.ducklake_metadata WHERE key = 'version'").Scan(&v)
	return v, err
}

// attachCatalog attaches the catalog at path as c in a database of the
// test's own, for an edit: exec runs a statement (failing the test),
// has tells whether c's table has the column, and done closes the
// database, which writes the edits out before the catalog is read.
func attachCatalog(t *testing.T, path string) (exec func(q string), has func(table, column string) bool, done func()) {
	t.Helper()
	db := testduck.Open(t, "")
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	done = func() {
		conn.Close()
		db.Close()
	}
	exec = func(q string) {
		t.Helper()
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("ATTACH " + literal(path) + " AS c")
	has = func(table, column string) bool {
		var n int
		if err := conn.QueryRowContext(context.Background(), `SELECT count(*) FROM duckdb_columns() WHERE database_name = 'c' AND table_name = ? AND column_name = ?`, table, column).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	return exec, has, done
}

// hostileEdit appends suffix to the names, tags, settings and VARCHAR
// defaults of the catalog at path (names stay unique). Inlined data tables
// keep their names: DuckLake derives them, and openSource refuses others.
// A column tag's key stays "comment": any other key fails every reader's
// catalog load (catalog-load-fails, compare's TestCatalogLoadFailures), so
// the proof would report every table unreadable; the key is copied as the
// value beside it is, which carries the payload.
func hostileEdit(t *testing.T, path, suffix string) {
	t.Helper()
	exec, has, done := attachCatalog(t, path)
	defer done()
	s := literal(suffix)
	for _, tc := range [][2]string{
		{"ducklake_schema", "schema_name"}, {"ducklake_table", "table_name"}, {"ducklake_column", "column_name"},
		{"ducklake_view", "view_name"}, {"ducklake_macro", "macro_name"},
		{"ducklake_tag", "key"}, {"ducklake_tag", "value"}, {"ducklake_column_tag", "value"},
	} {
		if has(tc[0], tc[1]) {
			exec(fmt.Sprintf("UPDATE c.main.%s SET %s = %s || %s WHERE %s IS NOT NULL", tc[0], quote(tc[1]), quote(tc[1]), s, quote(tc[1])))
		}
	}
	// Literal and expression defaults alike: an expression is text the
	// proof parses and compares, never SQL it runs. An expression default
	// (0.4+) ends in the payload as a string it concatenates, so that it
	// stays the one expression its readers parse (unparsable-default-
	// expression, TestUncastableDefaultsRefused, would make the table
	// unreadable); a literal one ends in the payload itself.
	expression := "FALSE"
	if has("ducklake_column", "default_value_type") {
		expression = "default_value_type = 'expression'"
	}
	for _, col := range []string{"default_value", "initial_default"} {
		if has("ducklake_column", col) {
			edit := fmt.Sprintf("%[1]s || %[2]s", quote(col), s)
			if col == "default_value" {
				edit = fmt.Sprintf("CASE WHEN %s THEN %s || %s ELSE %s END", expression, quote(col), literal(" || "+literal(suffix)), edit)
			}
			exec(fmt.Sprintf("UPDATE c.main.ducklake_column SET %[1]s = %[2]s WHERE lower(column_type) = 'varchar' AND %[1]s IS NOT NULL AND %[1]s <> 'NULL'", quote(col), edit))
		}
	}
	cols := "key, value"
	vals := s + ", " + s
	if has("ducklake_metadata", "scope") {
		cols += ", scope, scope_id"
		vals += ", NULL, NULL"
	}
	exec("INSERT INTO c.main.ducklake_metadata (" + cols + ") VALUES (" + vals + ")")
	exec("DETACH c")
}

// TestHostileCatalogSQLRunsNoSQL: the catalog's text that is SQL or looks
// like it (a view's and a macro's SQL, a macro parameter's name, type and
// default, a column's type, every column's default, a partition
// transform, the data_path ducklake_metadata records) replaced or ended by
// statements that write a marker file (a COPY, an ATTACH, a SET, an
// INSTALL, a CREATE TABLE). Proving the catalog against itself, converting
// it to every other format and proving the result, with the data folder
// given and with the catalog's own data_path, runs none of it; each
// outcome is a conversion, a proof or a refusal. A catalog whose data_path
// names a local folder whose name ends every quoting proves equivalent
// with its data read from there. The edits that make every
// conversion a refusal (a type, a transform) are a catalog of their own,
// so that the others reach the proofs of converted catalogs.
//
// Each kind runs on the lakes whose rows its edits reach: "text" on all
// five (a default in 05, a view in 09, a macro in 10, data_path and every
// column's default in each); "types" where its three edits differ (the
// partition transform of 08, the macro parameter types of 10, and one
// column's type, which 01 stands for: 05 and 09 had that edit only, the
// same refusal); "path" on 01, whose every conversion is written and
// proved from the hostile folder, and 08, whose data files sit in hive
// folders under it (05, 09 and 10 read plain data files as 01 does: no
// other path of the proof or the conversion; was five lakes each, CPU
// about a third less).
func TestHostileCatalogSQLRunsNoSQL(t *testing.T) {
	lakes := testlakes.Dir(t, "lakes")
	for _, tc := range []struct{ kind, lakes string }{
		{"text", "01_primitive_types 05_defaults_not_null 08_partitioning 09_views 10_macros"},
		{"types", "01_primitive_types 08_partitioning 10_macros"},
		{"path", "01_primitive_types 08_partitioning"},
	} {
		for _, name := range strings.Fields(tc.lakes) {
			t.Run(name+"/"+tc.kind, func(t *testing.T) {
				t.Parallel()
				hostileSQLRun(t, filepath.Join(lakes, name), tc.kind)
			})
		}
	}
}

// hostileSQLRun edits a copy of lake's newest catalog (hostileSQLEdit),
// proves it against itself, converts it to every other format and proves
// each conversion, and fails as soon as a marker file appears.
func hostileSQLRun(t *testing.T, lake, kind string) {
	ctx := context.Background()
	vs := versionCatalogs(t, lake)
	src := filepath.Join(t.TempDir(), "ducklake.duckdb")
	copyFile(t, vs[len(vs)-1], src)
	data := filepath.Join(t.TempDir(), "data")
	if kind == "path" {
		// A local data folder whose name ends every quoting.
		data = filepath.Join(t.TempDir(), `d"'); --*?[{}%s`)
	}
	copyTree(t, filepath.Join(lake, "data"), data)
	markers := t.TempDir()
	hostileSQLEdit(t, src, markers, kind, data)
	from, err := detectFile(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	ran := func(what string, err error) {
		t.Helper()
		if ents, _ := os.ReadDir(markers); len(ents) > 0 {
			t.Fatalf("%s: catalog text ran as SQL: %s written (%v)", what, ents[0].Name(), err)
		}
	}
	// The proofs of each data folder read the hostile catalog once, as a
	// backfill's proofs of a version do (compare.Source): every proof
	// still reads all of it, and its conversion whole.
	withData, ownPath := compare.NewSource(), compare.NewSource()
	defer withData.Close()
	defer ownPath.Close()
	prove := func(b, what string) {
		t.Helper()
		_, err := compare.Catalogs(ctx, src, b, compare.Options{DataPath: data, Source: withData})
		ran("compare "+what, err)
		rep, err := compare.Catalogs(ctx, src, b, compare.Options{Source: ownPath})
		ran("compare "+what+" (the catalog's data_path)", err)
		if kind == "path" && (err != nil || !rep.Equivalent) {
			t.Errorf("compare %s, the data folder named by its data_path: %v %+v", what, err, rep)
		}
	}
	prove(src, "with itself")
	// Every other format in one pass over the hostile catalog, as a
	// backfill writes a version's cells (TestCatalogsOnePass: each output
	// is the catalog Catalog writes alone).
	var outs []Output
	for _, to := range []string{"0.3", "0.4", "1.0", "1.1"} {
		if to == from {
			continue
		}
		v, err := formats.Lookup(to)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, Output{Target: v, Dst: filepath.Join(t.TempDir(), to+".duckdb")})
	}
	written := Catalogs(ctx, src, outs, Options{DataPath: data, RewriteDeletes: true, Lossy: LossyOptions})
	var errs []error
	for _, w := range written {
		errs = append(errs, w.Err)
	}
	ran("convert "+from+" to the other formats", errors.Join(errs...))
	for i, out := range outs {
		to, err := out.Target.Name, written[i].Err
		if err != nil {
			t.Logf("convert %s to %s: %.300s", from, to, err)
			continue
		}
		prove(out.Dst, "with "+to)
	}
}

// hostileSQLEdit rewrites the SQL-like text of the catalog at path
// (TestHostileCatalogSQLRunsNoSQL) so that running any of it writes a file
// in markers: kind "text" the SQL, names, defaults and data_path, "types"
// the type names and transforms; kind "path" sets data_path to the local
// folder data.
func hostileSQLEdit(t *testing.T, path, markers, kind, data string) {
	t.Helper()
	exec, has, done := attachCatalog(t, path)
	defer done()
	marker := func(n string) string { return literal(filepath.Join(markers, n)) }
	// Whole statements, as a view's or a macro's SQL would hold them.
	statements := literal("SELECT 1; COPY (SELECT 1) TO " + marker("copy") + " (FORMAT csv); ATTACH " + marker("attach.duckdb") +
		" AS x; SET temp_directory = " + marker("temp") + "; INSTALL httpfs; CREATE TABLE x.t AS SELECT 1")
	tail := literal(hostilePayload(filepath.Join(markers, "tail")))
	edits := [][3]string{
		{"ducklake_view", "sql", statements},
		{"ducklake_macro_impl", "sql", statements},
		{"ducklake_macro_parameters", "parameter_name", "parameter_name || " + tail},
		{"ducklake_macro_parameters", "default_value", "coalesce(default_value, '') || " + tail},
		// Every default, of any type: text the proof compares, never SQL.
		{"ducklake_column", "default_value", statements},
		{"ducklake_column", "initial_default", "initial_default || " + tail},
		{"ducklake_metadata", "value", "value || " + tail},
	}
	switch kind {
	case "path":
		edits = [][3]string{{"ducklake_metadata", "value", literal(data + "/")}}
	case "types":
		edits = [][3]string{
			{"ducklake_macro_parameters", "parameter_type", "parameter_type || " + tail},
			{"ducklake_partition_column", "transform", "transform || " + tail},
			{"ducklake_column", "column_type", "'int32); COPY (SELECT 1) TO ' || " + literal(marker("type")) + " || ' (FORMAT csv); --'"},
		}
	}
	for _, e := range edits {
		if !has(e[0], e[1]) {
			continue
		}
		where := ""
		switch e[0] {
		case "ducklake_metadata":
			where = " WHERE key = 'data_path'"
		case "ducklake_column":
			if e[1] == "column_type" {
				// One column's type: readers and the converter refuse it.
				where = " WHERE column_id = (SELECT max(column_id) FROM c.main.ducklake_column)"
			}
		}
		exec(fmt.Sprintf("UPDATE c.main.%s SET %s = %s%s", e[0], quote(e[1]), e[2], where))
	}
	exec("DETACH c")
}
