package httpstore_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

// TestStalledBody: a server that sends the headers and part of a body,
// then nothing, fails the read within a few multiples of the stall timeout
// with an error naming the file (an Open's body, ReadTail's ranged GET, a
// folder listing), where the read hung for ever; a body sent slowly but
// steadily (longer in all than the timeout) is read in full.
func TestStalledBody(t *testing.T) {
	const d = 200 * time.Millisecond
	root := t.TempDir()
	data := bytes.Repeat([]byte("0123456789"), 500)
	if err := os.MkdirAll(filepath.Join(root, "lake", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"stalls.bin", "trickles.bin"} {
		if err := os.WriteFile(filepath.Join(root, "lake", "data", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "lake", "versions", "v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stalls atomic.Int32
	get := func(suffix string) func(*http.Request) bool {
		return func(r *http.Request) bool {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, suffix) {
				stalls.Add(1)
				return true
			}
			return false
		}
	}
	var h http.Handler = webtest.Handler(root, webtest.Options{})
	h = webtest.Stall(h, get("/stalls.bin"), 1000)
	h = webtest.Stall(h, get("/versions/"), 10)
	// The steady body: 150 bytes every d/4 (1.7 s in all), read by a
	// store whose timeout is 5d, so a pause 19 times the sender's is
	// needed to fail it (a busy machine's late timers failed it at a
	// timeout of d).
	h = webtest.Trickle(h, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/trickles.bin") }, 150, d/4)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	st, err := httpstore.New(srv.URL+"/lake", httpstore.Client(d))
	if err != nil {
		t.Fatal(err)
	}
	storetest.RunStallCases(t, d, 20*time.Second, data, &stalls, []storetest.StallCase{
		{Name: "open, read", Op: storetest.ReadAll(st, "data/stalls.bin"), Want: srv.URL + "/lake/data/stalls.bin", Within: 10 * d},
		{Name: "read the end", Op: func(ctx context.Context) ([]byte, error) {
			b, _, err := st.ReadTail(ctx, "data/stalls.bin", 2000)
			return b, err
		}, Want: srv.URL + "/lake/data/stalls.bin", Within: 10 * d},
		{Name: "list", Op: func(ctx context.Context) ([]byte, error) {
			_, err := st.List(ctx, "versions/")
			return nil, err
		}, Want: srv.URL + "/lake/versions/", Within: 10 * d},
	})
	steady, err := httpstore.New(srv.URL+"/lake", httpstore.Client(5*d))
	if err != nil {
		t.Fatal(err)
	}
	storetest.RunStallCases(t, 5*d, 20*time.Second, data, &stalls, []storetest.StallCase{
		{Name: "a slow but steady body", Op: storetest.ReadAll(steady, "data/trickles.bin")},
	})
}
