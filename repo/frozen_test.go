package repo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestFrozenCopies: the cells of a version get one verified copy of its
// frozen catalog, removed when the last cell is done; a copy whose bytes do
// not match version.json is refused (and not kept), and the next cell tries
// again.
func TestFrozenCopies(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	r, err := load(ctx, st, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	ids := versionIDs(t, root)
	work := t.TempDir()
	cells := []*Cell{{Version: ids[0], Format: "0.4"}, {Version: ids[0], Format: "1.1"}, {Version: ids[1], Format: "1.1"}}
	f := newFrozenCopies(r, work, cells)

	first, _, err := f.get(ctx, r.find(ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := f.get(ctx, r.find(ids[0]))
	if err != nil || second != first {
		t.Fatalf("second cell of the version: %q, %v; want the first cell's copy %q", second, err, first)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 1 {
		t.Errorf("work folder holds %d entries, want one copy", len(entries))
	}
	f.release(ids[0])
	if _, err := os.Stat(first); err != nil {
		t.Errorf("copy removed while a cell still uses it: %v", err)
	}
	f.release(ids[0])
	if _, err := os.Stat(filepath.Dir(first)); !os.IsNotExist(err) {
		t.Errorf("copy's folder left after the version's last cell: %v", err)
	}

	// The frozen catalog changes under the run: same size, other bytes.
	frozen := filepath.Join(root, "versions", ids[1], "ducklake.duckdb")
	orig, err := os.ReadFile(frozen)
	if err != nil {
		t.Fatal(err)
	}
	overwrite(t, frozen, 100, []byte{orig[100] ^ 0xff})
	if _, problem, err := f.get(ctx, r.find(ids[1])); err == nil || problem != ProblemMismatch {
		t.Fatalf("tampered frozen catalog: %v (%s), want a mismatch", err, problem)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("a refused copy was kept: %d entries", len(entries))
	}
	overwrite(t, frozen, 100, orig[100:101])
	if _, _, err := f.get(ctx, r.find(ids[1])); err != nil {
		t.Errorf("after the catalog was restored: %v, want a copy", err)
	}
	f.release(ids[1])
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("work folder holds %d entries after every release", len(entries))
	}
}
