package webtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Rounds serves a handler to rounds of n requests at once: each request of
// a round waits (at most 5 s) until the round's n have arrived, so a client
// has n requests in flight together, and it counts the connections clients
// open, to tell how many a client keeps between rounds.
type Rounds struct {
	URL    string
	n      int
	opened atomic.Int64

	mu      sync.Mutex
	waiting int
	all     chan struct{}
}

// ServeRounds starts a server of h on 127.0.0.1 for rounds of n requests,
// closed when the test ends.
func ServeRounds(t testing.TB, n int, h http.Handler) *Rounds {
	t.Helper()
	r := &Rounds{n: n, all: make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.waiting++
		if r.waiting == r.n {
			close(r.all)
		}
		ch := r.all
		r.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
		}
		h.ServeHTTP(w, req)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.opened.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Round makes n requests at once, request(i) for i in [0, n), and waits
// for them all; an error fails the test.
func (r *Rounds) Round(t testing.TB, request func(i int) error) {
	t.Helper()
	r.mu.Lock()
	r.waiting, r.all = 0, make(chan struct{})
	r.mu.Unlock()
	var wg sync.WaitGroup
	for i := range r.n {
		wg.Go(func() {
			if err := request(i); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// Opened is the number of connections clients have opened so far.
func (r *Rounds) Opened() int64 { return r.opened.Load() }
