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
	files := http.FileServer(http.Dir(dir))
	var (
		mu             sync.Mutex
		inFlight, most int
		two            = make(chan struct{})
		twoOnce        sync.Once
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/version.json") {
			files.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight >= 2 {
			twoOnce.Do(func() { close(two) })
		}
		mu.Unlock()
		// Waits for a second version.json, so that reads at once are
		// seen; one at a time waits 5 s once, then no more.
		select {
		case <-two:
		case <-time.After(5 * time.Second):
			twoOnce.Do(func() { close(two) })
		}
		files.ServeHTTP(w, r)
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	defer srv.Close()
	site, err := httpstore.New(srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := read(ctx, site)
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
	mu.Lock()
	defer mu.Unlock()
	if most < 2 {
		t.Errorf("read had at most %d version.json in flight, want 2 or more", most)
	}
}
