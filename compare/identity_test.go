package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// copyMirror is a local folder standing for a store's mirror, as a remote
// repository's data cache is one (repo): each copy is named by its object,
// key, size and ETag, which the test sets per file ("e1" unless set), as
// the record a download keeps beside the copy gives it.
type copyMirror struct {
	dir  string
	mu   sync.Mutex
	etag map[string]string // by path relative to dir
}

func (m *copyMirror) Name() string { return "test-store data/" }

func (m *copyMirror) Identity(path string) (string, bool) {
	rel, err := filepath.Rel(m.dir, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.etag[rel]
	if e == "" {
		e = "e1"
	}
	return fmt.Sprintf("data/%s %d %s", filepath.ToSlash(rel), st.Size(), e), false
}

// mirroredLake is the conformance lake 06_deletes's latest catalog over a
// copy of its data folder served as a store's mirror (copyMirror), and
// the data files of its table main.whole, for a test to replace.
func mirroredLake(t *testing.T) (catalog, data string, files []string, m *copyMirror) {
	t.Helper()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data, m = mirroredCopy(t, filepath.Join(lake, "data"))
	files, err := filepath.Glob(filepath.Join(data, "main", "whole", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data file in %s (%v)", data, err)
	}
	return catalog, data, files, m
}

// mirroredCopy copies the data folder src into a new folder served as a
// store's mirror (copyMirror), every copy under the ETag "e1".
func mirroredCopy(t *testing.T, src string) (data string, m *copyMirror) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data = filepath.Join(dir, "data")
	copyTree(t, src, data)
	return data, &copyMirror{dir: data, etag: map[string]string{}}
}

// replace downloads the copy at path again, as another run sharing the
// cache does once its object changed in the store: the same bytes, a new
// file renamed over the copy, under the ETag etag.
func (m *copyMirror) replace(path, etag string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".download", b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(path+".download", path); err != nil {
		return err
	}
	m.set(path, etag)
	return nil
}

func (m *copyMirror) set(path, etag string) {
	rel, _ := filepath.Rel(m.dir, path)
	m.mu.Lock()
	m.etag[rel] = etag
	m.mu.Unlock()
}

// TestDigestsOfACopyReplacedMidRead: a comparison over a store's mirror
// builds the digest keys of the data files (naming each copy by its
// object), then reads them. A copy replaced in between (another run
// sharing the cache downloaded it again: a new ETag) was read, and its
// digests kept under the keys naming the copy it replaced: a later run
// whose mirror held that object again took them from the digest cache.
// A digest is now kept only while the copy read is still the one its key
// names; the proof, which read the copy under the old name, is not kept
// either, and the next comparison reads that file again.
func TestDigestsOfACopyReplacedMidRead(t *testing.T) {
	ctx := context.Background()
	catalog, data, files, m := mirroredLake(t)
	target := files[0]
	store := memStore{}
	run := func(step string, hook func(owned, waits int)) *Report {
		t.Helper()
		l := NewListings()
		l.SetMirror(data, m)
		shared := NewDigests(store)
		shared.claimedHook = hook
		rep, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DigestCache: store, Digests: shared, Listings: l, everyDigest: true, Engines: readerDBs})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return rep
	}
	var once sync.Once
	replaced := fmt.Errorf("no read")
	first := run("comparison while the copy is replaced", func(owned, waits int) {
		once.Do(func() { replaced = m.replace(target, "e2") })
	})
	if replaced != nil {
		t.Fatal(replaced)
	}
	if first.Digests.Computed == 0 {
		t.Fatalf("first comparison: %+v; want the files read", first.Digests)
	}
	// The mirror holds the first object again (the store went back to it).
	m.set(target, "e1")
	second := run("comparison with the first object", nil)
	if second.ProofCached {
		t.Fatal("second comparison: the proof found kept; the first read a copy its key did not name")
	}
	if second.Digests.Computed == 0 {
		t.Errorf("second comparison: %+v; every digest from the cache, also those of %s read from the copy that replaced it", second.Digests, target)
	}
	t.Logf("first %+v; second %+v", first.Digests, second.Digests)
}

// TestFactsOfACopyReplacedAfterTheRead: what a copy's bytes alone tell
// (its Parquet schema, its footer's quirk hits) is kept in the digest
// cache under its object. A copy replaced after its schema was read and
// before the schema was kept (another run sharing the cache downloaded it
// again: a new ETag) had the old copy's schema kept under the new copy's
// key, made at keep time. It is now kept under the key of the copy as it
// was before the read, and only while it still is that copy.
func TestFactsOfACopyReplacedAfterTheRead(t *testing.T) {
	ctx := context.Background()
	catalog, data, files, m := mirroredLake(t)
	target := files[0]
	store := memStore{}
	l := NewListings()
	l.SetMirror(data, m)
	before := mirroredKey(l, keptSchemaKind, target)
	shared := NewDigests(store)
	var once sync.Once
	replaced := fmt.Errorf("no schema read of %s", target)
	shared.readHook = func(path string) {
		if path == target {
			once.Do(func() { replaced = m.replace(target, "e2") })
		}
	}
	if _, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DigestCache: store, Digests: shared, Listings: l, everyDigest: true, Engines: readerDBs}); err != nil {
		t.Fatal(err)
	}
	if replaced != nil {
		t.Fatal(replaced)
	}
	after := mirroredKey(l, keptSchemaKind, target)
	if before == "" || after == "" || before == after {
		t.Fatalf("keys before %q and after %q the copy was replaced", before, after)
	}
	if _, ok := store[after]; ok {
		t.Errorf("the schema read from the replaced copy is kept under the new copy's key")
	}
	if _, ok := store[before]; ok {
		t.Errorf("the schema is kept under the replaced copy's key while the copy is another")
	}
	// Another file's schema, not replaced, is kept.
	other := files[len(files)-1]
	if other != target {
		if _, ok := store[mirroredKey(l, keptSchemaKind, other)]; !ok {
			t.Errorf("the schema of %s, not replaced, is not kept", other)
		}
	}
}

// TestSelfReadOfACopyReplacedMidRead: a self-read (Self: a frozen catalog
// read alone, as a proof reads its side A) over a store's mirror is kept
// under the data folder's listing made before it reads, as a proof is. A
// copy replaced while it read (another run sharing the cache downloaded it
// again: a new ETag) left the self-read kept under the listing naming the
// copy it replaced: a later run whose mirror held that object again took
// the self-read, never made of the bytes it names. As a proof, a
// self-read is now kept only while its folder still lists every copy its
// key listed, as it listed it, and its reader's copies are those it named.
func TestSelfReadOfACopyReplacedMidRead(t *testing.T) {
	ctx := context.Background()
	catalog, data, files, m := mirroredLake(t)
	target := files[0]
	store := memStore{}
	var once sync.Once
	replaced := fmt.Errorf("no read of %s", target)
	replace := func() { once.Do(func() { replaced = m.replace(target, "e2") }) }
	run := func(step string, hook bool) *Report {
		t.Helper()
		l := NewListings()
		l.SetMirror(data, m)
		shared := NewDigests(store)
		if hook {
			shared.claimedHook = func(owned, waits int) { replace() }
			shared.readHook = func(string) { replace() }
		}
		rep, err := Self(ctx, catalog, Options{DataPath: data, DigestCache: store, Digests: shared, Listings: l, Engines: readerDBs})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return rep
	}
	first := run("self-read while the copy is replaced", true)
	if replaced != nil {
		t.Fatal(replaced)
	}
	if first.ProofCached {
		t.Fatal("first self-read: found kept in an empty cache")
	}
	// The mirror holds the first object again (the store went back to it).
	m.set(target, "e1")
	if second := run("self-read with the first object", false); second.ProofCached {
		t.Error("second self-read: found kept; the first read a copy replaced after its key listed the folder")
	}
	// What the second read, with no copy replaced, it kept.
	if third := run("self-read again", false); !third.ProofCached {
		t.Error("third self-read: not found kept; the second read every copy as its key named it")
	}
}
