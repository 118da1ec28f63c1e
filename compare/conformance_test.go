package compare

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

type manifest struct {
	Versions []struct {
		ID        string                      `json:"id"`
		Format    string                      `json:"format"`
		Snapshot  int64                       `json:"snapshot_id"`
		Snapshots map[string]map[string]int64 `json:"snapshots"`
	} `json:"versions"`
}

func readManifest(t *testing.T, lake string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(lake, "expected", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest of %s: %v", lake, err)
	}
	return m
}

// TestReaderMatchesDuckLake reads every table at every snapshot recorded in
// the conformance lakes and requires exactly the rows DuckLake returned.
// FDL_COMPARE_LAKES (comma-separated substrings) narrows the sweep.
func TestReaderMatchesDuckLake(t *testing.T) {
	filter := os.Getenv("FDL_COMPARE_LAKES")
	if filter == "" && testing.Short() {
		// -short: one lake per reader feature (deletes, nested, inlining,
		// encryption, Puffin, mappings, partial files).
		filter = "06_,12_,15_,16_,17_,19_,24_,c_compaction,c_rewrite"
	}
	engines := readerDBs
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "lakes-0.3-compaction"} {
		t.Run(archive, func(t *testing.T) {
			for _, lake := range testlakes.Lakes(t, archive) {
				name := filepath.Base(lake)
				if filter != "" && !matchesAny(name, filter) {
					continue
				}
				if name == "zz_storage_v2_unreadable" {
					continue // TestStorageV2Unreadable
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel() // each lake read alone, read-only; ours written to its own temporary folder
					checkLake(t, lake, engines)
				})
			}
		})
	}
}

func matchesAny(name, filter string) bool {
	for _, f := range strings.Split(filter, ",") {
		if f != "" && strings.Contains(name, f) {
			return true
		}
	}
	return false
}

func checkLake(t *testing.T, lake string, engines *Engines) {
	ctx := context.Background()
	m := readManifest(t, lake)
	seen := newExpectedChecks(t)
	for _, v := range m.Versions {
		catalog := filepath.Join(lake, "versions", v.ID, "ducklake.duckdb")
		// The rows are what a DuckLake build of the lake's line returned:
		// read as a source is read, by the line's newest release
		// (formats.Version.SourceQuirks), not by the strictest of its
		// releases that a written catalog is held to.
		r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), AsSource: true, Engines: engines})
		if err != nil {
			t.Fatalf("version %s: %v", v.ID, err)
		}
		seen.checkVersion(t, r, lake, v.ID, v.Snapshots)
		r.Close()
	}
}

// checkVersion compares every table at every snapshot of one version with
// DuckLake's rows.
func checkVersion(t *testing.T, r *Reader, lake, id string, snapshots map[string]map[string]int64) {
	newExpectedChecks(t).checkVersion(t, r, lake, id, snapshots)
}

// expectedChecks keeps the outcome of each comparison of our query's rows
// with an expected file, by the query's text and the file's content: the
// same query on the same files returns the same rows (a reader names
// staged delete lists after their content, so that a query's text
// determines its rows), so a table unchanged since an earlier snapshot,
// or read by the same query in another version of the lake, is not
// compared again; its outcome (error included) is reported again. A query
// that reads the catalog (cat.) is only reused for the same catalog.
type expectedChecks struct {
	dir  string // where our rows are written
	done map[[32]byte]error
}

func newExpectedChecks(t *testing.T) *expectedChecks {
	return &expectedChecks{dir: t.TempDir(), done: map[[32]byte]error{}}
}

func (c *expectedChecks) compare(ctx context.Context, r *Reader, tb Table, snap int64, expected string) error {
	q, err := r.Query(ctx, tb, snap, ScanOptions{})
	if err != nil {
		return err
	}
	want, err := os.ReadFile(expected)
	if err != nil {
		return err
	}
	h := sha256.New()
	if strings.Contains(q, "cat.") {
		fmt.Fprintf(h, "catalog %d\x00%s\x00", len(r.Path()), r.Path())
	}
	fmt.Fprintf(h, "%d\x00%s\x00", len(q), q)
	h.Write(want)
	key := [32]byte(h.Sum(nil))
	if err, ok := c.done[key]; ok {
		return err
	}
	err = compareQueryWithExpected(ctx, r, q, filepath.Join(c.dir, "ours.parquet"), expected)
	c.done[key] = err
	return err
}

func (c *expectedChecks) checkVersion(t *testing.T, r *Reader, lake, id string, snapshots map[string]map[string]int64) {
	ctx := context.Background()
	snaps := make([]int64, 0, len(snapshots))
	for s := range snapshots {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("manifest snapshot %q", s)
		}
		snaps = append(snaps, n)
	}
	sort.Slice(snaps, func(i, j int) bool { return snaps[i] < snaps[j] })
	for _, s := range snaps {
		want := snapshots[strconv.FormatInt(s, 10)]
		tables, err := r.Tables(ctx, s)
		if err != nil {
			t.Fatalf("version %s snapshot %d: %v", id, s, err)
		}
		got := map[string]bool{}
		for _, tb := range tables {
			got[tb.FullName()] = true
			if _, ok := want[tb.FullName()]; !ok {
				t.Errorf("version %s snapshot %d: table %s is not in the manifest", id, s, tb.FullName())
			}
		}
		for name := range want {
			if !got[name] {
				t.Errorf("version %s snapshot %d: table %s not visible to our reader", id, s, name)
			}
		}
		for _, tb := range tables {
			expected := filepath.Join(lake, "expected", id, strconv.FormatInt(s, 10), tb.FullName()+".parquet")
			if err := c.compare(ctx, r, tb, s, expected); err != nil {
				t.Errorf("version %s (format %s, catalog %s) snapshot %d table %s: %v", id, r.Format(), r.Path(), s, tb.FullName(), err)
			}
		}
	}
}

// compareWithExpected writes our rows to Parquet the way the expected files
// were written and compares both files' rows as text multisets, in one
// query that returns only the rows whose counts differ.
func compareWithExpected(ctx context.Context, t *testing.T, r *Reader, tb Table, snap int64, expected string) error {
	q, err := r.Query(ctx, tb, snap, ScanOptions{})
	if err != nil {
		return err
	}
	return compareQueryWithExpected(ctx, r, q, filepath.Join(t.TempDir(), "ours.parquet"), expected)
}

// compareQueryWithExpected is compareWithExpected of query q, writing our
// rows to ours (replaced if there).
func compareQueryWithExpected(ctx context.Context, r *Reader, q, ours, expected string) error {
	if _, err := r.conn.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", q, sqlString(ours))); err != nil {
		return fmt.Errorf("run our query: %w\n%s", err, q)
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT txt, count(*) FILTER (WHERE side = 'a') AS a, count(*) FILTER (WHERE side = 'b') AS b
		FROM (SELECT %s AS txt, 'a' AS side FROM read_parquet(%s) t UNION ALL SELECT %s, 'b' FROM read_parquet(%s) t)
		GROUP BY txt HAVING a <> b`, rowText("t"), sqlString(ours), rowText("t"), sqlString(expected)))
	if err != nil {
		return err
	}
	defer rows.Close()
	a, b := map[string]int64{}, map[string]int64{}
	for rows.Next() {
		var txt string
		var na, nb int64
		if err := rows.Scan(&txt, &na, &nb); err != nil {
			return err
		}
		a[txt], b[txt] = na, nb
	}
	if err := rows.Err(); err != nil {
		return err
	}
	d := diffRows(a, b, 5)
	if len(d.OnlyA) > 0 || len(d.OnlyB) > 0 {
		return fmt.Errorf("rows differ from DuckLake's (A = ours, B = expected):\n%s", d)
	}
	return nil
}

func TestStorageV2Unreadable(t *testing.T) {
	lakes := testlakes.Lakes(t, "lakes-1.1-dev1")
	for _, lake := range lakes {
		if filepath.Base(lake) != "zz_storage_v2_unreadable" {
			continue
		}
		m := readManifest(t, lake)
		for _, v := range m.Versions {
			_, err := Open(context.Background(), filepath.Join(lake, "versions", v.ID, "ducklake.duckdb"), ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if err == nil {
				t.Fatalf("version %s: opened a storage v2 catalog", v.ID)
			}
			// The storage its header names, and how to save it so it opens
			// (before: "a newer storage version ... (e.g. storage v2.0.0)",
			// whatever the header said).
			for _, want := range []string{"saved at storage v2.0.0 (header numbers 999 and 69", "DuckDB 2.0.0 or newer at STORAGE_VERSION 'v1.5.0'"} {
				if !errors.Is(err, ErrIncomparable) || !strings.Contains(err.Error(), want) {
					t.Errorf("version %s: want a storage-version error wrapping ErrIncomparable saying %q, got %v", v.ID, want, err)
				}
			}
		}
		return
	}
	// A missing lake fails: a test that cannot find its input proves nothing.
	t.Fatal("lake zz_storage_v2_unreadable not in lakes-1.1-dev1")
}

// TestConvertedMatchDuckLake converts every conformance catalog to every
// other released format with the fdl-formats command (built as a binary, so
// that package compare never imports the converter), then requires our
// reader to return DuckLake's rows from each converted catalog and Catalogs
// to find it equivalent to its source. Refusals are logged, not failures.
// It is slow: set FDL_COMPARE_CONVERTED=1 to run it.
func TestConvertedMatchDuckLake(t *testing.T) {
	if os.Getenv("FDL_COMPARE_CONVERTED") == "" {
		t.Skip("set FDL_COMPARE_CONVERTED=1 to convert every conformance catalog and read the results")
	}
	bin := filepath.Join(t.TempDir(), "fdl-formats")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/fdl-formats/fdl-formats/cmd/fdl-formats").CombinedOutput(); err != nil {
		t.Fatalf("build fdl-formats: %v\n%s", err, out)
	}
	filter := os.Getenv("FDL_COMPARE_LAKES")
	ctx := context.Background()
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1"} {
		t.Run(archive, func(t *testing.T) {
			for _, lake := range testlakes.Lakes(t, archive) {
				name := filepath.Base(lake)
				if (filter != "" && !matchesAny(name, filter)) || name == "zz_storage_v2_unreadable" {
					continue
				}
				t.Run(name, func(t *testing.T) {
					data := filepath.Join(lake, "data")
					for _, v := range readManifest(t, lake).Versions {
						src := filepath.Join(lake, "versions", v.ID, "ducklake.duckdb")
						for _, target := range []string{"0.3", "0.4", "1.0", "1.1"} {
							if target == v.Format {
								continue
							}
							dst := filepath.Join(t.TempDir(), target+".duckdb")
							out, err := exec.Command(bin, "convert", src, "--to", target, "-o", dst).CombinedOutput()
							if err != nil {
								if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 7 {
									t.Logf("version %s -> %s refused: %s", v.ID, target, oneline.First(string(out)))
									continue
								}
								t.Errorf("version %s -> %s: convert failed: %v\n%s", v.ID, target, err, out)
								continue
							}
							r, err := Open(ctx, dst, ReaderOptions{DataPath: data, Engines: readerDBs})
							if err != nil {
								t.Errorf("version %s -> %s: %v", v.ID, target, err)
								continue
							}
							checkVersion(t, r, lake, v.ID, v.Snapshots)
							r.Close()
							rep, err := Catalogs(ctx, src, dst, Options{DataPath: data, Engines: readerDBs})
							if err != nil {
								msg := err.Error()
								if rep != nil {
									for i, d := range rep.Differences {
										if i == 10 {
											break
										}
										msg += "\n  " + d.String()
									}
								}
								t.Errorf("version %s -> %s: %s", v.ID, target, msg)
							}
						}
					}
				})
			}
		})
	}
}

// TestMigrationCatalogs reads the catalogs that older DuckLake releases
// wrote (formats 0.1 to 0.4, development layouts included): each opens,
// its format is detected and its schema described at every snapshot; the
// one with data files returns DuckLake's rows from both the source and the
// migrated catalog.
func TestMigrationCatalogs(t *testing.T) {
	dir := testlakes.Dir(t, "migrations")
	ctx := context.Background()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		for _, file := range []string{"source.duckdb", "migrated-1.0.duckdb"} {
			catalog := filepath.Join(dir, e.Name(), file)
			if _, err := os.Stat(catalog); err != nil {
				continue
			}
			t.Run(e.Name()+"/"+file, func(t *testing.T) {
				r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(dir, e.Name(), "data"), AsSource: true, Engines: readerDBs}) // read as a source, as in checkLake
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				snaps, err := r.Snapshots(ctx)
				if err != nil || len(snaps) == 0 {
					t.Fatalf("snapshots: %v %v", snaps, err)
				}
				for _, s := range snaps {
					if _, err := r.schemaEntries(ctx, s.ID); err != nil {
						t.Errorf("format %s snapshot %d: %v", r.Format(), s.ID, err)
					}
					tables, err := r.Tables(ctx, s.ID)
					if err != nil {
						t.Fatalf("format %s snapshot %d: %v", r.Format(), s.ID, err)
					}
					for _, tb := range tables {
						files, err := r.Files(ctx, tb, s.ID)
						if err != nil {
							t.Errorf("format %s snapshot %d table %s: %v", r.Format(), s.ID, tb.FullName(), err)
						}
						for _, f := range files {
							if !strings.HasPrefix(f.Path, r.DataPath()) && f.Relative {
								t.Errorf("format %s: relative file %s resolved outside the data path %s", r.Format(), f.Path, r.DataPath())
							}
						}
					}
				}
				expected := filepath.Join(dir, e.Name(), "expected", "main.test.parquet")
				if _, err := os.Stat(expected); err != nil {
					return // metadata-only fixture
				}
				last := snaps[len(snaps)-1].ID
				tb, err := r.Table(ctx, "main.test", last)
				if err != nil {
					t.Fatal(err)
				}
				if err := compareWithExpected(ctx, t, r, tb, last, expected); err != nil {
					t.Errorf("format %s snapshot %d: %v", r.Format(), last, err)
				}
			})
		}
	}
}
