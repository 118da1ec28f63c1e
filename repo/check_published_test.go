package repo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/duckblocks"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// publishedLake backfills the last version of 06_deletes (source 1.0) with
// 0.4 and 1.1 catalogs and returns the repository's root and the options
// that check exactly that version. The repository is built once per test
// binary and shared (sharedFixture): callers copy the root (cloneRepo)
// before changing it.
func publishedLake(t *testing.T) (root string, opts Options) {
	t.Helper()
	opts = Options{Versions: []string{"3"}, Formats: []string{"0.4", "1.0", "1.1"}, Jobs: 2}
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	root = publishedFixture.get(t, func(t *testing.T, root string) {
		copyParts(t, lake, root)
		st, err := local.New(root)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Backfill(context.Background(), st, opts)
		if err != nil || rep.Counts[Written] != 2 {
			t.Fatalf("Backfill: %v (%v), want 2 catalogs written", err, rep.Counts)
		}
		if _, err := Check(context.Background(), st, opts); err != nil {
			t.Fatalf("Check after backfill: %v", err)
		}
	})
	return root, opts
}

var publishedFixture = sharedFixture{name: "published"}

// cloneRepo copies a repository folder and returns the copy's store.
func cloneRepo(t *testing.T, root string) (*local.Store, string) {
	t.Helper()
	dst := t.TempDir()
	if err := copyTree(root, dst); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(dst)
	if err != nil {
		t.Fatal(err)
	}
	return st, dst
}

// usedBlockOffset is a file offset in the first block that holds a
// table's rows in a DuckDB file (duckblocks.Offset).
func usedBlockOffset(t *testing.T, path, table string) int64 {
	t.Helper()
	off, err := duckblocks.Offset(path, table)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	if err := duckblocks.FlipByte(path, off); err != nil {
		t.Fatal(err)
	}
}

// rewriteDataFile rewrites a data file of main.del with one value changed
// (a different size on disk than the catalog records).
func rewriteDataFile(t *testing.T, path string) {
	t.Helper()
	db := testduck.Open(t, "")
	defer db.Close()
	tmp := path + ".new"
	if _, err := db.Exec(fmt.Sprintf(`COPY (SELECT id, CASE WHEN id = 3 THEN 'changed' ELSE v END AS v FROM read_parquet('%s')) TO '%s' (FORMAT parquet, FIELD_IDS {id: 1, v: 2})`, path, tmp)); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckPublishedFiles tampers with a backfilled repository in every way
// a reader would notice and requires check to fail with the right exit
// class, naming the file: the format in a file must be the one in its name,
// every entry under catalogs/ is checked, every byte of a published catalog
// is read, a corrupt published catalog is a difference wherever the damage
// is, a write-ahead log beside a catalog is a violation, and data files
// must match the catalog's record.
func TestCheckPublishedFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, all := publishedLake(t)
	// Most cases need one published catalog (1.1); those about 0.4 prove both.
	one := all
	one.Formats = []string{"1.0", "1.1"}
	id := versionIDs(t, golden)[2]
	const delFile = "data/main/del/ducklake-01a229fa-2280-7a87-ac6f-bba0032cc116.parquet"
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, root, v, c string)
		want   error
		detail string
		all    bool // prove 0.4 too
	}{
		{"swapped 0.4 and 1.1", func(t *testing.T, _, _, c string) {
			os.Rename(filepath.Join(c, "0.4.duckdb"), filepath.Join(c, "x"))
			os.Rename(filepath.Join(c, "1.1.duckdb"), filepath.Join(c, "0.4.duckdb"))
			os.Rename(filepath.Join(c, "x"), filepath.Join(c, "1.1.duckdb"))
		}, ErrDifferences, "holds DuckLake format", true},
		{"frozen catalog as 0.4", func(t *testing.T, _, v, c string) {
			os.Remove(filepath.Join(c, "0.4.duckdb"))
			copyFile(t, filepath.Join(v, "ducklake.duckdb"), filepath.Join(c, "0.4.duckdb"))
		}, ErrDifferences, "holds DuckLake format 1.0 (detected from its version row and tables), not 0.4", true},
		// DuckLake's readers load every ducklake_metadata row: a second
		// version row, or one of a scope they do not know, fails every
		// ATTACH; the proof took the first row of each key and passed
		// them (trial findings repro-9, repro-8).
		{"a second version row in 0.4", func(t *testing.T, _, _, c string) {
			execCatalog(t, filepath.Join(c, "0.4.duckdb"), "INSERT INTO c.ducklake_metadata VALUES ('version', '1.0', NULL, NULL)")
		}, ErrDifferences, "key 'version', rows ('version', '0.4'), ('version', '1.0')", true},
		{"a row of an unknown scope in 1.1", func(t *testing.T, _, _, c string) {
			execCatalog(t, filepath.Join(c, "1.1.duckdb"), "INSERT INTO c.ducklake_metadata VALUES ('foo', 'bar', 'weird', 1)")
		}, ErrDifferences, "scope 'weird' is neither 'schema' nor 'table'", false},
		// A metadata column of another type than DuckLake writes holds the
		// same values for the proof, while DuckLake's readers bind their
		// SQL to the type (their file pruning compares the statistics'
		// data_file_id with the data files', which DuckDB does not bind
		// for a VARCHAR); check passed it.
		{"a retyped metadata column in 1.1", func(t *testing.T, _, _, c string) {
			execCatalog(t, filepath.Join(c, "1.1.duckdb"), "ALTER TABLE c.ducklake_file_column_stats ALTER data_file_id SET DATA TYPE VARCHAR")
		}, ErrDifferences, "ducklake_file_column_stats.data_file_id is VARCHAR, format 1.1 has BIGINT", false},
		{"collated statistics bounds in 1.1", func(t *testing.T, _, _, c string) {
			execCatalog(t, filepath.Join(c, "1.1.duckdb"), "ALTER TABLE c.ducklake_file_column_stats ALTER min_value SET DATA TYPE VARCHAR COLLATE NOCASE")
		}, ErrDifferences, "ducklake_file_column_stats.min_value is VARCHAR COLLATE NOCASE, format 1.1 has VARCHAR", false},
		{"a generated metadata column in 1.1", func(t *testing.T, _, _, c string) {
			tab, _ := formats.V1_1.Table("ducklake_file_column_stats")
			var defs, cols []string
			for _, col := range tab.Columns {
				if col.Name == "extra_stats" {
					defs = append(defs, col.Name+" "+col.Type+" GENERATED ALWAYS AS (CASE WHEN current_setting('TimeZone') = 'UTC' THEN NULL ELSE '{}' END) VIRTUAL")
					continue
				}
				defs = append(defs, col.Name+" "+col.Type)
				cols = append(cols, col.Name)
			}
			execCatalog(t, filepath.Join(c, "1.1.duckdb"),
				"CREATE TABLE c.kept AS SELECT * FROM c.ducklake_file_column_stats",
				"DROP TABLE c.ducklake_file_column_stats",
				"CREATE TABLE c.ducklake_file_column_stats("+strings.Join(defs, ", ")+")",
				"INSERT INTO c.ducklake_file_column_stats ("+strings.Join(cols, ", ")+") SELECT "+strings.Join(cols, ", ")+" FROM c.kept",
				"DROP TABLE c.kept")
		}, ErrDifferences, "ducklake_file_column_stats.extra_stats is VARCHAR GENERATED, format 1.1 has VARCHAR", false},
		{"garbage in the source format", func(t *testing.T, _, _, c string) {
			garbage := make([]byte, 5000)
			rand.Read(garbage)
			os.WriteFile(filepath.Join(c, "1.0.duckdb"), garbage, 0o644)
		}, ErrDifferences, "own format 1.0", false},
		{"undeclared 9.9", func(t *testing.T, _, _, c string) {
			copyFile(t, filepath.Join(c, "1.1.duckdb"), filepath.Join(c, "9.9.duckdb"))
		}, ErrDifferences, "format 9.9 is not declared", false},
		{"undeclared 1.1-dev1", func(t *testing.T, _, _, c string) {
			copyFile(t, filepath.Join(c, "1.1.duckdb"), filepath.Join(c, "1.1-dev1.duckdb"))
		}, ErrDifferences, "format 1.1-dev1 is not declared", false},
		{"not a .duckdb file", func(t *testing.T, _, _, c string) {
			os.WriteFile(filepath.Join(c, "README.txt"), []byte("hello"), 0o644)
		}, ErrDifferences, "catalogs/README.txt: not a catalog", false},
		{"a folder", func(t *testing.T, _, _, c string) {
			os.Mkdir(filepath.Join(c, "old"), 0o755)
		}, ErrDifferences, "a folder in catalogs/", false},
		{"a folder named like a catalog", func(t *testing.T, _, _, c string) {
			os.Mkdir(filepath.Join(c, "9.9.duckdb"), 0o755)
		}, ErrDifferences, "catalogs/9.9.duckdb: a folder in catalogs/", false},
		{"a valid symlink", func(t *testing.T, _, _, c string) {
			os.Symlink("1.1.duckdb", filepath.Join(c, "latest.duckdb"))
		}, ErrDifferences, "a symbolic link in catalogs/", false},
		{"a dangling symlink at a catalog path", func(t *testing.T, _, _, c string) {
			os.Remove(filepath.Join(c, "1.1.duckdb"))
			os.Symlink("nowhere.duckdb", filepath.Join(c, "1.1.duckdb"))
		}, ErrDifferences, "catalogs/1.1.duckdb is a symbolic link, not a catalog file", false},
		{"wal beside a published catalog", func(t *testing.T, _, _, c string) {
			os.WriteFile(filepath.Join(c, "1.1.duckdb.wal"), []byte("wal"), 0o644)
		}, ErrDifferences, "write-ahead log in catalogs/", false},
		// DuckDB reads a checkpoint log only beside a main log with a
		// checkpoint marker: still a violation, but not "replayed".
		{"checkpoint log beside a published catalog", func(t *testing.T, _, _, c string) {
			os.WriteFile(filepath.Join(c, "1.1.duckdb.checkpoint.wal"), []byte("wal"), 0o644)
		}, ErrDifferences, "catalogs/1.1.duckdb.checkpoint.wal: a DuckDB checkpoint log in catalogs/: DuckDB reads one only beside the catalog's main write-ahead log (<catalog>.wal) holding a checkpoint marker", false},
		{"wal beside the frozen catalog", func(t *testing.T, _, v, _ string) {
			os.WriteFile(filepath.Join(v, "ducklake.duckdb.wal"), []byte("wal"), 0o644)
		}, ErrDifferences, "write-ahead log beside the frozen catalog", false},
		{"published catalog without its last block", func(t *testing.T, _, _, c string) {
			p := filepath.Join(c, "1.1.duckdb")
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()-256*1024)
		}, ErrDifferences, "B cannot be read while A can", false},
		{"published catalog cut to two thirds", func(t *testing.T, _, _, c string) {
			p := filepath.Join(c, "1.1.duckdb")
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()*2/3)
		}, ErrDifferences, "B cannot be read while A can", false},
		{"byte flipped in ducklake_table_stats", func(t *testing.T, _, _, c string) {
			p := filepath.Join(c, "1.1.duckdb")
			flipByte(t, p, usedBlockOffset(t, p, "ducklake_table_stats"))
		}, ErrDifferences, "B cannot be read while A can", false},
		{"byte flipped in ducklake_column", func(t *testing.T, _, _, c string) {
			p := filepath.Join(c, "0.4.duckdb")
			flipByte(t, p, usedBlockOffset(t, p, "ducklake_column"))
		}, ErrDifferences, "B cannot be read while A can", true},
		{"data file rewritten", func(t *testing.T, root, _, _ string) {
			rewriteDataFile(t, filepath.Join(root, delFile))
		}, ErrDifferences, "bytes on disk, the catalog records", false},
		{"data file missing", func(t *testing.T, root, _, _ string) {
			os.Remove(filepath.Join(root, delFile))
		}, ErrUnverifiable, "no such file", false},
		// File-manager litter no reader opens is a warning; it failed
		// check (exit 3) before.
		{"a .DS_Store", func(t *testing.T, _, _, c string) {
			os.WriteFile(filepath.Join(c, ".DS_Store"), []byte("Bud1"), 0o644)
		}, nil, "catalogs/.DS_Store: a hidden file in catalogs/ that no reader opens", false},
		{"a hidden write-ahead log", func(t *testing.T, _, _, c string) {
			os.WriteFile(filepath.Join(c, ".1.1.duckdb.wal"), []byte("wal"), 0o644)
		}, ErrDifferences, "write-ahead log in catalogs/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case its own copy
			st, root := cloneRepo(t, golden)
			v := filepath.Join(root, "versions", id)
			tc.mutate(t, root, v, filepath.Join(v, "catalogs"))
			opts := one
			if tc.all {
				opts = all
			}
			rep, err := Check(ctx, st, opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			// The hint after a published catalog's difference says to
			// remove it and backfill; it said "restore or withdraw it",
			// and withdrawing is for a version, which is fine here.
			var ce *CheckError
			if errors.As(err, &ce) && errors.Is(err, ErrUnverifiable) && !strings.HasPrefix(ce.Hint(), "restore the file the first finding names") {
				t.Errorf("hint %q, want it to say to restore the file (it said only to see the report)", ce.Hint())
			}
			if errors.As(err, &ce) && errors.Is(err, ErrDifferences) {
				published := ce.First.Key == CatalogKey(id, ce.First.Format) && !strings.HasPrefix(ce.First.Detail, "rule broken: ")
				if h := ce.Hint(); published != strings.Contains(h, "remove "+filepath.Join(root, filepath.FromSlash(ce.First.Key))+" and run `fdl-formats backfill REPO`") {
					t.Errorf("first finding %s %s: %s\nhint %q", ce.First.Kind, ce.First.Key, ce.First.Detail, h)
				}
				if strings.Contains(tc.detail, "B cannot be read while A can") && !published {
					t.Errorf("first finding %s %s is not the published catalog", ce.First.Kind, ce.First.Key)
				}
			}
			var details []string
			for _, f := range rep.Findings {
				details = append(details, fmt.Sprintf("%s %s: %s", f.Kind, f.Key, f.Detail))
			}
			if all := strings.Join(details, "\n"); !strings.Contains(all, tc.detail) {
				t.Errorf("no finding about %q:\n%s", tc.detail, all)
			}
			// A proof whose catalog could not be read compared nothing:
			// it counts no delete files, not zero of them.
			for _, p := range rep.Proofs {
				if strings.Contains(p.Error, "cannot be read while") && p.DeleteFiles != nil {
					t.Errorf("proof of %s: delete files %+v, want none (no comparison ran)", p.Key, *p.DeleteFiles)
				}
			}
		})
	}
}

// TestBackfillReadsOnlyVerifiedBytes plants a real write-ahead log beside a
// frozen catalog whose sha256 still matches version.json: DuckDB would
// replay its edits on open. Backfill must publish catalogs without them,
// and check must report the log.
func TestBackfillReadsOnlyVerifiedBytes(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	id := versionIDs(t, root)[2]
	frozen := filepath.Join(root, "versions", id, "ducklake.duckdb")
	// Edit a byte-identical copy without a checkpoint, then move its log
	// beside the frozen catalog.
	edited := filepath.Join(t.TempDir(), "ducklake.duckdb")
	copyFile(t, frozen, edited)
	db := testduck.Open(t, edited)
	for _, q := range []string{"PRAGMA disable_checkpoint_on_shutdown", "SET wal_autocheckpoint = '1TB'", "UPDATE ducklake_snapshot_changes SET author = 'mallory'"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	if err := os.Rename(edited+".wal", frozen+".wal"); err != nil {
		t.Fatalf("no write-ahead log was left to plant: %v", err)
	}

	opts := Options{Versions: []string{"3"}, Formats: []string{"1.0", "1.1"}, Jobs: 1}
	if _, err := Backfill(ctx, st, opts); err != nil {
		t.Fatalf("Backfill: %v", err)
	}
	pub := filepath.Join(root, "versions", id, "catalogs", "1.1.duckdb")
	check := testduck.Open(t, "")
	defer check.Close()
	var n int
	if _, err := check.Exec(fmt.Sprintf("ATTACH '%s' AS pub (READ_ONLY)", pub)); err != nil {
		t.Fatal(err)
	}
	if err := check.QueryRow("SELECT count(*) FROM pub.ducklake_snapshot_changes WHERE author = 'mallory'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the published catalog holds %d edits that are only in the write-ahead log", n)
	}
	_, err := Check(ctx, st, opts)
	if !errors.Is(err, ErrDifferences) || !strings.Contains(err.Error(), "write-ahead log beside the frozen catalog") {
		t.Errorf("Check = %v, want a difference naming the write-ahead log", err)
	}
}

// TestBackfillNonRegularCatalogPath: a symlink at a catalog's path is not
// "already there", before the run (plan) or when it appears during it.
func TestBackfillNonRegularCatalogPath(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	id := versionIDs(t, root)[2]
	catalogs := filepath.Join(root, "versions", id, "catalogs")
	if err := os.MkdirAll(catalogs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere.duckdb", filepath.Join(catalogs, "1.1.duckdb")); err != nil {
		t.Fatal(err)
	}
	opts := Options{Versions: []string{"3"}, Formats: []string{"1.0", "1.1"}, Jobs: 1}
	rep, err := Backfill(ctx, st, opts)
	if err != nil || rep.Counts[AlreadyThere] != 0 || rep.Counts[Written] != 0 {
		t.Errorf("Backfill with a dangling symlink at 1.1: %v %v, want nothing written and nothing already there", rep.Counts, err)
	}
	if c := rep.Plan.Cell(id, "1.1"); c.State != Error || c.Problem != ProblemViolation {
		t.Errorf("cell 1.1 = %s/%s, want error/violation", c.State, c.Problem)
	}

	// The same link appearing just before the catalog is published.
	os.Remove(filepath.Join(catalogs, "1.1.duckdb"))
	rep, err = Backfill(ctx, symlinkFirst{st}, opts)
	if !errors.Is(err, ErrBackfillIncomplete) || rep.Counts[AlreadyThere] != 0 || !strings.Contains(err.Error(), "is a symbolic link, not a catalog file") {
		t.Errorf("Backfill racing a symlink: %v %v, want a failure naming the symlink", rep.Counts, err)
	}
}

// symlinkFirst is a store where a dangling symlink appears at every key
// just before it is created (as another writer could make one).
type symlinkFirst struct{ *local.Store }

func (s symlinkFirst) Create(ctx context.Context, key string, r io.Reader) error {
	p, err := s.Path(key)
	if err != nil {
		return err
	}
	if err := os.Symlink("nowhere.duckdb", p); err != nil {
		return err
	}
	return s.Store.Create(ctx, key, r)
}

// TestCheckDemoContents: a repository made by the project's generator
// (lakegen, plain DuckDB) passes every content check: its data and delete
// files have the sizes and footers its catalogs record, and only the
// declared formats not yet written are reported.
func TestCheckDemoContents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A copy of the demo generated once per test binary (the rows lakegen
	// records with lakegen.Demo() stay in its result: the files are alike).
	_, st := demoRepo(ctx, t)
	rep, err := Check(ctx, st, Options{Jobs: 2})
	if !errors.Is(err, ErrWorkMissing) {
		t.Fatalf("Check = %v, want only work missing", err)
	}
	for _, f := range rep.Findings {
		if f.Kind != KindMissing && f.Kind != KindWarning {
			t.Errorf("%s %s %s: %s", f.Kind, f.Version, f.Key, f.Detail)
		}
	}
}

// TestCheckUndeclaredSourceFormatCatalog: a catalogs/<format>.duckdb in the
// frozen catalog's own format, where fdl.json does not declare that format,
// is opened by that format's readers before the frozen catalog (the spec's
// order: catalogs/ first) and is never proved. Declared, it is a violation
// ("a catalog in the frozen catalog's own format"); undeclared, any other
// format's catalog is one too ("not declared in fdl.json"); this one was
// shown as the frozen catalog's cell (Source) and check exited 0.
func TestCheckUndeclaredSourceFormatCatalog(t *testing.T) {
	ctx := context.Background()
	golden, _ := publishedLake(t)
	st, root := cloneRepo(t, golden)
	id := versionIDs(t, golden)[2]
	// The frozen catalogs are 1.0; declare 0.4 and 1.1 only.
	fdl := `{"fdl": "0.1", "data_dir": "data/", "formats": [` +
		`{"ducklake": "0.4", "duckdb": ">= 1.5.0, < 1.5.2"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]}`
	if err := os.WriteFile(filepath.Join(root, "fdl.json"), []byte(fdl), 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 5000)
	rand.Read(garbage)
	bad := filepath.Join(root, "versions", id, "catalogs", "1.0.duckdb")
	if err := os.WriteFile(bad, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ctx, st, Options{Versions: []string{"3"}, Formats: []string{"1.1"}, Jobs: 2})
	if !errors.Is(err, ErrDifferences) {
		t.Fatalf("Check = %v, want a difference: DuckDB 1.5.2+ opens catalogs/1.0.duckdb (5,000 random bytes) before the frozen catalog", err)
	}
	found := false
	for _, f := range rep.Findings {
		found = found || strings.HasSuffix(f.Key, "catalogs/1.0.duckdb")
	}
	if !found {
		t.Errorf("no finding names catalogs/1.0.duckdb: %+v", rep.Findings)
	}
}

// TestCheckCatalogsIsAFile: a regular file named catalogs in a version
// folder, where catalogs/ should be, is something the version folder may
// not hold (exit 3: remove it; backfill cannot make the folder while it is
// there). It was reported as unverifiable (exit 4, "restore the missing
// input") under no key, with the operating system's "not a directory".
func TestCheckCatalogsIsAFile(t *testing.T) {
	ctx := context.Background()
	golden, opts := publishedLake(t)
	st, root := cloneRepo(t, golden)
	id := versionIDs(t, golden)[2]
	c := filepath.Join(root, "versions", id, "catalogs")
	if err := os.RemoveAll(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Formats = []string{"1.0"} // no catalog expected: only the folder is at stake
	rep, err := Check(ctx, st, opts)
	if !errors.Is(err, ErrDifferences) || errors.Is(err, ErrUnverifiable) {
		t.Fatalf("Check = %v, want a difference (a violation), not unverifiable", err)
	}
	want := "versions/" + id + "/catalogs"
	found := false
	for _, f := range rep.Findings {
		found = found || f.Key == want
	}
	if !found {
		t.Errorf("no finding with key %s: %+v", want, rep.Findings)
	}
}

// TestCheckProgressResult: each proof's progress (the "check cell
// finished" log line) names what the report calls it. Every proof that
// did not pass said "failed", so a data folder that went missing (exit 4,
// restore it) read in the logs as catalogs that failed their proof.
func TestCheckProgressResult(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a lake")
	}
	root, opts := publishedLake(t)
	st, dir := cloneRepo(t, root)
	if err := os.Rename(filepath.Join(dir, "data"), filepath.Join(dir, "data-moved")); err != nil {
		t.Fatal(err)
	}
	var results []string
	opts.Progress = func(p Progress) { results = append(results, p.Result) }
	if _, err := Check(context.Background(), st, opts); !errors.Is(err, ErrUnverifiable) {
		t.Fatalf("Check without the data folder: %v, want %v", err, ErrUnverifiable)
	}
	if len(results) == 0 {
		t.Fatal("no progress")
	}
	for _, r := range results {
		if r != string(KindUnverifiable) {
			t.Errorf("progress results %q, want each %q", results, KindUnverifiable)
			break
		}
	}
}
