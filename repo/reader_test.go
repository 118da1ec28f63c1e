package repo

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/expectedrows"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestBackfill03ReaderLakes backfills 0.3 (its until removed) into each lake
// of lakes-0.3-reader, where a field-for-field 0.3 catalog is read
// differently by the real DuckLake 0.3: every version is either refused, or
// gets a published catalog whose reading with the 0.3 reader model equals
// what DuckLake 1.0 returns from the source (expected/).
func TestBackfill03ReaderLakes(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	// Newest version: the refusal code, or "" when it is written.
	want := map[string]string{
		"q_add_files__add_files_hive_partition_cast":                     "hive-values-cast-raw",
		"q_default__all_types_column_default_stats":                      "",
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

// relocate points the data files that the writer recorded by absolute path
// on its machine (…/<lake>/data/…) at the copied lake, in each version's
// catalog and files.json, and updates version.json's sizes and hashes (a
// relocated copy of the repository, as its publisher would have it).
func relocate(t *testing.T, root, name string) {
	t.Helper()
	data := filepath.Join(root, "data") + "/"
	for _, id := range versionIDs(t, root) {
		dir := filepath.Join(root, "versions", id)
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		q := fmt.Sprintf(`ATTACH '%s' AS c; UPDATE c.ducklake_data_file SET path = '%s' || regexp_extract(path, '/%s/data/(.*)$', 1)
			WHERE NOT path_is_relative AND path LIKE '%%/%s/data/%%'; DETACH c`, filepath.Join(dir, "ducklake.duckdb"), data, name, name)
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		db.Close()
		files, err := os.ReadFile(filepath.Join(dir, "files.json"))
		if err != nil {
			t.Fatal(err)
		}
		fixed := []byte(strings.ReplaceAll(string(files), "/fdl-writer/lakes/"+name+"/data/main/ext//", data+"main/ext/"))
		if err := os.WriteFile(filepath.Join(dir, "files.json"), fixed, 0o644); err != nil {
			t.Fatal(err)
		}
		var vj map[string]any
		raw, err := os.ReadFile(filepath.Join(dir, "version.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &vj); err != nil {
			t.Fatal(err)
		}
		for key, file := range map[string]string{"catalog": "ducklake.duckdb", "files": "files.json"} {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			entry := vj[key].(map[string]any)
			entry["bytes"], entry["sha256"] = len(b), hex.EncodeToString(sum[:])
		}
		out, err := json.MarshalIndent(vj, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "version.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
