//go:build linux || darwin

package compare

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// writeLocked reports whether another process holds a write lock on the
// file at path, as a DuckDB that opened it read-write does (DuckDB locks
// the whole file with fcntl), and that process's id when the system says
// (not for an open file description lock). Closing the file it opens
// releases this process's own fcntl locks on the file: Open asks only for
// a catalog with a write-ahead log beside it, which no reader opens.
func writeLocked(path string) (pid int, locked bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_RDLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil {
		return 0, false
	}
	return int(lk.Pid), lk.Type != unix.F_UNLCK
}
