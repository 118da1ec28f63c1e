package s3_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestKeepsConnectionsOfARun: the SDK's client keeps a connection for
// each request a run has in flight at once (a plan's data files' ends read
// 16 at a time beside its downloads), so a second round of 24 requests at
// once opens none: with the SDK's 10 kept, 14 were closed after each round
// and opened again (a TLS handshake each on a real service).
func TestKeepsConnectionsOfARun(t *testing.T) {
	const n = 24
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	direct, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := direct.Create(ctx, fmt.Sprintf("f%d", i), strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	target, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var (
		opened  atomic.Int64
		mu      sync.Mutex
		waiting int
		all     = make(chan struct{})
	)
	front := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		proxy.ServeHTTP(w, r)
	}))
	front.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	front.Start()
	defer front.Close()
	st, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		mu.Lock()
		waiting, all = 0, make(chan struct{})
		mu.Unlock()
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if _, err := st.Stat(ctx, fmt.Sprintf("f%d", i)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if got := opened.Load(); round == 0 && got != n {
			t.Fatalf("the first round opened %d connections, want %d", got, n)
		}
	}
	if got := opened.Load() - n; got != 0 {
		t.Errorf("the second round of %d requests at once opened %d connections, want none (kept from the first)", n, got)
	}
}
