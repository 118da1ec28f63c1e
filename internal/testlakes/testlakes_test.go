package testlakes

import (
	"os"
	"path/filepath"
	"slices"
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
