package store

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
	const d = 100 * time.Millisecond
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
		default:
			io.WriteString(w, "ok")
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = d // as the stores set it
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: StallTransport(tr, d)}
	get := func(ctx context.Context, path string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
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
