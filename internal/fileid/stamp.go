package fileid

import (
	"io/fs"
	"strconv"
)

// Stamp names a file as it is on disk: "SIZE MTIME" (bytes, modification
// time in Unix nanoseconds) and Inode's change time, device and inode.
// Any write changes it, and so does a copy; it is what every cache of a
// run keys a local file by (compare's listings and identities, repo's
// copies and local MD5s), so they all see a rewrite alike.
func Stamp(info fs.FileInfo) string {
	return string(AppendStamp(nil, info))
}

// AppendStamp appends Stamp(info) to dst, without fmt's allocations (a
// data folder's listing stamps every file, again after every proof).
func AppendStamp(dst []byte, info fs.FileInfo) []byte {
	dst = strconv.AppendInt(dst, info.Size(), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, info.ModTime().UnixNano(), 10)
	return AppendInode(dst, info)
}
