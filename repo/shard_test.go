package repo

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{1, 1}, true},
		{"2/4", Shard{2, 4}, true},
		{" 3 / 3 ", Shard{3, 3}, true},
		{"0/2", Shard{}, false},
		{"3/2", Shard{}, false},
		{"1/0", Shard{}, false},
		{"a/b", Shard{}, false},
		{"2", Shard{}, false},
		{"", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestShardsCoverEveryVersionOnce: shards 1..N of a plan hold every
// version exactly once, the same on every run, whatever N; and a version
// stays in its shard when another version is published (or hidden)
// between two runs, so shards that ran at different times still cover
// every version.
func TestShardsCoverEveryVersionOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	all := versionIDs(t, root)
	for n := 1; n <= len(all)+1; n++ {
		var union []string
		for k := 1; k <= n; k++ {
			var ids [2][]string
			for run := range ids {
				// The source's format alone: which versions a shard
				// holds is the same for every format, and the other
				// formats' missing cells (each a dry-run conversion)
				// were planned twenty times over for nothing asserted.
				m, err := Plan(ctx, st, Options{Jobs: 2, Shard: Shard{k, n}, DataPath: t.TempDir(), Formats: []string{"1.0"}})
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range m.Versions {
					ids[run] = append(ids[run], v.ID)
				}
				// An empty shard says so: its "0 versions" read like an
				// empty repository.
				empty := fmt.Sprintf("shard %d/%d holds none of the selected versions (%d)", k, n, len(all))
				if warned := slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.HasPrefix(w, empty) }); warned != (len(m.Versions) == 0) {
					t.Errorf("shard %d/%d with %d versions: warnings %q", k, n, len(m.Versions), m.Warnings)
				}
			}
			if !slices.Equal(ids[0], ids[1]) {
				t.Errorf("shard %d/%d: %v then %v", k, n, ids[0], ids[1])
			}
			for i, id := range all {
				if mine := slices.Contains(ids[0], id); mine != (Shard{k, n}).holds(id) {
					t.Errorf("shard %d/%d: version %d (%s) in=%v", k, n, i, id, mine)
				}
			}
			union = append(union, ids[0]...)
		}
		slices.Sort(union)
		if !slices.Equal(union, all) {
			t.Errorf("%d shards cover %v, want each of %v once", n, union, all)
		}
	}
}

// countingStore counts what a digest cache is asked.
type countingStore struct {
	*digestcache.Cache
	mu         sync.Mutex
	hits, puts int
}

func (c *countingStore) Get(key string) ([]byte, bool) {
	b, ok := c.Cache.Get(key)
	c.mu.Lock()
	if ok {
		c.hits++
	}
	c.mu.Unlock()
	return b, ok
}

func (c *countingStore) Put(key string, val []byte) error {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	return c.Cache.Put(key, val)
}

// TestCheckReusesBackfillDigests: a check after a backfill with the same
// cache reads no data file again and copies no catalog: every proof is the
// backfill's, kept, and so is every version's content pass, which the
// backfill ran while it had the frozen catalog at hand; it stores nothing.
// A check without the cache still proves.
func TestCheckReusesBackfillDigests(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills and checks a lake (a minute)")
	}
	ctx := context.Background()
	st, _ := smallLake(t)
	dir := filepath.Join(t.TempDir(), "cache")
	open := func() *countingStore {
		c, err := digestcache.Open(dir, digestcache.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return &countingStore{Cache: c}
	}
	bc := open()
	if _, err := Backfill(ctx, st, Options{Jobs: 2, DigestCache: bc}); err != nil {
		t.Fatal(err)
	}
	if bc.puts == 0 || bc.Len() == 0 {
		t.Fatalf("backfill stored %d digests (%d entries)", bc.puts, bc.Len())
	}
	cc := open()
	work := t.TempDir()
	counted := &copyCounter{Store: st, work: work, copies: map[string]int{}}
	rep, err := Check(ctx, counted, Options{Jobs: 2, DigestCache: cc, WorkDir: work})
	if err != nil || !rep.OK || len(rep.Proofs) == 0 {
		t.Fatalf("check with the cache: %v (ok=%v, %d proofs)", err, rep != nil && rep.OK, len(rep.Proofs))
	}
	for _, p := range rep.Proofs {
		if !p.Cached {
			t.Errorf("%s %s proved again, want the backfill's proof", p.Version, p.Format)
		}
	}
	if cc.puts != 0 || cc.hits == 0 {
		t.Errorf("check after backfill: %d entries stored, %d found; want none stored", cc.puts, cc.hits)
	}
	if len(counted.copies) != 0 {
		t.Errorf("check after backfill copied catalogs %v, want none", counted.copies)
	}
	if _, err := Check(ctx, st, Options{Jobs: 2}); err != nil {
		t.Errorf("check without a cache: %v", err)
	}
}

// TestShardOfAVersionIsItsOwn: a version published between two shards'
// runs (here with an ID that sorts first, as a branch version's may) does
// not move any other version to another shard. By position in the list it
// did: both shards passed while the version that moved was checked by
// neither (review finding).
func TestShardOfAVersionIsItsOwn(t *testing.T) {
	ids := []string{"019a0000-0000-7000-8000-000000000001", "019a0000-0000-7000-8000-000000000002", "019a0000-0000-7000-8000-000000000003", "019a0000-0000-7000-8000-000000000004", "019a0000-0000-7000-8000-000000000005"}
	versions := func(ids ...string) []*version {
		var out []*version
		for _, id := range ids {
			out = append(out, &version{id: id})
		}
		return out
	}
	shardOf := func(list []*version, n int) map[string]int {
		got := map[string]int{}
		for k := 1; k <= n; k++ {
			for _, v := range selectShard(list, Shard{k, n}) {
				if prev, ok := got[v.id]; ok {
					t.Errorf("%s in shards %d and %d of %d", v.id, prev, k, n)
				}
				got[v.id] = k
			}
		}
		if len(got) != len(list) {
			t.Errorf("%d shards hold %d of %d versions", n, len(got), len(list))
		}
		return got
	}
	for n := 2; n <= 4; n++ {
		before := shardOf(versions(ids...), n)
		after := shardOf(versions(append([]string{"0199ffff-0000-7000-8000-000000000000"}, ids...)...), n)
		for _, id := range ids {
			if before[id] != after[id] {
				t.Errorf("%d shards: %s moved from shard %d to %d when a version was published", n, id, before[id], after[id])
			}
		}
	}
}
