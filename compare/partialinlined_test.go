package compare

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// TestPartialDeletesWholeWithInlined: DuckDB 1.5.0 and 1.5.1 (format 0.4)
// drop a partial deletion file's per-row snapshots once its data file also
// has inlined deletions visible at the snapshot read
// (formats.QuirkPartialDeletesWholeWithInlined), so every position of the
// file is deleted there, also those deleted only later; 1.0 is modelled by
// its newest readers, which keep them. The conformance lake 06_deletes (a
// real 1.0 lake): delete file 13 of data file 0 deletes positions at
// snapshots 3, 4, 5 and 15 (position 1 at 15). Each case plants inlined
// deletions in a copy, and compares it with the same catalog stamped 0.4
// (MigrateV04 changes the version row only). Before the model, every case
// was equivalent.
func TestPartialDeletesWholeWithInlined(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	const lateSnap, latePos = 15, 1 // delete file 13 deletes position 1 of data file 0 at snapshot 15
	for _, tc := range []struct {
		name    string
		inlined string // rows of ducklake_inlined_delete_1 (file_id, row_id, begin_snapshot); "" = no table
		// hidden: the snapshots at which 0.4 reads position 1 of data file
		// 0 as deleted before 1.0 does (nil: equivalent).
		hidden []int64
	}{
		{"inlined deletion of the same file at snapshot 6", "(0, 11, 6)", []int64{6, 7, 8, 9, 10, 11, 12, 13, 14}},
		{"inlined deletion of the same file at snapshot 12", "(0, 11, 12)", []int64{12, 13, 14}},
		{"inlined deletion at the file's last snapshot", "(0, 11, 15)", nil},
		{"inlined deletion of a file whose partial deletions are all earlier", "(1, 11, 6)", nil},
		{"empty inlined deletion table", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stmts := []string{"CREATE TABLE ducklake_inlined_delete_1(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)"}
			if tc.inlined != "" {
				stmts = append(stmts, "INSERT INTO ducklake_inlined_delete_1 VALUES "+tc.inlined)
			}
			a := tamper(t, catalog, stmts...)
			b := tamper(t, a, `UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`)
			ra, snaps := openWithSnapshots(t, a, data)
			rb := openForTest(t, b, data)
			var got []int64
			for _, s := range snaps {
				posA := deletedOfFile(t, ra, "del", 0, s.ID)
				posB := deletedOfFile(t, rb, "del", 0, s.ID)
				inA, inB := slices.Contains(posA, latePos), slices.Contains(posB, latePos)
				if inA != (s.ID >= lateSnap && posA != nil) {
					t.Errorf("1.0 at snapshot %d: position %d deleted = %v, want only from snapshot %d", s.ID, latePos, inA, lateSnap)
				}
				if inB && !inA {
					got = append(got, s.ID)
				}
				if d := len(posB) - len(posA); d != 0 && !(inB && !inA && d == 1) {
					t.Errorf("snapshot %d: 0.4 reads %d positions, 1.0 %d", s.ID, len(posB), len(posA))
				}
			}
			if !slices.Equal(got, tc.hidden) {
				t.Errorf("0.4 deletes position %d of data file 0 before 1.0 at snapshots %v, want %v", latePos, got, tc.hidden)
			}
			rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
			if tc.hidden == nil {
				if err != nil {
					t.Fatalf("Catalogs: %v, want equivalent", err)
				}
				return
			}
			want := fmt.Sprintf("rows at snapshots %d-%d in main.del", tc.hidden[0], tc.hidden[len(tc.hidden)-1])
			if len(tc.hidden) == 1 {
				want = fmt.Sprintf("rows at snapshot %d in main.del", tc.hidden[0])
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "rows", want) {
				t.Fatalf("Catalogs: %v, want %q", err, want)
			}
		})
	}
}

// deletedOfFile returns the positions r reads as deleted of the data file
// with id fileID of the table named table at snap (nil when the file is
// not visible there).
func deletedOfFile(t *testing.T, r *Reader, table string, fileID, snap int64) []int64 {
	t.Helper()
	ctx := context.Background()
	tables, err := r.Tables(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name != table {
			continue
		}
		files, err := r.Files(ctx, tb, snap)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.ID == fileID {
				pos, err := r.DeletedPositions(ctx, tb, f, snap)
				if err != nil {
					t.Fatal(err)
				}
				if pos == nil {
					pos = []int64{}
				}
				return pos
			}
		}
	}
	return nil
}
