package convert

import (
	"context"
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

// TestMinMaxVarcharConverted: a 1.0 lake (05_defaults_not_null, table d2:
// a INTEGER, b VARCHAR) given a data file of one row whose b is 300 bytes,
// written by DuckDB 1.5.6's Parquet writer, with that writer's statistics
// (b's max cut at 256 bytes, its last byte incremented) merged into the
// file and table statistics as DuckLake merges them. DuckDB 2.0 answers
// max(b) of 1.0 and 1.1 catalogs from those statistics, DuckDB 1.5 scans
// (compare/minmax.go). A 0.4 conversion converted back to 1.0 or on to 1.1
// gets b's table statistics bounds NULL (unfoldStringBounds: 0.4's readers
// scan, and so does DuckDB 2.0 without bounds) and proves equivalent;
// before, both failed their proof on column b (0.4 -> 1.1 as 0.4 -> 1.0).
// A 1.1 conversion converted to 1.0 or 0.4 is refused
// (string-minmax-folded-cut): DuckDB 1.5 would scan what 2.0, 1.1's only
// reader, never answers, which no rewrite of B mends; before, it was
// written and failed its proof. The 1.0 source against its 1.1 and 0.4
// conversions holds.
func TestMinMaxVarcharConverted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, data, vs, _ := longStringLake(t)
	conv := func(from string, to *formats.Version) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), to.Name+".duckdb")
		if _, err := Catalog(ctx, from, out, to, Options{DataPath: data}); err != nil {
			t.Fatalf("to %s: %v", to, err)
		}
		return out
	}
	// 0.4 and 1.1 in one pass over the source (TestCatalogsOnePass: each
	// output is the catalog Catalog writes alone).
	v04, v11 := filepath.Join(t.TempDir(), "0.4.duckdb"), filepath.Join(t.TempDir(), "1.1.duckdb")
	for i, c := range Catalogs(ctx, src, []Output{{Target: formats.V0_4, Dst: v04}, {Target: formats.V1_1, Dst: v11}}, Options{DataPath: data}) {
		if c.Err != nil {
			t.Fatalf("to %s: %v", []string{"0.4", "1.1"}[i], c.Err)
		}
	}
	// The proofs against the source, and those against its 0.4
	// conversion, read their catalog A once (compare.Source: each still
	// reads all of both catalogs).
	fromSrc, from04 := compare.NewSource(), compare.NewSource()
	defer fromSrc.Close()
	defer from04.Close()
	// Without --data convert cannot tell the cut bound and keeps it.
	v11cut := filepath.Join(t.TempDir(), "cut-1.1.duckdb")
	if _, err := Catalog(ctx, src, v11cut, formats.V1_1, Options{}); err != nil {
		t.Fatal(err)
	}
	// Read-only: one of the catalogs read is the shared lake's own
	// (vs), which another test binary may hold open read-only too.
	bounds := func(path string, table int) (n, null int) {
		t.Helper()
		db := testduck.Open(t, path+"?access_mode=read_only")
		defer db.Close()
		if err := db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE min_value IS NULL AND max_value IS NULL) FROM ducklake_table_column_stats s WHERE s.table_id = ? AND `+formats.FoldedStringBoundsSQL("")+` OR (s.table_id = ? AND s.column_id = 2 AND s.min_value IS NULL)`, table, table).Scan(&n, &null); err != nil {
			t.Fatal(err)
		}
		return n, null
	}
	// 1.0 -> 1.1 with --data: b's cut bounds written NULL with a note (2.0,
	// 1.1's only reader, then scans as 1.0's DuckDB 1.5 does).
	if n, null := bounds(v11, 2); n != 1 || null != 1 {
		t.Errorf("1.0 to 1.1: d2.b's table statistics: %d rows, %d without bounds; want 1 and 1", n, null)
	}
	if n, null := bounds(v11cut, 2); n != 1 || null != 0 {
		t.Errorf("1.0 to 1.1 without --data: d2.b's table statistics: %d rows, %d without bounds; want 1 and 0", n, null)
	}
	// 1.0 -> 1.1 of the lake before the long row: d2.b's bounds are its
	// rows' min and max, and stay.
	plain := conv(vs[len(vs)-1], formats.V1_1)
	if n, null := bounds(vs[len(vs)-1], 2); n != 1 || null != 0 {
		t.Fatalf("the 1.0 lake's d2.b: %d folded rows, %d without bounds; want 1 and 0", n, null)
	}
	if n, null := bounds(plain, 2); n != 1 || null != 0 {
		t.Errorf("1.0 to 1.1 of true bounds: d2.b's table statistics: %d rows, %d without bounds; want 1 and 0", n, null)
	}
	// The proof's side of it (formats.StringBoundsCutUnfolded): the 1.1
	// conversion that kept the cut bounds, with both written NULL, stands
	// for the 1.0 source (before compare accepted it, a stats difference);
	// one bound only NULLed, or contains_null changed beside, stay stats
	// differences. compare.CutStringBounds names the cut bound in the 1.1
	// catalog that kept it, and nothing in the one convert wrote.
	const row = `UPDATE ducklake_table_column_stats SET %s WHERE table_id = 2 AND column_id = 2`
	for _, tc := range []struct {
		set  string
		want bool // a stats difference of d2.b's row
	}{
		{"min_value = NULL, max_value = NULL", false},
		{"max_value = NULL", true},
		{"min_value = NULL, max_value = NULL, contains_null = NOT contains_null", true},
	} {
		b := editedCopy(t, v11cut, fmt.Sprintf(row, tc.set))
		rep, err := compare.Catalogs(ctx, src, b, compare.Options{DataPath: data, Source: fromSrc})
		if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
			t.Fatal(err)
		}
		var got []string
		for _, d := range rep.Differences {
			if d.Kind == "stats" && strings.Contains(d.String(), "ducklake_table_column_stats table_id=\"2\" column_id=\"2\"") {
				got = append(got, d.String())
			}
		}
		if tc.want != (len(got) > 0) {
			t.Errorf("1.0 to 1.1 with %s: want a stats difference of d2.b: %v, got:\n%s", tc.set, tc.want, strings.Join(got, "\n"))
		}
	}
	for _, tc := range []struct {
		name, path string
		cut        int
	}{{"1.1 that kept the cut bound", v11cut, 1}, {"1.1 with --data", v11, 0}} {
		r, err := compare.Open(ctx, tc.path, compare.ReaderOptions{DataPath: data})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.CutStringBounds(ctx)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.cut || tc.cut == 1 && !strings.Contains(got[0], "main.d2.b") {
			t.Errorf("%s: cut bounds %q, want %d naming main.d2.b", tc.name, got, tc.cut)
		}
	}
	// 1.1 -> 1.0 and 1.1 -> 0.4: DuckDB 1.5 would scan what 2.0, 1.1's
	// only reader, never answers; refused, naming the column.
	// Both in one pass.
	downs := []Output{{Target: formats.V1_0, Dst: filepath.Join(t.TempDir(), "1.0.duckdb")}, {Target: formats.V0_4, Dst: filepath.Join(t.TempDir(), "0.4.duckdb")}}
	for i, c := range Catalogs(ctx, v11cut, downs, Options{DataPath: data}) {
		to, err := downs[i].Target, c.Err
		codes, cerr := codesOf(err)
		if !errors.Is(err, ErrRefused) || cerr != nil || codes != "string-minmax-folded-cut" || !strings.Contains(err.Error(), "table d2 (id 2) column b (id 2)") {
			t.Errorf("1.1 to %s: got %v (codes %q), want refused string-minmax-folded-cut naming d2.b", to, err, codes)
		}
	}
	// 0.4 -> 1.0 and 0.4 -> 1.1: b's bounds written NULL, with a note, and
	// nothing else of the row changed.
	// Both in one pass over the 0.4 catalog.
	unfolded := map[*formats.Version]string{}
	ups := []Output{{Target: formats.V1_0, Dst: filepath.Join(t.TempDir(), "1.0.duckdb")}, {Target: formats.V1_1, Dst: filepath.Join(t.TempDir(), "1.1.duckdb")}}
	for i, c := range Catalogs(ctx, v04, ups, Options{DataPath: data}) {
		to, out := ups[i].Target, ups[i].Dst
		if c.Err != nil {
			t.Fatalf("0.4 to %s: %v", to, c.Err)
		}
		noted := false
		for _, f := range c.Result.Findings {
			if f.Code == "string-table-stats-unfolded" {
				noted = strings.Contains(f.Detail, "table d2 (id 2) column b (id 2)")
			}
		}
		if !noted {
			t.Errorf("0.4 to %s: no string-table-stats-unfolded note naming d2.b; findings: %+v", to, c.Result.Findings)
		}
		db := testduck.Open(t, out)
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM ducklake_table_column_stats WHERE table_id = 2 AND column_id = 2 AND min_value IS NULL AND max_value IS NULL`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if n != 1 {
			t.Errorf("0.4 to %s: d2.b's table statistics keep their bounds", to)
		}
		unfolded[to] = out
	}
	for _, tc := range []struct {
		name, a, b string
		want       string // in the one minmax difference; "" for none
	}{
		{"1.0 to 0.4: B's readers scan, as A's DuckDB 1.5 do", src, v04, ""},
		{"1.0 to 1.1: no cut bounds, DuckDB 2.0 scans as 1.0's DuckDB 1.5 does", src, v11, ""},
		{"1.0 to 1.1 without --data: both fold the same statistics", src, v11cut, ""},
		{"0.4 to 1.0: no bounds, DuckDB 2.0 scans as 0.4's readers do", v04, unfolded[formats.V1_0], ""},
		{"0.4 to 1.1: no bounds, DuckDB 2.0 scans as 0.4's readers do", v04, unfolded[formats.V1_1], ""},
	} {
		source := fromSrc
		if tc.a == v04 {
			source = from04
		}
		t.Run(tc.name, func(t *testing.T) {
			rep, err := compare.Catalogs(ctx, tc.a, tc.b, compare.Options{DataPath: data, Source: source})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var minmax, other []string
			for _, d := range rep.Differences {
				if d.Kind == "minmax" {
					minmax = append(minmax, d.String())
				} else {
					other = append(other, d.String())
				}
			}
			if len(other) > 0 {
				t.Errorf("other differences:\n%s", strings.Join(other, "\n"))
			}
			if tc.want == "" {
				if len(minmax) > 0 {
					t.Errorf("want no minmax difference, got:\n%s", strings.Join(minmax, "\n"))
				}
				return
			}
			if len(minmax) != 1 || !strings.Contains(minmax[0], "column b") || !strings.Contains(minmax[0], tc.want) {
				t.Errorf("want one minmax difference of column b with %q, got:\n%s", tc.want, strings.Join(minmax, "\n"))
			}
		})
	}
}

// longStringLake is TestMinMaxVarcharConverted's 1.0 lake: src, the
// catalog of 05_defaults_not_null's last version given a data file (path)
// of one row whose b is 300 bytes, its statistics (b's max cut at 256
// bytes) merged in; data its data folder, vs its versions' catalogs.
func longStringLake(t *testing.T) (src, data string, vs []string, path string) {
	t.Helper()
	lake := testlakes.Lake(t, "lakes", "05_defaults_not_null")
	data = filepath.Join(lake, "data")
	vs = versionCatalogs(t, lake)
	long := "z" + strings.Repeat("a", 299)
	path = filepath.Join(t.TempDir(), "long.parquet")
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	db := testduck.Open(t, "")
	if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT 2::INTEGER AS a, %s::VARCHAR AS b) TO %s (FORMAT parquet, FIELD_IDS {a: 1, b: 2})`, lit(long), lit(path))); err != nil {
		t.Fatal(err)
	}
	var lo, hi string
	if err := db.QueryRow(`SELECT stats_min_value, stats_max_value FROM parquet_metadata(?) WHERE path_in_schema = 'b'`, path).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if hi != long[:255]+"b" {
		t.Fatalf("DuckDB's Parquet writer returned max %q, want the 256-byte cut incremented", hi)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src = editedCopy(t, vs[len(vs)-1],
		fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format, record_count, file_size_bytes, row_id_start)
			VALUES (100, 2, 21, %s, false, 'parquet', 1, %d, 1)`, lit(path), st.Size()),
		fmt.Sprintf(`INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, value_count, null_count, min_value, max_value)
			VALUES (100, 2, 1, 1, 0, '2', '2'), (100, 2, 2, 1, 0, %s, %s)`, lit(lo), lit(hi)),
		fmt.Sprintf(`UPDATE ducklake_table_stats SET record_count = 2, next_row_id = 2, file_size_bytes = file_size_bytes + %d WHERE table_id = 2`, st.Size()),
		`UPDATE ducklake_table_column_stats SET max_value = '2' WHERE table_id = 2 AND column_id = 1`,
		fmt.Sprintf(`UPDATE ducklake_table_column_stats SET min_value = least(min_value, %s), max_value = greatest(max_value, %s) WHERE table_id = 2 AND column_id = 2`, lit(lo), lit(hi)))
	return src, data, vs, path
}

// TestEnginesKeepStringMinMax: the cut-bound check of a 1.0 -> 1.1
// conversion (cutStringBounds) keeps the min and max it read of a data
// file's column in the run's Engines, and a later conversion of the run
// takes them from there while the file is the same one (a backfill's
// versions share most data files; each read them all again before); a
// file replaced at its path is read again. The kept answer is seen at
// work by planting another one: the bound then reads as the rows' own.
func TestEnginesKeepStringMinMax(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, data, _, path := longStringLake(t)
	engines := NewEngines(1)
	defer engines.Close()
	long := "z" + strings.Repeat("a", 299)
	unfolded := func(name string) bool {
		t.Helper()
		res, err := Catalog(ctx, src, filepath.Join(t.TempDir(), "1.1.duckdb"), formats.V1_1, Options{DataPath: data, Engines: engines})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range res.Findings {
			if f.Code == "string-table-stats-cut-unfolded" && strings.Contains(f.Detail, "table d2 (id 2) column b (id 2)") {
				return true
			}
		}
		return false
	}
	kept := func() (key string, m fileStringMinMax, n int) {
		engines.stringMinMax.mu.Lock()
		defer engines.stringMinMax.mu.Unlock()
		for k, v := range engines.stringMinMax.kept {
			if strings.HasSuffix(k, "long.parquet\x002") {
				key, m, n = k, v.v, n+1
			}
		}
		return key, m, n
	}
	if !unfolded("first conversion") {
		t.Fatal("first conversion: d2.b's cut bounds not unfolded")
	}
	key, m, n := kept()
	if n != 1 || m != (fileStringMinMax{named: true, values: true, lo: long, hi: long}) {
		t.Fatalf("kept for long.parquet's b: %d entries, %+v; want one, the 300-byte row as min and max", n, m)
	}
	if !unfolded("second conversion") {
		t.Error("second conversion: d2.b's cut bounds not unfolded")
	}
	// Plant the bounds as the rows' min and max: taken from the memo, the
	// check finds nothing to unfold.
	var lo, hi string
	db := testduck.Open(t, src)
	if err := db.QueryRow(`SELECT min_value, max_value FROM ducklake_table_column_stats WHERE table_id = 2 AND column_id = 2`).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	db.Close()
	engines.stringMinMax.mu.Lock()
	k := engines.stringMinMax.kept[key]
	k.v.lo, k.v.hi = lo, hi
	engines.stringMinMax.kept[key] = k
	engines.stringMinMax.mu.Unlock()
	if unfolded("conversion with the planted answer") {
		t.Error("conversion with the planted answer: read the file again")
	}
	// The file replaced by a copy of itself: read again.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	if !unfolded("conversion after the file was replaced") {
		t.Error("conversion after the file was replaced: the planted answer used")
	}
}
