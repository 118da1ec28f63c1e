package storetest

import (
	"os"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
)

// OtherFSRoot is where OtherFileSystem makes its folders: a tmpfs on Linux,
// another file system than the usual TMPDIR.
const OtherFSRoot = "/dev/shm"

// OtherFileSystem returns a new empty folder (removed after the test) on
// another file system than the folder near, as a link onto another disk
// makes it: a folder under OtherFSRoot whose device number (st_dev)
// differs from near's. The test fails, and is not skipped, when there is
// no such file system: a test of publishing across file systems that
// passed on one file system would prove nothing.
func OtherFileSystem(t testing.TB, near string) string {
	t.Helper()
	dir, err := os.MkdirTemp(OtherFSRoot, "fdl-otherfs-")
	if err != nil {
		t.Fatalf("this test needs a writable %s on another file system than %s (TMPDIR), to link a folder onto: %v", OtherFSRoot, near, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	a, errA := os.Stat(dir)
	b, errB := os.Stat(near)
	if errA != nil || errB != nil {
		t.Fatalf("stat %s, %s: %v, %v", dir, near, errA, errB)
	}
	devA, okA := fileid.Device(a)
	devB, okB := fileid.Device(b)
	if !okA || !okB {
		t.Fatalf("this system does not tell the file systems of %s and %s apart (no st_dev)", dir, near)
	}
	if devA == devB {
		t.Fatalf("%s and %s are on the same file system (st_dev %d): this test needs two; set TMPDIR to a folder outside %s", dir, near, devA, OtherFSRoot)
	}
	return dir
}
