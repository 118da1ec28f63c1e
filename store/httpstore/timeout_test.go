package httpstore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestServerThatNeverAnswers: the default client gives up on a server that
// accepts a request and sends no response (a scheduled check hung for
// hours on one); the store retries, then fails naming the file.
func TestServerThatNeverAnswers(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	case <-time.After(30 * time.Second):
		t.Fatal("Stat of a server that never answers did not return")
	}
}
