// Package digestcache keeps compare's data-file digests in a folder so that
// a file read under the same plan is digested once across comparisons,
// versions, formats and runs. It lives in <cache>/digests/ of the cache
// folder fdl-formats shares with other caches (--cache).
//
// One small file per key, under a two-character fan-out folder. A value is
// written to a temporary file in the same folder and renamed into place, so
// concurrent processes (a CI matrix on a shared volume, two backfills) never
// see a partial value; two writers of one key write the same value. The
// folder is bounded in entries and in bytes: when it holds more than either
// bound, the least recently used entries are removed (a hit refreshes an
// entry's time). A process checks the bounds at its first write, then
// every pruneEvery writes or pruneBytes of its bound, so many short runs
// sharing the folder keep it bounded too (each may overshoot by what it
// writes before its next check).
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

// Limits bound a cache folder; a zero field takes its default.
type Limits struct {
	// Entries is the most entries kept (DefaultMaxEntries).
	Entries int
	// Bytes is the most bytes kept, each entry counted as the 4 KiB blocks
	// it takes on disk (DefaultMaxBytes). Kept proof reports grow with a
	// catalog's tables and snapshots (1.6 MB for 40 tables of a long
	// history), so a bound on entries alone does not bound the disk.
	Bytes int64
}

const (
	// DefaultMaxEntries: about 100,000 small files.
	DefaultMaxEntries = 100_000
	// DefaultMaxBytes: 1 GiB on disk.
	DefaultMaxBytes = 1 << 30
	// diskBlock is what a small file takes on disk at least.
	diskBlock = 4096
)

// Cache is a digest cache folder. It is safe for concurrent use by
// goroutines and processes.
type Cache struct {
	dir string
	lim Limits

	mu sync.Mutex
	// puts and written count this process's writes since its last Prune
	// (puts < 0 before its first write).
	puts    int
	written int64
}

// Open creates (if needed) and opens <root>/digests within lim.
func Open(root string, lim Limits) (*Cache, error) {
	if root == "" {
		return nil, errors.New("digest cache: no folder")
	}
	if lim.Entries <= 0 {
		lim.Entries = DefaultMaxEntries
	}
	if lim.Bytes <= 0 {
		lim.Bytes = DefaultMaxBytes
	}
	dir := filepath.Join(root, Subdir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("digest cache %s: %w", dir, err)
	}
	return &Cache{dir: dir, lim: lim, puts: -1}, nil
}

// onDisk is what a file of n bytes takes on disk, in whole blocks.
func onDisk(n int64) int64 { return max(diskBlock, (n+diskBlock-1)/diskBlock*diskBlock) }

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
	first := c.puts < 0
	c.puts++
	c.written += onDisk(int64(len(val)))
	due := first || c.puts >= pruneEvery || c.written >= c.lim.Bytes/pruneBytes
	if due {
		c.puts, c.written = 0, 0
	}
	c.mu.Unlock()
	if due {
		return c.Prune()
	}
	return nil
}

const (
	// pruneEvery is how many Puts of one process pass between two Prunes.
	pruneEvery = 256
	// pruneBytes: a process also prunes after writing 1/pruneBytes of the
	// byte bound since its last Prune.
	pruneBytes = 16
)

// Prune removes the least recently used entries (and stale temporary
// files) while the cache holds more than a bound, down to 90% of both.
func (c *Cache) Prune() error {
	type entry struct {
		path string
		mod  time.Time
		size int64
	}
	var entries []entry
	var total int64
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
		e := entry{p, info.ModTime(), onDisk(info.Size())}
		entries, total = append(entries, e), total+e.size
		return nil
	})
	if err != nil {
		return fmt.Errorf("digest cache: %w", err)
	}
	if len(entries) <= c.lim.Entries && total <= c.lim.Bytes {
		return nil
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.mod.Compare(b.mod) })
	n, keepEntries, keepBytes := len(entries), c.lim.Entries*9/10, c.lim.Bytes*9/10
	for _, e := range entries {
		if n <= keepEntries && total <= keepBytes {
			break
		}
		os.Remove(e.path) // another process may have removed it first
		n, total = n-1, total-e.size
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
