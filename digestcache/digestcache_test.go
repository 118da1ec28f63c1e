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
	c, err := Open(t.TempDir(), 0)
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
			c, err := Open(root, 0) // each writer opens its own, like a process
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
	c, _ := Open(root, 0)
	if n := c.Len(); n != 50 {
		t.Fatalf("%d entries, want 50", n)
	}
}

// TestBounded: past its bound the cache drops the least recently used
// entries, and a Get keeps an entry young.
func TestBounded(t *testing.T) {
	c, err := Open(t.TempDir(), 10)
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
