package convert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestMergedChainsInTableFolder: a merged 0.3 file of a (year, month)
// partitioned table lies in year=2024/month=1/. Upgraded with
// --rewrite-deletes, its delete-file chain is written in the table's
// folder, where DuckLake writes every delete file: readers before DuckDB
// 1.5.3 scan delete files with Hive partition detection on and fail on a
// file under key=value folders (formats.QuirkDeleteFilesHiveColumns).
// Before, the chain went beside the data file and the proof, reading
// delete files without Hive columns, said equivalent. The proof now holds
// a catalog to it: the same chain file moved under the two folders makes
// the 0.4 catalog (DuckDB 1.5.0-1.5.1) and the 1.0 one (DuckDB 1.5.2, a
// first release) unreadable, not 1.1's; under one folder a 2-column file
// reads in 0.4 (the third column ignored).
func TestMergedChainsInTableFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-0.3-compaction", "c_compaction__merge_rewrite_partial_file_info")
	versions := lakeVersions(t, lake)
	last := versions[len(versions)-1]
	tmp := t.TempDir()
	data := columnNamedFolder(t, tmp)
	copyTree(t, filepath.Join(lake, "data"), data)
	orig := filepath.Join(lake, "versions", last.ID, "ducklake.duckdb")
	name := query(t, orig, "SELECT path FROM c.ducklake_data_file WHERE data_file_id = 10 AND partial_file_info IS NOT NULL")
	if len(name) != 1 {
		t.Fatalf("version %s has no merged data file 10: %v", last.ID, name)
	}
	found, _ := filepath.Glob(filepath.Join(data, "*", "*", name[0][0]))
	if len(found) != 1 {
		t.Fatalf("data file %s: found %v", name[0][0], found)
	}
	tableDir := filepath.Dir(found[0])
	moveInto(t, found[0], filepath.Join(tableDir, "year=2024", "month=1"))
	src := editedCopy(t, orig, "UPDATE ducklake_data_file SET path = 'year=2024/month=1/' || path WHERE data_file_id = 10")

	outs := map[string]string{}
	for _, target := range []*formats.Version{formats.V0_4, formats.V1_0, formats.V1_1} {
		out := filepath.Join(tmp, target.Name+".duckdb")
		if _, err := Catalog(ctx, src, out, target, Options{DataPath: data, RewriteDeletes: true}); err != nil {
			t.Fatalf("to %s: %v", target.Name, err)
		}
		chain := query(t, out, "SELECT path FROM c.ducklake_delete_file WHERE data_file_id = 10 ORDER BY delete_file_id")
		if len(chain) == 0 {
			t.Fatalf("to %s: no delete-file chain for merged data file 10", target.Name)
		}
		for _, p := range chain {
			if strings.Contains(p[0], "/") {
				t.Errorf("to %s: chain delete file %s is not in the table's folder", target.Name, p[0])
			}
		}
		proveEquivalent(t, src, out, data)
		outs[target.Name] = out
	}

	// A chain file moved under the data file's Hive folders.
	for _, tc := range []struct {
		format, folder string
		unreadable     bool
	}{
		{"0.4", "year=2024/month=1", true},
		{"1.0", "year=2024/month=1", true},
		{"1.1", "year=2024/month=1", false},
		{"0.4", "year=2024", false},
	} {
		t.Run(tc.format+"/"+tc.folder, func(t *testing.T) {
			chain := query(t, outs[tc.format], "SELECT delete_file_id, path FROM c.ducklake_delete_file WHERE data_file_id = 10 ORDER BY delete_file_id LIMIT 1")
			id, file := chain[0][0], chain[0][1]
			dir := filepath.Join(tableDir, filepath.FromSlash(tc.folder))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			copyFile(t, filepath.Join(tableDir, file), filepath.Join(dir, file))
			moved := editedCopy(t, outs[tc.format], "UPDATE ducklake_delete_file SET path = '"+tc.folder+"/' || path WHERE delete_file_id = "+id)
			rep, err := compare.Catalogs(ctx, src, moved, compare.Options{DataPath: data})
			if !tc.unreadable {
				if err != nil {
					t.Fatalf("delete file under %s/ in %s: %v", tc.folder, tc.format, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("delete file under %s/ in %s proved equivalent; its readers fail on its Hive columns", tc.folder, tc.format)
			}
			ok := false
			for _, d := range rep.Differences {
				ok = ok || (d.Kind == "unreadable" && strings.Contains(d.Reason, formats.QuirkDeleteFilesHiveColumns.Info().Name))
			}
			if !ok {
				t.Errorf("delete file under %s/ in %s: no unreadable difference naming %s: %v", tc.folder, tc.format, formats.QuirkDeleteFilesHiveColumns.Info().Name, rep.Differences)
			}
		})
	}
}

// moveInto moves a file into a folder, which it creates.
func moveInto(t *testing.T, file, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(file, filepath.Join(dir, filepath.Base(file))); err != nil {
		t.Fatal(err)
	}
}
