package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompactionKeepsRowIDs reads row ids across DuckLake's compactions:
// rewrite_data_files and merge_adjacent_files write files that store each
// row's id (_ducklake_internal_row_id), which need not be row_id_start +
// position. Wherever a table's rows are unchanged between two snapshots but
// its data files differ, every row must keep its id. A reader that ignored
// the stored ids would number the rewritten rows from row_id_start.
func TestCompactionKeepsRowIDs(t *testing.T) {
	ctx := context.Background()
	for _, lakeName := range []string{"23_row_lineage", "17_compaction"} {
		t.Run(lakeName, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", lakeName)
			r, snaps := openWithSnapshots(t, catalog, filepath.Join(lake, "data"))
			compacted, stored := 0, 0
			for i := 1; i < len(snaps); i++ {
				before, after := snaps[i-1].ID, snaps[i].ID
				tables, err := r.Tables(ctx, after)
				if err != nil {
					t.Fatal(err)
				}
				for _, tb := range tables {
					if tb.BeginSnapshot > before {
						continue
					}
					pathsA, idsA := rowsByID(t, r, tb, before)
					pathsB, idsB := rowsByID(t, r, tb, after)
					if slices.Equal(pathsA, pathsB) || !sameValues(idsA, idsB) {
						continue
					}
					compacted++
					for _, p := range pathsB {
						root, err := r.parquetSchema(ctx, p)
						if err != nil {
							t.Fatal(err)
						}
						if root.childByID(rowIDFieldID) != nil {
							stored++
						}
					}
					for id, row := range idsA {
						if idsB[id] != row {
							t.Errorf("%s: row id %d is %q at snapshot %d, %q at %d (files %v -> %v)", tb.FullName(), id, row, before, idsB[id], after, pathsA, pathsB)
						}
					}
				}
			}
			// The lake must exercise what the test is about.
			if compacted == 0 || stored == 0 {
				t.Fatalf("%d compactions, %d rewritten files with stored row ids: the lake no longer tests stored row ids", compacted, stored)
			}
		})
	}
}

// rowsByID reads a table at a snapshot: its data files, and each row's
// values as text by row id (a row id read twice fails the test).
func rowsByID(t *testing.T, r *Reader, tb Table, snap int64) ([]string, map[int64]string) {
	t.Helper()
	ctx := context.Background()
	files, err := r.Files(ctx, tb, snap)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	slices.Sort(paths)
	rows, err := r.Rows(ctx, tb.FullName(), snap, ScanOptions{RowIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]string{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var id int64
		var text []string
		for i, c := range cols {
			if c == RowIDColumn {
				n, ok := vals[i].(int64)
				if !ok {
					t.Fatalf("%s at snapshot %d: row id %v (%T)", tb.FullName(), snap, vals[i], vals[i])
				}
				id = n
				continue
			}
			text = append(text, fmt.Sprint(vals[i]))
		}
		if _, dup := byID[id]; dup {
			t.Fatalf("%s at snapshot %d: row id %d read twice", tb.FullName(), snap, id)
		}
		byID[id] = strings.Join(text, "|")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return paths, byID
}

// sameValues reports whether two tables hold the same rows, ids aside.
func sameValues(a, b map[int64]string) bool {
	if len(a) != len(b) {
		return false
	}
	var va, vb []string
	for _, v := range a {
		va = append(va, v)
	}
	for _, v := range b {
		vb = append(vb, v)
	}
	slices.Sort(va)
	slices.Sort(vb)
	return slices.Equal(va, vb)
}
