package repo

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// collidingLake is a one-version repository (format 1.0 only) whose
// frozen catalog holds two live tables whose files.json key is the same,
// "main.x.events": table "x.events" of schema main and table "events" of
// schema "main.x". lakegen writes both tables in schema main; the
// catalog's second schema, "main.x" (with main's folder, so the files
// stay where they are), then takes "events". files.json is what a writer
// keying tables schema.table makes of that catalog: one entry,
// "main.x.events", with the files of the table it wrote last ("main.x"
// sorts after "main"), and dataset.json describes both tables by their
// schema and name. version.json records the new bytes.
func collidingLake(t *testing.T) (*local.Store, string, string) {
	t.Helper()
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "colliding")
	cols := []lakegen.Column{{Name: "id", Type: "BIGINT"}}
	spec := lakegen.Spec{Name: "colliding", Formats: []lakegen.Format{{DuckLake: "1.0", DuckDB: ">= 1.5.2"}}, Versions: []lakegen.Version{{Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "x.events", Columns: cols}, lakegen.CreateTable{Table: "events", Columns: cols}},
		{lakegen.Insert{Table: "x.events", Select: "SELECT range FROM range(3)"}, lakegen.Insert{Table: "events", Select: "SELECT range FROM range(5)"}},
	}}}}
	res, err := lakegen.Repository(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Versions[0].ID
	dir := filepath.Join(root, "versions", id)
	db := testduck.Open(t, "")
	defer db.Close()
	for _, q := range []string{
		"ATTACH '" + filepath.Join(dir, "ducklake.duckdb") + "' AS c",
		`INSERT INTO c.ducklake_schema SELECT * REPLACE (999 AS schema_id, '00000000-0000-0000-0000-000000000999'::UUID AS schema_uuid, 'main.x' AS schema_name) FROM c.ducklake_schema WHERE schema_name = 'main'`,
		`UPDATE c.ducklake_table SET schema_id = 999 WHERE table_name = 'events'`,
		"DETACH c",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var files map[string]map[string]json.RawMessage
	readJSON(t, filepath.Join(dir, "files.json"), &files)
	files["tables"] = map[string]json.RawMessage{"main.x.events": files["tables"]["main.events"]}
	writeJSON(t, filepath.Join(dir, "files.json"), files)
	var dataset map[string]any
	readJSON(t, filepath.Join(dir, "dataset.json"), &dataset)
	for _, tb := range dataset["tables"].([]any) {
		if tb := tb.(map[string]any); tb["name"] == "events" {
			tb["schema"] = "main.x"
		}
	}
	writeJSON(t, filepath.Join(dir, "dataset.json"), dataset)
	testlakes.EditVersion(t, dir, nil, "catalog", "files", "dataset")
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return st, root, id
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFilesJSONKeysCollide: files.json keys a table schema.table, joined
// as they are (FDL 0.1, Versions: files.json), so table "x.events" of
// schema main and table "events" of schema "main.x" have one key; a
// files.json cannot describe both. Before, check built what files.json
// should hold with that key, the second table overwriting the first, and
// passed a files.json whose one entry lists only the second table's
// files (a reader without DuckLake reading "main.x.events" by it reads
// one table's files for both). Now check fails with a violation naming
// both tables and the key.
func TestFilesJSONKeysCollide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _, id := collidingLake(t)
	rep, err := Check(ctx, st, Options{})
	if !errors.Is(err, ErrDifferences) {
		t.Fatalf("Check = %v, want differences\n%+v", err, rep.Findings)
	}
	want := `files.json: tables main."x.events" and "main.x".events both have the key main.x.events`
	// The one finding: the key is left out of the comparison, whose
	// other tables agree.
	if len(rep.Findings) != 1 || rep.Findings[0].Version != id || !strings.Contains(rep.Findings[0].Detail, want) {
		t.Errorf("findings %+v, want one of version %s holding %q", rep.Findings, id, want)
	}
}
