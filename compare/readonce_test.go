package compare

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestReadOnceKeepsNoRows: readOnce keeps a read's rows by their slice
// being non-nil, so a read that finds no row must give an empty, non-nil
// slice (scanAll's), or every later call reads the table again.
func TestReadOnceKeepsNoRows(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	versions, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
	if len(versions) == 0 {
		t.Fatal("no catalog in the lake")
	}
	r, err := Open(ctx, versions[0], ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var kept []int64
	reads := 0
	for range 3 {
		rows, err := readOnce(&kept, func() ([]int64, error) {
			reads++
			return scanAll(ctx, r, `SELECT snapshot_id FROM cat.ducklake_snapshot WHERE false`, func(x *int64) []any { return []any{x} })
		})
		if err != nil || len(rows) != 0 {
			t.Fatalf("rows %v, %v; want none", rows, err)
		}
	}
	if reads != 1 {
		t.Errorf("a read of no rows ran %d times, want once", reads)
	}
}
