package compare

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestStatsFactsMatchQueries: what the statistics comparison decides from
// the rows it read (statsFacts) and from the catalog's column types
// (hasLakeType) is what the queries it spares answer, on the newest
// version of every conformance lake and on catalogs edited to hold each
// kind of row: no row with one bound only where oneSidedRows finds none,
// no row without min and max where stringStatsWithoutMinMax and
// tablesOnlyWithStringStatsWithoutMinMax find none, no column of a
// TextStats kind where textStatsRows finds none, no file and column
// without file statistics (mayLackFileStats) where formats.PairsWithoutStats
// finds none, and the tables without column statistics that
// tablesWithoutColumnStats reads.
func TestStatsFactsMatchQueries(t *testing.T) {
	ctx := context.Background()
	type tc struct{ name, catalog, data string }
	var cases []tc
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			if filepath.Base(lake) == "zz_storage_v2_unreadable" {
				continue
			}
			m := readManifest(t, lake)
			v := m.Versions[len(m.Versions)-1]
			cases = append(cases, tc{archive + "/" + filepath.Base(lake), filepath.Join(lake, "versions", v.ID, "ducklake.duckdb"), filepath.Join(lake, "data")})
		}
	}
	lake, catalog := lastVersion(t, "lakes", "01_primitive_types")
	data := filepath.Join(lake, "data")
	for _, e := range []struct{ name, edit string }{
		{"one bound", `UPDATE ducklake_table_column_stats SET min_value = NULL WHERE rowid = (SELECT min(rowid) FROM ducklake_table_column_stats WHERE min_value IS NOT NULL AND max_value IS NOT NULL)`},
		{"no bounds", `UPDATE ducklake_table_column_stats SET min_value = NULL, max_value = NULL`},
		{"no column statistics", `DELETE FROM ducklake_table_column_stats WHERE table_id = (SELECT min(table_id) FROM ducklake_table_stats)`},
		{"no column statistics at all", `DELETE FROM ducklake_table_column_stats`},
		{"a file without column statistics", `DELETE FROM ducklake_file_column_stats WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_file_column_stats)`},
		{"table statistics without counts", `UPDATE ducklake_table_stats SET record_count = NULL; DELETE FROM ducklake_table_column_stats`},
	} {
		cases = append(cases, tc{"edited/" + e.name, tamper(t, catalog, e.edit), data})
	}
	decided := map[string]int{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := openRead(t, tc.catalog, tc.data)
			fresh := openRead(t, tc.catalog, tc.data)
			c := &comparison{ctx: ctx}
			var ts, cs statsAsk
			asks := statsAsksOf(r)
			for _, a := range asks {
				switch a.label {
				case "ducklake_table_stats":
					ts = a
				case "ducklake_table_column_stats":
					cs = a
				}
			}
			if _, err := r.statsEntriesAll(ctx, asks); err != nil {
				t.Fatal(err)
			}
			if cs.table != "" {
				one, err := fresh.oneSidedRows(c, cs.label, cs.table)
				if err != nil {
					t.Fatal(err)
				}
				if r.noRowWith(cs, true) {
					decided["one bound"]++
					if len(one) > 0 {
						t.Errorf("no row with one bound decided, but oneSidedRows reads %v", one)
					}
				}
				if r.noRowWith(cs, false) {
					decided["no bounds"]++
					for _, mayHold := range []bool{false, true} {
						rows, err := fresh.stringStatsWithoutMinMax(ctx, cs.label, mayHold)
						if err != nil {
							t.Fatal(err)
						}
						if len(rows) > 0 {
							t.Errorf("no row without min and max decided, but stringStatsWithoutMinMax(%v) reads %v", mayHold, rows)
						}
					}
					ids, err := fresh.tablesOnlyWithStringStatsWithoutMinMax(c)
					if err != nil {
						t.Fatal(err)
					}
					if len(ids) > 0 {
						t.Errorf("no row without min and max decided, but tablesOnlyWithStringStatsWithoutMinMax reads %v", ids)
					}
				}
			}
			for _, k := range formats.AllTextStats {
				if r.hasLakeType(c, k.Types) {
					continue
				}
				decided["no "+k.Kind+" column"]++
				for _, a := range asks {
					if a.label != "ducklake_file_column_stats" && a.label != "ducklake_table_column_stats" {
						continue
					}
					rows, err := fresh.textStatsRows(c, k, a.label, a.table)
					if err != nil {
						t.Fatal(err)
					}
					if len(rows) > 0 {
						t.Errorf("no %s column decided, but textStatsRows of %s reads %v", k.Kind, a.table, rows)
					}
				}
			}
			if fs := r.statsName(statsTables[2]); fs != "" {
				if !r.mayLackFileStats(c, fs) {
					decided["every file has column statistics"]++
					pairs, err := formats.FileColumnPairsWhere(ctx, fresh.conn, "cat.", fs, formats.PairsWithoutStats)
					if err != nil {
						t.Fatal(err)
					}
					if len(pairs) > 0 {
						t.Errorf("every file decided to have column statistics, but %d pairs have none: %v", len(pairs), pairs[0])
					}
				} else {
					decided["some file without column statistics"]++
				}
			}
			for _, a := range asks {
				if a.label != "ducklake_file_column_stats" {
					continue
				}
				var zeros int
				if err := fresh.conn.QueryRowContext(ctx, `SELECT count(*) FROM cat.`+ident(a.table)+` s WHERE `+formats.ValueCountZeroWithValuesSQL("cat.")).Scan(&zeros); err != nil {
					t.Fatal(err)
				}
				if r.noZeroValueCount(a) {
					decided["no value_count 0"]++
					if zeros > 0 {
						t.Errorf("no value_count 0 decided, but %d rows of %s have one for a file that may hold values", zeros, a.table)
					}
				} else if zeros > 0 {
					decided["value_count 0 with values"]++
				}
			}
			if ts.table != "" && cs.table != "" {
				r.tablesWithoutColumnStatsFrom(ts, cs)
				if r.statsChecked {
					decided["tables without column statistics"]++
				}
				got, err := r.tablesWithoutColumnStats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				want, err := fresh.tablesWithoutColumnStats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) > 0 {
					decided["some table without column statistics"]++
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("tables without column statistics %v from the rows read, %v by the query", got, want)
				}
			}
		})
	}
	// Each decision was taken somewhere, and rows of each kind were found.
	for _, k := range []string{"one bound", "no bounds", "no BOOLEAN column", "no temporal column", "tables without column statistics", "some table without column statistics", "every file has column statistics", "some file without column statistics", "no value_count 0", "value_count 0 with values"} {
		some := k == "one bound" || k == "no bounds" // and not all: the edited catalogs hold such rows
		if decided[k] == 0 || (some && decided[k] == len(cases)) {
			t.Errorf("%q decided in %d of %d catalogs: want some but not all", k, decided[k], len(cases))
		}
	}
}
