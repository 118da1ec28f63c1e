package compare

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestListingsGrownFrom: a proof kept under an earlier listing of a data
// folder is found again (Carry) while the folder only gained files, never
// once a file it listed changed or went.
func TestListingsGrownFrom(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write("a.parquet", "aaaa", t0)
	l := NewListings()
	first, err := l.list(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A file added (a download into the data cache): the first listing
	// is one the folder grew from.
	write("b.parquet", "bbbb", t0)
	l.Changed()
	if got := l.grownFrom(dir); len(got) != 1 || !bytes.Equal(got[0], first) {
		t.Fatalf("after an added file: %d listings grown from, want the first", len(got))
	}
	second, err := l.list(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A file of the first listing rewritten (same size, another time):
	// neither earlier listing holds.
	write("a.parquet", "AAAA", t0.Add(time.Second))
	l.Changed()
	if got := l.grownFrom(dir); len(got) != 0 {
		t.Fatalf("after a changed file: %d listings grown from, want none", len(got))
	}
	// A file gone: none either.
	write("a.parquet", "aaaa", t0)
	l.Changed()
	if err := os.Remove(filepath.Join(dir, "b.parquet")); err != nil {
		t.Fatal(err)
	}
	l.Changed()
	for _, got := range l.grownFrom(dir) {
		if bytes.Equal(got, second) {
			t.Fatal("a listing naming a removed file is taken for one the folder grew from")
		}
	}
}
