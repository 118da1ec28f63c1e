package fileid

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// appendInode writes what fmt writes for inodeFormat, byte for byte
// (listings kept in a cache name files so: a change would miss every kept
// proof), out-of-range nanoseconds included; AppendInode of a file is
// Inode's text appended.
func TestAppendInodeAsFmt(t *testing.T) {
	for _, c := range []struct {
		sec, nsec int64
		dev, ino  uint64
	}{
		{0, 0, 0, 0},
		{1_796_546_707, 968_840_386, 65024, 10027265},
		{1, 5, 1, 1},
		{-1, 999_999_999, math.MaxUint64, math.MaxUint64},
		{math.MinInt64, 1, 0, 7},
		{12, 1_000_000_000, 3, 4},
		{12, -1, 3, 4},
		{12, math.MinInt64, 3, 4},
	} {
		want := fmt.Sprintf(inodeFormat, c.sec, c.nsec, c.dev, c.ino)
		if got := string(appendInode([]byte("x"), c.sec, c.nsec, c.dev, c.ino)); got != "x"+want {
			t.Errorf("%+v: %q, want %q", c, got, "x"+want)
		}
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(AppendInode([]byte("p"), st)), "p"+Inode(st); got != want {
		t.Errorf("AppendInode %q, want %q", got, want)
	}
}

// Stamp is byte for byte the "%d %d%s" of size, modification time and
// Inode that the caches keyed local files by before it (so their keys,
// kept on disk across runs, did not change with it).
func TestStampAsFmt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("some bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d %d%s", info.Size(), info.ModTime().UnixNano(), Inode(info))
	if got := Stamp(info); got != want {
		t.Errorf("Stamp = %q, want %q", got, want)
	}
	if got := string(AppendStamp([]byte("x "), info)); got != "x "+want {
		t.Errorf("AppendStamp = %q, want %q", got, "x "+want)
	}
}
