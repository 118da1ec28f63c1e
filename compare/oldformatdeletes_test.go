package compare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOldFormatsReadDeletesAsTheirDuckLake: formats before 0.4 have no
// partial deletion files and no inlined deletions: DuckDB 1.4.1-1.4.5
// delete every position of a 3-column delete file, whatever snapshot it
// names, DuckDB 1.4.0 (and 1.3) refuse the file, and none reads
// ducklake_inlined_delete_* tables. A 0.3 source whose delete file gains
// a position tagged with a later snapshot reads other rows; a 0.3 B with
// such a file is unreadable; inlined deletion rows change nothing.
func TestOldFormatsReadDeletesAsTheirDuckLake(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes-0.3", "06_deletes")
	data := filepath.Join(lake, "data")
	r, last, table, target := lastParquetDelete(t, catalog, data)
	deleted, err := r.deletedPositions(ctx, table, target, last)
	if err != nil {
		t.Fatal(err)
	}
	extra := int64(0)
	for slices.Contains(deleted, extra) {
		extra++
	}
	if extra >= target.RecordCount {
		t.Fatalf("every row of %s is deleted", target.Path)
	}
	newDel := filepath.Join(t.TempDir(), "partial-delete.parquet")
	if _, err := r.conn.ExecContext(ctx, fmt.Sprintf(`COPY (SELECT * FROM (SELECT file_path, pos, 1::BIGINT AS _ducklake_internal_snapshot_id FROM read_parquet(%[1]s)
		UNION ALL SELECT any_value(file_path), %[2]d, 999999 FROM read_parquet(%[1]s)) ORDER BY pos) TO %[3]s (FORMAT parquet)`,
		sqlString(target.Delete.Path), extra, sqlString(newDel))); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(newDel)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(newDel)
	if err != nil {
		t.Fatal(err)
	}
	footer, err := footerSize(f, st.Size(), "parquet")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	threeColumns := []string{fmt.Sprintf(
		"UPDATE ducklake_delete_file SET path = %s, path_is_relative = false, file_size_bytes = %d, footer_size = %d WHERE delete_file_id = %d",
		sqlString(newDel), st.Size(), footer, target.Delete.ID)}
	for _, tc := range []struct {
		name  string
		stmts []string
		asA   bool   // the tampered catalog is A (a source, read as DuckDB 1.4.5 reads it)
		kind  string // the difference wanted ("": equivalent)
		text  string
	}{
		// A 0.3 source is read by DuckDB 1.4.5, which deletes every
		// position of a 3-column file; a catalog written as 0.3 must be
		// read by DuckDB 1.4.0 too, which refuses the file
		// (formats.QuirkDeleteFilesTwoColumns; before, it was read as
		// 1.4.5 reads it and only the rows differed).
		{"a 3-column delete file's later position, in A", threeColumns, true, "rows", "rows differ"},
		{"a 3-column delete file in B", threeColumns, false, "unreadable", "delete-files-two-columns-only"},
		{"inlined deletions", []string{
			fmt.Sprintf("CREATE TABLE ducklake_inlined_delete_%d(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)", table.ID),
			fmt.Sprintf("INSERT INTO ducklake_inlined_delete_%d VALUES (%d, %d, %d)", table.ID, target.ID, extra, last)}, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := catalog, tamper(t, catalog, tc.stmts...)
			if tc.asA {
				a, b = b, a
			}
			rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
			if tc.kind == "" {
				// Read as 0.3's DuckLake reads it: the table is ignored.
				if err != nil {
					t.Fatalf("Catalogs: %v, want equivalent (0.3 readers never read inlined deletions)", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, tc.kind, tc.text) {
				t.Fatalf("Catalogs: %v, want a %s difference naming %q", err, tc.kind, tc.text)
			}
		})
	}
}

// lastParquetDelete opens catalog and finds a data file with a Parquet
// delete file at its last snapshot.
func lastParquetDelete(t *testing.T, catalog, data string) (r *Reader, last int64, table Table, target DataFile) {
	t.Helper()
	r, snaps := openWithSnapshots(t, catalog, data)
	last = snaps[len(snaps)-1].ID
	eachTable(t, r, func(s Snapshot, tb Table) {
		if s.ID != last || target.Delete != nil {
			return
		}
		files, err := r.Files(context.Background(), tb, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Delete != nil && f.Delete.Format == "parquet" {
				target, table = f, tb
				return
			}
		}
	})
	if target.Delete == nil {
		t.Fatalf("no Parquet delete file at the last snapshot of %s", catalog)
	}
	return r, last, table, target
}

// TestDeleteFileHiveFoldersByReader: a delete file under key=value folders
// (formats.QuirkDeleteFilesHiveColumns) is read as each reader reads it. A
// 0.3 catalog is written for DuckDB 1.4.0 too, which accepts two columns
// only, so one folder (a third column) already fails it; read as a source
// (DuckDB 1.4.5, two or three columns) it reads. A 1.0 catalog is written
// for DuckDB 1.5.2 too (a first release), which fails on two folders; read
// as a source (DuckDB 1.5.3+, Hive detection off) it reads.
func TestDeleteFileHiveFoldersByReader(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		archive, folders string
		asA              bool   // the moved catalog is A (a source)
		text             string // an unreadable difference naming it ("": equivalent)
	}{
		{"lakes-0.3", "k=1", false, "delete-files-hive-columns"},
		{"lakes-0.3", "k=1", true, ""},
		{"lakes", "k=1/j=2", false, "delete-files-hive-columns"},
		{"lakes", "k=1/j=2", true, ""},
		// DuckDB takes a key for a column of the file in ASCII letter
		// case only: "POS" is the positions' column, "poſ" (U+017F, the
		// long s, which strings.EqualFold folds to "s") a third column.
		// A 0.3 source's (DuckDB 1.4.5) 2-column file under one folder
		// reads.
		{"lakes-0.3", "POS=1", true, "lies in folder POS=..."},
		{"lakes-0.3", "po\u017f=1", true, ""},
	} {
		t.Run(fmt.Sprintf("%s/%s/asA=%v", tc.archive, tc.folders, tc.asA), func(t *testing.T) {
			lake, catalog := lastVersion(t, tc.archive, "06_deletes")
			data := filepath.Join(lake, "data")
			_, _, _, target := lastParquetDelete(t, catalog, data)
			moved := filepath.Join(t.TempDir(), filepath.FromSlash(tc.folders), filepath.Base(target.Delete.Path))
			if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(target.Delete.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(moved, b, 0o644); err != nil {
				t.Fatal(err)
			}
			a, bcat := catalog, tamper(t, catalog, fmt.Sprintf("UPDATE ducklake_delete_file SET path = %s, path_is_relative = false WHERE delete_file_id = %d", sqlString(moved), target.Delete.ID))
			if tc.asA {
				a, bcat = bcat, a
			}
			rep, err := Catalogs(ctx, a, bcat, Options{DataPath: data, Engines: readerDBs})
			if tc.text == "" {
				if err != nil {
					t.Fatalf("Catalogs: %v, want equivalent", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", tc.text) {
				t.Fatalf("Catalogs: %v, want an unreadable difference naming %q", err, tc.text)
			}
		})
	}
}
