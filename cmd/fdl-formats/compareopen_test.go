package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// holdLock takes the write lock DuckDB takes on a file it opens read-write,
// as another process writing the catalog holds it: an open file
// description lock conflicts with DuckDB's own (process-associated) lock
// even in this process. It is released when the test ends.
func holdLock(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		t.Fatal(err)
	}
}

// TestCompareCatalogNotOpened: a catalog compare cannot open at all is
// reported as such, not as a difference between the two (exit 3): a
// file another process holds or that is not there is a runtime failure
// (exit 1, as convert), one that is not a DuckLake catalog invalid input
// (exit 6, as convert). Trial 2 F1.1, F2.4.
func TestCompareCatalogNotOpened(t *testing.T) {
	t.Parallel()
	a, data := lakeCatalog(t, "lakes", "06_deletes")
	dir := t.TempDir()
	text := filepath.Join(dir, "text.duckdb")
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// fdl.json given for a catalog: it was exit 3, "B cannot be read while
	// A can" (DuckDB opens a .json file as a view, not as a database file).
	jsonFile := filepath.Join(dir, "fdl.json")
	if err := os.WriteFile(jsonFile, []byte(`{"fdl": "0.1", "formats": [{"ducklake": "1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.duckdb")
	db := testduck.Open(t, plain)
	if _, err := db.Exec(`CREATE TABLE t (a INTEGER); CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, tc := range []struct {
		name     string
		path     func(t *testing.T) string
		asB      bool
		wantCode int
		wantErr  string
	}{
		{"a mistyped path", func(*testing.T) string { return filepath.Join(dir, "typo.duckdb") }, false, exitFailure, "typo.duckdb: no such file or directory"},
		{"a folder", func(*testing.T) string { return dir }, true, exitInvalid, "cannot be opened: not a DuckDB database file"},
		{"a text file", func(*testing.T) string { return text }, true, exitInvalid, "cannot be opened: not a DuckDB database file"},
		{"a JSON file", func(*testing.T) string { return jsonFile }, true, exitInvalid, "cannot be opened: not a DuckDB database file"},
		{"a DuckDB file without DuckLake tables", func(*testing.T) string { return plain }, false, exitInvalid, "cannot be opened: not a DuckLake catalog (no ducklake_metadata table)"},
		{"a catalog another process holds", func(t *testing.T) string {
			p := copyCatalog(t, a)
			holdLock(t, p)
			return p
		}, true, exitFailure, "cannot be opened: another process holds it open read-write (its lock on the file): IO Error: Could not set lock on file"},
		// A writer keeps its write-ahead log beside the file: the lock is
		// the cause, not a stray log.
		{"a catalog another process writes", func(t *testing.T) string {
			p := copyCatalog(t, a)
			if err := os.WriteFile(p+".wal", []byte("wal"), 0o644); err != nil {
				t.Fatal(err)
			}
			holdLock(t, p)
			return p
		}, false, exitFailure, "cannot be opened: another process holds it open read-write (its lock on the file): catalog " + "%s is held open read-write by another process (its write lock), which keeps its write-ahead log beside it (b.duckdb.wal)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.path(t)
			want := strings.ReplaceAll(tc.wantErr, "%s", p)
			// --no-cache: a proof kept for the same bytes (another
			// test's) stands without opening either catalog.
			args, side := []string{"compare", "--no-cache", p, a, "--data", data}, "A"
			if tc.asB {
				args, side = []string{"compare", "--no-cache", a, p, "--data", data}, "B"
			}
			out, stderr, code := runAppStderr(t, args...)
			if code != tc.wantCode || !strings.Contains(stderr, "Error: catalog "+side+" "+p+" cannot be opened") || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, want %d naming catalog %s and saying %q\nstdout: %s\nstderr: %s", code, tc.wantCode, side, want, out, stderr)
			}
			if strings.Contains(out, "NOT equivalent") || strings.Contains(out, "DIFF") {
				t.Errorf("a report of differences:\n%s", out)
			}
			// Not a DuckDB file: the reason alone, as docs/compare.md quotes
			// it and convert says it. DuckDB's own words followed, and for
			// a .json file they were "Catalog Error: Cannot launch
			// in-memory database in read-only mode!".
			if strings.HasSuffix(want, "not a DuckDB database file") {
				for _, line := range strings.Split(stderr, "\n") {
					if strings.HasPrefix(line, "Error: ") && !strings.HasSuffix(line, want) {
						t.Errorf("error line %q: want it to end %q", line, want)
					}
				}
			}
			if strings.Contains(want, "lock") && !strings.Contains(stderr, "Try: compare it once the process holding it (named above) has closed it") {
				t.Errorf("no hint about the lock:\n%s", stderr)
			}
		})
	}
	t.Run("a write-ahead log beside a catalog no process holds", func(t *testing.T) {
		// Still a catalog its readers read otherwise: a difference.
		b := copyCatalog(t, a)
		if err := os.WriteFile(b+".wal", []byte("wal"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := runAppStderr(t, "compare", "--no-cache", a, b, "--data", data)
		if code != exitDifferent || !strings.Contains(stderr, "write-ahead log beside it") {
			t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitDifferent, out, stderr)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, _, code := runAppStderr(t, "compare", "--no-cache", a, text, "--data", data, "--json")
		if code != exitInvalid || !strings.Contains(out, `"error": "catalog B `+text+` cannot be opened: not a DuckDB database file`) || strings.Contains(out, `"differences": [`) {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
}

// TestConvertLockedSource: convert names the lock on a source another
// process holds (exit 1), not "unreadable DuckDB file (truncated or
// corrupt?)" (exit 6). Trial 2 F1.1.
func TestConvertLockedSource(t *testing.T) {
	catalog, _ := lakeCatalog(t, "lakes", "22_sorted_tables")
	src := copyCatalog(t, catalog)
	holdLock(t, src)
	out := filepath.Join(t.TempDir(), "out.duckdb")
	_, stderr, code := runAppStderr(t, "convert", src, "--to", "1.1", "-o", out)
	if code != exitFailure || !strings.Contains(stderr, "another process holds it open read-write") || strings.Contains(stderr, "truncated or corrupt") {
		t.Fatalf("exit %d, want %d naming the lock\n%s", code, exitFailure, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written")
	}
}

// TestCompareURLDataPathHint: without --data, a catalog whose data_path is
// a URL (as FDL catalogs carry) cannot be read here; the error asked to
// INSTALL httpfs, the hint now says to give --data.
func TestCompareURLDataPathHint(t *testing.T) {
	t.Parallel()
	a, data := lakeCatalog(t, "lakes", "06_deletes")
	b := copyCatalog(t, a)
	db := testduck.Open(t, b)
	if _, err := db.Exec(`UPDATE ducklake_metadata SET value = 'https://fdl.example/lake/data/' WHERE key = 'data_path'; CHECKPOINT`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	c := copyCatalog(t, b)
	out, stderr, code := runAppStderr(t, "compare", "--no-cache", b, c)
	if code != exitIncomparable || !strings.Contains(stderr, "Try: the catalogs' data_path is a URL") || !strings.Contains(stderr, "give --data DIR") {
		t.Errorf("exit %d, want %d and the hint to give --data\nstdout: %s\nstderr: %s", code, exitIncomparable, out, stderr)
	}
	// Both catalogs read the same data file and fail alike: the failure is
	// said once. It was said twice, A's then B's, the same text (DuckDB's
	// message with its LINE 1 and caret each time).
	if n := strings.Count(stderr, "Permission Error"); n != 1 || !strings.Contains(stderr, "(in A and in B alike)") {
		t.Errorf("the failure said %d times, want once, as both catalogs': %s", n, stderr)
	}
	if out, stderr, code := runAppStderr(t, "compare", "--no-cache", b, c, "--data", data); code != exitOK {
		t.Errorf("with --data: exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
	}
}

// TestCompareCatalogPathSaysPhrase: DuckDB's message about a catalog it
// could not attach quotes the catalog's path, whose folders a publisher
// names. A catalog cut short in a folder named "Could not set lock on
// file" was taken for one another process holds (exit 1, a runtime
// failure, with the hint to wait for that process), and in a folder named
// "not a valid DuckDB database file" for no DuckDB file (exit 6): it is a
// catalog B cut short, which no reader reads where A reads (exit 3, as
// in any folder).
func TestCompareCatalogPathSaysPhrase(t *testing.T) {
	t.Parallel()
	a, data := lakeCatalog(t, "lakes", "06_deletes")
	whole, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, phrase := range []string{"Could not set lock on file", "not a valid DuckDB database file"} {
		t.Run(phrase, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), phrase)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			cut := filepath.Join(dir, "ducklake.duckdb")
			if err := os.WriteFile(cut, whole[:3*4096+512], 0o644); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := runAppStderr(t, "compare", "--no-cache", a, cut, "--data", data)
			if code != exitDifferent || !strings.Contains(out, "B cannot be read while A can") || strings.Contains(stderr, "cannot be opened") || strings.Contains(stderr, "Try: compare it once") {
				t.Fatalf("exit %d, want %d (B cut short)\nstdout: %s\nstderr: %s", code, exitDifferent, out, stderr)
			}
		})
	}
}
