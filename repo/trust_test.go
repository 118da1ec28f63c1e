package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/internal/datapath"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
)

// deleteFilesOf lists the distinct delete files (resolved paths) the
// frozen catalogs of a repository folder's versions name.
func deleteFilesOf(t *testing.T, root string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	out := map[string]bool{}
	for _, id := range versionIDs(t, root) {
		rd, err := compare.Open(ctx, filepath.Join(root, "versions", id, "ducklake.duckdb"), compare.ReaderOptions{DataPath: filepath.Join(root, "data")})
		if err != nil {
			t.Fatal(err)
		}
		files, err := rd.AllFiles(ctx)
		rd.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Delete {
				out[f.Path] = true
			}
		}
	}
	return out
}

// TestRunSharesDeleteFiles: the proofs of one backfill and of one check
// share the Parquet delete files they parse (compare.Options.Deletes, the
// run's compare.Deletes): across the three versions of 06_deletes, whose
// catalogs name their predecessors' delete files, each delete file is read
// once per run, and later proofs report the others as shared
// (delete_files in each proof's report). A proof given no run Deletes
// reads every delete file its catalogs name again.
func TestRunSharesDeleteFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := smallLake(t)
	distinct := len(deleteFilesOf(t, root))
	if distinct < 2 {
		t.Fatalf("06_deletes names %d delete file(s); the test needs several", distinct)
	}
	// One job: the proofs run one after the other, so no two read a file
	// at once (both would read it, rightly).
	opts := Options{Formats: []string{"1.1"}, Jobs: 1}
	sum := func(what string, stats []*compare.DeleteFileStats) {
		t.Helper()
		var read, shared int
		for i, s := range stats {
			if s == nil {
				t.Fatalf("%s: proof %d reports no delete_files", what, i)
			}
			read, shared = read+s.Read, shared+s.Shared
		}
		if read != distinct || shared == 0 {
			t.Errorf("%s: %d proofs read %d delete files and shared %d; want each of the %d distinct files read once, the rest shared", what, len(stats), read, shared, distinct)
		}
	}
	brep, err := Backfill(ctx, st, opts)
	if err != nil {
		t.Fatalf("Backfill: %v", err)
	}
	var stats []*compare.DeleteFileStats
	for _, r := range brep.Results {
		stats = append(stats, r.DeleteFiles)
	}
	if len(stats) != 3 {
		t.Fatalf("backfill wrote %d cells, want 3", len(stats))
	}
	sum("backfill", stats)

	crep, err := Check(ctx, st, opts)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	stats = nil
	for _, p := range crep.Proofs {
		stats = append(stats, p.DeleteFiles)
	}
	if len(stats) != 3 {
		t.Fatalf("check made %d proofs, want 3", len(stats))
	}
	sum("check", stats)
}

// execCatalog runs statements on a DuckDB catalog file (attached as c).
func execCatalog(t *testing.T, catalog string, stmts ...string) {
	t.Helper()
	db := testduck.Open(t, "")
	defer db.Close()
	for _, s := range append(append([]string{fmt.Sprintf("ATTACH '%s' AS c", catalog)}, stmts...), "DETACH c") {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestTableSchemaOutsideDataDir: a frozen catalog whose table or schema
// folder is recorded by absolute path (path_is_relative false), or with a
// ".." part, names every file under it outside data_dir, though each
// file's own path is relative: readers elsewhere resolve the folder on
// their machine (or cut a URL at ".."), not in the repository. Check
// reports a violation (a difference, exit 3) naming the version, the file
// and why; backfill writes nothing (no catalog, no file anywhere in the
// repository) and fails the cells with a violation. The absolute folders
// are this machine's own data folder, so every file is readable and
// nothing else differs.
func TestTableSchemaOutsideDataDir(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := Options{Versions: []string{"3"}, Formats: []string{"0.4", "1.1"}, Jobs: 2}
	for _, tc := range []struct {
		name string
		// stmts rewrite the catalog (root: the repository's folder).
		stmts func(root string) []string
		why   string
		// link, if set, is a folder of data/main made a link to
		// data/main/del, so that a local reader opens the files.
		link string
	}{
		{"table by absolute path", func(root string) []string {
			return []string{fmt.Sprintf("UPDATE c.ducklake_table SET path = '%s/', path_is_relative = false WHERE table_name = 'del'", filepath.Join(root, "data", "main", "del"))}
		}, "recorded by absolute path (path_is_relative is false for the file, its table or its schema)", ""},
		{"schema by absolute path", func(root string) []string {
			return []string{fmt.Sprintf("UPDATE c.ducklake_schema SET path = '%s/', path_is_relative = false WHERE schema_name = 'main'", filepath.Join(root, "data", "main"))}
		}, "recorded by absolute path (path_is_relative is false for the file, its table or its schema)", ""},
		{"table with ..", func(string) []string {
			return []string{"UPDATE c.ducklake_table SET path = 'x/../del/' WHERE table_name = 'del'"}
		}, "its relative path has a .. part", ""},
		{"schema with ..", func(string) []string {
			return []string{"UPDATE c.ducklake_schema SET path = 'x/../main/' WHERE schema_name = 'main'"}
		}, "its relative path has a .. part", ""},
		// DuckDB over HTTP or S3 reads "del?x/" as "del/" (a query
		// follows), a folder as "del?x/"; "#" likewise.
		{"table with ?", func(string) []string {
			return []string{"UPDATE c.ducklake_table SET path = 'del?x/' WHERE table_name = 'del'"}
		}, datapath.ReasonChar, "del?x"},
		{"table with #", func(string) []string {
			return []string{"UPDATE c.ducklake_table SET path = 'del#x/' WHERE table_name = 'del'"}
		}, datapath.ReasonChar, "del#x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			id := versionIDs(t, root)[2]
			dir := filepath.Join(root, "versions", id)
			// The ".." cases climb out of a folder that exists, so that a
			// local reader would open the files.
			for _, d := range []string{filepath.Join(root, "data", "x"), filepath.Join(root, "data", "main", "x")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if tc.link != "" {
				if err := os.Symlink(filepath.Join(root, "data", "main", "del"), filepath.Join(root, "data", "main", tc.link)); err != nil {
					t.Fatal(err)
				}
			}
			execCatalog(t, filepath.Join(dir, "ducklake.duckdb"), tc.stmts(root)...)
			testlakes.EditVersion(t, dir, nil)
			before := snapshotTree(t, root)

			rep, err := Backfill(ctx, st, opts)
			if !errors.Is(err, ErrBackfillIncomplete) || rep.Counts[Written] != 0 {
				t.Fatalf("Backfill = %v (%v), want nothing written", err, rep.Counts)
			}
			if added := newFiles(before, snapshotTree(t, root)); len(added) > 0 {
				t.Errorf("backfill wrote %q", added)
			}
			for _, r := range rep.Results {
				if r.Outcome != Failed || r.Problem != ProblemViolation || !strings.Contains(r.Error, "of main.del is outside the data path") || !strings.Contains(r.Error, tc.why) {
					t.Errorf("cell %s: %s %s: %s; want failed, a violation naming main.del's files and %q", r.Format, r.Outcome, r.Problem, r.Error, tc.why)
				}
			}

			site := webSite(t, http.FileServer(http.Dir(root)))
			// 1.0, the source's own format, alone: no cell to plan, so
			// the content pass alone must find it; 0.4 and 1.1: the plan
			// of the missing cells finds it too.
			for _, formats := range [][]string{{"1.0"}, opts.Formats} {
				for name, st := range map[string]store.Store{"folder": st, "web site": site} {
					copts := opts
					copts.Formats, copts.Cache = formats, t.TempDir()
					rep, err := Check(ctx, st, copts)
					if !errors.Is(err, ErrDifferences) {
						t.Fatalf("%s, formats %v: Check = %v, want a difference", name, formats, err)
					}
					found := false
					for _, f := range rep.Findings {
						found = found || (f.Kind == KindDifference && f.Version == id && strings.Contains(f.Detail, "versions/"+id+"/ducklake.duckdb") &&
							strings.Contains(f.Detail, "of main.del is outside the data path") && strings.Contains(f.Detail, tc.why))
					}
					if !found {
						t.Errorf("%s, formats %v: no difference of version %s naming main.del's files and %q in %+v", name, formats, id, tc.why, rep.Findings)
					}
				}
			}
		})
	}
}

// TestFalseFormatClaimUnlistedFiles: a frozen catalog whose version.json
// claims another DuckLake format than the file holds, and whose data files
// cannot be listed (a delete file's recorded size is no number), is a
// difference (exit 3) naming the claim and the truth, as it is when the
// files can be listed, beside the unreadable listing; before 68ca657 the
// listing's failure replaced the claim's finding and check exited 4. The
// listing fails by injection: the value that failed it (a delete file's
// size made text) makes the catalog unreadable since metadata columns are
// held to their types (formats.Version.TypeDiffs). The
// claim (1.1) is the only format checked, so no cell of the version is
// missing and the plan does not open the catalog: only the content pass
// sees the claim.
func TestFalseFormatClaimUnlistedFiles(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	id := versionIDs(t, root)[2]
	dir := filepath.Join(root, "versions", id)
	testlakes.EditVersion(t, dir, setClaim("ducklake", "format", "1.1"))
	ctx = faults.With(ctx, func(p faults.Point) error {
		if p.Name == "compare/list" {
			return errors.New("injected: the listing fails")
		}
		return nil
	})
	site := webSite(t, http.FileServer(http.Dir(root)))
	want := "versions/" + id + "/ducklake.duckdb holds DuckLake format 1.0 (detected from its version row and tables), but version.json's ducklake.format says 1.1"
	for name, st := range map[string]store.Store{"folder": st, "web site": site} {
		t.Run(name, func(t *testing.T) {
			rep, err := Check(ctx, st, Options{Versions: []string{"3"}, Formats: []string{"1.1"}, Jobs: 2, Cache: t.TempDir()})
			if !errors.Is(err, ErrDifferences) {
				t.Fatalf("Check = %v, want a difference", err)
			}
			var claim, listing bool
			for _, f := range rep.Findings {
				claim = claim || (f.Kind == KindDifference && f.Version == id && strings.Contains(f.Detail, want))
				listing = listing || (f.Kind == KindUnverifiable && f.Version == id && strings.Contains(f.Detail, "list the data files of versions/"+id+"/ducklake.duckdb"))
			}
			if !claim || !listing {
				t.Errorf("findings %+v: want the false claim (%q) and the unlisted files", rep.Findings, want)
			}
		})
	}
}

// TestPublishedTableOutsideDataDir: a published catalog whose table
// folder is recorded by absolute path (this machine's own data folder)
// reads the same rows as its frozen catalog, and is proved equivalent, but
// readers elsewhere would look elsewhere: its proof fails with a violation
// naming the files (compare's BUnderDataPath, Outside). One whose schema
// folder has a ".." names its data files by other paths than the frozen
// catalog: a difference naming them. Check exits 3 either way.
func TestPublishedTableOutsideDataDir(t *testing.T) {
	ctx := context.Background()
	golden, opts := publishedLake(t)
	opts.Formats = []string{"1.1"}
	for _, tc := range []struct {
		name  string
		stmts func(root string) []string
		want  []string // what the failed proof says
	}{
		{"table by absolute path", func(root string) []string {
			return []string{fmt.Sprintf("UPDATE c.ducklake_table SET path = '%s/', path_is_relative = false WHERE table_name = 'del'", filepath.Join(root, "data", "main", "del"))}
		}, []string{"of main.del is outside the data path", "recorded by absolute path"}},
		{"schema with ..", func(string) []string {
			return []string{"UPDATE c.ducklake_schema SET path = 'main/../main/' WHERE schema_name = 'main'"}
		}, []string{"not equivalent", "main/../main/del/" + delData}}, // first named by its statistics, which A has for the file by its own path
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			id := versionIDs(t, root)[2]
			execCatalog(t, filepath.Join(root, "versions", id, "catalogs", "1.1.duckdb"), tc.stmts(root)...)
			rep, err := Check(ctx, st, opts)
			if !errors.Is(err, ErrDifferences) {
				t.Fatalf("Check = %v, want a difference", err)
			}
			if len(rep.Proofs) != 1 || rep.Proofs[0].OK {
				t.Fatalf("proofs %+v, want the 1.1 proof failed", rep.Proofs)
			}
			for _, w := range tc.want {
				if !strings.Contains(rep.Proofs[0].Error, w) {
					t.Errorf("proof error %q, want it to say %q", rep.Proofs[0].Error, w)
				}
			}
		})
	}
}
