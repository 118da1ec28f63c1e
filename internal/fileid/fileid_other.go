//go:build !linux && !darwin && !freebsd && !netbsd

package fileid

import (
	"io/fs"
	"os"
)

// Inode is empty where the file's change time and inode are not
// read (Windows, among others): a listing and a file identity name only
// the path, size and modification time there, and a same-size rewrite
// that restores the modification time is not seen by a warm check (see
// docs/repository.md).
func Inode(fs.FileInfo) string { return "" }

// AppendInode appends Inode(info) to dst: nothing.
func AppendInode(dst []byte, _ fs.FileInfo) []byte { return dst }

// Device is not told where the device number is not read: every folder
// counts as on the same file system.
func Device(fs.FileInfo) (uint64, bool) { return 0, false }

// FileSystem is not told where the device number is not read: every
// folder counts as on the same file system.
func FileSystem(path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		return "", err
	}
	return "", nil
}
