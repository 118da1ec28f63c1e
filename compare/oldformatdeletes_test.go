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
// partial deletion files and no inlined deletions, and their DuckLake
// (DuckDB 1.3/1.4) deletes every position of a 3-column delete file,
// whatever snapshot it names, and never reads ducklake_inlined_delete_*
// tables. A 0.3 catalog whose delete file gains a position tagged with a
// later snapshot, or whose deletions gain inlined rows, reads other rows
// for that reader: not equivalent (the proof passed both before).
func TestOldFormatsReadDeletesAsTheirDuckLake(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes-0.3", "06_deletes")
	data := filepath.Join(lake, "data")
	r, snaps := openWithSnapshots(t, catalog, data)
	last := snaps[len(snaps)-1].ID
	var target DataFile
	var table Table
	eachTable(t, r, func(s Snapshot, tb Table) {
		if s.ID != last || target.Delete != nil {
			return
		}
		files, err := r.Files(ctx, tb, s.ID)
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
		t.Fatal("no Parquet delete file at the last snapshot of lakes-0.3/06_deletes")
	}
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
	for _, tc := range []struct {
		name  string
		stmts []string
	}{
		{"a 3-column delete file's later position", []string{fmt.Sprintf(
			"UPDATE ducklake_delete_file SET path = %s, path_is_relative = false, file_size_bytes = %d, footer_size = %d WHERE delete_file_id = %d",
			sqlString(newDel), st.Size(), footer, target.Delete.ID)}},
		{"inlined deletions", []string{
			fmt.Sprintf("CREATE TABLE ducklake_inlined_delete_%d(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)", table.ID),
			fmt.Sprintf("INSERT INTO ducklake_inlined_delete_%d VALUES (%d, %d, %d)", table.ID, target.ID, extra, last)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, catalog, tc.stmts...)
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data})
			switch tc.name {
			case "inlined deletions":
				// Read as 0.3's DuckLake reads it: the table is ignored.
				if err != nil {
					t.Fatalf("Catalogs: %v, want equivalent (0.3 readers never read inlined deletions)", err)
				}
			default:
				if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "rows", "rows differ") {
					t.Fatalf("Catalogs: %v, want rows that differ at the last snapshot", err)
				}
			}
		})
	}
}
