package repo

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestFDLJSONNoAnswer: a server that takes the run's first request, for
// fdl.json, and never answers fails the run with one line naming the
// repository and a hint (what to check, --stall-timeout), as a server that
// cannot be reached does. Before, the error was the client's own, `read
// fdl.json: open fdl.json: Get "…": net/http: timeout awaiting response
// headers` on a web site (the SDK's, with its empty request IDs, in a
// bucket), naming no repository and with no Try: line; docs/remote.md
// promised one at the first request.
func TestFDLJSONNoAnswer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // takes the request, answers nothing
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	site, err := httpstore.New(srv.URL+"/lake/", httpstore.Client(150*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Plan(context.Background(), site, Options{})
	var h interface{ Hint() string }
	if err == nil || !errors.As(err, &h) {
		t.Fatalf("Plan = %v, want an error with a hint", err)
	}
	msg := err.Error()
	for _, want := range []string{"read fdl.json", srv.URL + "/lake/", "no answer"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if !strings.Contains(h.Hint(), "--stall-timeout") || !strings.Contains(h.Hint(), "sends nothing") {
		t.Errorf("hint %q: want what to check and --stall-timeout", h.Hint())
	}
}
