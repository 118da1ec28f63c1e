package compare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/fdl-formats/fdl-formats/internal/deletionvector"
)

// dvRange serialises the positions [lo, hi) as a deletion-vector-v1 blob
// of run containers: a few dozen bytes for up to 2^32 positions a bucket.
func dvRange(t *testing.T, lo, hi uint64) []byte {
	t.Helper()
	bm := roaring64.New()
	bm.AddRange(lo, hi)
	bm.RunOptimize()
	return dvFrame(t, bm)
}

// TestDeletionVectorBound: a deletion vector's positions are listed only
// when their number fits its data file (deletionvector.Check): a genuine
// one, and one of a few positions past the file's rows (they delete
// nothing, TestDeletesOutOfRange), read as before; a well-framed vector of
// a few bytes claiming 2^32 positions is refused before a slice is made
// for them (it exhausted memory).
func TestDeletionVectorBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		blob []byte
		rows int64
		want []int64 // nil: an error
	}{
		{"genuine", dvBlob(t, 1, 5, 9), 10, []int64{1, 5, 9}},
		{"a few past the rows", dvBlob(t, 1, 1<<40), 10, []int64{1, 1 << 40}},
		{"every row", dvRange(t, 0, deletionvector.SmallCount+10), deletionvector.SmallCount + 10, nil},
		{"2^32 positions, 10 rows", dvRange(t, 0, 1<<32), 10, nil},
		{"2^32 positions, past the small count", dvRange(t, 0, 1<<32), deletionvector.SmallCount, nil},
		{"2^32 positions in two buckets", dvRange(t, 1<<32-5, 1<<33), 1 << 20, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bound := func(n uint64) error { return deletionvector.Check(n, tc.rows, "record_count") }
			got, err := puffinPositions(tc.blob, 0, bound)
			if tc.want == nil && tc.name != "every row" {
				var tm *deletionvector.TooMany
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than the %d rows of its data file (record_count)", tc.rows)) || !errors.As(err, &tm) {
					t.Fatalf("got %d positions, %v; want a TooMany error", len(got), err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if tc.want == nil && len(got) != int(tc.rows) {
				t.Fatalf("got %d positions, want %d", len(got), tc.rows)
			}
		})
	}
}

// TestTamperedVectorCounts: in a lake, a Puffin deletion vector claiming
// 2^32 positions for a data file of a few rows fails the proof with an
// error naming the data file (id and path), the delete file, the table
// and the catalog, held to the record_count, or, where the record_count is
// tampered too, to the data file's Parquet row count; before, the reader
// listed the positions and ran out of memory.
func TestTamperedVectorCounts(t *testing.T) {
	lake, src := lastVersion(t, "lakes", "24_deletion_vectors")
	for _, tc := range []struct {
		name, recordCount, want string
	}{
		{"held to record_count", "", "(record_count)"},
		{"record_count tampered: held to the Parquet row count", "1099511627776", "(Parquet row count)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			catalog, dir := copyLake(t, src, filepath.Join(lake, "data"))
			del := deleteFileOfKind(t, catalog, dir, "puffin")
			b := dvRange(t, 0, 1<<32)
			if err := os.WriteFile(del, b, 0o644); err != nil {
				t.Fatal(err)
			}
			updateDeleteFile(t, catalog, del, len(b), 0, 0)
			if tc.recordCount != "" {
				execCatalog(t, catalog, `UPDATE ducklake_data_file SET record_count = `+tc.recordCount+` WHERE data_file_id IN (SELECT data_file_id FROM ducklake_delete_file WHERE path = `+sqlString(filepath.Base(del))+`)`)
			}
			other := filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, other)
			_, err := Catalogs(context.Background(), catalog, other, Options{DataPath: dir, Engines: readerDBs})
			if err == nil {
				t.Fatal("proved equivalent")
			}
			for _, w := range []string{"deletion vector claims 4294967296 positions", tc.want, "read delete file " + del, catalog, "data file "} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			t.Log(err)
			if !regexp.MustCompile(`data file \S+\.parquet \(id \d+\)`).MatchString(err.Error()) {
				t.Errorf("error %q names no data file id", err)
			}
		})
	}
}
