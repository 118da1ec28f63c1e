package compare

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			ctx := context.Background()
			catalog, data := lakeWithoutFieldIDs(t, "06_deletes", tc.rename, tc.dirs)
			r, err := Open(ctx, catalog, ReaderOptions{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			snaps, err := r.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, s := range snaps {
				ids = append(ids, s.ID)
			}
			r.prefetch(ctx, ids, rowOptions())
			st := r.memo.snapshot()
			if tc.rename == "" && st.Queries >= st.Reads {
				t.Errorf("%d files read in %d queries; want files read together", st.Reads, st.Queries)
			}
			checked := 0
			for _, s := range ids {
				tables, err := r.Tables(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				for _, tb := range tables {
					got, _, err := r.TableDigest(ctx, tb, s, rowOptions())
					if err != nil {
						t.Fatalf("snapshot %d %s: %v", s, tb.FullName(), err)
					}
					q, err := r.Query(ctx, tb, s, rowOptions())
					if err != nil {
						t.Fatal(err)
					}
					want, err := digestOf(ctx, r.conn, q)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Errorf("snapshot %d %s: digest by parts %v, rows read file by file %v", s, tb.FullName(), got, want)
					}
					checked += int(want.Rows)
				}
			}
			if checked == 0 {
				t.Fatal("no rows checked")
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
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	files := map[int64]DataFile{}
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			fs, err := r.Files(ctx, tb, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				files[f.ID] = f
			}
		}
	}
	r.Close()
	if len(files) < 2 {
		t.Fatalf("%s has %d data files", name, len(files))
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "ATTACH "+sqlString(catalog)+" AS c"); err != nil {
		t.Fatal(err)
	}
	i := 0
	for id, f := range files {
		sel := "*"
		if rename != "" {
			var first string
			if err := db.QueryRowContext(ctx, "SELECT name FROM parquet_schema("+sqlString(f.Path)+") WHERE num_children IS NULL LIMIT 1").Scan(&first); err != nil {
				t.Fatal(err)
			}
			sel = fmt.Sprintf("* RENAME (%s AS %s)", ident(first), ident(rename))
		}
		out := f.Path
		if len(dirs) > 0 {
			if !f.Relative || strings.Contains(f.Stored, "/") {
				t.Fatalf("data file %s: want a relative path in the table's folder", f.Stored)
			}
			sub := dirs[i%len(dirs)]
			out = filepath.Join(filepath.Dir(f.Path), sub, filepath.Base(f.Path))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "UPDATE c.ducklake_data_file SET path = ? WHERE data_file_id = ?", sub+"/"+f.Stored, id); err != nil {
				t.Fatal(err)
			}
		}
		tmp := out + ".tmp"
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (SELECT %s FROM read_parquet(%s)) TO %s (FORMAT parquet)", sel, sqlString(f.Path), sqlString(tmp))); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(f.Path); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, out); err != nil {
			t.Fatal(err)
		}
		i++
	}
	if _, err := db.ExecContext(ctx, "DETACH c"); err != nil {
		t.Fatal(err)
	}
	return catalog, data
}
