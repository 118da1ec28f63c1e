package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestGroupedReadsOfFilesWithoutFieldIDs: files without field ids are read
// by position, without read_parquet's schema map. In a list, DuckDB would
// then take a data column named file_index (any case) for the file's index,
// and the Hive directories of some files for all of them. Every table's
// digest by parts, its files read up front in groups, must still equal its
// rows read file by file, at every snapshot, and files must still be read
// together where they can be.
func TestGroupedReadsOfFilesWithoutFieldIDs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rename string   // first column's name in the rewritten files ("" keeps it)
		dirs   []string // Hive-style folders the files are moved into, in turn
	}{
		{"plain", "", nil},
		{"a column named FILE_INDEX", "FILE_INDEX", nil},
		{"Hive folders", "", []string{"id=7", "other=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			catalog, data := lakeWithoutFieldIDs(t, "06_deletes", tc.rename, tc.dirs)
			r, snaps := openWithSnapshots(t, catalog, data)
			checkDigestsByParts(t, r, snaps, true, nil)
			if st := r.memo.snapshot(); tc.rename == "" && st.Queries >= st.Reads {
				t.Errorf("%d files read in %d queries; want files read together", st.Reads, st.Queries)
			}
		})
	}
}

// lakeWithoutFieldIDs copies a conformance lake's newest catalog and data
// folder and rewrites every data file without Parquet field ids (its first
// column renamed if rename is given), moving the files into dirs in turn
// (the catalog's relative paths follow).
func lakeWithoutFieldIDs(t *testing.T, name, rename string, dirs []string) (catalog, data string) {
	t.Helper()
	ctx := context.Background()
	lake, src := lastVersion(t, "lakes", name)
	dir := t.TempDir()
	catalog, data = filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "data")
	copyFile(t, src, catalog)
	if err := os.CopyFS(data, os.DirFS(filepath.Join(lake, "data"))); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: data, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	all, err := r.AllFiles(ctx)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range all {
		if !f.Delete {
			files = append(files, f.Path)
		}
	}
	if len(files) < 2 {
		t.Fatalf("%s has %d data files", name, len(files))
	}
	db := testduck.Open(t, "")
	defer db.Close()
	if _, err := db.ExecContext(ctx, "ATTACH "+sqlString(catalog)+" AS c"); err != nil {
		t.Fatal(err)
	}
	for i, path := range files {
		sel := "*"
		if rename != "" {
			var first string
			if err := db.QueryRowContext(ctx, "SELECT name FROM parquet_schema("+sqlString(path)+") WHERE num_children IS NULL LIMIT 1").Scan(&first); err != nil {
				t.Fatal(err)
			}
			sel = fmt.Sprintf("* RENAME (%s AS %s)", ident(first), ident(rename))
		}
		out := path
		if len(dirs) > 0 {
			// The catalog stores the file's name relative to its table's
			// folder: it gains the sub-folder.
			sub, base := dirs[i%len(dirs)], filepath.Base(path)
			out = filepath.Join(filepath.Dir(path), sub, base)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				t.Fatal(err)
			}
			res, err := db.ExecContext(ctx, "UPDATE c.ducklake_data_file SET path = ? WHERE path = ? AND path_is_relative", sub+"/"+base, base)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("data file %s: %d catalog rows store it by name (%v); want one", path, n, err)
			}
		}
		tmp := out + ".tmp"
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (SELECT %s FROM read_parquet(%s)) TO %s (FORMAT parquet)", sel, sqlString(path), sqlString(tmp))); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, out); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "DETACH c"); err != nil {
		t.Fatal(err)
	}
	return catalog, data
}
