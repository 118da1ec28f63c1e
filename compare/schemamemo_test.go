package compare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// schemaReads counts the Parquet schema reads of the data files (the
// readHook of shared) by path.
type schemaReads struct {
	mu sync.Mutex
	n  map[string]int
	// during, when set, runs at a read (before what it read is kept).
	during func(path string)
}

func countSchemaReads(shared *Digests) *schemaReads {
	s := &schemaReads{n: map[string]int{}}
	shared.readHook = func(path string) {
		s.mu.Lock()
		s.n[path]++
		during := s.during
		s.mu.Unlock()
		if during != nil {
			during(path)
		}
	}
	return s
}

func (s *schemaReads) of(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[path]
}

// rewriteCopy writes the file at path again, the same bytes in a new file
// renamed over it (a new inode and modification time: another copy).
func rewriteCopy(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".new", b, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".new", path)
}

// TestSchemasReadOncePerRun reads two versions of a history alone, as a
// check does, with the run's Digests: every version names the data files
// of the versions before it, and each version's reader read their Parquet
// schemas again (parquet_schema), the same bytes at every version. The run
// now keeps a schema under the copy's identity: the later version reads
// only the schemas of its own new files. A copy replaced between the
// reads (the same bytes written again: another copy) is read again, and
// so is one replaced while its schema was read (its schema is not kept:
// which copy's bytes were read is not known).
func TestSchemasReadOncePerRun(t *testing.T) {
	ctx := context.Background()
	cats, shared := selfCarryLake(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	copyTree(t, shared, data)
	files, err := filepath.Glob(filepath.Join(data, "*", "*", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var dataFiles []string
	for _, f := range files {
		if !strings.HasSuffix(f, "-delete.parquet") {
			dataFiles = append(dataFiles, f)
		}
	}
	if len(dataFiles) < 4 {
		t.Fatalf("%d data files in %s, want a history's", len(dataFiles), data)
	}
	digests := NewDigests(nil) // a run without a cache (check --no-cache)
	reads := countSchemaReads(digests)
	self := func(step, a string) {
		t.Helper()
		if _, err := Self(ctx, a, Options{DataPath: data, Digests: digests, Engines: readerDBs}); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	last, before := cats[len(cats)-1], cats[len(cats)-2]
	self("the version before the last", before)
	read := 0
	for _, f := range dataFiles {
		if reads.of(f) > 0 {
			read++
		}
	}
	if read == 0 {
		t.Fatal("the first read read no data file's schema")
	}
	self("the last version", last)
	for _, f := range dataFiles {
		if n := reads.of(f); n != 1 {
			t.Errorf("%s: schema read %d times by the two versions' reads, want once", filepath.Base(f), n)
		}
	}

	// A copy replaced since it was read is read again; the others not.
	target := dataFiles[0]
	if err := rewriteCopy(target); err != nil {
		t.Fatal(err)
	}
	self("the last version after a copy was replaced", last)
	if n := reads.of(target); n != 2 {
		t.Errorf("%s, replaced after its schema was read: read %d times, want 2", filepath.Base(target), n)
	}
	for _, f := range dataFiles[1:] {
		if n := reads.of(f); n != 1 {
			t.Errorf("%s, not replaced: schema read %d times, want once", filepath.Base(f), n)
		}
	}

}

// TestSchemaOfACopyReplacedMidRead: a schema read from a copy in a
// store's mirror, replaced while it was read (another run sharing the
// cache downloaded it again: a new ETag), may be the new copy's; kept for
// the run under the copy it replaced, a later reader, once the mirror held
// that object again, took it. It is now kept only while the copy is still
// the one its key names, after the read, and the later reader reads it
// again.
func TestSchemaOfACopyReplacedMidRead(t *testing.T) {
	ctx := context.Background()
	cats, shared := selfCarryLake(t)
	last := cats[len(cats)-1]
	data, m := mirroredCopy(t, shared)
	files, err := filepath.Glob(filepath.Join(data, "*", "*", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	target := ""
	for _, f := range files {
		if !strings.HasSuffix(f, "-delete.parquet") {
			target = f
			break
		}
	}
	if target == "" {
		t.Fatalf("no data file in %s", data)
	}
	digests := NewDigests(nil)
	reads := countSchemaReads(digests)
	var once sync.Once
	replaced := os.ErrNotExist
	reads.during = func(path string) {
		if path == target {
			once.Do(func() { replaced = m.replace(target, "e2") })
		}
	}
	self := func(step string) {
		t.Helper()
		l := NewListings()
		l.SetMirror(data, m)
		if _, err := Self(ctx, last, Options{DataPath: data, Digests: digests, Listings: l, Engines: readerDBs}); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	self("a read while the copy is replaced")
	if replaced != nil {
		t.Fatalf("no schema read of %s: %v", filepath.Base(target), replaced)
	}
	reads.during = nil
	// The mirror holds the first object again (the store went back to it).
	m.set(target, "e1")
	self("a read with the first object")
	if n := reads.of(target); n != 2 {
		t.Errorf("%s, replaced while its schema was read: read %d times, want twice (its first read is not kept)", filepath.Base(target), n)
	}
}
