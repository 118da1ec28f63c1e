package duckfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestClassifyAttach holds ClassifyAttach to the messages this DuckDB
// really gives for a file that is not a DuckDB database and for a missing
// one (AttachOther), and to DuckDB's lock message.
func TestClassifyAttach(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.duckdb")
	if err := os.WriteFile(text, []byte("hello, not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Named like data files, DuckDB gives another message.
	var dataNamed []string
	for _, name := range []string{"fdl.json", "x.csv", "x.parquet"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"fdl": "0.1", "formats": []}`), 0o644); err != nil {
			t.Fatal(err)
		}
		dataNamed = append(dataNamed, p)
	}
	db := testduck.Open(t, "")
	defer db.Close()
	for _, tc := range []struct {
		path string
		want AttachFailure
	}{
		{text, AttachNotDuckDB},
		{dataNamed[0], AttachNotDuckDB},
		{dataNamed[1], AttachNotDuckDB},
		{dataNamed[2], AttachNotDuckDB},
		{filepath.Join(dir, "missing", "x.duckdb"), AttachOther},
	} {
		_, err := db.Exec("ATTACH '" + tc.path + "' AS c (READ_ONLY)")
		if err == nil {
			t.Fatalf("ATTACH %s succeeded", tc.path)
		}
		if got := ClassifyAttach(err.Error(), tc.path); got != tc.want {
			t.Errorf("ClassifyAttach(%q) = %d, want %d", err, got, tc.want)
		}
	}
	// The lock is per process in DuckDB (one instance per file), so
	// another process's lock is what TestConvertLockedSource and
	// TestCompareCatalogNotOpened (cmd) exercise; here the message alone.
	if got := ClassifyAttach(`IO Error: Could not set lock on file "x.duckdb": Conflicting lock is held in /usr/bin/duckdb (PID 1)`, "x.duckdb"); got != AttachLocked {
		t.Errorf("lock message: %d, want AttachLocked", got)
	}
}

// TestClassifyAttachPathInMessage: DuckDB's messages quote the file's
// path, made absolute and clean, and a publisher names the file and its
// folders (a version folder, a catalog). ClassifyAttach read DuckDB's
// phrases anywhere in the message: a catalog cut short in a folder named
// "Could not set lock on file" was another process's lock (compare's exit
// 1, a runtime failure, for a fault of the file's bytes), one in a folder
// named "not a valid DuckDB database file" no DuckDB file (exit 6).
func TestClassifyAttachPathInMessage(t *testing.T) {
	root := t.TempDir()
	good := filepath.Join(root, "good.duckdb")
	g := testduck.Open(t, good)
	if _, err := g.Exec("CREATE TABLE t AS SELECT range AS i FROM range(100000); CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	g.Close()
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	phrases := []string{"Could not set lock on file", "not a valid DuckDB database file", "a newer version of DuckDB", "Cannot launch in-memory database in read-only mode"}
	db := testduck.Open(t, "")
	attach := func(p string) error {
		t.Helper()
		_, err := db.Exec("ATTACH '" + strings.ReplaceAll(p, "'", "''") + "' AS c (READ_ONLY)")
		if err == nil {
			t.Fatalf("ATTACH %s succeeded", p)
		}
		return err
	}
	// Run from root, so that a relative path is one too: DuckDB quotes
	// it absolute.
	t.Chdir(root)
	for _, phrase := range phrases {
		dir := filepath.Join(root, phrase)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cut := filepath.Join(dir, phrase+".duckdb")
		if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		text := filepath.Join(dir, "text.duckdb")
		if err := os.WriteFile(text, []byte("hello, not a database"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			path string
			want AttachFailure
		}{
			{cut, AttachOther},
			{filepath.Join(phrase, phrase+".duckdb"), AttachOther},
			{"./" + phrase + "/../" + phrase + "/" + phrase + ".duckdb", AttachOther},
			{filepath.Join(dir, "missing.duckdb"), AttachOther},
			// DuckDB's phrases, where it puts them, still count.
			{text, AttachNotDuckDB},
			{filepath.Join(phrase, "text.duckdb"), AttachNotDuckDB},
		} {
			err := attach(tc.path)
			if got := ClassifyAttach(err.Error(), tc.path); got != tc.want {
				t.Errorf("ClassifyAttach(%q) = %d, want %d", err, got, tc.want)
			}
		}
	}
	// A short relative name leaves DuckDB's words whole: only a quoted
	// path is left out.
	if err := os.WriteFile(filepath.Join(root, "d"), []byte("hello, not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := attach("d"); ClassifyAttach(err.Error(), "d") != AttachNotDuckDB {
		t.Errorf("ClassifyAttach(%q) = %d, want AttachNotDuckDB", err, ClassifyAttach(err.Error(), "d"))
	}
	if got := ClassifyAttach(`IO Error: Could not set lock on file "/a/Corrupt database file/x.duckdb": Conflicting lock is held in /usr/bin/duckdb (PID 1)`, "/a/Corrupt database file/x.duckdb"); got != AttachLocked {
		t.Errorf("lock message: %d, want AttachLocked", got)
	}
}
