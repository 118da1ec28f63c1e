package httpstore_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestKeepsConnectionsOfARun: the client keeps a connection for each
// request a run has in flight at once (a plan asks 28 at once 20 ms away:
// 4 versions, each its catalog, JSON files and probes), so a second round
// of 24 reads at once opens none: with 8 kept, 16 were closed after each
// round and opened again (a TLS handshake each on a real site).
func TestKeepsConnectionsOfARun(t *testing.T) {
	const n = 24
	root := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var opened atomic.Int64
	var (
		mu      sync.Mutex
		waiting int
		all     = make(chan struct{})
	)
	files := http.FileServer(http.Dir(root))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Each round's requests wait for one another: n in flight at once.
		mu.Lock()
		waiting++
		if waiting == n {
			close(all)
		}
		ch := all
		mu.Unlock()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
		}
		files.ServeHTTP(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	site, err := httpstore.New(srv.URL+"/", httpstore.Client(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for round := range 2 {
		mu.Lock()
		waiting, all = 0, make(chan struct{})
		mu.Unlock()
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if _, err := site.Stat(ctx, fmt.Sprintf("f%d", i)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if round == 0 {
			if got := opened.Load(); got != n {
				t.Fatalf("the first round opened %d connections, want %d", got, n)
			}
		}
	}
	if got := opened.Load() - n; got != 0 {
		t.Errorf("the second round of %d requests at once opened %d connections, want none (kept from the first)", n, got)
	}
}
