package convert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	ctx := context.Background()
	for _, lk := range readerLakes(t) {
		for _, target := range []*formats.Version{formats.V0_3, formats.V0_4} {
			t.Run(lk.name+"/"+target.Name, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "faithful.duckdb")
				if _, err := Catalog(ctx, lk.src, out, target, Options{faithful: true}); err != nil {
					t.Fatalf("faithful conversion: %v", err)
				}
				expected := filepath.Join(lk.dir, "expected-"+target.Name+"-reader", lk.version)
				expectedrows.Check(t, out, lk.data, expected, expectedrows.Options{Failures: true})

				rep, err := compare.Catalogs(ctx, lk.src, out, compare.Options{DataPath: lk.data})
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
	ctx := context.Background()
	want := map[string]map[string]string{ // lake -> target -> refusal code ("" converts)
		"q_add_files__add_files_hive_partition_cast":                     {"0.3": "hive-values-cast-raw", "0.4": ""},
		"q_default__all_types_column_default_stats":                      {"0.3": "", "0.4": ""},
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
				rep, err := compare.Catalogs(ctx, lk.src, out, compare.Options{DataPath: lk.data})
				if err != nil {
					var lines []string
					if rep != nil {
						for _, d := range rep.Differences {
							lines = append(lines, d.String())
						}
					}
					t.Fatalf("compare: %v\n%s", err, strings.Join(lines, "\n"))
				}
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

// TestTimeTZDefaultNormalised: TIMETZ literals are rewritten at +00 as the
// same instant, or (for a source whose reader drops the offset) as the same
// wall-clock time.
func TestTimeTZDefaultNormalised(t *testing.T) {
	for _, tc := range []struct {
		lit, utc, wall string
	}{
		{"12:34:56+02", "10:34:56+00", "12:34:56+00"},
		{"01:00:00.5+02:30", "22:30:00.5+00", "01:00:00.5+00"},
		{"23:00:00-02", "01:00:00+00", "23:00:00+00"},
		{"10:00:00", "10:00:00+00", "10:00:00+00"},
	} {
		if got, ok := timetzAtUTC(tc.lit, false); !ok || got != tc.utc {
			t.Errorf("timetzAtUTC(%q) = %q, %t; want %q", tc.lit, got, ok, tc.utc)
		}
		if got, ok := timetzAtUTC(tc.lit, true); !ok || got != tc.wall {
			t.Errorf("timetzAtUTC(%q, drop) = %q, %t; want %q", tc.lit, got, ok, tc.wall)
		}
	}
	if _, ok := timetzAtUTC("noon", false); ok {
		t.Error("timetzAtUTC parsed \"noon\"")
	}
}
