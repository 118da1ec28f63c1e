//go:build linux

package fileid

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Inode names what a user cannot set back on a file: its inode
// change time and its device and inode numbers. A rewrite that keeps the
// size and restores the modification time (cp -p, rsync -a, tar x,
// touch -r) still changes the change time, or the inode when the file is
// replaced; either makes a listing or a file identity differ.
func Inode(info fs.FileInfo) string {
	return string(AppendInode(nil, info))
}

// AppendInode appends Inode(info) to dst.
func AppendInode(dst []byte, info fs.FileInfo) []byte {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return dst
	}
	return appendInode(dst, int64(st.Ctim.Sec), int64(st.Ctim.Nsec), uint64(st.Dev), uint64(st.Ino))
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

// FileSystem names the mount the file at path is on, following links: its
// device number and, where the kernel tells it (statx, Linux 5.8 on), the
// mount's ID. link(2) fails across two mounts of one file system (a bind
// mount, a container's volume) as across file systems, and both mounts
// have the same device number.
func FileSystem(path string) (string, error) {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, 0, unix.STATX_MNT_ID, &stx); err != nil {
		if !errors.Is(err, unix.ENOSYS) {
			return "", &fs.PathError{Op: "statx", Path: path, Err: err}
		}
		info, err := os.Stat(path)
		if err != nil {
			return "", err
		}
		dev, _ := Device(info)
		return fmt.Sprint(dev), nil
	}
	dev := unix.Mkdev(stx.Dev_major, stx.Dev_minor)
	if stx.Mask&unix.STATX_MNT_ID == 0 {
		return fmt.Sprint(dev), nil
	}
	return fmt.Sprintf("%d mount %d", dev, stx.Mnt_id), nil
}
