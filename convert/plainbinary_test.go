package convert

import (
	"context"
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

// TestCutStringBoundsPlainBinary: a data file whose VARCHAR column is
// stored as plain BINARY (BYTE_ARRAY without a UTF8/STRING logical type,
// as DuckDB writes a BLOB, and as writers other than DuckLake's may write
// strings). DuckDB reads such a column as BLOB; mapped by field id to the
// table's VARCHAR, as DuckLake's readers (and read_parquet's schema
// parameter, the proof's model) read it, each value is cast to its text
// (bytes past ASCII as \xHH), and min and max are those texts' in VARCHAR
// order. The cut-bound scan took min and max of the BLOB (byte order)
// and then its text: for 'é' and 'zz' it found min 'zz' where the
// readers scan '\xC3\xA9' (the backslash sorts before 'z'), so a 1.0 ->
// 1.1 conversion wrote NULL the bounds that are the rows' min and max as
// the readers scan them, and a 1.1 -> 1.0 conversion was refused
// (string-minmax-folded-cut) where DuckDB 1.5 scans what DuckDB 2.0 folds.
func TestCutStringBoundsPlainBinary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	vs := versionCatalogs(t, lake)
	path := filepath.Join(t.TempDir(), "binary.parquet")
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	db := testduck.Open(t, "")
	if _, err := db.Exec(`COPY (SELECT * FROM (VALUES (2::INTEGER, encode('é')), (3::INTEGER, encode('zz'))) v(a, b)) TO ` + lit(path) + ` (FORMAT parquet, FIELD_IDS {a: 1, b: 2})`); err != nil {
		t.Fatal(err)
	}
	var typ string
	var logical *string
	if err := db.QueryRow(`SELECT type, logical_type FROM parquet_schema(?) WHERE name = 'b'`, path).Scan(&typ, &logical); err != nil {
		t.Fatal(err)
	}
	if typ != "BYTE_ARRAY" || logical != nil {
		t.Fatalf("column b written as %s, logical type %v; want plain BYTE_ARRAY", typ, logical)
	}
	// What the readers scan: the column read as the table's VARCHAR.
	var lo, hi string
	if err := db.QueryRow(`SELECT min(v), max(v) FROM read_parquet(?, schema = MAP {2: {name: 'v', type: 'VARCHAR', default_value: NULL}})`, path).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if lo != `\xC3\xA9` || hi != "zz" {
		t.Fatalf("read as VARCHAR: min %q, max %q; want \\xC3\\xA9 and zz", lo, hi)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src := editedCopy(t, vs[len(vs)-1],
		fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format, record_count, file_size_bytes, row_id_start)
			VALUES (100, 2, 21, %s, false, 'parquet', 2, %d, 1)`, lit(path), st.Size()),
		fmt.Sprintf(`INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, value_count, null_count, min_value, max_value)
			VALUES (100, 2, 1, 2, 0, '2', '3'), (100, 2, 2, 2, 0, %s, %s)`, lit(lo), lit(hi)),
		fmt.Sprintf(`UPDATE ducklake_table_stats SET record_count = record_count + 2, next_row_id = next_row_id + 2, file_size_bytes = file_size_bytes + %d WHERE table_id = 2`, st.Size()),
		`UPDATE ducklake_table_column_stats SET max_value = greatest(max_value::INTEGER, 3)::VARCHAR WHERE table_id = 2 AND column_id = 1`,
		fmt.Sprintf(`UPDATE ducklake_table_column_stats SET min_value = least(min_value, %s), max_value = greatest(max_value, %s) WHERE table_id = 2 AND column_id = 2`, lit(lo), lit(hi)))
	// The proof's model reads the bounds as the rows' min and max.
	r, err := compare.Open(ctx, src, compare.ReaderOptions{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := r.CutStringBounds(ctx)
	r.Close()
	if err != nil || len(cut) != 0 {
		t.Fatalf("the proof finds cut bounds %q (%v) in the source; want none", cut, err)
	}
	folded := func(path string) (n int) {
		t.Helper()
		db := testduck.Open(t, path)
		defer db.Close()
		if err := db.QueryRow(`SELECT count(*) FROM ducklake_table_column_stats s WHERE s.table_id = 2 AND s.column_id = 2 AND ` + formats.FoldedStringBoundsSQL("")).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := folded(src); n != 1 {
		t.Fatalf("the source's d2.b: %d folded rows, want 1", n)
	}
	// 1.0 -> 1.1 with --data: the bounds are the rows' min and max, kept.
	v11 := filepath.Join(t.TempDir(), "1.1.duckdb")
	res, err := Catalog(ctx, src, v11, formats.V1_1, Options{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Code == "string-table-stats-cut-unfolded" {
			t.Errorf("1.0 to 1.1: %s: %s", f.Code, f.Detail)
		}
	}
	if n := folded(v11); n != 1 {
		t.Errorf("1.0 to 1.1: d2.b's bounds written NULL; want them kept")
	}
	// 1.1 -> 1.0 with --data, from a 1.1 written without --data (which
	// keeps every bound): DuckDB 1.5 scans what DuckDB 2.0 folds.
	kept := filepath.Join(t.TempDir(), "kept-1.1.duckdb")
	if _, err := Catalog(ctx, src, kept, formats.V1_1, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Catalog(ctx, kept, filepath.Join(t.TempDir(), "1.0.duckdb"), formats.V1_0, Options{DataPath: data}); err != nil {
		t.Errorf("1.1 to 1.0: %v", err)
	}
}
