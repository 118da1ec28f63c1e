package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// withParquetFile writes a one-row Parquet file from a DuckDB SELECT with
// the COPY options given (FIELD_IDS) and registers it in a copy of catalog
// as data file 100 of table 1 (main.del of 06_deletes: id BIGINT, field id
// 1; v VARCHAR, field id 2), visible from snapshot 15; stamp, if set, is
// the format version the copy's version row then says.
func withParquetFile(t *testing.T, catalog, sel, opts, stamp string) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "partial.parquet")
	db := testduck.Open(t, "")
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet%s)", sel, sqlString(path), opts)); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format, record_count, file_size_bytes, row_id_start)
		VALUES (100, 1, 15, %s, false, 'parquet', 1, %d, 2000)`, sqlString(path), st.Size())}
	if stamp != "" {
		stmts = append(stmts, `UPDATE ducklake_metadata SET value = '`+stamp+`' WHERE key = 'version'`)
	}
	return tamper(t, catalog, stmts...), path
}

// partialFileRow reads the one row data file 100 gives main.del at snapshot 15.
func partialFileRow(t *testing.T, catalog, data string) string {
	t.Helper()
	ctx := context.Background()
	r := openForTest(t, catalog, data)
	tb, err := r.Table(ctx, "main.del", 15)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := r.Scan(ctx, tb, 15, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if p.FileID != 100 {
			continue
		}
		var id, v sql.NullString
		if err := r.conn.QueryRowContext(ctx, "SELECT id::VARCHAR, v FROM ("+p.SQL+")").Scan(&id, &v); err != nil {
			t.Fatalf("%s: %v", p.SQL, err)
		}
		show := func(s sql.NullString) string {
			if !s.Valid {
				return "NULL"
			}
			return s.String
		}
		return show(id) + "," + show(v)
	}
	t.Fatal("data file 100 not read")
	return ""
}

// TestPartialFieldIDs: a data file whose top-level columns do not all have
// field ids is read as each format's reader reads it. 1.0 readers (from
// 1dcdba8f, DuckDB 1.5.2) map a file by field id only when every top-level
// column has one (ColumnsHaveFieldIds), else by position; 0.1-0.4 readers
// always map by field id, and DuckDB's FieldIdMapper stops at the first
// column without one, so later columns match nothing. Before, such a file
// was read through read_parquet's schema map, which fails in DuckDB 1.5.6
// with "INTERNAL Error: No default expression in FieldId Map" and
// invalidates the database (compare exited 4), or, where it read, by field
// id in every format: a 1.0 catalog and its 0.4 stamp were equivalent.
func TestPartialFieldIDs(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	const (
		leading  = "SELECT 7::BIGINT AS a, 'x' AS b"         // a has field id 1, b none
		trailing = "SELECT 5::BIGINT AS q, 'y' AS p"         // q none, p field id 2
		middle   = "SELECT 7::BIGINT AS a, 5 AS q, 'y' AS p" // a 1, q none, p 2
	)
	for _, tc := range []struct {
		name, sel, ids, stamp, want string
	}{
		{"1.0, id on the first column only", leading, "{a: 1}", "", "7,x"},
		{"0.4, id on the first column only", leading, "{a: 1}", "0.4", "7,NULL"},
		{"1.0, id on the second column only", trailing, "{p: 2}", "", "5,y"},
		{"0.4, id on the second column only", trailing, "{p: 2}", "0.4", "NULL,NULL"},
		{"0.4, ids before and after a column without", middle, "{a: 1, p: 2}", "0.4", "7,NULL"},
		{"1.0, ids before and after a column without", middle, "{a: 1, p: 2}", "", "7,5"},
		{"0.4, every column an id", leading, "{a: 1, b: 2}", "0.4", "7,x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat, _ := withParquetFile(t, catalog, tc.sel, ", FIELD_IDS "+tc.ids, tc.stamp)
			if got := partialFileRow(t, cat, data); got != tc.want {
				t.Errorf("read %s, want %s", got, tc.want)
			}
		})
	}
	// The proof: a 1.0 catalog with such a file is equivalent to itself and
	// not to its 0.4 stamp, whose readers read other rows.
	a, _ := withParquetFile(t, catalog, leading, ", FIELD_IDS {a: 1}", "")
	b := filepath.Join(t.TempDir(), "copy.duckdb")
	copyFile(t, a, b)
	if rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs}); err != nil {
		t.Fatalf("1.0 against a copy: %v\n%s", err, reportLines(rep))
	}
	b04 := tamper(t, a, `UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`)
	rep, err := Catalogs(ctx, a, b04, Options{DataPath: data, Engines: readerDBs})
	if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "rows", "main.del") {
		t.Fatalf("1.0 against its 0.4 stamp: %v, want rows of main.del to differ\n%s", err, reportLines(rep))
	}
	if strings.Contains(reportLines(rep), "INTERNAL") {
		t.Errorf("the report names an internal error:\n%s", reportLines(rep))
	}
	// A column named file_row_number in such a file is the documented
	// limit of files read without a schema map: could not compare, with
	// DuckDB's reason, never an internal error that invalidates the
	// database.
	named, _ := withParquetFile(t, catalog, "SELECT 7::BIGINT AS a, 'x' AS file_row_number", ", FIELD_IDS {a: 1}", "")
	_, err = Catalogs(ctx, named, named, Options{DataPath: data, Engines: readerDBs})
	if err == nil || errors.Is(err, ErrNotEquivalent) || strings.Contains(err.Error(), "INTERNAL") || !strings.Contains(err.Error(), "file_row_number") {
		t.Fatalf("a file_row_number column: %v, want could not compare naming it", err)
	}
}
