package convert

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// fileStatsName is the file column statistics table of a format.
func fileStatsName(v *formats.Version) string {
	if _, ok := v.Table("ducklake_file_column_stats"); ok {
		return "ducklake_file_column_stats"
	}
	return "ducklake_file_column_statistics"
}

// filePairs reads formats.FileColumnPairs of a catalog file.
func filePairs(t *testing.T, path string, v *formats.Version) []formats.FileColumnPair {
	t.Helper()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	pairs, err := formats.FileColumnPairs(context.Background(), conn, "c.", fileStatsName(v))
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// proveEquivalent fails the test unless compare proves b equivalent to a.
func proveEquivalent(t *testing.T, a, b, data string) {
	t.Helper()
	proveEquivalentFrom(t, nil, a, b, data)
}

// proveEquivalentFrom is proveEquivalent with catalog A read through
// source (compare.Options.Source; nil: A read for this proof alone), as a
// backfill's proofs of a version's cells read its catalog once.
func proveEquivalentFrom(t *testing.T, source *compare.Source, a, b, data string) {
	t.Helper()
	rep, err := compare.Catalogs(context.Background(), a, b, compare.Options{DataPath: data, Source: source})
	if err != nil {
		var lines []string
		if rep != nil {
			for _, d := range rep.Differences {
				lines = append(lines, d.String())
			}
		}
		t.Fatalf("compare %s %s: %v\n%s", a, b, err, strings.Join(lines, "\n"))
	}
}

// TestFileColumnStatsForPruningReaders: readers of 0.1-0.4 skip, under a
// filter on a column, a data file without a file column statistics row for
// it (formats.QuirkFilesWithoutColumnStatsPruned), which the real writers
// leave for every file written before ADD COLUMN. A conversion to those
// formats writes for each such data file and column the row
// formats.StatsReadAlike gives, and is proved equivalent; without one of
// them the proof reports the file; converted back up, the rows are dropped
// and the statistics are the source's again. A native 0.3 lake (whose own
// writer left no rows) converts up to 1.0 unchanged and proves equal.
// Before, the conversions wrote no rows and were proved equivalent.
func TestFileColumnStatsForPruningReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := Options{Lossy: []string{"expression-defaults"}}
	// The proofs against a lake's source read it once (compare.Source:
	// each still reads all of both catalogs), as a backfill's proofs of a
	// version's cells do; the subtests run one after the other.
	sources := map[string]*compare.Source{}
	defer func() {
		for _, s := range sources {
			s.Close()
		}
	}()
	type row struct {
		file, column int64
		want         string // value_count null_count min max contains_nan
	}
	for _, tc := range []struct {
		archive, lake string
		target        *formats.Version
		// written: the number of rows the conversion writes.
		written int
		rows    []row
	}{
		{archive: "lakes", lake: "05_defaults_not_null", target: formats.V0_3, written: 18, rows: []row{
			{0, 6, "1 0 7 7 NULL"}, {0, 7, "1 0 1234567890123 1234567890123 NULL"}, {0, 8, "1 0 12.345678 12.345678 NULL"},
			{0, 9, "1 0 NULL NULL NULL"}, {1, 10, "1 0 hello hello NULL"}, {1, 11, "1 0 12345678-1234-1234-1234-123456789012 12345678-1234-1234-1234-123456789012 NULL"},
			{1, 12, "1 0 true true NULL"}, {1, 13, "1 0 NULL NULL NULL"},
			{6, 1, "NULL NULL NULL NULL NULL"}, // main.d3's struct column: no writer writes a row for it
		}},
		{archive: "lakes", lake: "05_defaults_not_null", target: formats.V0_4, written: 18},
		{archive: "lakes", lake: "02_add_drop_columns", target: formats.V0_3, written: 10, rows: []row{
			{0, 4, "0 2 NULL NULL NULL"}, // evo.c INTEGER added without a default: two NULLs
		}},
		{archive: "lakes", lake: "02_add_drop_columns", target: formats.V0_2, written: 10},
		{archive: "lakes-0.3", lake: "02_add_drop_columns", target: formats.V0_4, written: 10},
		{archive: "lakes-0.3", lake: "02_add_drop_columns", target: formats.V1_0},
		{archive: "lakes-0.3", lake: "12_nested_types", target: formats.V1_0},
	} {
		t.Run(tc.archive+"/"+tc.lake+"/"+tc.target.Name, func(t *testing.T) {
			lake := testlakes.Lake(t, tc.archive, tc.lake)
			vs := versionCatalogs(t, lake)
			src, data := vs[len(vs)-1], filepath.Join(lake, "data")
			fromSrc := sources[lake]
			if fromSrc == nil {
				fromSrc = compare.NewSource()
				sources[lake] = fromSrc
			}
			source, err := Detect(ctx, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			o := opts
			o.DataPath = data
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, tc.target, o)
			if err != nil {
				t.Fatal(err)
			}
			written := 0
			for _, p := range filePairs(t, out, tc.target) {
				if p.Rows == 0 && tc.target.ReadsWith(formats.QuirkFilesWithoutColumnStatsPruned) {
					t.Errorf("data file %d column %s (id %d): no statistics row", p.DataFileID, p.ColumnName, p.ColumnID)
				}
				if p.HasReadAlikeRow() {
					written++
				}
			}
			if written != tc.written {
				t.Errorf("%d read-alike rows, want %d", written, tc.written)
			}
			noted := false
			for _, f := range res.Findings {
				noted = noted || f.Code == formats.QuirkFilesWithoutColumnStatsPruned.Info().Name
			}
			if noted != (tc.written > 0) {
				t.Errorf("finding %s noted: %v, want %v (%v)", formats.QuirkFilesWithoutColumnStatsPruned.Info().Name, noted, tc.written > 0, res.Findings)
			}
			for _, r := range tc.rows {
				got := query(t, out, "SELECT concat_ws(' ', coalesce(value_count::VARCHAR, 'NULL'), coalesce(null_count::VARCHAR, 'NULL'), coalesce(min_value, 'NULL'), coalesce(max_value, 'NULL'), coalesce(contains_nan::VARCHAR, 'NULL')) FROM c."+
					fileStatsName(tc.target)+" WHERE data_file_id = "+itoa(r.file)+" AND column_id = "+itoa(r.column))
				if len(got) != 1 || got[0][0] != r.want {
					t.Errorf("data file %d column %d: %v, want %q", r.file, r.column, got, r.want)
				}
			}
			proveEquivalentFrom(t, fromSrc, src, out, data)
			if tc.written == 0 {
				return
			}
			// One row less: the proof names the file the target's readers skip.
			var p formats.FileColumnPair
			for _, q := range filePairs(t, out, tc.target) {
				if q.HasReadAlikeRow() && !q.InFile {
					p = q
					break
				}
			}
			cut := editedCopy(t, out, "DELETE FROM "+fileStatsName(tc.target)+" WHERE data_file_id = "+itoa(p.DataFileID)+" AND column_id = "+itoa(p.ColumnID))
			if source.ReadsWith(formats.QuirkFilesWithoutColumnStatsPruned) {
				// The source's own readers skip that file too: the target
				// reads no fewer rows than the source.
				proveEquivalentFrom(t, fromSrc, src, cut, data)
				return
			}
			rep, err := compare.Catalogs(ctx, src, cut, compare.Options{DataPath: data, Source: fromSrc})
			if err == nil || rep == nil || len(rep.Differences) != 1 {
				t.Fatalf("without the row of data file %d column %s: %v, want one difference", p.DataFileID, p.ColumnName, err)
			}
			d := rep.Differences[0]
			if d.Kind != "stats" || d.Snapshot == nil || *d.Snapshot != p.Snapshot || d.Table == "" ||
				!strings.Contains(d.Reason, "column "+p.ColumnName+" (id "+itoa(p.ColumnID)+")") || !strings.Contains(d.Reason, p.Path) {
				t.Errorf("difference %s does not name the table, column %s, file %s and snapshot %d", d, p.ColumnName, p.Path, p.Snapshot)
			}
			// Back up to the source's format: the rows are dropped again.
			back := filepath.Join(t.TempDir(), "back.duckdb")
			if _, err := Catalog(ctx, out, back, source, o); err != nil {
				t.Fatal(err)
			}
			stats := fileStatsName(source)
			want := src
			if k := formats.TemporalTextStats; tc.target.ReadsWith(k.Quirk) && !source.ReadsWith(k.Quirk) {
				// Temporal statistics written NULL for the target's
				// readers stay NULL (temporal-stats-compared-as-text).
				want = editedCopy(t, src, k.SpellSQL("c.", stats, true))
			}
			if diffs := diffDumps(map[string][]string{stats: dump(t, want)[stats]}, map[string][]string{stats: dump(t, back)[stats]}); len(diffs) > 0 {
				t.Errorf("%s -> %s -> %s changed the file statistics:\n%s", source.Name, tc.target.Name, source.Name, strings.Join(diffs, "\n"))
			}
		})
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestStatsRowsInsert: the rows statsRows writes read back as given, in
// order, whatever their texts hold (commas, quotes, the empty text, other
// scripts) and wherever they are NULL.
func TestStatsRowsInsert(t *testing.T) {
	ctx := context.Background()
	r := workRun(t, ctx)
	if err := r.w.exec(ctx, `CREATE TABLE ducklake_file_column_stats (data_file_id BIGINT, table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT,
		value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR)`); err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	yes, no := true, false
	want := []formats.ColumnStatsRow{
		{},
		{ValueCount: num(0), NullCount: num(7)},
		{ValueCount: num(-1), NullCount: num(0), MinValue: str(""), MaxValue: str(""), ContainsNaN: &no},
		{ValueCount: num(1 << 62), MinValue: str("a,b 'c' \"d\" \\x00"), MaxValue: str("ĉu ŝi? 値"), ContainsNaN: &yes},
		{MinValue: str("x"), MaxValue: str(",")},
	}
	var rows statsRows
	for i, row := range want {
		rows.add(int64(10+i), 2, int64(i), row)
	}
	if err := rows.insert(r, "ducklake_file_column_stats", true); err != nil {
		t.Fatal(err)
	}
	res, err := r.w.conn.QueryContext(ctx, `SELECT data_file_id, table_id, column_id, column_size_bytes, value_count, null_count, min_value, max_value, contains_nan, extra_stats
		FROM ducklake_file_column_stats ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	i := 0
	for ; res.Next(); i++ {
		var file, table, column int64
		var size *int64
		var extra *string
		var got formats.ColumnStatsRow
		if err := res.Scan(&file, &table, &column, &size, &got.ValueCount, &got.NullCount, &got.MinValue, &got.MaxValue, &got.ContainsNaN, &extra); err != nil {
			t.Fatal(err)
		}
		if i >= len(want) {
			continue
		}
		if file != int64(10+i) || table != 2 || column != int64(i) || size != nil || extra != nil || !want[i].Matches(nil, got.ValueCount, got.NullCount, got.MinValue, got.MaxValue, got.ContainsNaN) {
			t.Errorf("row %d: %d %d %d %v %s, want %+v", i, file, table, column, size, fmt.Sprint(got), want[i])
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(want) {
		t.Errorf("%d rows, want %d", i, len(want))
	}
}
