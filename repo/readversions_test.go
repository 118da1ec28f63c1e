package repo

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestReadAsksVersionsAtOnce: read fetches several versions' version.json
// at once (one at a time, a repository of N versions on a far web site or
// bucket cost N round trips), and each version gets its own.
func TestReadAsksVersionsAtOnce(t *testing.T) {
	ctx := context.Background()
	dir, _ := sharedDemo(ctx, t)
	handler, most := inFlight(http.FileServer(http.Dir(dir)), "/version.json")
	srv := httptest.NewServer(handler)
	defer srv.Close()
	site, err := httpstore.New(srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := read(ctx, site, nil) // nil: each version.json by a GET of its own
	if err != nil {
		t.Fatal(err)
	}
	if len(r.versions) < 2 {
		t.Fatalf("read found %d versions, want the demo's 3", len(r.versions))
	}
	for _, v := range r.versions {
		if v.err != nil || v.meta == nil || v.meta.Seq == 0 {
			t.Errorf("version %s: meta %v, err %v; want its version.json", v.id, v.meta, v.err)
		}
	}
	seqs := map[int64]string{}
	for _, v := range r.versions {
		if v.meta != nil {
			if other, ok := seqs[v.meta.Seq]; ok {
				t.Errorf("versions %s and %s both have seq %d: a version read another's version.json", other, v.id, v.meta.Seq)
			}
			seqs[v.meta.Seq] = v.id
		}
	}
	if n := most(); n < 2 {
		t.Errorf("read had at most %d version.json in flight, want 2 or more", n)
	}
}

// inFlight serves files, counting the GETs of paths ending in suffix in
// flight at once; most says the most seen. Each such GET waits for a
// second one (5 s at most, once), so that requests made at once are seen
// at once.
func inFlight(files http.Handler, suffix string) (h http.Handler, most func() int) {
	var (
		mu        sync.Mutex
		now, peak int
		two       = make(chan struct{})
		twoOnce   sync.Once
	)
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, suffix) {
			files.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		now++
		peak = max(peak, now)
		if now >= 2 {
			twoOnce.Do(func() { close(two) })
		}
		mu.Unlock()
		select {
		case <-two:
		case <-time.After(5 * time.Second):
			twoOnce.Do(func() { close(two) })
		}
		files.ServeHTTP(w, r)
		mu.Lock()
		now--
		mu.Unlock()
	})
	return h, func() int {
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}
