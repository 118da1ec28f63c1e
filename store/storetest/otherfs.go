package storetest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
)

// OtherFSRoots are where OtherFileSystem looks, in this order, for a
// folder on another file system than the test's: /dev/shm (a tmpfs on
// Linux) for a test whose TMPDIR is on a disk, /var/tmp and /tmp (a disk,
// usually) for one whose TMPDIR is in /dev/shm, as make test puts it
// (scripts/test-tmpdir.sh).
var OtherFSRoots = []string{"/dev/shm", "/var/tmp", "/tmp"}

// OtherFileSystem returns a new empty folder (removed after the test) on
// another file system than the folder near, as a link onto another disk
// makes it: a folder under the first of OtherFSRoots whose device number
// (st_dev) differs from near's. The test fails, and is not skipped, when
// there is no such file system: a test of publishing across file systems
// that passed on one file system would prove nothing.
func OtherFileSystem(t testing.TB, near string) string {
	t.Helper()
	st, err := os.Stat(near)
	if err != nil {
		t.Fatal(err)
	}
	nearDev, ok := fileid.Device(st)
	if !ok {
		t.Fatalf("this system does not tell file systems apart (no st_dev for %s)", near)
	}
	var tried []string
	for _, root := range OtherFSRoots {
		dir, err := os.MkdirTemp(root, "fdl-otherfs-")
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		if st, err := os.Stat(dir); err == nil {
			if dev, ok := fileid.Device(st); ok && dev != nearDev {
				t.Cleanup(func() { os.RemoveAll(dir) })
				return dir
			}
		}
		os.RemoveAll(dir)
		tried = append(tried, fmt.Sprintf("%s: the same file system (st_dev %d)", root, nearDev))
	}
	t.Fatalf("this test needs a writable folder on another file system than %s (TMPDIR), to link a folder onto; tried %s", near, strings.Join(tried, "; "))
	return ""
}
