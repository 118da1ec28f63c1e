package duckfile

import (
	"os"
	"path/filepath"
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
		if got := ClassifyAttach(err.Error()); got != tc.want {
			t.Errorf("ClassifyAttach(%q) = %d, want %d", err, got, tc.want)
		}
	}
	// The lock is per process in DuckDB (one instance per file), so
	// another process's lock is what TestConvertLockedSource and
	// TestCompareCatalogNotOpened (cmd) exercise; here the message alone.
	if got := ClassifyAttach(`IO Error: Could not set lock on file "x.duckdb": Conflicting lock is held in /usr/bin/duckdb (PID 1)`); got != AttachLocked {
		t.Errorf("lock message: %d, want AttachLocked", got)
	}
}
