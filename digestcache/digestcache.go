// Package digestcache keeps compare's data-file digests in a folder so that
// a file read under the same plan is digested once across comparisons,
// versions, formats and runs. It lives in <cache>/digests/ of the cache
// folder fdl-formats shares with other caches (--cache).
//
// One small file per key, under a two-character fan-out folder. A value is
// written to a temporary file in the same folder and renamed into place, so
// concurrent processes (a CI matrix on a shared volume, two backfills) never
// see a partial value; two writers of one key write the same value. The
// folder is bounded: when it holds more than the maximum number of entries,
// the least recently used are removed (a hit refreshes an entry's time).
package digestcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Subdir is the cache's folder inside the shared cache folder.
const Subdir = "digests"

// DefaultMaxEntries bounds a cache opened with max <= 0: about 100,000
// small files (tens of MB on disk).
const DefaultMaxEntries = 100_000

// Cache is a digest cache folder. It is safe for concurrent use by
// goroutines and processes.
type Cache struct {
	dir string
	max int

	mu   sync.Mutex
	puts int
}

// Open creates (if needed) and opens <root>/digests, holding at most max
// entries (DefaultMaxEntries when max <= 0).
func Open(root string, max int) (*Cache, error) {
	if root == "" {
		return nil, errors.New("digest cache: no folder")
	}
	if max <= 0 {
		max = DefaultMaxEntries
	}
	dir := filepath.Join(root, Subdir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("digest cache %s: %w", dir, err)
	}
	return &Cache{dir: dir, max: max}, nil
}

// Dir is the cache's folder (<root>/digests).
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) path(key string) (string, error) {
	if len(key) < 8 || strings.Trim(key, "0123456789abcdef") != "" {
		return "", fmt.Errorf("digest cache: bad key %q (want lower-case hex)", key)
	}
	return filepath.Join(c.dir, key[:2], key), nil
}

// Get returns the value stored under key. Any error is a miss.
func (c *Cache) Get(key string) ([]byte, bool) {
	p, err := c.path(key)
	if err != nil {
		return nil, false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // least recently used goes first
	return b, true
}

// Put stores a value under key (atomically: temporary file, then rename)
// and, every so often, trims the cache to its bound.
func (c *Cache) Put(key string, val []byte) error {
	p, err := c.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	_, werr := f.Write(val)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("digest cache: write %s: %w", key, err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("digest cache: %w", err)
	}
	c.mu.Lock()
	c.puts++
	due := c.puts%pruneEvery == 0
	c.mu.Unlock()
	if due {
		return c.Prune()
	}
	return nil
}

// pruneEvery is how many Puts of one process pass between two Prunes.
const pruneEvery = 256

// Prune removes the least recently used entries (and stale temporary
// files) while the cache holds more than its bound, down to 90% of it.
func (c *Cache) Prune() error {
	type entry struct {
		path string
		mod  time.Time
	}
	var entries []entry
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // a folder removed under us is no error
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			if time.Since(info.ModTime()) > time.Hour {
				os.Remove(p) // left by a killed writer
			}
			return nil
		}
		entries = append(entries, entry{p, info.ModTime()})
		return nil
	})
	if err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	if len(entries) <= c.max {
		return nil
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.mod.Compare(b.mod) })
	for _, e := range entries[:len(entries)-c.max*9/10] {
		os.Remove(e.path) // another process may have removed it first
	}
	return nil
}

// Len counts the entries (for tests and reports).
func (c *Cache) Len() int {
	n := 0
	_ = filepath.WalkDir(c.dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".tmp-") {
			n++
		}
		return nil
	})
	return n
}
