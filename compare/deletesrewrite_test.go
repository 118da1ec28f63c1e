package compare

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
)

// A delete file rewritten in place at the same size with its
// modification time set back (cp -p, rsync -a, touch -r) is served from the
// run's Deletes with its old positions, though its inode change time (which
// fileIdentity and the listing now name) differs.
func TestDeletesSameSizeRewriteReadAgain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "del.parquet")
	if err := os.WriteFile(path, []byte("AAAAAAAA"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	run := NewDeletes()
	c1 := newDeleteFiles()
	c1.useRun(run)
	_, before1, ok := c1.get(path, "")
	if ok || !before1.ok {
		t.Fatal("no identity")
	}
	old := rawDeletes{pos: []int64{1, 2, 3}}
	c1.put(path, "", before1, old)

	// Rewritten in place: same size, other bytes, mtime restored.
	tmp := filepath.Join(dir, "new")
	if err := os.WriteFile(tmp, []byte("BBBBBBBB"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if fileid.Inode(before) == fileid.Inode(after) {
		t.Fatal("inode identity unchanged: repro invalid")
	}
	c2 := newDeleteFiles()
	c2.useRun(run)
	if got, _, ok := c2.get(path, ""); ok && reflect.DeepEqual(got, old) {
		t.Errorf("rewritten delete file served from the run's Deletes with its old positions %v (inode identity %q -> %q)", got.pos, fileid.Inode(before), fileid.Inode(after))
	}
}
