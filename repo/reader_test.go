package repo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/expectedrows"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestBackfill03ReaderLakes backfills 0.3 (its until removed) into each lake
// of lakes-0.3-reader, where a field-for-field 0.3 catalog is read
// differently by the real DuckLake 0.3: every version is either refused, or
// gets a published catalog whose reading with the 0.3 reader model equals
// what DuckLake 1.0 returns from the source (expected/).
func TestBackfill03ReaderLakes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	// Newest version: the refusal code, or "" when it is written.
	want := map[string]string{
		"q_add_files__add_files_hive_partition_cast":                     "hive-values-cast-raw",
		"q_default__all_types_column_default_stats":                      "timetz-default-offset-ignored",
		"q_delete__delete_legacy_missing_mapping_after_rename_add_files": "unmapped-files-read-null",
		"q_stats__table_stats_without_column_stats":                      "table-stats-need-column-stats",
	}
	for _, lake := range testlakes.Lakes(t, "lakes-0.3-reader") {
		name := filepath.Base(lake)
		t.Run(name, func(t *testing.T) {
			st := copyLake(t, lake)
			root := st.Root()
			relocate(t, root, name)
			os.Remove(filepath.Join(root, "fdl.json"))
			writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","data_dir":"data/","formats":[{"ducklake":"0.3"},{"ducklake":"1.0"}]}`)
			opts := Options{Formats: []string{"0.3"}}
			if _, err := Backfill(ctx, st, opts); err != nil {
				t.Fatalf("backfill: %v", err)
			}
			m, err := Plan(ctx, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			ids := versionIDs(t, root)
			for i, v := range m.Versions {
				for _, c := range v.Cells {
					if c.Format != "0.3" {
						continue
					}
					newest := v.ID == ids[len(ids)-1]
					switch c.State {
					case Refused:
						var codes []string
						for _, f := range c.Findings {
							codes = append(codes, f.Code)
						}
						if newest && strings.Join(codes, ",") != want[name] {
							t.Errorf("version %d refused for %v, want %q", i+1, codes, want[name])
						}
					case Present:
						if newest && want[name] != "" {
							t.Errorf("newest version published, want refused for %s", want[name])
						}
						cat := filepath.Join(root, "versions", v.ID, "catalogs", "0.3.duckdb")
						expectedrows.Check(t, cat, filepath.Join(root, "data"), filepath.Join(lake, "expected", v.ID), expectedrows.Options{})
					default:
						t.Errorf("version %d: 0.3 is %s: %v", i+1, c.State, c.Reasons)
					}
				}
			}
		})
	}
}

// relocate makes the data files that the writer recorded by absolute path
// on its machine (…/<lake>/data/main/ext/…, added with add_files) what a
// publisher must have: files under data_dir recorded relative to the
// catalog's data path (FDL 0.1, Versions: The frozen catalog). Each such
// file is copied into its table's folder (data/<schema>/<table>/ext/…, the
// hive key=value folders kept) and recorded relative to it, in each
// version's catalog and files.json; version.json's sizes and hashes are
// updated.
func relocate(t *testing.T, root, name string) {
	t.Helper()
	data := filepath.Join(root, "data")
	for _, id := range versionIDs(t, root) {
		dir := filepath.Join(root, "versions", id)
		// table -> absolute path -> path relative to data_dir
		moved := map[string]map[string]string{}
		db := testduck.Open(t, "")
		if _, err := db.Exec(fmt.Sprintf("ATTACH '%s' AS c", filepath.Join(dir, "ducklake.duckdb"))); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT f.data_file_id, f.path, s.schema_name || '.' || t.table_name, coalesce(s.path, ''), coalesce(t.path, '')
			FROM c.ducklake_data_file f
			JOIN c.ducklake_table t ON t.table_id = f.table_id AND f.begin_snapshot >= t.begin_snapshot AND (f.begin_snapshot < t.end_snapshot OR t.end_snapshot IS NULL)
			JOIN c.ducklake_schema s ON s.schema_id = t.schema_id AND f.begin_snapshot >= s.begin_snapshot AND (f.begin_snapshot < s.end_snapshot OR s.end_snapshot IS NULL)
			WHERE NOT f.path_is_relative`)
		if err != nil {
			t.Fatal(err)
		}
		type update struct {
			id     int64
			stored string
		}
		var updates []update
		for rows.Next() {
			var fileID int64
			var abs, table, sPath, tPath string
			if err := rows.Scan(&fileID, &abs, &table, &sPath, &tPath); err != nil {
				t.Fatal(err)
			}
			_, rest, ok := strings.Cut(abs, "/"+name+"/data/main/ext/")
			if !ok {
				t.Fatalf("unexpected absolute path %s", abs)
			}
			rest = path.Clean(strings.TrimLeft(rest, "/")) // the writer recorded some with "//"
			stored := "ext/" + rest
			rel := sPath + tPath + stored
			if _, err := os.Stat(filepath.Join(data, filepath.FromSlash(rel))); err != nil {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(data, filepath.FromSlash(rel))), 0o755); err != nil {
					t.Fatal(err)
				}
				copyFile(t, filepath.Join(data, "main", "ext", filepath.FromSlash(rest)), filepath.Join(data, filepath.FromSlash(rel)))
			}
			if moved[table] == nil {
				moved[table] = map[string]string{}
			}
			moved[table][abs] = rel
			updates = append(updates, update{fileID, stored})
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		for _, u := range updates {
			if _, err := db.Exec("UPDATE c.ducklake_data_file SET path = ?, path_is_relative = true WHERE data_file_id = ?", u.stored, u.id); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Exec("DETACH c"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		raw, err := os.ReadFile(filepath.Join(dir, "files.json"))
		if err != nil {
			t.Fatal(err)
		}
		var files map[string]any
		if err := json.Unmarshal(raw, &files); err != nil {
			t.Fatal(err)
		}
		for table, entry := range files["tables"].(map[string]any) {
			for _, f := range entry.(map[string]any)["files"].([]any) {
				f := f.(map[string]any)
				if rel, ok := moved[table][f["path"].(string)]; ok {
					f["path"] = rel
				}
			}
		}
		fixed, err := json.MarshalIndent(files, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "files.json"), fixed, 0o644); err != nil {
			t.Fatal(err)
		}
		testlakes.EditVersion(t, dir, nil, "catalog", "files")
	}
}
