package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/expectedrows"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// readerLake is a lake of lakes-0.3-reader made usable here: its newest
// catalog copied with absolute data file paths (the writer's machine)
// re-rooted to the unpacked lake.
type readerLake struct {
	name, dir, data string
	version         string // newest version id
	src             string // the re-rooted copy of its catalog
}

func readerLakes(t *testing.T) []readerLake {
	t.Helper()
	var out []readerLake
	for _, lake := range testlakes.Lakes(t, "lakes-0.3-reader") {
		name := filepath.Base(lake)
		vs := versionCatalogs(t, lake)
		newest := vs[len(vs)-1]
		src := filepath.Join(t.TempDir(), name+".duckdb")
		copyFile(t, newest, src)
		data := filepath.Join(lake, "data")
		// The writer recorded files it added by absolute path on its machine
		// (…/<lake>/data/…); point them at the unpacked copy.
		execOn(t, src, fmt.Sprintf(`UPDATE ducklake_data_file SET path = %s || regexp_extract(path, '/%s/data/(.*)$', 1)
			WHERE NOT path_is_relative AND path LIKE %s`, literal(data+"/"), name, literal("%/"+name+"/data/%")))
		out = append(out, readerLake{name: name, dir: lake, data: data, version: filepath.Base(filepath.Dir(newest)), src: src})
	}
	if len(out) != 4 {
		t.Fatalf("lakes-0.3-reader has %d lakes, want 4", len(out))
	}
	return out
}

// TestReaderModelMatchesRealReaders converts each lake of lakes-0.3-reader
// field for field (no reader checks) to 0.3 and 0.4, and reads the result
// with compare's reader, which applies the target format's reader model: at
// every snapshot it must return exactly what the real DuckLake 0.3 (0.4)
// returned, or fail where it failed (expected-0.3-reader/,
// expected-0.4-reader/). The same conversion must never be proven
// equivalent to its source.
func TestReaderModelMatchesRealReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, lk := range readerLakes(t) {
		// The proofs against the lake's source read it once
		// (compare.Source: each still reads all of both catalogs), as a
		// backfill's proofs of a version's cells do; the subtests run one
		// after the other.
		fromSrc := compare.NewSource()
		defer fromSrc.Close()
		for _, target := range []*formats.Version{formats.V0_3, formats.V0_4} {
			t.Run(lk.name+"/"+target.Name, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "faithful.duckdb")
				if _, err := Catalog(ctx, lk.src, out, target, Options{faithful: true}); err != nil {
					t.Fatalf("faithful conversion: %v", err)
				}
				reader := target.Name
				if lk.name == "q_add_files__add_files_hive_partition_cast" && target == formats.V0_4 {
					// expected-0.4-reader/ is DuckDB 1.5.1's reading; format
					// 0.4 is modelled by DuckDB 1.5.0's, which casts Hive
					// values raw as 0.3's does (hive-values-cast-raw).
					reader = "0.3"
				}
				expected := filepath.Join(lk.dir, "expected-"+reader+"-reader", lk.version)
				expectedrows.Check(t, out, lk.data, expected, expectedrows.Options{Failures: true})

				rep, err := compare.Catalogs(ctx, lk.src, out, compare.Options{DataPath: lk.data, Source: fromSrc})
				if readsSame(t, filepath.Dir(expected)) {
					// The real reader of the target read every table as 1.0 does.
					if err != nil {
						t.Fatalf("compare source with the faithful %s conversion: %v, want equivalent", target, err)
					}
					return
				}
				if !errors.Is(err, compare.ErrNotEquivalent) {
					t.Fatalf("compare source with the faithful %s conversion: %v, want not equivalent", target, err)
				}
				kinds := map[string]bool{}
				for _, d := range rep.Differences {
					kinds[d.Kind] = true
				}
				if !kinds["rows"] && !kinds["unreadable"] {
					t.Errorf("differences %v: want rows or unreadable", kinds)
				}
			})
		}
	}
}

// readsSame reports whether summary.json says the real reader returned
// DuckLake 1.0's rows for every table at every snapshot.
func readsSame(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Snapshots map[string]map[string]string `json:"snapshots"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for _, tables := range sum.Snapshots {
		for _, v := range tables {
			if v != "same rows" {
				return false
			}
		}
	}
	return true
}

// TestConvertRefusesOrNormalisesReaderQuirks converts each lake of
// lakes-0.3-reader to 0.3 and 0.4 as convert does by default: each either
// refuses naming the reader behaviour and a table, or writes a catalog that
// the target's modelled reader reads exactly as DuckLake 1.0 reads the
// source (expected/), and that compare proves equivalent.
func TestConvertRefusesOrNormalisesReaderQuirks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	want := map[string]map[string]string{ // lake -> target -> refusal code ("" converts)
		"q_add_files__add_files_hive_partition_cast":                     {"0.3": "hive-values-cast-raw", "0.4": "hive-values-cast-raw"},
		"q_default__all_types_column_default_stats":                      {"0.3": "timetz-default-offset-ignored", "0.4": "timetz-default-offset-ignored"},
		"q_delete__delete_legacy_missing_mapping_after_rename_add_files": {"0.3": "unmapped-files-read-null", "0.4": "unmapped-files-read-null"},
		"q_stats__table_stats_without_column_stats":                      {"0.3": "table-stats-need-column-stats", "0.4": "table-stats-need-column-stats"},
	}
	for _, lk := range readerLakes(t) {
		for _, target := range []*formats.Version{formats.V0_3, formats.V0_4} {
			t.Run(lk.name+"/"+target.Name, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out.duckdb")
				_, err := Catalog(ctx, lk.src, out, target, Options{DataPath: lk.data})
				code := want[lk.name][target.Name]
				var refused *RefusedError
				if errors.As(err, &refused) {
					var codes []string
					for _, f := range refused.Findings {
						codes = append(codes, f.Code)
						if !strings.Contains(f.Detail, "table ") {
							t.Errorf("refusal %s does not name the table: %s", f.Code, f.Detail)
						}
					}
					if got := strings.Join(codes, ","); got != code {
						t.Errorf("refused for %q, want %q: %v", got, code, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if code != "" {
					t.Fatalf("converted, want refused for %s", code)
				}
				expectedrows.Check(t, out, lk.data, filepath.Join(lk.dir, "expected", lk.version), expectedrows.Options{})
				proveEquivalent(t, lk.src, out, lk.data)
			})
		}
	}
}

// TestTableStatsDroppedWithOption: with --allow-lossy table-stats the
// statistics rows that every reader before 1.0 fails on are dropped, and
// the 0.3 catalog reads as DuckLake 1.0 reads the source.
func TestTableStatsDroppedWithOption(t *testing.T) {
	ctx := context.Background()
	for _, lk := range readerLakes(t) {
		if lk.name != "q_stats__table_stats_without_column_stats" {
			continue
		}
		out := filepath.Join(t.TempDir(), "out.duckdb")
		res, err := Catalog(ctx, lk.src, out, formats.V0_3, Options{DataPath: lk.data, Lossy: []string{"table-stats"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 1 || res.Findings[0].Severity != Lossy || res.Findings[0].Code != "table-stats-need-column-stats" {
			t.Errorf("findings %v, want one lossy table-stats-need-column-stats", res.Findings)
		}
		if got := query(t, out, "SELECT count(*) FROM c.ducklake_table_stats"); got[0][0] != "0" {
			t.Errorf("%s table_stats rows left", got[0][0])
		}
		expectedrows.Check(t, out, lk.data, filepath.Join(lk.dir, "expected", lk.version), expectedrows.Options{})
		if _, err := compare.Catalogs(ctx, lk.src, out, compare.Options{DataPath: lk.data}); err != nil {
			t.Errorf("compare: %v", err)
		}
	}
}

// TestTimeTZDefaultOffsetIsPartOfTheValue: DuckDB keeps a TIMETZ
// initial_default's offset ('12:34:56+02' and '10:34:56+00' are the same
// instant but different values: = is false, hour() differs), and so does
// DuckLake 1.0's reader for the rows of files without the column. The
// proof compared defaults as instants at +00, so a 1.0 or 1.1 catalog whose
// default was moved to another offset was called equivalent, and so was
// the downgrade that wrote it so (now refused, above). Moving the offset
// is a difference; writing the same value in another form is not.
func TestTimeTZDefaultOffsetIsPartOfTheValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, lk := range readerLakes(t) {
		if lk.name != "q_default__all_types_column_default_stats" {
			continue
		}
		for _, tc := range []struct {
			literal    string
			equivalent bool
		}{
			{"10:34:56+00", false}, // the same instant at +00
			{"12:34:56+00", false}, // the wall-clock time at +00
			{"12:34:56+02:00", true},
		} {
			t.Run(tc.literal, func(t *testing.T) {
				edited := editedCopy(t, lk.src, "UPDATE ducklake_column SET initial_default = '"+tc.literal+"' WHERE column_name = 'n_time_tz' AND initial_default = '12:34:56+02'")
				if got := query(t, edited, "SELECT count(*) FROM c.ducklake_column WHERE initial_default = '"+tc.literal+"'"); got[0][0] == "0" {
					t.Fatal("no initial_default edited: the test tests nothing")
				}
				_, err := compare.Catalogs(ctx, lk.src, edited, compare.Options{DataPath: lk.data})
				if tc.equivalent && err != nil {
					t.Errorf("compare: %v, want equivalent", err)
				}
				if !tc.equivalent && !errors.Is(err, compare.ErrNotEquivalent) {
					t.Errorf("compare: %v, want not equivalent", err)
				}
			})
		}
		// DuckDB's TIME runs to 24:00:00: such a default at +02 is refused
		// for 0.4 like any other offset (the parser refused the hour, and
		// the literal was taken as read alike).
		t.Run("end of day", func(t *testing.T) {
			edited := editedCopy(t, lk.src, "UPDATE ducklake_column SET initial_default = '24:00:00+02' WHERE column_name = 'n_time_tz' AND initial_default = '12:34:56+02'")
			_, err := Catalog(ctx, edited, filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_4, Options{DataPath: lk.data})
			var refused *RefusedError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), `initial_default "24:00:00+02"`) {
				t.Errorf("convert to 0.4: %v, want refused naming the default", err)
			}
		})
	}
}

// TestExpressionDefaultsDroppedWithOption: --allow-lossy
// expression-defaults drops the SQL-expression defaults format 0.3 cannot
// hold (they are used only by writers); the proof rejected every such
// output, so a backfill with the option failed its cell on every run. The
// dropped defaults are now listed as not compared, and a default other
// than none in their place is still a difference.
func TestExpressionDefaultsDroppedWithOption(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "05_defaults_not_null")
	cats := versionCatalogs(t, lake)
	src, data := cats[len(cats)-1], filepath.Join(lake, "data")
	if codes, _ := refusalCodes(t, src, formats.V0_3, Options{DataPath: data}); !strings.Contains(codes, "expression-defaults") {
		t.Fatalf("refusals without the option: %q, want expression-defaults among them", codes)
	}
	out := filepath.Join(t.TempDir(), "out.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_3, Options{DataPath: data, Lossy: []string{"expression-defaults"}}); err != nil {
		t.Fatal(err)
	}
	rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	if !slices.ContainsFunc(rep.NotCompared, func(s string) bool { return strings.Contains(s, "expression-defaults") }) {
		t.Errorf("not compared: %q, want the dropped expression defaults listed", rep.NotCompared)
	}
	expr := query(t, src, "SELECT table_id, column_id FROM c.ducklake_column WHERE default_value_type = 'expression' ORDER BY ALL LIMIT 1")
	if len(expr) == 0 {
		t.Fatal("the source has no expression default: the test tests nothing")
	}
	execOn(t, out, "UPDATE ducklake_column SET default_value = '7' WHERE table_id = "+expr[0][0]+" AND column_id = "+expr[0][1])
	if _, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data}); !errors.Is(err, compare.ErrNotEquivalent) {
		t.Errorf("compare with a literal default in place of the expression: %v, want not equivalent", err)
	}
}

// TestHive04Upgrades: a 0.4 catalog whose Hive values need decoding (as a
// 0.4 writer writes it) is read as its source by DuckDB 1.5.1, the newest
// release of the line, which decodes them as 1.0 does: it converts to 1.0
// and 1.1 and is proved equivalent. Modelling 0.4 by 1.5.0 on both sides
// refused those upgrades, and readers from 1.5.2 on lost the versions.
// Written as 0.4 or 0.3 it must read alike in every release of the line:
// refused.
func TestHive04Upgrades(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, lk := range readerLakes(t) {
		if lk.name != "q_add_files__add_files_hive_partition_cast" {
			continue
		}
		src04 := filepath.Join(t.TempDir(), "src-0.4.duckdb")
		if _, err := Catalog(ctx, lk.src, src04, formats.V0_4, Options{faithful: true}); err != nil {
			t.Fatalf("faithful 0.4: %v", err)
		}
		for _, tc := range []struct {
			target  *formats.Version
			refused string
		}{{formats.V1_0, ""}, {formats.V1_1, ""}, {formats.V0_3, "hive-values-cast-raw"}} {
			t.Run(tc.target.Name, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out.duckdb")
				_, err := Catalog(ctx, src04, out, tc.target, Options{DataPath: lk.data})
				if tc.refused != "" {
					var refused *RefusedError
					if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.refused) {
						t.Fatalf("convert 0.4 to %s: %v, want refused for %s", tc.target, err, tc.refused)
					}
					return
				}
				if err != nil {
					t.Fatalf("convert 0.4 to %s: %v", tc.target, err)
				}
				if _, err := compare.Catalogs(ctx, src04, out, compare.Options{DataPath: lk.data}); err != nil {
					t.Errorf("compare 0.4 with its %s conversion: %v, want equivalent", tc.target, err)
				}
			})
		}
	}
}

// TestHiveNullValuesRefusedFor04: DuckDB from 1.5.1 reads a Hive value
// "NULL" (any case) as NULL, where 1.5.0 casts the text: such a value is
// refused for 0.4 like the default partition and escaped values. It was
// converted, the model reading it as text.
func TestHiveNullValuesRefusedFor04(t *testing.T) {
	ctx := context.Background()
	for _, lk := range readerLakes(t) {
		if lk.name != "q_add_files__add_files_hive_partition_cast" {
			continue
		}
		// Only the files of partition_col=a and =b are kept: the catalog
		// converts; then a becomes Null.
		plain := editedCopy(t, lk.src, "DELETE FROM ducklake_data_file WHERE path NOT LIKE '%partition_col=a/%' AND path NOT LIKE '%partition_col=b/%'")
		if _, err := Check(ctx, plain, formats.V0_4, Options{DataPath: lk.data}); err != nil {
			t.Fatalf("convert to 0.4 with values a and b: %v, want converted", err)
		}
		edited := editedCopy(t, plain, "UPDATE ducklake_data_file SET path = replace(path, 'partition_col=a/', 'partition_col=Null/') WHERE path LIKE '%partition_col=a/%'")
		if got := query(t, edited, "SELECT count(*) FROM c.ducklake_data_file WHERE path LIKE '%partition_col=Null/%'"); got[0][0] != "1" {
			t.Fatalf("%s data files edited, want 1", got[0][0])
		}
		_, err := Check(ctx, edited, formats.V0_4, Options{DataPath: lk.data})
		var refused *RefusedError
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), "partition_col=Null") {
			t.Errorf("convert to 0.4: %v, want refused naming partition_col=Null", err)
		}
	}
}

// TestLossyDropsListedNotCompared: what --allow-lossy drops because the
// target's format cannot hold it is listed in the proof's not_compared,
// as dropped expression defaults are (TestExpressionDefaultsDroppedWithOption):
// commit info taken to 0.2, view column comments taken to 1.0. Before,
// the proof left them out without a word.
func TestLossyDropsListedNotCompared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		archive, lake string
		edits         []string // made convertible otherwise
		to            *formats.Version
		want          string
	}{
		{"lakes", "20_time_travel", nil, formats.V0_2, "format 0.2 cannot hold commit info"},
		// As TestInlinedSystemNameCollision: its epoch partitions and
		// inlined rows removed.
		{"lakes-1.1-dev1", "26_v11_only_features", []string{
			"DELETE FROM ducklake_partition_column", "DELETE FROM ducklake_partition_info",
			"DELETE FROM ducklake_file_partition_value", "UPDATE ducklake_data_file SET partition_id = NULL",
			"DELETE FROM ducklake_inlined_data_7_10"}, formats.V1_0, "format 1.0 cannot hold view column comments"},
	} {
		t.Run(tc.lake, func(t *testing.T) {
			t.Parallel()
			lake := testlakes.Lake(t, tc.archive, tc.lake)
			cats := versionCatalogs(t, lake)
			// --rewrite-deletes writes into the data folder: a copy,
			// not the shared unpacked lake.
			src, data := cats[len(cats)-1], filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			if tc.edits != nil {
				src = editedCopy(t, src, tc.edits...)
			}
			out := filepath.Join(t.TempDir(), "out.duckdb")
			if _, err := Catalog(ctx, src, out, tc.to, Options{DataPath: data, RewriteDeletes: true, Lossy: LossyOptions}); err != nil {
				t.Fatal(err)
			}
			rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
			if err != nil {
				t.Fatalf("compare: %v", err)
			}
			if !slices.ContainsFunc(rep.NotCompared, func(s string) bool { return strings.Contains(s, tc.want) }) {
				t.Errorf("not compared: %q, want %q listed", rep.NotCompared, tc.want)
			}
		})
	}
}
