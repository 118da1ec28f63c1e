package convert

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/datapath"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// The files-outside-data-path note applies the repository's rule
// (internal/datapath, as compare.StoredFile.UnderDataPath): a file under a
// table or schema folder recorded by absolute path or with a ".." part is
// outside the data path too, not only a file whose own path is.
func TestFilesOutsideDataPathNote(t *testing.T) {
	t.Parallel()
	lakes := testlakes.Dir(t, "lakes")
	good := versionCatalogs(t, filepath.Join(lakes, "06_deletes"))[0]           // format 1.0: schema and table folders
	plain := versionCatalogs(t, filepath.Join(lakes, "02_add_drop_columns"))[0] // converts to 0.1
	for _, tc := range []struct {
		name  string
		old   bool // the source in format 0.1: no schema or table folders
		stmts []string
		why   string // "" for no note
	}{
		{"all relative", false, nil, ""},
		{"table by absolute path", false, []string{"UPDATE ducklake_table SET path = '/elsewhere/' || path, path_is_relative = false"}, datapath.ReasonAbsolute},
		{"schema by absolute path", false, []string{"UPDATE ducklake_schema SET path = '/elsewhere/' || path, path_is_relative = false"}, datapath.ReasonAbsolute},
		{"table with ..", false, []string{"UPDATE ducklake_table SET path = 'x/../' || path"}, datapath.ReasonDotDot},
		{"schema with ..", false, []string{"UPDATE ducklake_schema SET path = 'x/../' || path"}, datapath.ReasonDotDot},
		{"table path with a leading /, still relative", false, []string{"UPDATE ducklake_table SET path = '/' || path"}, datapath.ReasonEmpty},
		{"file with ..", false, []string{"UPDATE ducklake_data_file SET path = '../' || path"}, datapath.ReasonDotDot},
		{"file by absolute path", false, []string{"UPDATE ducklake_data_file SET path = '/elsewhere/' || path, path_is_relative = false"}, datapath.ReasonAbsolute},
		// Readers resolve a file against the folder of the snapshot they
		// read: a table moved away at the last snapshot, its files still
		// visible, is named though the folder at the files' start was fine.
		{"table moved by absolute path while its files are visible", false, []string{
			"UPDATE ducklake_table SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot) WHERE end_snapshot IS NULL",
			"INSERT INTO ducklake_table SELECT * REPLACE (end_snapshot AS begin_snapshot, NULL AS end_snapshot, '/elsewhere/' AS path, false AS path_is_relative) FROM ducklake_table WHERE end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot)",
		}, datapath.ReasonAbsolute},
		{"table by absolute path, renamed while its files are visible", false, []string{
			"UPDATE ducklake_table SET path = '/elsewhere/' || path, path_is_relative = false",
			"UPDATE ducklake_table SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot) WHERE end_snapshot IS NULL",
			"INSERT INTO ducklake_table SELECT * REPLACE (end_snapshot AS begin_snapshot, NULL AS end_snapshot, table_name || '_renamed' AS table_name) FROM ducklake_table WHERE end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot)",
		}, datapath.ReasonAbsolute},
		{"0.1, all relative", true, nil, ""},
		{"0.1, file with ..", true, []string{"UPDATE ducklake_data_file SET path = 'x/../' || path"}, datapath.ReasonDotDot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src.duckdb")
			if tc.old {
				if _, err := Catalog(context.Background(), plain, src, formats.V0_1, Options{}); err != nil {
					t.Fatal(err)
				}
			} else {
				copyFile(t, good, src)
			}
			if len(tc.stmts) > 0 {
				execOn(t, src, tc.stmts...)
			}
			var first string
			conn := attach(t, src, "")
			if err := conn.QueryRowContext(context.Background(), "SELECT min(path) FROM c.ducklake_data_file").Scan(&first); err != nil {
				t.Fatal(err)
			}
			conn.Close()
			res, err := Catalog(context.Background(), src, "", formats.V1_0, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var note *Finding
			for i, f := range res.Findings {
				if f.Code == "files-outside-data-path" {
					note = &res.Findings[i]
				}
			}
			switch {
			case tc.why == "" && note != nil:
				t.Fatalf("note %q, want none", note.Detail)
			case tc.why == "":
			case note == nil:
				t.Fatalf("no files-outside-data-path note in %+v", res.Findings)
			case strings.Count(note.Detail, "data_file "+first+": "+tc.why) != 1:
				t.Errorf("note %q, want it to name data_file %s: %s once", note.Detail, first, tc.why)
			}
		})
	}
}
