package s3_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/s3"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

// TestStalledBody: behind a proxy that stops sending an answer's body
// half-way (the headers and part of the body, then nothing), reading an
// object (Open's body, ReadTail's ranged GetObject) fails within a few
// multiples of the stall timeout with an error naming the object, and a
// listing page that stalls is retried by the SDK, then fails naming the
// prefix; all hung for ever before. A body the proxy sends slowly but
// steadily (longer in all than the timeout) is read in full.
func TestStalledBody(t *testing.T) {
	const d = 300 * time.Millisecond
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	direct, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789"), 500)
	for _, k := range []string{"data/stalls.bin", "data/trickles.bin", "versions/v1/version.json"} {
		if err := direct.Create(ctx, k, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	target, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // pass on each byte as it comes
	var stalls atomic.Int32
	stalled := func(listing bool) func(r *http.Request) bool {
		return func(r *http.Request) bool {
			if r.Method == http.MethodGet && (r.URL.Query().Get("list-type") == "2") == listing && (listing || strings.HasSuffix(r.URL.Path, "/data/stalls.bin")) {
				stalls.Add(1)
				return true
			}
			return false
		}
	}
	var h http.Handler = webtest.Stall(proxy, stalled(false), 1000)
	h = webtest.Stall(h, stalled(true), 100)
	h = webtest.Trickle(h, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/data/trickles.bin") }, 250, d/4)
	front := httptest.NewServer(h)
	t.Cleanup(front.Close)
	st, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL, StallTimeout: d})
	if err != nil {
		t.Fatal(err)
	}
	storetest.RunStallCases(t, d, 30*time.Second, data, &stalls, []storetest.StallCase{
		{Name: "open, read", Op: storetest.ReadAll(st, "data/stalls.bin"), Want: "/" + bucket + "/lake/data/stalls.bin", Attempts: 1, Within: 10 * d},
		{Name: "read the end", Op: func(ctx context.Context) ([]byte, error) {
			b, _, err := st.ReadTail(ctx, "data/stalls.bin", 2000)
			return b, err
		}, Want: "read the end of data/stalls.bin in s3://" + bucket + "/lake", Attempts: 1, Within: 10 * d},
		// The SDK retries (3 attempts, with its backoff of up to 2s
		// between them).
		{Name: "list", Op: func(ctx context.Context) ([]byte, error) {
			_, err := st.List(ctx, "versions/")
			return nil, err
		}, Want: "list versions/ in s3://" + bucket + "/lake", Attempts: 3, Within: 10*d + 5*time.Second},
		{Name: "a slow but steady body", Op: storetest.ReadAll(st, "data/trickles.bin")},
	})
}
