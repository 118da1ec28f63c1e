package repo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/store"
)

// etagSite serves the repository folder root on a local web server whose
// ETags name each file's bytes and its generation (gen, by path from the
// root, "/data/..."): an object rewritten with the same bytes (a new
// upload) gets a new ETag, as on S3 or a server hashing its content.
func etagSite(t *testing.T, root string, gen func(path string) int) store.Store {
	t.Helper()
	listings := http.FileServer(http.Dir(root))
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := filepath.Join(root, filepath.FromSlash(r.URL.Path))
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			listings.ServeHTTP(w, r)
			return
		}
		body, err := os.ReadFile(p)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sum := sha256.Sum256(body)
		w.Header().Set("ETag", fmt.Sprintf(`"%sg%d"`, hex.EncodeToString(sum[:8]), gen(r.URL.Path)))
		http.ServeContent(w, r, p, time.Unix(1700000000, 0), bytes.NewReader(body))
	}))
	return site
}

// refreshCopy is another run sharing the data cache folder cache: it finds
// the object key changed in the store (site) and downloads its copy again,
// over the one in the cache.
func refreshCopy(ctx context.Context, site store.Store, cache, work, key string) error {
	rm, err := newRemote(store.NewCounter(site), &fdljson.Repo{DataDir: "data/"}, &Options{Cache: cache, WorkDir: work}, compare.NewListings())
	if err != nil {
		return err
	}
	defer rm.close()
	tail, info, err := rm.readTail(ctx, key)
	if err == nil {
		err = rm.downloadCopy(ctx, key, rm.localPath(key), tail, info)
	}
	if err != nil {
		return fmt.Errorf("the other run's download of %s: %w", key, err)
	}
	return nil
}

// TestSharedCacheCopyReplacedMidRun: two runs share a cache folder. While
// a check proves a version, after its proof's key listed the data cache's
// mirror and before the proof reads a data file's copy, the other run
// downloads that copy again (the object was rewritten in the store: a new
// ETag), so the proof reads the new copy under a key naming the old one.
// The check kept the proof under that key: once the store and the mirror
// held the old object again, a warm check trusted a proof never made of
// the bytes its key names. A proof is now kept only while every copy its
// key lists is still listed so; the run's own result stands.
func TestSharedCacheCopyReplacedMidRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// smallLake backfilled to 1.1 (lake11, built once per test binary).
	_, root := cloneRepo(t, lake11(t))
	files, err := filepath.Glob(filepath.Join(root, "data", "main", "whole", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data file in %s (%v)", root, err)
	}
	rel := filepath.ToSlash(strings.TrimPrefix(files[0], root+string(filepath.Separator)))
	var rewritten atomic.Bool // the object's second upload
	site := etagSite(t, root, func(path string) int {
		if path == "/"+rel && rewritten.Load() {
			return 2
		}
		return 1
	})
	cache := t.TempDir()
	digests, err := digestcache.Open(cache, digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var finished atomic.Int32 // proofs the run finished
	var logs bytes.Buffer     // the first check's warnings
	check := func(step string, hook func(paths []string)) *CheckReport {
		t.Helper()
		finished.Store(0)
		logs.Reset()
		opts := Options{Formats: []string{"1.1"}, Jobs: 1, Cache: cache, DigestCache: digests, WorkDir: t.TempDir(), readableHook: hook,
			Progress: func(Progress) { finished.Add(1) }, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}
		rep, err := Check(ctx, site, opts)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return rep
	}

	var once sync.Once
	var refreshed error = fmt.Errorf("no read of %s", rel)
	work := t.TempDir()
	victim := -1 // the proof in progress (one at a time) when the copy was replaced
	first := check("check sharing the cache", func(paths []string) {
		for _, p := range paths {
			if strings.HasSuffix(filepath.ToSlash(p), "/"+rel) {
				once.Do(func() {
					victim = int(finished.Load())
					rewritten.Store(true)
					refreshed = refreshCopy(ctx, site, cache, work, rel)
				})
			}
		}
	})
	if refreshed != nil {
		t.Fatal(refreshed)
	}
	if victim < 0 || victim >= len(first.Proofs) {
		t.Fatalf("the copy was replaced after the last proof (%d of %d)", victim, len(first.Proofs))
	}
	if n, _ := cachedProofs(first); n != 0 || len(first.Proofs) == 0 {
		t.Fatalf("first check: %d of %d proofs found kept, want none of some", n, len(first.Proofs))
	}
	// The user is told, naming the version and the published catalog, why
	// the next run proves it again (the proof holds, so no finding does).
	p := first.Proofs[victim]
	if got := logs.String(); !strings.Contains(got, "is not kept") || !strings.Contains(got, "version="+p.Version) || !strings.Contains(got, "key="+p.Key) {
		t.Errorf("first check's log does not say the proof of %s is not kept:\n%s", p.Key, got)
	}

	// The store holds the first upload again: the warm check downloads its
	// copy again, and its mirror lists as the first check's keys did.
	rewritten.Store(false)
	warm := check("warm check", nil)
	n, proved := cachedProofs(warm)
	t.Logf("warm check: %d of %d proofs found kept; proved again: %v", n, len(warm.Proofs), proved)
	if p := warm.Proofs[victim]; p.Cached || p.Key != first.Proofs[victim].Key {
		t.Errorf("warm check: the proof of %s found kept (%v); its key named a copy replaced before the first check read it", p.Key, p.Cached)
	}
	// What the warm check proved, it keeps.
	again := check("warm check again", nil)
	if n, proved := cachedProofs(again); n != len(again.Proofs) {
		t.Errorf("second warm check: %d of %d proofs found kept; proved again: %v", n, len(again.Proofs), proved)
	}
}

// TestSourceReaderIdentitiesAfterCopyReplaced: a version's proofs share
// one reader of its frozen catalog (compare.Source), which keeps what it
// read of each data file (its digests, schema, footer facts) for the
// version's next proof. Between two of them, another run sharing the cache
// downloads a copy again (the object was rewritten: a new ETag) and this
// run lists the mirror again (it downloaded meanwhile): the second proof's
// key named the new copy while the shared reader answered from the old
// one's bytes, and the proof was kept, so a warm check trusted it. A proof
// is now kept only while every copy its readers named is still that copy.
func TestSourceReaderIdentitiesAfterCopyReplaced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := smallLake(t)
	formats := []string{"0.4", "1.1"}
	if _, err := Backfill(ctx, st, Options{Formats: formats, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "data", "main", "whole", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data file in %s (%v)", root, err)
	}
	rel := filepath.ToSlash(strings.TrimPrefix(files[0], root+string(filepath.Separator)))
	var rewritten atomic.Bool
	site := etagSite(t, root, func(path string) int {
		if path == "/"+rel && rewritten.Load() {
			return 2
		}
		return 1
	})
	cache := t.TempDir()
	digests, err := digestcache.Open(cache, digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string, hook func(c *Cell, l *compare.Listings)) *CheckReport {
		t.Helper()
		rep, err := Check(ctx, site, Options{Formats: formats, Jobs: 1, Cache: cache, DigestCache: digests, WorkDir: t.TempDir(), beforeProof: hook})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return rep
	}
	// The last version's second proof: its first read every data file.
	versions := versionIDs(t, root)
	last := versions[len(versions)-1]
	var refreshed error = fmt.Errorf("no second proof of version %s", last)
	victim := ""
	work := t.TempDir()
	check("check sharing the cache", func(c *Cell, l *compare.Listings) {
		if c.Version == last && c.Format == formats[1] {
			rewritten.Store(true)
			refreshed = refreshCopy(ctx, site, cache, work, rel)
			l.Changed() // as this run's own downloads do
			victim = c.Key
		}
	})
	if refreshed != nil {
		t.Fatal(refreshed)
	}
	// The store and the mirror still hold the second upload.
	warm := check("warm check", nil)
	for _, p := range warm.Proofs {
		if p.Key == victim && p.Cached {
			t.Errorf("warm check: the proof of %s found kept; the first check's reader of the frozen catalog read %s before it was replaced", p.Key, rel)
		}
	}
	again := check("warm check again", nil)
	if n, proved := cachedProofs(again); n != len(again.Proofs) {
		t.Errorf("second warm check: %d of %d proofs found kept; proved again: %v", n, len(again.Proofs), proved)
	}
}
