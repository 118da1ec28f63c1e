package digestcache

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func key(i int) string { return fmt.Sprintf("%064x", i+1) }

func TestGetPut(t *testing.T) {
	c, err := Open(t.TempDir(), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(key(1)); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := c.Put(key(1), []byte(`{"rows":1}`)); err != nil {
		t.Fatal(err)
	}
	if b, ok := c.Get(key(1)); !ok || string(b) != `{"rows":1}` {
		t.Fatalf("got %q %v", b, ok)
	}
	if filepath.Base(c.Dir()) != Subdir {
		t.Fatalf("cache folder %s, want .../%s", c.Dir(), Subdir)
	}
	for _, bad := range []string{"", "../../etc/passwd", "ABCDEF0123456789", "abc"} {
		if err := c.Put(bad, nil); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
		if _, ok := c.Get(bad); ok {
			t.Errorf("Get(%q) hit", bad)
		}
	}
}

// TestConcurrentWriters: goroutines standing in for processes write and read
// the same keys; every read sees a whole value, never a partial one.
func TestConcurrentWriters(t *testing.T) {
	root := t.TempDir()
	val := []byte(`{"rows":123456789,"hash":"0123456789abcdef0123456789abcdef"}`)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := Open(root, Limits{}) // each writer opens its own, like a process
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < 50; i++ {
				if err := c.Put(key(i), val); err != nil {
					errs <- err
					return
				}
				if b, ok := c.Get(key(i)); ok && string(b) != string(val) {
					errs <- fmt.Errorf("partial value %q", b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c, _ := Open(root, Limits{})
	if n := c.Len(); n != 50 {
		t.Fatalf("%d entries, want 50", n)
	}
}

// TestBounded: past its bound the cache drops the least recently used
// entries, and a Get keeps an entry young.
func TestBounded(t *testing.T) {
	c, err := Open(t.TempDir(), Limits{Entries: 10})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 20; i++ {
		if err := c.Put(key(i), []byte("x")); err != nil {
			t.Fatal(err)
		}
		p, _ := c.path(key(i))
		ts := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.Get(key(0)); !ok { // the oldest, now just used
		t.Fatal("miss")
	}
	if err := c.Prune(); err != nil {
		t.Fatal(err)
	}
	if n := c.Len(); n != 9 {
		t.Fatalf("%d entries after pruning to 90%% of 10, want 9", n)
	}
	if _, ok := c.Get(key(0)); !ok {
		t.Error("the most recently used entry was pruned")
	}
	if _, ok := c.Get(key(1)); ok {
		t.Error("the least recently used entry survived")
	}
}

// Every CLI run opens its own Cache; runs that each write fewer than
// pruneEvery entries must still keep the folder within its bounds.
func TestBoundedAcrossShortRuns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lim     Limits
		value   int // bytes per entry
		perRun  int
		maxLeft int // entries the folder may hold after the last run
	}{
		{"entries", Limits{Entries: 100}, 1, 200, 100 + 200},
		{"bytes", Limits{Bytes: 100 * diskBlock}, 3 * diskBlock, 20, (100*diskBlock)/(3*diskBlock) + 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			val := make([]byte, tc.value)
			for run := 0; run < 20; run++ {
				c, err := Open(dir, tc.lim)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < tc.perRun; i++ {
					if err := c.Put(key(run*1000+i), val); err != nil {
						t.Fatal(err)
					}
				}
			}
			c, err := Open(dir, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			// Over the bound by at most one run's writes (its first write prunes).
			if n := c.Len(); n > tc.maxLeft {
				t.Errorf("%d entries after 20 runs of %d writes, want at most %d", n, tc.perRun, tc.maxLeft)
			}
		})
	}
}

func TestPruneByBytes(t *testing.T) {
	c, err := Open(t.TempDir(), Limits{Bytes: 10 * diskBlock})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 2*diskBlock+1) // three blocks on disk
	for i := 0; i < 6; i++ {
		if err := c.Put(key(i), big); err != nil {
			t.Fatal(err)
		}
		p, _ := c.path(key(i))
		ts := time.Now().Add(time.Duration(i-10) * time.Minute)
		if err := os.Chtimes(p, ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Prune(); err != nil {
		t.Fatal(err)
	}
	// 90% of 10 blocks holds 3 entries of 3 blocks: the 3 newest.
	if n := c.Len(); n != 3 {
		t.Errorf("%d entries left, want 3", n)
	}
	for i := 0; i < 6; i++ {
		_, ok := c.Get(key(i))
		if want := i >= 3; ok != want {
			t.Errorf("entry %d kept %v, want %v", i, ok, want)
		}
	}
}
