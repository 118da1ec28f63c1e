package repo

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// setFormats replaces the formats fdl.json declares.
func setFormats(t *testing.T, root, formats string) {
	t.Helper()
	editJSON(t, filepath.Join(root, "fdl.json"), func(m map[string]any) {
		var f any
		if err := json.Unmarshal([]byte(formats), &f); err != nil {
			t.Fatal(err)
		}
		m["formats"] = f
	})
}

// editJSON rewrites a JSON object file through edit.
func editJSON(t *testing.T, path string, edit func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if data, err = json.MarshalIndent(m, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// queryDuckDB returns the first column of the first row of q on the
// catalog at path (read-only).
func queryDuckDB(t *testing.T, path, q string) string {
	t.Helper()
	db := testduck.Open(t, path)
	defer db.Close()
	var s string
	if err := db.QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s on %s: %v", q, path, err)
	}
	return s
}

// measurementFiles edits files.json's entries of main.measurements and
// dataset.json's rows of the table (by rowsDelta), as a writer making them
// from an edited catalog would, so that only the catalog's agreement with
// its data files is wrong.
func measurementFiles(t *testing.T, vdir string, rowsDelta int, edit func(files []any)) {
	t.Helper()
	editJSON(t, filepath.Join(vdir, "files.json"), func(m map[string]any) {
		edit(m["tables"].(map[string]any)["main.measurements"].(map[string]any)["files"].([]any))
	})
	editJSON(t, filepath.Join(vdir, "dataset.json"), func(m map[string]any) {
		for _, tb := range m["tables"].([]any) {
			tm := tb.(map[string]any)
			if tm["name"] == "measurements" {
				if rows, ok := tm["rows"].(float64); ok {
					tm["rows"] = rows + float64(rowsDelta)
				}
			}
		}
	})
}

const frozenOnly = `[{"ducklake": "1.0", "duckdb": ">= 1.5.2"}]`

// TestCheckReadsFrozenOnlyVersions: a version no published catalog of
// which is proved (only the frozen catalog's own format declared) has its
// frozen catalog read alone, as a proof's side A: a damaged data file,
// statistics its readers fail to cast, a record_count or delete_count that
// is not what the files hold fail check, naming the version, the frozen
// catalog, the table and the file. Before, check read no row of such a
// version and exited 0 on every case. So too a frozen catalog of a storage
// before v1.4.0 that DuckDB 1.3 misreads, and files.json's footer_bytes
// where the catalog records no footer_size, which are checked whether or
// not a proof runs.
func TestCheckReadsFrozenOnlyVersions(t *testing.T) {
	if testing.Short() {
		t.Skip("checks lakegen's demo once or more per case")
	}
	ctx := context.Background()
	// The demo is generated once; each case edits a copy of its own.
	demo, _ := demoRepo(ctx, t)
	setFormats(t, demo, frozenOnly)
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, root string, ids []string) (version string)
		want   error
		detail []string
		web    bool // checked over a web site too (its own download cache)
	}{
		{"clean", func(t *testing.T, root string, ids []string) string { return "" }, nil, nil, true},
		{"damaged_data_file", func(t *testing.T, root string, ids []string) string {
			files, err := filepath.Glob(filepath.Join(root, "data", "main", "measurements", "*.parquet"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no data file (%v)", err)
			}
			slices.Sort(files)
			// Size and footer kept: only a read of the rows sees it.
			overwrite(t, files[0], 40, []byte(strings.Repeat("\xff", 20)))
			return ids[0]
		}, ErrUnverifiable, []string{"ducklake.duckdb, the frozen catalog", "main.measurements", "main/measurements/ducklake-"}, true},
		{"uncastable_table_stats", func(t *testing.T, root string, ids []string) string {
			v := filepath.Join(root, "versions", ids[2])
			execDuckDB(t, filepath.Join(v, "ducklake.duckdb"), "UPDATE ducklake_table_column_stats SET max_value = 'many' WHERE column_id = 1 AND table_id = 1")
			testlakes.EditVersion(t, v, nil, "catalog")
			return ids[2]
		}, ErrDifferences, []string{"uncastable-column-stats", "main.measurements", "ducklake.duckdb, the frozen catalog"}, false},
		{"record_count", func(t *testing.T, root string, ids []string) string {
			v := filepath.Join(root, "versions", ids[0])
			execDuckDB(t, filepath.Join(v, "ducklake.duckdb"), "UPDATE ducklake_data_file SET record_count = 90 WHERE data_file_id = 0")
			measurementFiles(t, v, -10, func(files []any) { files[0].(map[string]any)["rows"] = 90 })
			testlakes.EditVersion(t, v, nil, "catalog", "files", "dataset")
			return ids[0]
		}, ErrDifferences, []string{"record_count is 90, the file has 100 rows", "main.measurements", ".parquet"}, true},
		{"delete_count", func(t *testing.T, root string, ids []string) string {
			v := filepath.Join(root, "versions", ids[2])
			cat := filepath.Join(v, "ducklake.duckdb")
			path := queryDuckDB(t, cat, `SELECT path FROM ducklake_delete_file WHERE end_snapshot IS NULL AND table_id = (SELECT table_id FROM ducklake_table WHERE table_name = 'measurements' AND end_snapshot IS NULL) ORDER BY delete_file_id DESC LIMIT 1`)
			execDuckDB(t, cat, "UPDATE ducklake_delete_file SET delete_count = delete_count + 5 WHERE path = '"+path+"'")
			measurementFiles(t, v, -5, func(files []any) {
				for _, f := range files {
					if d, ok := f.(map[string]any)["deletes"].(map[string]any); ok && strings.HasSuffix(d["path"].(string), path) {
						d["rows"] = d["rows"].(float64) + 5
					}
				}
			})
			testlakes.EditVersion(t, v, nil, "catalog", "files", "dataset")
			return ids[2]
		}, ErrDifferences, []string{"delete_count", "-delete.parquet", "main.measurements"}, false},
		{"footer_bytes_unrecorded", func(t *testing.T, root string, ids []string) string {
			v := filepath.Join(root, "versions", ids[0])
			execDuckDB(t, filepath.Join(v, "ducklake.duckdb"), "UPDATE ducklake_data_file SET footer_size = NULL WHERE data_file_id = 0")
			measurementFiles(t, v, 0, func(files []any) { files[0].(map[string]any)["footer_bytes"] = 1000 })
			testlakes.EditVersion(t, v, nil, "catalog", "files", "dataset")
			return ids[0]
		}, ErrDifferences, []string{"files.json: table main.measurements file", "footer_bytes 1000, the file's footer is"}, false},
		{"frozen_dict_fsst", func(t *testing.T, root string, ids []string) string {
			// The second version alone, its frozen catalog in 0.2 saved by
			// DuckDB 1.5.6 at storage v1.3.0 with dictionary-FSST on (its
			// `unit` column's DEFAULT 'C' is misread by DuckDB 1.3).
			v := filepath.Join(root, "versions", ids[1])
			cat := filepath.Join(v, "ducklake.duckdb")
			to, err := formats.Lookup("0.2")
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "0.2.duckdb")
			if _, err := convert.Catalog(ctx, cat, out, to, convert.Options{DataPath: filepath.Join(root, "data")}); err != nil {
				t.Fatal(err)
			}
			writeWithDictFSST(t, ctx, out)
			if err := os.Remove(cat); err != nil {
				t.Fatal(err)
			}
			copyFile(t, out, cat)
			testlakes.EditVersion(t, v, func(m map[string]any) {
				m["catalog"].(map[string]any)["storage"] = "duckdb-v1.3.0"
				d := m["ducklake"].(map[string]any)
				d["format"] = "0.2"
				delete(d, "snapshots")
				m["parents"], m["seq"] = []any{}, 1
				// A first version differs from no parent: lakegen's
				// changes from the removed one would be a false claim.
				delete(m, "changes")
			}, "catalog")
			for _, id := range []string{ids[0], ids[2]} {
				if err := os.RemoveAll(filepath.Join(root, "versions", id)); err != nil {
					t.Fatal(err)
				}
			}
			setFormats(t, root, `[{"ducklake": "0.2", "duckdb": ">= 1.3.1, < 1.4.0"}]`)
			return ids[1]
		}, ErrDifferences, []string{"DuckDB 1.3 reads column(s) ducklake_column.default_value, ducklake_column.initial_default", "as NULL", "disabled_compression_methods = 'dict_fsst'"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case its own repository, cache and web site
			st, root := cloneRepo(t, demo)
			version := tc.mutate(t, root, versionIDs(t, root))
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			runs := []string{"cold", "warm"}
			if tc.web {
				runs = append(runs, "web site")
			}
			for _, run := range runs {
				var rep *CheckReport
				var err error
				if run == "web site" {
					rep, err = Check(ctx, webSite(t, http.FileServer(http.Dir(root))), Options{Jobs: 2, Cache: t.TempDir()})
				} else {
					rep, err = Check(ctx, st, Options{Jobs: 2, DigestCache: cache})
				}
				if tc.want == nil {
					if err != nil {
						t.Fatalf("%s: Check: %v", run, err)
					}
					if len(rep.Proofs) != 0 {
						t.Errorf("%s: %d proofs, want none (frozen-only)", run, len(rep.Proofs))
					}
					continue
				}
				if !errors.Is(err, tc.want) {
					t.Fatalf("%s: Check: %v, want %v; findings %+v", run, err, tc.want, nonWarnings(rep))
				}
				var ce *CheckError
				errors.As(err, &ce)
				f := ce.First
				if f.Version != version {
					t.Errorf("%s: first finding %+v, want one of version %s", run, f, version)
				}
				for _, want := range tc.detail {
					if !strings.Contains(f.Detail, want) {
						t.Errorf("%s: first finding %q does not say %q", run, f.Detail, want)
					}
				}
				if strings.Contains(ce.Hint(), "fdl-formats backfill REPO") {
					t.Errorf("%s: hint %q tells to run backfill", run, ce.Hint())
				}
				t.Logf("%s: %s", run, f.Detail)
			}
		})
	}
}

// TestFrozenAtFaultNotBackfill: with 1.1 declared beside the frozen 1.0,
// a frozen catalog whose record_count is not the file's rows fails every
// proof of a conversion (both sides carry the wrong count). Backfill says
// the frozen catalog is at fault and that no backfill can help; check
// reports the frozen catalog's difference (exit 3), its missing cell says
// backfill cannot write it, and neither hint tells to run backfill.
// Before, backfill's error named only the pair, and check exited 5, "run
// `fdl-formats backfill`", which could never help.
func TestFrozenAtFaultNotBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, st := demoRepo(ctx, t)
	setFormats(t, root, `[{"ducklake": "1.0", "duckdb": ">= 1.5.2"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]`)
	ids := versionIDs(t, root)
	v := filepath.Join(root, "versions", ids[0])
	execDuckDB(t, filepath.Join(v, "ducklake.duckdb"), "UPDATE ducklake_data_file SET record_count = 90 WHERE data_file_id = 0")
	measurementFiles(t, v, -10, func(files []any) { files[0].(map[string]any)["rows"] = 90 })
	testlakes.EditVersion(t, v, nil, "catalog", "files", "dataset")
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	brep, err := Backfill(ctx, st, Options{Jobs: 2, DigestCache: cache})
	var be *BackfillError
	if !errors.As(err, &be) || len(be.Failed) != 1 || be.Failed[0].Version != ids[0] {
		t.Fatalf("Backfill: %v (%+v), want the first version's cell failed", err, brep)
	}
	for _, want := range []string{"the frozen catalog, itself disagrees with its data files", "record_count is 90, the file has 100 rows", "no backfill can write"} {
		if !strings.Contains(be.Failed[0].Error, want) {
			t.Errorf("backfill error %q does not say %q", be.Failed[0].Error, want)
		}
	}
	if h := be.Hint(); strings.Contains(h, "retried by the next backfill") || !strings.Contains(h, "frozen catalog") {
		t.Errorf("backfill hint %q", h)
	}
	rep, err := Check(ctx, st, Options{Jobs: 2, DigestCache: cache})
	var ce *CheckError
	if !errors.Is(err, ErrDifferences) || !errors.As(err, &ce) {
		t.Fatalf("Check: %v, want ErrDifferences; findings %+v", err, nonWarnings(rep))
	}
	if ce.First.Version != ids[0] || !strings.Contains(ce.First.Detail, "record_count is 90") || strings.Contains(ce.Hint(), "fdl-formats backfill REPO") {
		t.Errorf("first finding %+v, hint %q", ce.First, ce.Hint())
	}
	missing := 0
	for _, f := range rep.Findings {
		if f.Kind == KindMissing && f.Version == ids[0] {
			missing++
			if !strings.Contains(f.Detail, "cannot write it while the version's frozen catalog disagrees") {
				t.Errorf("missing finding %q does not say backfill cannot help", f.Detail)
			}
		}
	}
	if missing != 1 {
		t.Errorf("%d missing findings of the first version, want 1", missing)
	}
}

// TestWarmFrozenOnlyCheckCopiesNothing: the self-read of a frozen-only
// repository is kept in the digest cache with its content pass: a warm
// check over the same files copies no frozen catalog (reads nothing).
func TestWarmFrozenOnlyCheckCopiesNothing(t *testing.T) {
	ctx := context.Background()
	root, st := demoRepo(ctx, t)
	setFormats(t, root, frozenOnly)
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []struct {
		name   string
		copies int
	}{{"cold", 3}, {"warm", 0}} {
		opts := Options{Jobs: 1, DigestCache: cache, WorkDir: t.TempDir()}
		counted := &copyCounter{Store: st, work: opts.WorkDir, copies: map[string]int{}}
		if _, err := Check(ctx, counted, opts); err != nil {
			t.Fatalf("%s: Check: %v", run.name, err)
		}
		if n := counted.copies["ducklake.duckdb"]; n != run.copies {
			t.Errorf("%s: frozen catalogs copied %d times (%v), want %d", run.name, n, counted.copies, run.copies)
		}
	}
}

// TestProofFailsOnFrozenFault: a published 1.1 catalog proved once, then
// the frozen catalog's record_count of a data file changed (and
// version.json, files.json and dataset.json made to agree): its proof
// fails, and the finding says that the frozen catalog itself disagrees
// with its data file (the published catalog records the file's rows), with
// a hint that does not tell to delete the published catalog and backfill.
// Before, the finding and hint blamed the published file.
func TestProofFailsOnFrozenFault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, st := demoRepo(ctx, t)
	setFormats(t, root, `[{"ducklake": "1.0", "duckdb": ">= 1.5.2"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]`)
	// The first version alone is backfilled and checked: the fault and
	// the finding are its own (it has no parent whose proof its proof
	// could carry), and the later versions' proofs asserted nothing.
	ids := versionIDs(t, root)
	first := Options{Jobs: 2, Versions: ids[:1]}
	if _, err := Backfill(ctx, st, first); err != nil {
		t.Fatal(err)
	}
	v := filepath.Join(root, "versions", ids[0])
	execDuckDB(t, filepath.Join(v, "ducklake.duckdb"), "UPDATE ducklake_data_file SET record_count = 90 WHERE data_file_id = 0")
	measurementFiles(t, v, -10, func(files []any) { files[0].(map[string]any)["rows"] = 90 })
	testlakes.EditVersion(t, v, nil, "catalog", "files", "dataset")
	rep, err := Check(ctx, st, first)
	var ce *CheckError
	if !errors.Is(err, ErrDifferences) || !errors.As(err, &ce) {
		t.Fatalf("Check: %v, want ErrDifferences; findings %+v", err, nonWarnings(rep))
	}
	f := ce.First
	if f.Version != ids[0] || f.Format != "1.1" || !strings.Contains(f.Detail, "the frozen catalog, itself disagrees with its data files") || !strings.Contains(f.Detail, "record_count is 90, the file has 100 rows") {
		t.Errorf("first finding %+v, want the frozen catalog of %s at fault", f, ids[0])
	}
	if h := ce.Hint(); strings.Contains(h, "published file differs") || !strings.Contains(h, "cannot help") {
		t.Errorf("hint %q", h)
	}
}
