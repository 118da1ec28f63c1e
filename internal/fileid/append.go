package fileid

import (
	"fmt"
	"strconv"
)

// inodeFormat is how Inode names a file's change time, device and inode.
const inodeFormat = " ctime %d.%09d dev %d ino %d"

// appendInode appends inodeFormat of sec, nsec, dev and ino to dst, byte
// for byte as fmt formats it, without fmt's allocations: a listing names
// every file of a data folder this way, and a run lists a folder again
// after every proof (compare's stillListed).
func appendInode(dst []byte, sec, nsec int64, dev, ino uint64) []byte {
	if nsec < 0 || nsec >= 1e9 {
		return fmt.Appendf(dst, inodeFormat, sec, nsec, dev, ino)
	}
	dst = append(dst, " ctime "...)
	dst = strconv.AppendInt(dst, sec, 10)
	var frac [10]byte
	frac[0] = '.'
	for i := 9; i > 0; i-- {
		frac[i] = byte('0' + nsec%10)
		nsec /= 10
	}
	dst = append(dst, frac[:]...)
	dst = append(dst, " dev "...)
	dst = strconv.AppendUint(dst, dev, 10)
	dst = append(dst, " ino "...)
	return strconv.AppendUint(dst, ino, 10)
}
