package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// forgedFile is a data file's name holding a line break, a workflow
// command, a carriage return and ESC [2J.
const forgedFile = "ducklake-\n::error::forged-file\r\x1b[2J"

// TestHostilePathsPrintOneLine: DuckLake records a data or delete file's
// path as text, so it may hold a line break. A repository whose frozen
// catalog names a data and a delete file so (the files renamed to match,
// the data file recorded a byte longer than it is, version.json
// resealed; files.json and the published 1.1 catalog left naming the old
// paths) fails check, and each finding naming such a path (the file on
// disk against the catalog, files.json against the catalog) is one line
// naming it Go-quoted and going on after it, in the text report and in
// --json's details; compare's DIFF line of the size too; and with the
// delete file gone, the unverifiable finding names it so in the system's
// reason ("open ...: no such file or directory"). Before, each such
// finding stopped at the line break (the files.json one after the old
// path), and --json's details named the path raw.
func TestHostilePathsPrintOneLine(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "paths")
	spec := lakegen.Spec{Name: "paths", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}, {DuckLake: "1.1", DuckDB: ">= 2.0.0"}}, Versions: []lakegen.Version{
		{Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}}}},
			{lakegen.Insert{Table: "t", Select: "SELECT range FROM range(10)"}},
			{lakegen.Delete{Table: "t", Where: "id = 3"}},
		}},
	}}
	res, err := lakegen.Repository(t.Context(), root, spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "versions", res.Versions[0].ID)
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		app := newApp()
		app.Writer, app.ErrWriter = &out, &errOut
		code := runMain(app, append([]string{"fdl-formats"}, args...), &errOut, time.Minute)
		if code != want {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", args[0], code, want, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	run(exitOK, "backfill", "--no-cache", root)
	db := testduck.Open(t, "")
	defer db.Close()
	if _, err := db.Exec("ATTACH '" + filepath.Join(dir, "ducklake.duckdb") + "' AS c"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ table, suffix string }{{"ducklake_data_file", ".parquet"}, {"ducklake_delete_file", "-delete.parquet"}} {
		var path, folder string
		if err := db.QueryRow("SELECT f.path, s.path || t.path FROM c."+tc.table+" f JOIN c.ducklake_table t USING (table_id) JOIN c.ducklake_schema s USING (schema_id) LIMIT 1").Scan(&path, &folder); err != nil {
			t.Fatal(err)
		}
		renamed := forgedFile + tc.suffix
		if _, err := db.Exec("UPDATE c."+tc.table+" SET path = ? WHERE path = ?", renamed, path); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(root, "data", folder, path), filepath.Join(root, "data", folder, renamed)); err != nil {
			t.Fatal(err)
		}
	}
	// The data file's recorded size is a byte more than the file's.
	if _, err := db.Exec("UPDATE c.ducklake_data_file SET file_size_bytes = file_size_bytes + 1 WHERE path = ?", forgedFile+".parquet"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DETACH c"); err != nil {
		t.Fatal(err)
	}
	testlakes.EditVersion(t, dir, nil, "catalog")
	quoted := `ducklake-\n::error::forged-file\r\x1b[2J`
	for _, args := range [][]string{{"check", "--no-cache", root}, {"compare", filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "catalogs", "1.1.duckdb"), "--data", filepath.Join(root, "data")}} {
		out, errOut := run(exitDifferent, args...)
		out += errOut
		for i, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
				t.Errorf("%s: line %d starts with a path's text: %q", args[0], i+1, line)
			}
		}
		if args[0] == "compare" {
			// The frozen catalog's file is a byte shorter than it records.
			lineWith(t, "compare", out, "DIFF ", `catalog A: "`+filepath.Join(root, "data", "main", "t")+"/"+quoted+`.parquet" is `)
			continue
		}
		// Each finding naming a renamed file is one line, the path
		// Go-quoted, and goes on after it.
		lineWith(t, "check", out, "difference ", `ducklake.duckdb: "main/t/`+quoted+`.parquet" is `)
		lineWith(t, "check", out, "difference ", `the catalog "main/t/`+quoted+`.parquet" (10 rows, `)
		lineWith(t, "check", out, "difference ", `in files.json, the catalog "main/t/`+quoted+`-delete.parquet" (1 rows, `)
	}
	// --json's details are the text's: the paths Go-quoted in them.
	var checked struct{ Findings []struct{ Detail string } }
	jsonOut, _ := run(exitDifferent, "check", "--no-cache", "--json", root)
	if err := json.Unmarshal([]byte(jsonOut), &checked); err != nil {
		t.Fatalf("check --json: %v", err)
	}
	n := 0
	for _, f := range checked.Findings {
		if strings.Contains(f.Detail, "forged-file") {
			n++
			if !strings.Contains(f.Detail, quoted) {
				t.Errorf("check --json: a finding names the path unquoted: %q", f.Detail)
			}
		}
	}
	if n < 3 {
		t.Errorf("check --json: %d findings name the renamed files, want 3 or more: %+v", n, checked.Findings)
	}
	// The renamed delete file gone: the finding (unverifiable; the
	// differences above remain, exit 3) names it, and says why.
	if err := os.Remove(filepath.Join(root, "data", "main", "t", forgedFile+"-delete.parquet")); err != nil {
		t.Fatal(err)
	}
	out, errOut := run(exitDifferent, "check", "--no-cache", root)
	out += errOut
	lineWith(t, "check", out, "", "/"+quoted+`-delete.parquet": no such file or directory`)
}
