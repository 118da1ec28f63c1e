package compare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// withVarcharFile adds to a copy of 05_defaults_not_null's last version a
// data file of table d2 (a INTEGER field id 1, b VARCHAR field id 2; one
// file of one row, b 'random()') holding the row (2, value), written by
// DuckDB 1.5.6's Parquet writer, with the statistics that writer returns
// (COPY ... RETURN_STATS, what DuckLake stores) merged into the file and
// table statistics as DuckLake merges them: the statistics stay exact
// (record_count is the net row count). It returns the catalog, the data
// folder and the writer's min and max of b.
func withVarcharFile(t *testing.T, value string) (catalog, data, lo, hi string) {
	t.Helper()
	lake, src := lastVersion(t, "lakes", "05_defaults_not_null")
	data = filepath.Join(lake, "data")
	path := filepath.Join(t.TempDir(), "long.parquet")
	db := testduck.Open(t, "")
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT 2::INTEGER AS a, %s::VARCHAR AS b) TO %s (FORMAT parquet, FIELD_IDS {a: 1, b: 2})`, sqlString(value), sqlString(path))); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT stats_min_value, stats_max_value FROM parquet_metadata(?) WHERE path_in_schema = 'b'`, path).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	catalog = tamper(t, src,
		fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format, record_count, file_size_bytes, row_id_start)
			VALUES (100, 2, 21, %s, false, 'parquet', 1, %d, 1)`, sqlString(path), st.Size()),
		fmt.Sprintf(`INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, value_count, null_count, min_value, max_value)
			VALUES (100, 2, 1, 1, 0, '2', '2'), (100, 2, 2, 1, 0, %s, %s)`, sqlString(lo), sqlString(hi)),
		fmt.Sprintf(`UPDATE ducklake_table_stats SET record_count = 2, next_row_id = 2, file_size_bytes = file_size_bytes + %d WHERE table_id = 2`, st.Size()),
		`UPDATE ducklake_table_column_stats SET max_value = '2' WHERE table_id = 2 AND column_id = 1`,
		fmt.Sprintf(`UPDATE ducklake_table_column_stats SET min_value = least(min_value, %[1]s), max_value = greatest(max_value, %[2]s) WHERE table_id = 2 AND column_id = 2`, sqlString(lo), sqlString(hi)))
	return catalog, data, lo, hi
}

// TestMinMaxVarcharFoldedBy20: DuckDB 2.0 (DuckLake main on DuckDB main's
// reworked string statistics) answers SELECT min(b), max(b) of a VARCHAR
// column from exact table statistics, where DuckDB 1.5 scans. DuckDB's
// Parquet writer keeps at most 256 bytes of a string in its statistics
// (the minimum cut, the maximum cut and its last byte incremented), and
// DuckLake stores them as written: a table whose greatest string is
// longer has a max_value that is no value of the column. So a 0.4 catalog
// (its readers scan) is not equivalent to its 1.0 stamp, which DuckDB 2.0
// reads, and a short string folds to what the scan reads.
func TestMinMaxVarcharFoldedBy20(t *testing.T) {
	long := "z" + strings.Repeat("a", 299)
	cat, data, lo, hi := withVarcharFile(t, long)
	if lo != long[:256] || hi != long[:255]+"b" {
		t.Fatalf("DuckDB's Parquet writer returned min %q, max %q, want the 256-byte cuts", lo, hi)
	}
	a := tamper(t, cat, as04SQL()...)
	rep, err := Catalogs(context.Background(), a, cat, Options{DataPath: data, Engines: readerDBs})
	if err != nil && !errors.Is(err, ErrNotEquivalent) {
		t.Fatal(err)
	}
	wantMinMax(t, rep, "b", "min random(), max "+hi+" from the statistics (DuckDB 2.0)", "min random(), max "+long+" by a scan (format 0.4 readers)", false)

	// The other way, B's readers (0.4) scan, which A's DuckDB 1.5 readers
	// do too.
	rep, err = Catalogs(context.Background(), cat, a, Options{DataPath: data, Engines: readerDBs})
	if err != nil && !errors.Is(err, ErrNotEquivalent) {
		t.Fatal(err)
	}
	wantMinMax(t, rep, "b", "", "", false)

	// A string the writer keeps whole folds to what the scan reads.
	short, data2, _, _ := withVarcharFile(t, "zz")
	rep, err = Catalogs(context.Background(), tamper(t, short, as04SQL()...), short, Options{DataPath: data2, Engines: readerDBs})
	if err != nil && !errors.Is(err, ErrNotEquivalent) {
		t.Fatal(err)
	}
	wantMinMax(t, rep, "b", "", "", false)
}

// TestUnfoldedStringBounds: B's VARCHAR table statistics row with both
// bounds NULL stands for A's with both set where B's readers fold them and
// A's do not (formats.StringBoundsUnfolded: a 0.4 A, a 1.0 B), which
// convert writes (unfoldStringBounds); before, the proof reported the row
// as a stats difference. A row NULLed where A's readers fold too and B has
// a scanning reader (1.0 to 1.0), one bound only NULLed, or another field
// changed beside stay differences. The 1.0 to 1.1 cases
// (formats.StringBoundsCutUnfolded) need a 1.1 catalog, which only convert
// writes: convert's TestMinMaxVarcharConverted has them (this package's
// tests must not import convert, TestIndependentOfConvert).
func TestUnfoldedStringBounds(t *testing.T) {
	long := "z" + strings.Repeat("a", 299)
	cat, data, _, _ := withVarcharFile(t, long)
	a04 := tamper(t, cat, as04SQL()...)
	const row = `UPDATE ducklake_table_column_stats SET %s WHERE table_id = 2 AND column_id = 2`
	for _, tc := range []struct {
		name, a, b string
		set        string
		want       bool // a stats difference of d2.b's row
	}{
		{"0.4 to 1.0, both bounds NULL", a04, cat, "min_value = NULL, max_value = NULL", false},
		{"1.0 to 1.0, both bounds NULL: A's DuckDB 2.0 folds too", cat, cat, "min_value = NULL, max_value = NULL", true},
		{"0.4 to 1.0, max_value only NULL", a04, cat, "max_value = NULL", true},
		{"0.4 to 1.0, both bounds NULL and contains_null changed", a04, cat, "min_value = NULL, max_value = NULL, contains_null = NOT contains_null", true},
		{"0.4 to 1.0, a bound changed", a04, cat, "min_value = NULL, max_value = 'zz'", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, tc.b, fmt.Sprintf(row, tc.set))
			rep, err := Catalogs(context.Background(), tc.a, b, Options{DataPath: data, Engines: readerDBs})
			if err != nil && !errors.Is(err, ErrNotEquivalent) {
				t.Fatal(err)
			}
			var got []string
			for _, d := range rep.Differences {
				if d.Kind == "stats" && strings.Contains(d.String(), "ducklake_table_column_stats table_id=\"2\" column_id=\"2\"") {
					got = append(got, d.String())
				}
			}
			if tc.want != (len(got) > 0) {
				t.Errorf("want a stats difference of d2.b: %v, got:\n%s", tc.want, strings.Join(got, "\n"))
			}
			wantMinMax(t, rep, "b", "", "", false)
		})
	}
}

// TestUnfoldedStringBoundsByColumn: B's NULL bounds are accepted for
// A's row column by column, not by replacing text in A's row as printed
// ("min_value=<lo>" with "min_value=NULL", the first one found). Where
// (table_id, column_id) has two rows in A, one-sided (min only, not
// folded: first in the entry, contains_null false) and the folded one
// (contains_null true), the text replacement NULLed the first row's min
// and the folded row's max: a B with the one-sided row's bound gone and
// the folded row's min kept (one bound NULL, which its DuckDB 2.0 folds
// nothing from, while the row that no reader folds lost its bound) was
// accepted. Two rows of a key are never taken for one row's NULLed
// bounds, whatever they hold.
func TestUnfoldedStringBoundsByColumn(t *testing.T) {
	long := "z" + strings.Repeat("a", 299)
	cat, data, lo, _ := withVarcharFile(t, long)
	const key = `table_id = 2 AND column_id = 2`
	second := fmt.Sprintf(`INSERT INTO ducklake_table_column_stats (table_id, column_id, contains_null, contains_nan, min_value, max_value)
		SELECT table_id, column_id, false, contains_nan, %s, NULL FROM ducklake_table_column_stats WHERE %s`, sqlString(lo), key)
	setup := []string{`UPDATE ducklake_table_column_stats SET contains_null = true, min_value = ` + sqlString(lo) + ` WHERE ` + key, second}
	a := tamper(t, cat, append(setup, as04SQL()...)...)
	b := tamper(t, cat, append(setup,
		`UPDATE ducklake_table_column_stats SET min_value = NULL WHERE contains_null = false AND `+key,
		`UPDATE ducklake_table_column_stats SET max_value = NULL WHERE contains_null = true AND `+key)...)
	rep, err := Catalogs(context.Background(), a, b, Options{DataPath: data, Engines: readerDBs})
	if err != nil && !errors.Is(err, ErrNotEquivalent) {
		t.Fatal(err)
	}
	if !hasDifference(rep, "stats", `ducklake_table_column_stats table_id="2" column_id="2"`) {
		t.Errorf("no stats difference of d2.b's rows; differences: %v", rep.Differences)
	}
}

// TestCutStringBounds: the 1.0 catalog whose d2.b table statistics hold
// the max DuckDB 1.5.6's Parquet writer cut from a 300-byte string (DuckDB
// 2.0 folds it, no row holds it) is named, with both answers; the same
// lake without that row and its 0.4 stamp (no reader folds) are not (a
// 1.1 conversion: convert's TestMinMaxVarcharConverted).
func TestCutStringBounds(t *testing.T) {
	ctx := context.Background()
	long := "z" + strings.Repeat("a", 299)
	cat, data, _, _ := withVarcharFile(t, long)
	lake, plain := lastVersion(t, "lakes", "05_defaults_not_null")
	for _, tc := range []struct {
		name, path, data string
		want             string // in the one column named; "" for none
	}{
		{"1.0, cut max", cat, data, `main.d2.b (table id 2, column id 2): statistics min "random()", max "zaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (256 bytes), rows min "random()", max "zaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (300 bytes)`},
		{"1.0, true bounds", plain, filepath.Join(lake, "data"), ""},
		{"0.4 stamp", tamper(t, cat, as04SQL()...), data, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(ctx, tc.path, ReaderOptions{DataPath: tc.data, Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := r.CutStringBounds(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) != 1 || got[0] != tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
