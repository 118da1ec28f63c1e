package testlakes

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A fresh clone tests itself: every archive the tests use is committed.
func TestArchivesCommitted(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_DIR", "")
	for _, a := range Archives {
		p := filepath.Join(SourceDir(), a+".tar.gz")
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("conformance archive %s is not committed: %v", p, err)
		}
	}
}

// A missing archive is an error the caller turns into a failure, never a skip.
func TestMissingArchiveIsAnError(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_DIR", t.TempDir())
	if _, err := Unpack("lakes"); !os.IsNotExist(err) {
		t.Fatalf("Unpack from an empty folder: got %v, want a not-exist error", err)
	}
}

// A test that writes into the shared unpacked tree is named (Dir's
// cleanup reports Changed), and the tree is unpacked again, clean, once
// its marker is gone: a rewritten delete file a test once left in the
// shared lakes made another test fail in every later run.
func TestChangedTreeNamedAndUnpackedAgain(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_CACHE", t.TempDir())
	dir, err := Unpack("migrations")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(dir)
	if changed, err := Changed(root); err != nil || len(changed) != 0 {
		t.Fatalf("fresh tree: changed %q, %v", changed, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(entries, os.DirEntry.IsDir)
	if i < 0 {
		t.Fatalf("no lake in %s", dir)
	}
	lake := filepath.Join(dir, entries[i].Name())
	if err := os.WriteFile(filepath.Join(lake, "stray.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel := "migrations/" + entries[i].Name()
	changed, err := Changed(root)
	if err != nil || !slices.Equal(changed, []string{"added " + rel + "/stray.parquet", "written to " + rel}) {
		t.Fatalf("after a file was written: changed %q, %v", changed, err)
	}
	if err := os.Remove(filepath.Join(root, completeName)); err != nil {
		t.Fatal(err)
	}
	again, err := Unpack("migrations")
	if err != nil || again != dir {
		t.Fatalf("unpacked again in %s, %v; want %s", again, err, dir)
	}
	if changed, err := Changed(root); err != nil || len(changed) != 0 {
		t.Fatalf("unpacked again: changed %q, %v", changed, err)
	}
	if _, err := os.Stat(filepath.Join(lake, "stray.parquet")); !os.IsNotExist(err) {
		t.Fatalf("the stray file survived unpacking again: %v", err)
	}
}

// A test that changes a file's permissions in the shared tree (to test an
// unreadable file) changes what the others read: Changed names it.
// Before, the manifest held the file's type alone, not its permissions.
func TestChangedNamesPermissions(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_CACHE", t.TempDir())
	dir, err := Unpack("migrations")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(dir)
	var file string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && file == "" && d.Type().IsRegular() {
			file = p
		}
		return err
	})
	if err != nil || file == "" {
		t.Fatalf("no file in %s: %v", dir, err)
	}
	if err := os.Chmod(file, 0o200); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, file)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := Changed(root)
	if want := []string{"written to " + filepath.ToSlash(rel)}; err != nil || !slices.Equal(changed, want) {
		t.Fatalf("after a chmod: changed %q, %v; want %q", changed, err, want)
	}
}

// cleanupTB is a testing.TB whose cleanups and errors are kept, to run
// and read: what Dir's cleanup does at a test's end.
type cleanupTB struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (c *cleanupTB) Cleanup(f func())          { c.cleanups = append(c.cleanups, f) }
func (c *cleanupTB) Errorf(f string, a ...any) { c.errs = append(c.errs, fmt.Sprintf(f, a...)) }
func (c *cleanupTB) end() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
	c.cleanups = nil
}

// TestDirCleanupNamesWhatChanged: Dir's cleanup fails the test that
// changed the shared tree, naming the archive and the file, and marks the
// tree to be unpacked again; another test's cleanup on the same tree
// (reported already) and a test that changed nothing pass.
func TestDirCleanupNamesWhatChanged(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_CACHE", t.TempDir())
	clean := &cleanupTB{TB: t}
	Dir(clean, "migrations")
	clean.end()
	if len(clean.errs) > 0 {
		t.Fatalf("a test that changed nothing: %q", clean.errs)
	}
	writer, other := &cleanupTB{TB: t}, &cleanupTB{TB: t}
	dir := Dir(writer, "migrations")
	Dir(other, "migrations")
	if err := os.WriteFile(filepath.Join(dir, "stray.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	writer.end()
	if len(writer.errs) != 1 || !strings.Contains(writer.errs[0], "conformance archive migrations") || !strings.Contains(writer.errs[0], "added migrations/stray.parquet") {
		t.Fatalf("the test that wrote: %q, want one error naming the archive and the file", writer.errs)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), completeName)); !os.IsNotExist(err) {
		t.Fatalf("the changed tree keeps its %s: %v", completeName, err)
	}
	other.end()
	if len(other.errs) > 0 {
		t.Fatalf("another test on the tree already reported: %q", other.errs)
	}
	again := &cleanupTB{TB: t}
	Dir(again, "migrations")
	again.end()
	if _, err := os.Stat(filepath.Join(dir, "stray.parquet")); !os.IsNotExist(err) || len(again.errs) > 0 {
		t.Fatalf("unpacked again: the stray file: %v; errors %q", err, again.errs)
	}
}

// TestLakeCleanupNamesWhatChanged: Lake's cleanup, which reads one lake
// and the archive folder's own entries, still fails the test that wrote a
// file in place inside its lake, or a file beside the lakes, naming it,
// and marks the tree to be unpacked again; a test that changed nothing
// passes.
func TestLakeCleanupNamesWhatChanged(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_CACHE", t.TempDir())
	clean := &cleanupTB{TB: t}
	lake := Lake(clean, "migrations", "v04")
	clean.end()
	if len(clean.errs) > 0 {
		t.Fatalf("a test that changed nothing: %q", clean.errs)
	}
	if filepath.Base(lake) != "v04" || filepath.Base(filepath.Dir(lake)) != "migrations" {
		t.Fatalf("Lake returned %s, want .../migrations/v04", lake)
	}
	root := filepath.Dir(filepath.Dir(lake))

	// A file of the lake rewritten in place: its folder is unchanged.
	writer := &cleanupTB{TB: t}
	lake = Lake(writer, "migrations", "v04")
	f, err := os.OpenFile(filepath.Join(lake, "source.duckdb"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0}, 100); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	writer.end()
	if len(writer.errs) != 1 || !strings.Contains(writer.errs[0], "conformance archive migrations") || !strings.Contains(writer.errs[0], "written to migrations/v04/source.duckdb") {
		t.Fatalf("the test that wrote in its lake: %q, want one error naming the archive and the file", writer.errs)
	}
	if _, err := os.Stat(filepath.Join(root, completeName)); !os.IsNotExist(err) {
		t.Fatalf("the changed tree keeps its %s: %v", completeName, err)
	}

	// A file added beside the lakes, by a test handed one lake.
	beside := &cleanupTB{TB: t}
	lake = Lake(beside, "migrations", "v04")
	if err := os.WriteFile(filepath.Join(filepath.Dir(lake), "stray.parquet"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	beside.end()
	if len(beside.errs) != 1 || !strings.Contains(beside.errs[0], "added migrations/stray.parquet") {
		t.Fatalf("the test that wrote beside the lakes: %q, want one error naming the file", beside.errs)
	}
}

// ChangedIn with a lake reads that lake and the archive folder's entries:
// a change in another lake's files is left to the tests handed it (Lake)
// or the whole archive (Dir), whose Changed names it.
func TestChangedInReadsOneLake(t *testing.T) {
	t.Setenv("FDL_CONFORMANCE_CACHE", t.TempDir())
	dir, err := Unpack("migrations")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(dir)
	if err := os.WriteFile(filepath.Join(dir, "v03", "source.duckdb"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed, err := ChangedIn(root, "v04"); err != nil || len(changed) != 0 {
		t.Fatalf("v04 after v03 was written: changed %q, %v", changed, err)
	}
	want := []string{"written to migrations/v03/source.duckdb"}
	for _, lake := range []string{"v03", ""} {
		if changed, err := ChangedIn(root, lake); err != nil || !slices.Equal(changed, want) {
			t.Fatalf("ChangedIn(%q): changed %q, %v; want %q", lake, changed, err, want)
		}
	}
}
