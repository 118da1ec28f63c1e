package repo

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// fileDigestCounter counts, per key, the digests stored with a given row
// count: a data file's all-rows digest (its rows are read to compute it),
// or its check (read under a plan both sides share, not digested), not a
// deleted-rows digest summed from kept rows.
type fileDigestCounter struct {
	*digestcache.Cache
	rows int64
	mu   sync.Mutex
	puts map[string]int
}

func (c *fileDigestCounter) Put(key string, val []byte) error {
	var d struct {
		Rows int64 `json:"rows"`
	}
	if json.Unmarshal(val, &d) == nil && d.Rows == c.rows {
		c.mu.Lock()
		c.puts[key]++
		c.mu.Unlock()
	}
	return c.Cache.Put(key, val)
}

// TestBackfillJobsReadEachFileOnce: a backfill with two jobs proves two
// versions at once, and version k+1 holds version k's data files; each
// file's rows are digested once in the whole run, not once per proof that
// reached it while the other was reading it. History: 6 versions of 2
// files each, every third deleting. Whether two proofs overlap here is a
// matter of timing (the code before in-flight claims failed it about one
// run in three); compare's TestConcurrentComparisonsReadSharedFilesOnce
// makes the overlap certain.
func TestBackfillJobsReadEachFileOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills a six-version lake")
	}
	const versions, files, rows = 6, 2, 40_000
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := lakegen.History(ctx, dir, lakegen.HistoryOptions{Versions: versions, RowsPerVersion: rows, FilesPerVersion: files, DeleteEvery: 3}); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := &fileDigestCounter{Cache: cache, rows: rows / files, puts: map[string]int{}}
	if _, err := Backfill(ctx, st, Options{Jobs: 2, DigestCache: c}); err != nil {
		t.Fatal(err)
	}
	if len(c.puts) != versions*files {
		t.Errorf("%d data files digested; want %d", len(c.puts), versions*files)
	}
	for key, n := range c.puts {
		if n != 1 {
			t.Errorf("data file digest %s computed %d times; want once", key[:12], n)
		}
	}
}
