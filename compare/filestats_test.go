package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// readAlikeInserts returns the INSERTs that give every data file and
// top-level column of the catalog visible together without a file column
// statistics row the row formats.StatsReadAlike gives.
func readAlikeInserts(t *testing.T, catalog string) []string {
	t.Helper()
	db := testduck.Open(t, catalog+"?access_mode=read_only")
	defer db.Close()
	pairs, err := formats.FileColumnPairs(context.Background(), db, "", "ducklake_file_column_stats")
	if err != nil {
		t.Fatal(err)
	}
	text := func(v any) string {
		switch v := v.(type) {
		case *int64:
			if v != nil {
				return strconv.FormatInt(*v, 10)
			}
		case *string:
			if v != nil {
				return sqlString(*v)
			}
		case *bool:
			if v != nil {
				return strconv.FormatBool(*v)
			}
		}
		return "NULL"
	}
	var out []string
	for _, p := range pairs {
		if p.Rows > 0 {
			continue
		}
		r := formats.StatsReadAlike(p.MissingColumnStats)
		out = append(out, fmt.Sprintf(`INSERT INTO ducklake_file_column_stats (data_file_id, table_id, column_id, value_count, null_count, min_value, max_value, contains_nan)
			VALUES (%d, %d, %d, %s, %s, %s, %s, %s)`, p.DataFileID, p.TableID, p.ColumnID, text(r.ValueCount), text(r.NullCount), text(r.MinValue), text(r.MaxValue), text(r.ContainsNaN)))
	}
	return out
}

// TestFilesWithoutColumnStatsPruned: readers of 0.1-0.4 skip a data file
// that has no file column statistics row for a filtered column
// (formats.QuirkFilesWithoutColumnStatsPruned): in 05_defaults_not_null,
// files 0 and 1 of main.d predate eight added columns, and the files of
// main.d3 have no row for their struct column. The same metadata as a 0.4
// catalog (0.4 and 1.0 share the layout: only the version row differs) was
// proved equivalent to the 1.0 lake before, though DuckDB 1.5.0/1.5.1 return
// no row of those files for WHERE k = 7. Now a 0.4 B without the rows is a
// `stats` difference naming table, column, file and snapshot; with the rows
// convert writes it is equivalent; a row that is not that row is a
// difference; and a 0.4 A without them (a native 0.4 catalog read by its
// own readers) proves equal to a 1.0 B, which reads more rows, and to
// itself.
func TestFilesWithoutColumnStatsPruned(t *testing.T) {
	ctx := context.Background()
	lake, orig := lastVersion(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	as04 := as04SQL()
	bare04 := tamper(t, orig, as04...)
	rows04 := tamper(t, orig, append(as04, readAlikeInserts(t, orig)...)...)
	wrong04 := tamper(t, rows04, `UPDATE ducklake_file_column_stats SET min_value = '8', max_value = '8' WHERE data_file_id = 0 AND column_id = 6`)
	oneMissing04 := tamper(t, rows04, `DELETE FROM ducklake_file_column_stats WHERE data_file_id = 1 AND column_id = 7`)
	for _, tc := range []struct {
		name string
		a, b string
		// want: substrings of one stats difference each; none: equivalent.
		want []string
		// differences: the number of stats differences expected.
		differences int
		notCompared string
	}{
		{name: "1.0 vs 0.4 without rows", a: orig, b: bare04, differences: 18,
			want: []string{`stats at snapshot 5 in main.d: format 0.4 readers skip data file`, `(data_file_id 0) under any filter on column k (id 6) from snapshot 5 on`,
				`files-without-column-stats-pruned`, `column n_blob (id 13) from snapshot 12`, `in main.d3: format 0.4 readers skip`}},
		{name: "1.0 vs 0.4 with the rows convert writes", a: orig, b: rows04, notCompared: "18 rows only in B"},
		{name: "0.4 with those rows vs 1.0", a: rows04, b: orig, notCompared: "rows only in A"},
		{name: "1.0 vs 0.4 with one row missing", a: orig, b: oneMissing04, differences: 1,
			want: []string{`stats at snapshot 6 in main.d: format 0.4 readers skip data file`, `(data_file_id 1) under any filter on column n_bigint (id 7)`}},
		{name: "1.0 vs 0.4 with another row", a: orig, b: wrong04, differences: 1,
			want: []string{`ducklake_file_column_stats data_file_id="0" column_id="6" only in B`}},
		{name: "native 0.4 without rows vs 1.0", a: bare04, b: orig},
		{name: "0.4 without rows vs itself", a: bare04, b: bare04},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Catalogs(ctx, tc.a, tc.b, Options{DataPath: data, Engines: readerDBs})
			var lines []string
			n := 0
			if rep != nil {
				for _, d := range rep.Differences {
					lines = append(lines, d.String())
					if d.Kind == "stats" {
						n++
					}
				}
			}
			if tc.differences == 0 {
				if err != nil {
					t.Fatalf("not proved equivalent: %v\n%s", err, strings.Join(lines, "\n"))
				}
			} else if err == nil || n != tc.differences || len(lines) != n {
				t.Fatalf("want %d stats differences and no other, got %v:\n%s", tc.differences, err, strings.Join(lines, "\n"))
			}
			for _, w := range tc.want {
				if !hasDifference(rep, "stats", w) {
					t.Errorf("no stats difference with %q in:\n%s", w, strings.Join(lines, "\n"))
				}
			}
			if tc.notCompared != "" && !strings.Contains(strings.Join(rep.NotCompared, "\n"), tc.notCompared) {
				t.Errorf("not_compared lacks %q: %v", tc.notCompared, rep.NotCompared)
			}
		})
	}
}

// as04SQL makes a 1.0 catalog read as a 0.4 one as convert writes 0.4: the
// version row, and BOOLEAN statistics spelled 'false'/'true' (the lakes'
// '0'/'1' are boolean-stats-compared-as-text differences of their own).
func as04SQL() []string {
	return []string{`UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`,
		formats.BooleanTextStats.SpellSQL("", "ducklake_file_column_stats", true), formats.BooleanTextStats.SpellSQL("", "ducklake_table_column_stats", true)}
}
