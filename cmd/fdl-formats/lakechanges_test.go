package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestCheckLakegenChanges: the changes lakegen writes into version.json
// (a column dropped and one renamed, breaking; one added; one dropped and
// added again under its name; a version of inserts only, []) are what
// check finds in the frozen catalogs: check exits 0. Made false, the
// drop's breaking set to false, check exits 3 naming the entry: lakegen's
// repositories exercise the claims check. Before, lakegen wrote no
// changes, and the version held no breaking entry.
func TestCheckLakegenChanges(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "lake")
	spec := lakegen.Spec{Name: "lake", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}}, Versions: []lakegen.Version{
		{Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}, {Name: "old", Type: "VARCHAR"}, {Name: "n", Type: "INTEGER"}, {Name: "r", Type: "DOUBLE"}}},
				lakegen.Insert{Table: "t", Select: "SELECT i, 'x', i, i / 2 FROM range(10) r(i)"}},
		}},
		{Snapshots: []lakegen.Snapshot{
			{lakegen.DropColumn{Table: "t", Column: "old"}},
			{lakegen.RenameColumn{Table: "t", From: "n", To: "count"}},
			{lakegen.DropColumn{Table: "t", Column: "r"}, lakegen.AddColumn{Table: "t", Column: lakegen.Column{Name: "r", Type: "DOUBLE"}}},
			{lakegen.AddColumn{Table: "t", Column: lakegen.Column{Name: "note", Type: "VARCHAR", Default: "none"}}},
		}},
		{Snapshots: []lakegen.Snapshot{{lakegen.Insert{Table: "t", Select: "SELECT 10, 10, 5.0, 'y'"}}}},
	}}
	res, err := lakegen.Repository(t.Context(), root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runApp(t, "check", "--no-cache", root); code != exitOK {
		t.Fatalf("check: exit %d, want %d\n%s%s", code, exitOK, out, errOut)
	}
	vdir := filepath.Join(root, "versions", res.Versions[1].ID)
	b, err := os.ReadFile(filepath.Join(vdir, "version.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Changes []map[string]any }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	drop := -1
	for i, c := range doc.Changes {
		if c["table"] == "main.t" && c["kind"] == lakegen.KindDropColumn && c["column"] == "old" && c["breaking"] == true {
			drop = i
		}
	}
	if drop < 0 {
		t.Fatalf("version 2's changes %v: no drop_column of old with breaking true", doc.Changes)
	}
	testlakes.EditVersion(t, vdir, func(m map[string]any) {
		m["changes"].([]any)[drop].(map[string]any)["breaking"] = false
	})
	out, errOut, code := runApp(t, "check", "--no-cache", root)
	if code != exitDifferent {
		t.Fatalf("check with a drop claimed not breaking: exit %d, want %d\n%s%s", code, exitDifferent, out, errOut)
	}
	lineWith(t, "check", out+errOut, "difference ", "kind drop_column, column old, breaking false) says breaking false, but column old of table main.t was dropped")
	if n := strings.Count(out+errOut, "difference "); n != 1 {
		t.Errorf("check: %d differences, want 1\n%s%s", n, out, errOut)
	}
}
