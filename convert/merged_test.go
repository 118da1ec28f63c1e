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
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/expectedrows"
	"github.com/fdl-formats/fdl-formats/internal/realduckdb"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// lakeVersion is one version of a conformance lake with what DuckLake
// returned at each of its snapshots (expected/manifest.json).
type lakeVersion struct {
	ID        string                      `json:"id"`
	Snapshots map[string]map[string]int64 `json:"snapshots"`
}

func lakeVersions(t *testing.T, lake string) []lakeVersion {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(lake, "expected", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Versions []lakeVersion }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest of %s: %v", lake, err)
	}
	return m.Versions
}

var compactionLakes = []string{"c_compaction__merge_rewrite_partial_file_info", "c_rewrite_data_files__test_rewrite_merge_adjacent"}

// TestCompactedLakesUpgrade: the real 0.3 lakes whose merged files hold
// rows of rewritten files (issue 12). A plain upgrade is refused, before
// anything is written, naming the files and rows; with --rewrite-deletes
// the upgrade to 1.0 and 1.1 reads exactly what DuckLake 0.3 returned at
// every snapshot, and compare finds it equivalent to its source.
func TestCompactedLakesUpgrade(t *testing.T) {
	ctx := context.Background()
	dir := testlakes.Dir(t, "lakes-0.3-compaction")
	for _, name := range compactionLakes {
		for _, target := range []*formats.Version{formats.V1_0, formats.V1_1} {
			t.Run(name+"/"+target.Name, func(t *testing.T) {
				t.Parallel()
				lake := filepath.Join(dir, name)
				versions := lakeVersions(t, lake)
				for i, v := range versions {
					src := filepath.Join(lake, "versions", v.ID, "ducklake.duckdb")
					tmp := t.TempDir()
					data := columnNamedFolder(t, tmp)
					copyTree(t, filepath.Join(lake, "data"), data)
					before := listTree(t, data)

					if i == len(versions)-1 {
						// Without the data folder the stored snapshots cannot be read.
						if got, err := refusalCodes(t, src, target, Options{}); err != nil || got != "merged-files-unchecked" {
							t.Errorf("version %s without the data folder: refused for %q (%v), want merged-files-unchecked", v.ID, got, err)
						}
					}
					plain := filepath.Join(tmp, "plain.duckdb")
					_, err := Catalog(ctx, src, plain, target, Options{DataPath: data})
					var refused *RefusedError
					switch {
					case errors.As(err, &refused):
						if len(refused.Findings) != 1 || refused.Findings[0].Code != "merged-file-snapshots" || refused.Findings[0].Step != "0.3->0.4" {
							t.Fatalf("version %s: refused for %v, want only merged-file-snapshots", v.ID, refused.Findings)
						}
						f := refused.Findings[0]
						if !strings.Contains(f.Detail, "data_file_id ") || !strings.Contains(f.Detail, "would from snapshot") || f.Option != "--rewrite-deletes" {
							t.Errorf("version %s: imprecise refusal: %s", v.ID, f)
						}
						if _, err := os.Stat(plain); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("version %s: refused conversion wrote %s", v.ID, plain)
						}
						if after := listTree(t, data); !slices.Equal(before, after) {
							t.Errorf("version %s: refused conversion wrote into the data folder", v.ID)
						}
					case err != nil:
						t.Fatalf("version %s: %v", v.ID, err)
					case i == len(versions)-1:
						t.Fatalf("last version %s converts field for field; DuckLake 1.0 reads it differently from 0.3", v.ID)
					default:
						expectedrows.Check(t, plain, data, filepath.Join(lake, "expected", v.ID), expectedrows.Options{Counts: v.Snapshots, Typed: true})
					}

					out := filepath.Join(tmp, target.Name+".duckdb")
					res, err := Catalog(ctx, src, out, target, Options{DataPath: data, RewriteDeletes: true})
					if err != nil {
						t.Fatalf("version %s with --rewrite-deletes: %v", v.ID, err)
					}
					if refused != nil && !slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Code == "merged-file-snapshots" && f.Severity == Note }) {
						t.Errorf("version %s: no note of the rewritten merged files in %v", v.ID, res.Findings)
					}
					expectedrows.Check(t, out, data, filepath.Join(lake, "expected", v.ID), expectedrows.Options{Counts: v.Snapshots, Typed: true})
					proveEquivalent(t, src, out, data)
					// A second run reuses the delete files it wrote.
					again := filepath.Join(tmp, "again.duckdb")
					if _, err := Catalog(ctx, src, again, target, Options{DataPath: data, RewriteDeletes: true}); err != nil {
						t.Errorf("version %s: second run: %v", v.ID, err)
					}
				}
			})
		}
	}
}

// TestCompactedLakesDowngrade gives downgrades of the same shapes the same
// scrutiny: 1.0 lakes with merged and rewritten files go down to 0.3, and
// our reader, reading them with DuckLake 0.3's rules, must return at every
// snapshot exactly what DuckLake returned. Two sources: the 0.3 compaction
// lakes upgraded to 1.0 (merged files now read through delete-file chains;
// compactedUps, shared), and 17_compaction, merged and rewritten by
// DuckLake 1.0 itself (merged files with partial_max, which 0.3 reads as
// 'partial_max:N' by the same per-row snapshot filter; its last version's
// 0.3 conversion is lakeOuts', as TestConvertedLakesReadIdentically
// proves it). The cases run one after the other: each is short, and as
// parallel subtests of a parallel test they queued behind every other
// test of the binary (their parent's time in a whole run, 330-430 s, was
// that wait, its CPU about 4 s).
func TestCompactedLakesDowngrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("0.3-compaction-upgraded", func(t *testing.T) {
		for _, name := range compactionLakes {
			t.Run(name, func(t *testing.T) {
				cu := sharedCompactedUp(t, name)
				down := filepath.Join(t.TempDir(), "0.3.duckdb")
				if _, err := Catalog(ctx, cu.up, down, formats.V0_3, Options{DataPath: cu.data}); err != nil {
					t.Fatalf("1.0 -> 0.3: %v", err)
				}
				expectedrows.Check(t, down, cu.data, filepath.Join(cu.lake, "expected", cu.version.ID), expectedrows.Options{Counts: cu.version.Snapshots, Typed: true})
				if _, err := compare.Catalogs(ctx, cu.up, down, compare.Options{DataPath: cu.data}); err != nil {
					t.Errorf("compare 1.0 with its 0.3 downgrade: %v", err)
				}
			})
		}
	})
	t.Run("17_compaction", func(t *testing.T) {
		lake := testlakes.Lake(t, "lakes", "17_compaction")
		versions := lakeVersions(t, lake)
		for i, v := range versions {
			src := filepath.Join(lake, "versions", v.ID, "ducklake.duckdb")
			down := ""
			if i == len(versions)-1 {
				var err error
				if down, err = sharedLakeOuts(t, lake).plain(t, formats.V0_3); err != nil {
					t.Fatalf("version %s to 0.3: %v", v.ID, err)
				}
			} else {
				down = filepath.Join(t.TempDir(), "0.3.duckdb")
				if _, err := Catalog(ctx, src, down, formats.V0_3, Options{DataPath: filepath.Join(lake, "data")}); err != nil {
					t.Fatalf("version %s to 0.3: %v", v.ID, err)
				}
			}
			expectedrows.Check(t, down, filepath.Join(lake, "data"), filepath.Join(lake, "expected", v.ID), expectedrows.Options{Counts: v.Snapshots, Typed: true})
		}
	})
}

// compactedUp is a 0.3 compaction lake's last version (src) upgraded to
// 1.0 with --rewrite-deletes (up), its data folder a copy (data) that holds
// the delete-file chains the upgrade wrote. Made once per test binary, by
// the first test that asks (sharedCompactedUp), and shared read-only:
// TestCompactedLakesDowngrade converts it down and
// TestMergedFeedTamperedRecordCount compares it with a tampered source
// (each made the same upgrade itself before).
type compactedUp struct {
	once                sync.Once
	lake, src, data, up string
	version             lakeVersion
	err                 error
}

var (
	compactedUpsMu sync.Mutex
	compactedUps   = map[string]*compactedUp{} // by lake name
)

// sharedCompactedUp returns the compaction lake name's upgrade
// (compactedUp), made on first use in lakeOuts' folder.
func sharedCompactedUp(t *testing.T, name string) *compactedUp {
	t.Helper()
	lake := testlakes.Lake(t, "lakes-0.3-compaction", name)
	versions := lakeVersions(t, lake)
	dir := sharedDir(t, lake)
	compactedUpsMu.Lock()
	cu := compactedUps[name]
	if cu == nil {
		cu = &compactedUp{}
		compactedUps[name] = cu
	}
	compactedUpsMu.Unlock()
	cu.once.Do(func() { cu.err = cu.make(lake, versions[len(versions)-1], dir) })
	if cu.err != nil {
		t.Fatalf("%s upgraded to 1.0: %v", lake, cu.err)
	}
	return cu
}

func (cu *compactedUp) make(lake string, v lakeVersion, dir string) error {
	out, err := os.MkdirTemp(dir, "compacted-"+filepath.Base(lake)+"-")
	if err != nil {
		return err
	}
	cu.lake, cu.version = lake, v
	cu.src = filepath.Join(lake, "versions", v.ID, "ducklake.duckdb")
	cu.data, cu.up = filepath.Join(out, "data"), filepath.Join(out, "1.0.duckdb")
	if err := os.CopyFS(cu.data, os.DirFS(filepath.Join(lake, "data"))); err != nil {
		return err
	}
	_, err = Catalog(context.Background(), cu.src, cu.up, formats.V1_0, Options{DataPath: cu.data, RewriteDeletes: true})
	return err
}

// TestMergedRecordCountTampered: --rewrite-deletes writes, for each span of
// a merged file, the positions from its split list's limit up to its
// record_count; a record_count of 2^40 (a tampered catalog) wrote without
// end. Past 2^20 rows it is held to the file's Parquet row count, and one
// claiming more is refused naming the data file.
func TestMergedRecordCountTampered(t *testing.T) {
	lake := testlakes.Lake(t, "lakes-0.3-compaction", compactionLakes[0])
	versions := lakeVersions(t, lake)
	src := editedCopy(t, filepath.Join(lake, "versions", versions[len(versions)-1].ID, "ducklake.duckdb"),
		`UPDATE ducklake_data_file SET record_count = 1099511627776 WHERE partial_file_info IS NOT NULL AND partial_file_info NOT LIKE 'partial_max:%'`)
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	_, err := Catalog(context.Background(), src, filepath.Join(t.TempDir(), "out.duckdb"), formats.V1_0, Options{DataPath: data, RewriteDeletes: true})
	if err == nil || !strings.Contains(err.Error(), "has record_count 1099511627776, more than its") || !strings.Contains(err.Error(), ".parquet") {
		t.Fatalf("converted with a record_count of 2^40: %v", err)
	}
	t.Log(err)
}

// TestMergedFileEndFeed: a 0.3 merged file rewritten with --rewrite-deletes
// that ends. At its end_snapshot every DuckLake's change feed reports its
// rows less those of its delete file begun last before the end: in the
// source none, in the target the chain's last file, which hides rows
// 20-169 from snapshot 7 until the split list shows them at 10. The
// rewrite adds a partial deletion file of those rows, each stored with the
// end's snapshot, begun and ended at the end (no snapshot sees it), which
// 0.4+ readers' feed reports there. Without it the proof reports the
// feed's difference since proof v60 (the exemption of convert's chains
// models the file); before, it was excused.
func TestMergedFileEndFeed(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-0.3-compaction", compactionLakes[0])
	versions := lakeVersions(t, lake)
	// Merged data file 10 (split list 6:10|7:20|10:170) ended at 12.
	src := editedCopy(t, filepath.Join(lake, "versions", versions[len(versions)-1].ID, "ducklake.duckdb"),
		`UPDATE ducklake_data_file SET end_snapshot = 12 WHERE data_file_id = 10`)
	for _, target := range []*formats.Version{formats.V0_4, formats.V1_0} {
		t.Run(target.Name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			out := filepath.Join(t.TempDir(), "out.duckdb")
			if _, err := Catalog(ctx, src, out, target, Options{DataPath: data, RewriteDeletes: true}); err != nil {
				t.Fatal(err)
			}
			proveEquivalent(t, src, out, data)
			var path string
			var begin, end, count int64
			if err := attach(t, out, "READ_ONLY").QueryRowContext(ctx, `SELECT d.path, d.begin_snapshot, d.end_snapshot, d.delete_count
				FROM c.ducklake_delete_file d WHERE d.data_file_id = 10 ORDER BY d.begin_snapshot DESC LIMIT 1`).Scan(&path, &begin, &end, &count); err != nil {
				t.Fatal(err)
			}
			if begin != 12 || end != 12 || count != 150 {
				t.Fatalf("last delete file of data file 10: %s begun %d, ended %d, %d rows; want one begun and ended at 12 of 150 rows", path, begin, end, count)
			}
			i := slices.IndexFunc(listTree(t, data), func(p string) bool { return filepath.Base(p) == path })
			if i < 0 {
				t.Fatalf("%s is not in the data folder", path)
			}
			got := query(t, out, fmt.Sprintf(`SELECT count(*), min(pos), max(pos), min(_ducklake_internal_snapshot_id), max(_ducklake_internal_snapshot_id)
				FROM read_parquet(%s)`, literal(listTree(t, data)[i])))
			if want := [][]string{{"150", "20", "169", "12", "12"}}; !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("the end's delete file holds %v, want %v (count, positions, snapshots)", got, want)
			}
			// A second run takes the file already there (same rows, same
			// three columns).
			if _, err := Catalog(ctx, src, filepath.Join(t.TempDir(), "again.duckdb"), target, Options{DataPath: data, RewriteDeletes: true}); err != nil {
				t.Errorf("second run: %v", err)
			}
			if target == formats.V1_0 {
				realReleasesReadDeleteFile(t, listTree(t, data)[i])
			}
		})
	}
}

// realReleasesReadDeleteFile: every real release (internal/realduckdb)
// binds a delete file's columns as DuckLake's delete scan does
// (parquet_scan: names and types), and reads its rows and those a
// snapshot range keeps as DuckDB 1.5.6 does.
func realReleasesReadDeleteFile(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	stmts := []string{
		fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM parquet_scan(%s))", literal(path)),
		fmt.Sprintf("SELECT * FROM parquet_scan(%s)", literal(path)),
		fmt.Sprintf("SELECT pos FROM parquet_scan(%s) WHERE _ducklake_internal_snapshot_id BETWEEN 12 AND 12", literal(path)),
	}
	want, err := realduckdb.ReadQueriesLinked(ctx, testduck.Open(t, ""), stmts)
	if err != nil {
		t.Fatal(err)
	}
	for i, rows := range []string{"3", "150", "150"} {
		if q := want.Queries[i]; q.Error != "" || q.Rows != rows {
			t.Fatalf("DuckDB 1.5.6: %s: %s rows, error %q; want %s rows", stmts[i], q.Rows, q.Error, rows)
		}
	}
	for _, rel := range realduckdb.Releases {
		bin, err := realduckdb.Build(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		got, err := realduckdb.ReadQueries(ctx, bin, stmts)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range got.Queries {
			if w := want.Queries[i]; q.Error != "" || q.Rows != w.Rows || q.Digest != w.Digest {
				t.Errorf("DuckDB %s: %s: %s rows (digest %s), error %q; DuckDB 1.5.6 %s rows (digest %s)", rel.DuckDB, stmts[i], q.Rows, q.Digest, q.Error, w.Rows, w.Digest)
			}
		}
	}
}

// TestMergedFeedTamperedRecordCount: the change feed's exemption of a 0.3
// merged file's rewrite (compare's mergedChain) lists, per stretch of its
// chain, the positions from the split list's limit up to record_count. A
// source whose merged file claims 2^40 rows (its Parquet file holds 170)
// compared with a conversion made before the tampering listed them until
// memory ran out. convert refuses to rewrite such a file (more
// record_count than rows), so no B is its chain: the proof reports the
// files' difference and no longer builds the chain.
func TestMergedFeedTamperedRecordCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cu := sharedCompactedUp(t, compactionLakes[0])
	src, data, out := cu.src, cu.data, cu.up
	tampered := editedCopy(t, src, `UPDATE ducklake_data_file SET record_count = 1099511627776 WHERE data_file_id = 10`)
	rep, err := compare.Catalogs(ctx, tampered, out, compare.Options{DataPath: data})
	if !errors.Is(err, compare.ErrNotEquivalent) {
		t.Fatalf("want not equivalent, got %v", err)
	}
	if !slices.ContainsFunc(rep.Differences, func(d compare.Difference) bool {
		return strings.Contains(d.Reason, "record_count is 1099511627776")
	}) {
		t.Errorf("no record_count difference: %v", rep.Differences)
	}
}
