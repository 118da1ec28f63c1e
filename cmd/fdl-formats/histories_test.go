package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// histories are the lakegen histories the tests start from, by options:
// each is generated once per test binary, into a folder of its own that
// TestMain removes (removeHistories), and every test gets a copy of it
// (historyCopy), so that no test sees another's changes.
var histories struct {
	sync.Mutex
	root   string
	byOpts map[lakegen.HistoryOptions]*goldenHistory
}

type goldenHistory struct {
	once sync.Once
	dir  string
	res  *lakegen.Result
	err  error
}

// historyCopy copies the lakegen history of opts into a new folder of the
// test's and returns it, with what lakegen said of the history.
func historyCopy(t *testing.T, opts lakegen.HistoryOptions) (string, *lakegen.Result) {
	t.Helper()
	histories.Lock()
	if histories.root == "" {
		root, err := os.MkdirTemp("", "fdl-formats-cmd-histories-")
		if err != nil {
			histories.Unlock()
			t.Fatal(err)
		}
		histories.root = root
		histories.byOpts = map[lakegen.HistoryOptions]*goldenHistory{}
	}
	h := histories.byOpts[opts]
	if h == nil {
		h = &goldenHistory{dir: filepath.Join(histories.root, fmt.Sprint(len(histories.byOpts)))}
		histories.byOpts[opts] = h
	}
	histories.Unlock()
	h.once.Do(func() {
		h.res, h.err = lakegen.History(context.Background(), h.dir, opts)
	})
	if h.err != nil {
		t.Fatalf("lakegen history %+v: %v", opts, h.err)
	}
	dir := filepath.Join(t.TempDir(), "history")
	if err := os.CopyFS(dir, os.DirFS(h.dir)); err != nil {
		t.Fatalf("copy the lakegen history %+v: %v", opts, err)
	}
	return dir, h.res
}

// removeHistories removes the histories' folder (TestMain, after the
// tests).
func removeHistories() {
	histories.Lock()
	defer histories.Unlock()
	if histories.root != "" {
		os.RemoveAll(histories.root)
	}
}
