package httpstore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestServerThatNeverAnswers: the default client gives up on a server that
// accepts a request and sends no response (a scheduled check hung for
// hours on one); the store tries once more, then fails naming the file
// (it tried four times, each costing the whole timeout).
func TestServerThatNeverAnswers(t *testing.T) {
	release := make(chan struct{})
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	if got := Client(0).Transport.(*http.Transport).ResponseHeaderTimeout; got != responseTimeout {
		t.Fatalf("a client without a stall timeout waits %v for a response, want %v", got, responseTimeout)
	}
	st, err := New(srv.URL+"/", Client(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.Stat(context.Background(), "fdl.json")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Stat of a server that never answers succeeded")
		}
		if !strings.Contains(err.Error(), "fdl.json") || asked.Load() != 2 {
			t.Errorf("Stat = %v after %d requests, want an error naming fdl.json after 2", err, asked.Load())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Stat of a server that never answers did not return")
	}
}
