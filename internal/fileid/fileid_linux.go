//go:build linux

package fileid

import (
	"fmt"
	"io/fs"
	"syscall"
)

// Inode names what a user cannot set back on a file: its inode
// change time and its device and inode numbers. A rewrite that keeps the
// size and restores the modification time (cp -p, rsync -a, tar x,
// touch -r) still changes the change time, or the inode when the file is
// replaced; either makes a listing or a file identity differ.
func Inode(info fs.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" ctime %d.%09d dev %d ino %d", st.Ctim.Sec, st.Ctim.Nsec, uint64(st.Dev), uint64(st.Ino))
}

// Device is the number of the file system a file is on, and whether the
// system tells it.
func Device(info fs.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Dev), true
}
