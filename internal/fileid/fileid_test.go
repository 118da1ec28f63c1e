package fileid

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A same-size rewrite that sets the modification time back changes Inode
// (on the systems that read it).
func TestInodeSeesRewriteWithTimeSetBack(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" && runtime.GOOS != "netbsd" {
		t.Skip("Inode is empty on " + runtime.GOOS)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("AAAA"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		rewrite func() error
	}{
		{"in place", func() error { return os.WriteFile(p, []byte("BBBB"), 0o644) }},
		{"renamed over", func() error {
			tmp := filepath.Join(dir, "tmp")
			if err := os.WriteFile(tmp, []byte("CCCC"), 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, p)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.rewrite(); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, before.ModTime(), before.ModTime()); err != nil {
				t.Fatal(err)
			}
			after, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
				t.Fatal("the rewrite did not keep size and modification time")
			}
			if Inode(after) == Inode(before) {
				t.Errorf("Inode unchanged after a rewrite: %q", Inode(after))
			}
		})
	}
}
