package convert

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// keptByGuard runs, on a catalog file, the file list DuckLake 1.5.3+
// (3b8cb1f1) builds for WHERE ttz = TIMETZ '12:00:00+00' on table exotic of
// 01_primitive_types (table 2, column ttz 4): a file with a statistics row
// is kept when (value_count IS NULL OR value_count > 0) and the min/max
// test passes (NULL keeps), a file without one is kept. Without the guard
// (older readers) the min/max test alone. It returns the data files kept.
func keptByGuard(t *testing.T, path string, guard bool) map[int64]bool {
	t.Helper()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	g := "true"
	if guard {
		g = "(value_count IS NULL OR value_count > 0)"
	}
	return idSet(t, conn, `WITH st AS (SELECT * FROM c.ducklake_file_column_stats WHERE table_id = 2 AND column_id = 4)
		SELECT data_file_id FROM c.ducklake_data_file WHERE table_id = 2 AND end_snapshot IS NULL
			AND (data_file_id NOT IN (SELECT data_file_id FROM st) OR data_file_id IN (SELECT data_file_id FROM st WHERE `+g+`
				AND (min_value IS NULL OR max_value IS NULL OR ('12:00:00+00'::TIMETZ BETWEEN TRY_CAST(min_value AS TIMETZ) AND TRY_CAST(max_value AS TIMETZ)))))`)
}

// fileSnapshot reads the begin_snapshot of a data file.
func fileSnapshot(t *testing.T, path string, id int64) int64 {
	t.Helper()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	var snap int64
	if err := conn.QueryRowContext(context.Background(), `SELECT begin_snapshot FROM c.ducklake_data_file WHERE data_file_id = ?`, id).Scan(&snap); err != nil {
		t.Fatal(err)
	}
	return snap
}

// valueCounts reads the value_count of exotic's ttz and iv (columns 4, 5)
// in data file 2 ("NULL" for NULL).
func valueCounts(t *testing.T, path string) string {
	t.Helper()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	var got string
	if err := conn.QueryRowContext(context.Background(), `SELECT string_agg(coalesce(value_count::VARCHAR, 'NULL'), ',' ORDER BY column_id)
		FROM c.ducklake_file_column_stats WHERE data_file_id = 2 AND column_id IN (4, 5)`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestValueCountZeroForSkippingReaders: DuckLake 1.5.0+ writers store
// value_count = num_values - null_count, and DuckDB's Parquet writer counts
// no values for TIMETZ and INTERVAL columns, so lakes/01_primitive_types
// (1.0) has value_count 0 for ttz and iv in exotic's data file 2, which
// holds 3 rows of values; DuckLake 1.5.3+ and main skip such a file under
// WHERE ttz = ... (formats.QuirkValueCountZeroPruned), 0.1-0.4 readers keep
// it. Its 0.4 conversion keeps the zeros (what DuckDB 1.5.0/1.5.1 write
// too), and converted up to 1.0 and 1.1 they become NULL, so the file is
// kept and the conversion proves equivalent. The old output (zeros
// carried) is not equivalent, naming the catalog, table, column and data
// file; nor is a 1.0 B with 0 against a 1.0 A with NULL. One-sided: the
// native 1.0 catalog proves equivalent to its 1.1 conversion (both skip;
// the zeros are carried) and to its 0.4 conversion (B keeps the file).
// Before, the old output was proved equivalent.
func TestValueCountZeroForSkippingReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := formats.QuirkValueCountZeroPruned
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	data := filepath.Join(lake, "data")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	if got := valueCounts(t, src); got != "0,0" {
		t.Fatalf("the lake's exotic file 2 has value_count %s for ttz and iv, want 0,0 (the test needs DuckLake 1.5's zeros)", got)
	}
	if kept := keptByGuard(t, src, true); kept[2] {
		t.Fatalf("the 1.5.3+ file list keeps file 2 of the source; the test needs one that skips it")
	}
	noted := func(res *Result) string {
		for _, f := range res.Findings {
			if f.Code == q.Info().Name {
				return f.Detail
			}
		}
		return ""
	}
	// The proofs of each catalog A read it once (compare.Source: each
	// still reads all of both catalogs), as a backfill's proofs of a
	// version's cells do; the subtests run one after the other.
	fromSrc, fromDown := compare.NewSource(), compare.NewSource()
	defer fromSrc.Close()
	defer fromDown.Close()
	tmp := t.TempDir()
	down := filepath.Join(tmp, "0.4.duckdb")
	res, err := Catalog(ctx, src, down, formats.V0_4, Options{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	if n := noted(res); n != "" || valueCounts(t, down) != "0,0" {
		t.Errorf("1.0 -> 0.4: note %q, value_count %s; want none and 0,0 (0.4 readers keep the file)", n, valueCounts(t, down))
	}
	if !keptByGuard(t, down, false)[2] {
		t.Errorf("0.4 readers skip file 2 of the 0.4 conversion")
	}
	proveEquivalentFrom(t, fromSrc, src, down, data)

	same := filepath.Join(tmp, "1.1.duckdb")
	if res, err = Catalog(ctx, src, same, formats.V1_1, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	if n := noted(res); n != "" || valueCounts(t, same) != "0,0" {
		t.Errorf("1.0 -> 1.1: note %q, value_count %s; want none and 0,0 (both skip)", n, valueCounts(t, same))
	}
	proveEquivalentFrom(t, fromSrc, src, same, data)

	// A file of NULLs only by its statistics (null_count = record_count)
	// keeps its 0: every reader may skip it.
	nulls := editedCopy(t, down, `UPDATE c.ducklake_file_column_stats SET null_count = 3 WHERE data_file_id = 2 AND column_id IN (4, 5)`)
	nullsUp := filepath.Join(tmp, "nulls-1.0.duckdb")
	if res, err = Catalog(ctx, nulls, nullsUp, formats.V1_0, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	if n := noted(res); n != "" || valueCounts(t, nullsUp) != "0,0" {
		t.Errorf("0.4 -> 1.0 with null_count = record_count: note %q, value_count %s; want none and 0,0", n, valueCounts(t, nullsUp))
	}
	proveEquivalent(t, nulls, nullsUp, data)

	for _, target := range []*formats.Version{formats.V1_0, formats.V1_1} {
		t.Run("0.4 to "+target.Name, func(t *testing.T) {
			up := filepath.Join(t.TempDir(), "up.duckdb")
			res, err := Catalog(ctx, down, up, target, Options{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			n := noted(res)
			for _, want := range []string{"exotic.ttz (table 2, column 4): 1 file", "exotic.iv (table 2, column 5): 1 file"} {
				if !strings.Contains(n, want) {
					t.Errorf("note %q does not name %q", n, want)
				}
			}
			if got := valueCounts(t, up); got != "NULL,NULL" {
				t.Errorf("value_count %s, want NULL,NULL", got)
			}
			if !keptByGuard(t, up, true)[2] {
				t.Errorf("format %s readers skip file 2, which holds values of ttz", target.Name)
			}
			proveEquivalentFrom(t, fromDown, down, up, data)

			// The old output: the zeros carried.
			old := editedCopy(t, up, `UPDATE c.ducklake_file_column_stats SET value_count = 0 WHERE data_file_id = 2 AND column_id IN (4, 5)`)
			snap := fileSnapshot(t, up, 2)
			// The same with every data_file_id renumbered alike in B: the
			// rows are those of the same file (by path) as A's.
			renumbered := editedCopy(t, old, `UPDATE c.ducklake_data_file SET data_file_id = data_file_id + 100`,
				`UPDATE c.ducklake_delete_file SET data_file_id = data_file_id + 100`,
				`UPDATE c.ducklake_file_partition_value SET data_file_id = data_file_id + 100`,
				`UPDATE c.ducklake_file_column_stats SET data_file_id = data_file_id + 100`,
				`UPDATE c.ducklake_file_variant_stats SET data_file_id = data_file_id + 100`,
				`UPDATE c.ducklake_snapshot SET next_file_id = next_file_id + 100`)
			for _, b := range []struct{ path, id string }{{old, "(data_file_id 2)"}, {renumbered, "(data_file_id 102)"}} {
				rep, err := compare.Catalogs(ctx, down, b.path, compare.Options{DataPath: data, Source: fromDown})
				if !errors.Is(err, compare.ErrNotEquivalent) {
					t.Fatalf("compare with the zeros carried %s: err = %v, want not equivalent", b.id, err)
				}
				found := map[string]bool{}
				for _, d := range rep.Differences {
					if d.Kind != "stats" || d.Table != "main.exotic" || !strings.Contains(d.Reason, q.Info().Name) || !strings.Contains(d.Reason, b.id) || !strings.Contains(d.Reason, b.path) {
						t.Errorf("unexpected difference %s", d)
						continue
					}
					// At the snapshot that added the file.
					if d.Snapshot == nil || *d.Snapshot != snap {
						t.Errorf("difference %s at snapshot %v, want %d", d, d.Snapshot, snap)
					}
					for _, c := range []string{"ttz", "iv"} {
						found[c] = found[c] || strings.Contains(d.Reason, "column "+c+" (id ")
					}
				}
				if !found["ttz"] || !found["iv"] {
					t.Errorf("differences name columns %v, want ttz and iv", found)
				}
			}
			// A value_count of B other than NULL or 0 is B's own, not read
			// as A's 0: a difference of the statistics.
			counted := editedCopy(t, up, `UPDATE c.ducklake_file_column_stats SET value_count = 3 WHERE data_file_id = 2 AND column_id = 4`)
			rep, err := compare.Catalogs(ctx, down, counted, compare.Options{DataPath: data, Source: fromDown})
			if !errors.Is(err, compare.ErrNotEquivalent) || len(rep.Differences) != 1 || rep.Differences[0].Kind != "stats" || !strings.Contains(rep.Differences[0].String(), "value_count") {
				t.Errorf("compare with value_count 3 against 0: err = %v, differences %v; want one stats difference of value_count", err, rep.Differences)
			}
			// A of the same format with NULL: its readers keep the file.
			rep, err = compare.Catalogs(ctx, up, old, compare.Options{DataPath: data})
			if !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatalf("compare %s with NULL against 0: err = %v, want not equivalent", target.Name, err)
			}
			n2 := 0
			for _, d := range rep.Differences {
				if strings.Contains(d.Reason, q.Info().Name) && strings.Contains(d.Reason, "A's value_count is not 0") {
					n2++
				}
			}
			if n2 != 2 {
				t.Errorf("%d %s differences against a %s A with NULL, want 2: %v", n2, q.Info().Name, target.Name, rep.Differences)
			}
		})
	}
}

// TestValueCountZeroNestedFieldsKept: readers with
// formats.QuirkValueCountZeroPruned look up the statistics row of a
// top-level column only (filters are pushed down on those), so an upgrade
// from 0.4 sets value_count NULL where a top-level column's row has 0 and
// the file values, and copies a struct field's such row as it is
// (ValueCountZeroWithValuesSQL). The zeros are written into a 0.4
// conversion's rows of a top-level column and a struct field (DuckLake
// 1.5's writers write them for TIMETZ and INTERVAL, which lakegen does not
// write). Before this test, a mutant also rewriting the struct field's
// rows passed.
func TestValueCountZeroNestedFieldsKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src, data := textStatsLake(t,
		lakegen.Snapshot{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "a", Type: "INTEGER"},
			{Name: "s", Type: "STRUCT", Fields: []lakegen.Column{{Name: "f", Type: "INTEGER"}}}}}},
		lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT i::INTEGER, {f: i::INTEGER} FROM range(3) r(i)"}})
	counts := func(path string) string {
		return query(t, path, `SELECT string_agg(col.column_name || '=' || coalesce(s.value_count::VARCHAR, 'NULL'), ',' ORDER BY s.column_id)
			FROM c.ducklake_file_column_stats s JOIN c.ducklake_column col USING (table_id, column_id) WHERE col.column_name IN ('a', 'f')`)[0][0]
	}
	down := filepath.Join(t.TempDir(), "0.4.duckdb")
	if _, err := Catalog(ctx, src, down, formats.V0_4, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	zeros := editedCopy(t, down, `UPDATE ducklake_file_column_stats SET value_count = 0, null_count = 0
		WHERE column_id IN (SELECT column_id FROM ducklake_column WHERE column_name IN ('a', 'f'))`)
	if got := counts(zeros); got != "a=0,f=0" {
		t.Fatalf("value counts %s after the edit, want a=0,f=0", got)
	}
	up := filepath.Join(t.TempDir(), "1.0.duckdb")
	if _, err := Catalog(ctx, zeros, up, formats.V1_0, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	if got := counts(up); got != "a=NULL,f=0" {
		t.Errorf("0.4 -> 1.0: value counts %s, want a=NULL,f=0 (the readers that skip read only the top-level column's row)", got)
	}
}
