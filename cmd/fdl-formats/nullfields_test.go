package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestNullRequiredFieldExits: a catalog with NULL where DuckLake's writers
// always write a value (here a data file's table_id) is invalid input for
// convert and compare (exit 6), each naming the file, the metadata table,
// the column and the row; convert writes nothing. Before, convert wrote
// the catalog (exit 0) and compare reported it not equivalent (exit 3).
// check of a lakegen repository whose newest frozen catalog (its bytes
// hashed in version.json) holds such a NULL finds the version invalid
// (exit 6), naming the version, the catalog's key and the field; before,
// it was unverifiable (exit 4: a listing failed on the NULL name).
func TestNullRequiredFieldExits(t *testing.T) {
	t.Parallel()
	orig, data := lakeCatalog(t, "lakes", "06_deletes")
	src := copyCatalog(t, orig)
	db := testduck.Open(t, src)
	_, err := db.Exec("UPDATE ducklake_data_file SET table_id = NULL WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := "ducklake_data_file.table_id is NULL in the row data_file_id="
	dst := filepath.Join(t.TempDir(), "out.duckdb")
	_, stderr, code := runAppStderr(t, "convert", src, "--to", "1.1", "-o", dst, "--data", data)
	if code != exitInvalid || !strings.Contains(stderr, want) || !strings.Contains(stderr, src) || !strings.Contains(stderr, "not a DuckLake catalog") {
		t.Errorf("convert: exit %d, want %d naming %s and %q:\n%s", code, exitInvalid, src, want, stderr)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("convert wrote its output")
	}
	_, stderr, code = runAppStderr(t, "compare", src, orig, "--data", data)
	if code != exitInvalid || !strings.Contains(stderr, "catalog A "+src+" cannot be opened: not a DuckLake catalog") || !strings.Contains(stderr, want) {
		t.Errorf("compare: exit %d, want %d naming %s and %q:\n%s", code, exitInvalid, src, want, stderr)
	}
}

func TestNullRequiredFieldCheckExit(t *testing.T) {
	t.Parallel()
	root, ids := smallHistory(t, 2)
	id := ids[len(ids)-1]
	vdir := filepath.Join(root, "versions", id)
	db := testduck.Open(t, filepath.Join(vdir, "ducklake.duckdb"))
	_, err := db.Exec("UPDATE ducklake_table SET table_name = NULL WHERE rowid = (SELECT max(rowid) FROM ducklake_table)")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	testlakes.EditVersion(t, vdir, nil) // the edited bytes hashed
	// backfill lists the version's cells in error (exit 0 as for every
	// cell in error: check reports them) and writes none of them.
	out, stderr, code := runAppStderr(t, "backfill", root, "--no-cache", "--formats", "1.1")
	field := "not a DuckLake catalog: 1 NULL field(s) where DuckLake's writers always write a value: ducklake_table.table_name is NULL in the row table_id="
	if code != exitOK || !strings.Contains(out, "error         "+id+" 1.1: ") || !strings.Contains(out, "versions/"+id+"/ducklake.duckdb") || !strings.Contains(out, field) {
		t.Errorf("backfill: exit %d, want %d listing the cell in error:\n%s\n%s", code, exitOK, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(vdir, "catalogs", "1.1.duckdb")); err == nil {
		t.Error("backfill wrote the version's 1.1 catalog")
	}
	out, stderr, code = runAppStderr(t, "check", root, "--no-cache")
	want := "versions/" + id + "/ducklake.duckdb: " + field
	if code != exitInvalid || !strings.Contains(out+stderr, want) {
		t.Errorf("check: exit %d, want %d naming %q:\n%s\n%s", code, exitInvalid, want, out, stderr)
	}
}
