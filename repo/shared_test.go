package repo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// Shared fixtures: a repository several tests start from (publishedLake,
// demoRepo, the seven-version history of the carry tests) is built once per
// test binary, into a folder of its own under $TMPDIR, and each test copies
// it before changing anything, as each built its own before. Every test
// that takes one checks at its end that the shared files are what they
// were when built (paths, sizes, modification times and contents), so a
// test that writes into a shared fixture fails rather than changing what
// the next test sees (tests run side by side, t.Parallel: the test named
// may be one that ran beside the one that wrote).

// sharedRoot is the folder of every shared fixture of this run, removed
// when the tests end.
var sharedRoot struct {
	sync.Mutex
	dir string
}

func TestMain(m *testing.M) {
	code := m.Run()
	sharedRoot.Lock()
	if sharedRoot.dir != "" {
		os.RemoveAll(sharedRoot.dir)
	}
	sharedRoot.Unlock()
	os.Exit(code)
}

// sharedFixture is one fixture: built by the first test that asks for it.
type sharedFixture struct {
	name string
	once sync.Once
	dir  string
	sum  string          // treeSum of dir when built
	ok   bool            // built without failing
	res  *lakegen.Result // what lakegen said of it (generate)

	mu        sync.Mutex
	changedBy string // the test after which it was found changed
}

// get builds the fixture into a new folder the first time (build fails the
// test that asks first, and every later one), and returns the folder. The
// caller must not change anything under it.
func (f *sharedFixture) get(t *testing.T, build func(t *testing.T, dir string)) string {
	t.Helper()
	f.once.Do(func() {
		sharedRoot.Lock()
		if sharedRoot.dir == "" {
			dir, err := os.MkdirTemp("", "fdl-formats-shared-")
			if err != nil {
				sharedRoot.Unlock()
				t.Fatal(err)
			}
			sharedRoot.dir = dir
		}
		f.dir = filepath.Join(sharedRoot.dir, f.name)
		sharedRoot.Unlock()
		build(t, f.dir)
		sum, err := treeSum(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		f.sum, f.ok = sum, true
	})
	if !f.ok {
		t.Fatalf("shared fixture %s: its build failed (in the first test that asked for it)", f.name)
	}
	f.mu.Lock()
	by := f.changedBy
	f.mu.Unlock()
	if by != "" {
		t.Fatalf("shared fixture %s was changed by %s", f.name, by)
	}
	t.Cleanup(func() {
		if sum, err := treeSum(f.dir); err != nil || sum != f.sum {
			f.mu.Lock()
			if f.changedBy == "" {
				f.changedBy = t.Name()
			}
			f.mu.Unlock()
			t.Errorf("shared fixture %s was changed by this test (%v): copy it before changing it", f.name, err)
		}
	})
	return f.dir
}

// generate is get for a fixture lakegen writes (gen), with what lakegen
// said of it.
func (f *sharedFixture) generate(t *testing.T, gen func(dir string) (*lakegen.Result, error)) (string, *lakegen.Result) {
	t.Helper()
	dir := f.get(t, func(t *testing.T, dir string) {
		res, err := gen(dir)
		if err != nil {
			t.Fatal(err)
		}
		f.res = res
	})
	return dir, f.res
}

// treeSum hashes every path under dir with its type, size, modification
// time and contents (a symbolic link: its target).
func treeSum(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%q %v %d %d\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %q\n", target)
		case info.Mode().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			if _, err := io.Copy(h, in); err != nil {
				return err
			}
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}
