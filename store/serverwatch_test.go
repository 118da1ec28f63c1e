package store

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestServerWatch: the stall watchdog tells a server that stopped
// answering (requests for two objects each get nothing for the stall
// timeout, nothing answered meanwhile) from one object that stalls while
// the server answers the others; the same object stalling again, alone,
// is no stopped server either. Headers whose body never comes (a proxy in
// front of a dead backend) are no answer.
func TestServerWatch(t *testing.T) {
	t.Parallel()
	// Not less: a case that must not stop fails if an "ok" request waits
	// d for its headers, as it may on two cores loaded by the whole suite.
	const d = 250 * time.Millisecond
	srv, client := watchedServer(t, d)
	get := func(ctx context.Context, path string) error { return getAll(ctx, client, srv.URL+path) }
	for _, tc := range []struct {
		name string
		// rounds of requests, each round's at once, rounds one after
		// the other
		rounds [][]string
		stops  bool
	}{
		{"two objects at once get no answer", [][]string{{"/hang/a", "/hang/b"}}, true},
		{"one object, then another, nothing answered", [][]string{{"/hang/a"}, {"/hang/b"}}, true},
		{"headers, then no body, for two objects", [][]string{{"/headers/a"}, {"/headers/b"}}, true},
		{"one object stalls while others are answered", [][]string{{"/hang/a", "/ok/1"}, {"/hang/a"}, {"/ok/2"}, {"/hang/b"}}, false},
		{"the same object stalls again", [][]string{{"/hang/a"}, {"/hang/a"}, {"/hang/a"}}, false},
		{"an answer between two stalls", [][]string{{"/hang/a"}, {"/ok/1"}, {"/hang/b"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var stopped []error
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			ctx = WithServerWatch(ctx, NewServerWatch(func(err error) {
				mu.Lock()
				stopped = append(stopped, err)
				mu.Unlock()
				cancel(err)
			}))
			start := time.Now()
			for _, round := range tc.rounds {
				var wg sync.WaitGroup
				for _, p := range round {
					wg.Go(func() { get(ctx, p) })
				}
				wg.Wait()
			}
			mu.Lock()
			defer mu.Unlock()
			if !tc.stops {
				if len(stopped) != 0 {
					t.Fatalf("stopped: %v", stopped[0])
				}
				return
			}
			var se *ServerStoppedError
			if len(stopped) != 1 || !errors.As(stopped[0], &se) {
				t.Fatalf("stop called with %v, want one *ServerStoppedError", stopped)
			}
			if !IsWholeStore(se) || se.Server != srv.URL || !strings.Contains(se.Error(), "the server at "+srv.URL+" stopped answering") ||
				!strings.Contains(se.Error(), srv.URL+"/") || !strings.Contains(se.Hint(), "--stall-timeout") {
				t.Errorf("error %q (hint %q): want the server named, whole-store, a hint naming --stall-timeout", se, se.Hint())
			}
			if took := time.Since(start); took > time.Duration(len(tc.rounds)+3)*d+2*time.Second {
				t.Errorf("stopped after %v, want about one stall timeout per round", took)
			}
		})
	}
}

// watchedServer serves /hang/... (no answer at all), /headers/... (headers,
// then no body), /trickle/... (a byte at once, then one every d/10 for
// 3d) and anything else ("ok"); its client has the stall watchdog of d,
// as the stores have.
func watchedServer(t *testing.T, d time.Duration) (*httptest.Server, *http.Client) {
	t.Helper()
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait := func() {
			select {
			case <-r.Context().Done():
			case <-quit:
			}
		}
		switch {
		case strings.HasPrefix(r.URL.Path, "/hang/"):
			wait() // no answer at all
		case strings.HasPrefix(r.URL.Path, "/headers/"):
			w.Header().Set("Content-Length", "10")
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
			wait() // then no body
		case strings.HasPrefix(r.URL.Path, "/trickle/"):
			tick := time.NewTicker(d / 10)
			defer tick.Stop()
			for range 30 {
				io.WriteString(w, "x")
				http.NewResponseController(w).Flush()
				select {
				case <-tick.C:
				case <-r.Context().Done():
					return
				}
			}
		default:
			io.WriteString(w, "ok")
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = d // as the stores set it
	t.Cleanup(tr.CloseIdleConnections)
	return srv, &http.Client{Transport: StallTransport(tr, d)}
}

// getAll reads url whole.
func getAll(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err
}

// TestServerWatchLongDownload: two objects that stall while a long
// download from the same server keeps sending are no server that stopped:
// the download's bytes are answers all along. Told only its first byte,
// the watch stopped the run.
func TestServerWatchLongDownload(t *testing.T) {
	t.Parallel()
	// A byte every d/10 must never look like a stall of d: at 300 ms a
	// loaded 2-core machine (load 10) once let 300 ms pass between two.
	const d = time.Second
	srv, client := watchedServer(t, d)
	var stopped atomic.Pointer[error]
	ctx := WithServerWatch(t.Context(), NewServerWatch(func(err error) { stopped.Store(&err) }))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/trickle/big", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Its first byte, then the two stalls, which begin after it.
	if _, err := io.ReadFull(resp.Body, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, p := range []string{"/hang/a", "/hang/b"} {
		wg.Go(func() { getAll(ctx, client, srv.URL+p) })
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := stopped.Load(); err != nil {
		t.Fatalf("stopped during a download that kept sending: %v", *err)
	}
}
