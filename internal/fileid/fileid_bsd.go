//go:build darwin || freebsd || netbsd

package fileid

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Inode names what a user cannot set back on a file: its inode
// change time and its device and inode numbers (see fileid_linux.go).
func Inode(info fs.FileInfo) string {
	return string(AppendInode(nil, info))
}

// AppendInode appends Inode(info) to dst.
func AppendInode(dst []byte, info fs.FileInfo) []byte {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return dst
	}
	return appendInode(dst, int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec), uint64(st.Dev), uint64(st.Ino))
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

// FileSystem names the file system the file at path is on, following
// links: its device number.
func FileSystem(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	dev, _ := Device(info)
	return fmt.Sprint(dev), nil
}
