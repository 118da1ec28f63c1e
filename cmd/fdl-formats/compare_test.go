package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// runApp runs the CLI in-process and returns stdout, stderr and the exit code.
func runApp(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errOut
	err := app.Run(context.Background(), append([]string{"fdl-formats"}, args...))
	return out.String(), errOut.String(), exitCode(err)
}

func copyCatalog(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "b.duckdb")
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// lakeCatalog returns the first version's catalog of a conformance lake and its data folder.
func lakeCatalog(t *testing.T, archive, lake string) (catalog, data string) {
	t.Helper()
	dir := testlakes.Lake(t, archive, lake)
	versions, err := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
	if err != nil || len(versions) == 0 {
		t.Fatalf("no versions in %s: %v", dir, err)
	}
	return versions[0], filepath.Join(dir, "data")
}

func TestCompareCommand(t *testing.T) {
	a, data := lakeCatalog(t, "lakes", "06_deletes")

	t.Run("equivalent", func(t *testing.T) {
		out, _, code := runApp(t, "compare", a, copyCatalog(t, a), "--data", data)
		if code != exitOK || !strings.Contains(out, "result: equivalent") || !strings.Contains(out, "fdl-formats reader") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})

	// With a bound on the readers' spill (their databases then come from
	// a pool of the command's).
	t.Run("--max-spill", func(t *testing.T) {
		out, _, code := runApp(t, "compare", "--max-spill", "64MiB", a, copyCatalog(t, a), "--data", data)
		if code != exitOK || !strings.Contains(out, "result: equivalent") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})

	t.Run("different", func(t *testing.T) {
		b := copyCatalog(t, a)
		db := testduck.Open(t, b)
		if _, err := db.Exec(`DELETE FROM ducklake_delete_file`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		out, errOut, code := runApp(t, "compare", a, b, "--data", data, "--json")
		if code != exitDifferent {
			t.Fatalf("exit %d, want %d\n%s\n%s", code, exitDifferent, out, errOut)
		}
		var rep struct {
			Equivalent  bool `json:"equivalent"`
			Differences []struct {
				Kind   string `json:"kind"`
				Reason string `json:"reason"`
			} `json:"differences"`
			Readers []string `json:"readers"`
			Error   string   `json:"error"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("--json output: %v\n%s", err, out)
		}
		if rep.Equivalent || len(rep.Differences) == 0 || rep.Error == "" || len(rep.Readers) == 0 {
			t.Fatalf("report: %+v", rep)
		}
	})

	t.Run("an earlier pair", func(t *testing.T) {
		// The version before, proved and kept in the cache, is offered to
		// carry; 06_deletes is far below the walk worth carrying, and the
		// report says so. Either flag alone is a usage error.
		versions, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(a)), "*", "ducklake.duckdb"))
		slices.Sort(versions)
		a0 := versions[len(versions)-2]
		b0, cache := copyCatalog(t, a0), t.TempDir()
		if out, _, code := runApp(t, "compare", a0, b0, "--data", data, "--cache", cache); code != exitOK {
			t.Fatalf("earlier pair: exit %d\n%s", code, out)
		}
		out, _, code := runApp(t, "compare", a, copyCatalog(t, a), "--data", data, "--cache", cache, "--earlier-a", a0, "--earlier-b", b0)
		if code != exitOK || !strings.Contains(out, "nothing carried: the walk is short") {
			t.Fatalf("exit %d\n%s", code, out)
		}
		if _, _, code := runApp(t, "compare", a, copyCatalog(t, a), "--data", data, "--earlier-a", a0); code != exitUsage {
			t.Fatalf("--earlier-a alone: exit %d, want %d", code, exitUsage)
		}
	})

	t.Run("incomparable", func(t *testing.T) {
		b := copyCatalog(t, a)
		db := testduck.Open(t, b)
		if _, err := db.Exec(`UPDATE ducklake_data_file SET path = 'gone.parquet' WHERE data_file_id = 0`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		// A file only B names that is not there: B cannot be read where
		// A can, a difference (exit 3), nothing for the operator to restore.
		out, _, code := runApp(t, "compare", a, b, "--data", data)
		if code != exitDifferent || !strings.Contains(out, "B cannot be read where A can") || !strings.Contains(out, "gone.parquet") {
			t.Fatalf("exit %d, want %d\n%s", code, exitDifferent, out)
		}
		// A data file both name missing: could not compare (exit 4).
		own := t.TempDir()
		if err := os.CopyFS(own, os.DirFS(data)); err != nil {
			t.Fatal(err)
		}
		// The file data_file_id 0 names (relative to main/del/).
		db = testduck.Open(t, a+"?access_mode=read_only")
		var rel string
		err := db.QueryRow(`SELECT path FROM ducklake_data_file WHERE data_file_id = 0`).Scan(&rel)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		gone := filepath.Join(own, "main", "del", rel)
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		out, _, code = runApp(t, "compare", a, copyCatalog(t, a), "--data", own)
		if code != exitIncomparable || !strings.Contains(out, "could not compare") {
			t.Fatalf("exit %d, want %d\n%s", code, exitIncomparable, out)
		}
	})

	t.Run("relative paths, one holding the other", func(t *testing.T) {
		// compare ducklake.duckdb out/ducklake.duckdb: B's path holds A's,
		// so every message naming B names A too. Which reader failed
		// decides: B's is a difference (exit 3), A's could not compare
		// (exit 4).
		t.Chdir(t.TempDir())
		if err := os.Mkdir("out", 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"ducklake.duckdb", "out/ducklake.duckdb"} {
			if err := os.Rename(copyCatalog(t, a), p); err != nil {
				t.Fatal(err)
			}
		}
		db := testduck.Open(t, "out/ducklake.duckdb")
		if _, err := db.Exec(`UPDATE ducklake_column SET column_order = NULL WHERE rowid = 0`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		out, _, code := runApp(t, "compare", "ducklake.duckdb", "out/ducklake.duckdb", "--data", data)
		if code != exitDifferent || !strings.Contains(out, "B cannot be read where A can") {
			t.Fatalf("B fails: exit %d, want %d\n%s", code, exitDifferent, out)
		}
		out, _, code = runApp(t, "compare", "out/ducklake.duckdb", "ducklake.duckdb", "--data", data)
		if code != exitIncomparable || !strings.Contains(out, "could not compare") {
			t.Fatalf("A fails: exit %d, want %d\n%s", code, exitIncomparable, out)
		}
	})

	t.Run("difference before an unreadable file", func(t *testing.T) {
		// Delete files longer than recorded: a difference (the disk
		// check), then unreadable (no footer where the catalog says):
		// exit 3, and the result line says NOT equivalent.
		own := t.TempDir()
		if err := os.CopyFS(own, os.DirFS(data)); err != nil {
			t.Fatal(err)
		}
		deletes, err := filepath.Glob(filepath.Join(own, "*", "*", "*-delete.parquet"))
		if err != nil || len(deletes) == 0 {
			t.Fatalf("no delete file under %s: %v", own, err)
		}
		for _, d := range deletes {
			f, err := os.OpenFile(d, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write([]byte("extra!")); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		versions, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(a)), "*", "ducklake.duckdb"))
		newest := versions[len(versions)-1] // uuidv7: the newest sorts last
		out, errOut, code := runApp(t, "compare", newest, copyCatalog(t, newest), "--data", own)
		if code != exitDifferent || !strings.Contains(out, "result: NOT equivalent") || !strings.Contains(out, "bytes on disk, the catalog records") {
			t.Fatalf("exit %d, want %d and NOT equivalent naming a longer delete file\n%s\n%s", code, exitDifferent, out, errOut)
		}
	})

	t.Run("usage", func(t *testing.T) {
		if _, _, code := runApp(t, "compare", a); code != exitUsage {
			t.Fatalf("exit %d, want %d", code, exitUsage)
		}
	})
}
