package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// frozenGETs counts the GETs of frozen catalogs (versions/*/catalog*.duckdb
// as lakes name them: every .duckdb under versions/ but published ones)
// a server answered, and the bytes it wrote for them.
type frozenGETs struct {
	mu    sync.Mutex
	gets  int
	bytes int64
}

func (c *frozenGETs) take() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, b := c.gets, c.bytes
	c.gets, c.bytes = 0, 0
	return g, b
}

type countedWriter struct {
	http.ResponseWriter
	c *frozenGETs
}

func (w countedWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.c.mu.Lock()
	w.c.bytes += int64(n)
	w.c.mu.Unlock()
	return n, err
}

// TestWebIgnoredRangeFrozenCatalogCache: on a server that ignores Range
// (python -m http.server: a ranged GET answered with 200 and the whole
// file), a warm check takes the frozen catalogs from the cache wherever the
// whole answer's validator (ETag, else Last-Modified and size) is the
// cached copy's, closing the answer after its headers instead of reading
// the catalog again. Before, the whole answer was read and adopted as the
// download: every run downloaded every frozen catalog, none counted as
// cached. Without validators, or with weak ETags (which name no bytes:
// before, they were trusted as strong ones), each is downloaded again
// (nothing proves the cached copy current), and a frozen catalog changed
// on the site is still found (exit 3).
func TestWebIgnoredRangeFrozenCatalogCache(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	for _, tc := range []struct {
		name       string
		validators webtest.Validators
		reuse      bool
	}{
		{"Last-Modified only", webtest.LastModified, true},
		{"ETag", webtest.ETag, true},
		{"no validators", webtest.NoValidators, false},
		// A weak ETag names no bytes (a server may keep it over a
		// change): never dropped, each catalog read whole again.
		{"weak ETag", webtest.WeakETag, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := backfilledLake(t)
			dir := filepath.Join(root, "lake")
			counts := &frozenGETs{}
			h := webtest.Handler(root, webtest.Options{Validators: tc.validators, IgnoreRange: true})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/versions/") && strings.HasSuffix(r.URL.Path, ".duckdb") && !strings.Contains(r.URL.Path, "/catalogs/") {
					counts.mu.Lock()
					counts.gets++
					counts.mu.Unlock()
					w = countedWriter{w, counts}
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			url := srv.URL + "/lake"
			cache := "--cache=" + t.TempDir()
			// The source's format alone: the content pass reads every
			// frozen catalog, and no published catalog's proof is about
			// them.
			one := "--formats=1.0"
			versions, err := os.ReadDir(filepath.Join(dir, "versions"))
			if err != nil {
				t.Fatal(err)
			}
			n := len(versions)

			cold, errOut, code := checkReport(t, one, cache, url)
			if code != exitOK || cold == nil {
				t.Fatalf("cold check: exit %d\n%s", code, errOut)
			}
			coldGets, coldBytes := counts.take()
			if cold.Transfer.CatalogsCached != 0 || coldGets != n {
				t.Fatalf("cold check: transfer %+v, %d GETs of frozen catalogs; want each of the %d downloaded once", cold.Transfer, coldGets, n)
			}

			warm, errOut, code := checkReport(t, one, cache, url)
			if code != exitOK || warm == nil {
				t.Fatalf("warm check: exit %d\n%s", code, errOut)
			}
			warmGets, _ := counts.take()
			t.Logf("frozen catalogs: cold %d GETs, %d bytes sent; downloaded cold %d, warm %d bytes",
				coldGets, coldBytes, cold.Transfer.Downloaded, warm.Transfer.Downloaded)
			if tc.reuse {
				if warm.Transfer.CatalogsCached != n || warmGets != n || warm.Transfer.Downloaded > cold.Transfer.Downloaded-coldBytes {
					t.Errorf("warm check: transfer %+v, %d GETs of frozen catalogs; want the %d from the cache, one GET each closed after its headers, at most %d bytes downloaded (cold %d less the %d of the frozen catalogs)",
						warm.Transfer, warmGets, n, cold.Transfer.Downloaded-coldBytes, cold.Transfer.Downloaded, coldBytes)
				}
			} else if warm.Transfer.CatalogsCached != 0 || warmGets != n {
				t.Errorf("warm check: transfer %+v, %d GETs of frozen catalogs; want the %d downloaded again (no validator proves the cache current)", warm.Transfer, warmGets, n)
			}

			if tc.reuse {
				// A cached copy changed in the cache: not taken (its
				// sha256 is not version.json's), downloaded again by a
				// GET of its own, and the cache repaired.
				copies, _ := filepath.Glob(filepath.Join(strings.TrimPrefix(cache, "--cache="), "objects", "*.catalogs", "*[0-9a-f]"))
				if len(copies) != n {
					t.Fatalf("cached frozen catalogs %v, want %d", copies, n)
				}
				good, err := os.ReadFile(copies[0])
				if err != nil {
					t.Fatal(err)
				}
				bad := append([]byte(nil), good...)
				bad[len(bad)/2] ^= 0xff
				if err := os.WriteFile(copies[0], bad, 0o644); err != nil {
					t.Fatal(err)
				}
				rep, errOut, code := checkReport(t, one, cache, url)
				if rep == nil {
					t.Fatalf("check after a cached copy changed: exit %d, no report\n%s", code, errOut)
				}
				if code != exitOK || rep.Transfer.CatalogsCached != n-1 {
					t.Fatalf("check after a cached copy changed: exit %d, transfer %+v; want %d from the cache\n%s", code, rep.Transfer, n-1, errOut)
				}
				if gets, _ := counts.take(); gets != n+1 {
					t.Errorf("check after a cached copy changed: %d GETs of frozen catalogs, want %d (one each, one more for the changed copy)", gets, n+1)
				}
				if got, err := os.ReadFile(copies[0]); err != nil || string(got) != string(good) {
					t.Errorf("%s: not repaired in the cache (%v)", copies[0], err)
				}
			}

			// A frozen catalog changed on the site (same size, a later
			// time): found, the cache never answering for the site.
			vdir := filepath.Join(dir, "versions", versions[len(versions)-1].Name())
			cats, _ := filepath.Glob(filepath.Join(vdir, "*.duckdb"))
			if len(cats) != 1 {
				t.Fatalf("%s: frozen catalogs %v, want one", vdir, cats)
			}
			data, err := os.ReadFile(cats[0])
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 0xff
			if err := os.WriteFile(cats[0], data, 0o644); err != nil {
				t.Fatal(err)
			}
			later := time.Now().Add(2 * time.Second)
			if err := os.Chtimes(cats[0], later, later); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := checkReport(t, one, cache, url); code != exitDifferent {
				t.Errorf("check after a frozen catalog changed on the site: exit %d, want %d\n%s", code, exitDifferent, errOut)
			}
		})
	}
}
