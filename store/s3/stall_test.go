package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
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
	"github.com/fdl-formats/fdl-formats/store"
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
	// The steady body: 200 bytes every d/4 (1.9 s in all), read by a
	// store whose timeout is 5d, so a pause 19 times the sender's is
	// needed to fail it (a busy machine's late timers could fail it at a
	// timeout of d).
	h = webtest.Trickle(h, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/data/trickles.bin") }, 200, d/4)
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
		}, Want: "read the end of s3://" + bucket + "/lake/data/stalls.bin at ", Attempts: 1, Within: 10 * d},
		// The SDK retries (3 attempts, with its backoff of up to 2s
		// between them).
		{Name: "list", Op: func(ctx context.Context) ([]byte, error) {
			_, err := st.List(ctx, "versions/")
			return nil, err
		}, Want: "list s3://" + bucket + "/lake/versions/ at ", Attempts: 3, Within: 10*d + 5*time.Second},
	})
	steady, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL, StallTimeout: 5 * d})
	if err != nil {
		t.Fatal(err)
	}
	storetest.RunStallCases(t, 5*d, 30*time.Second, data, &stalls, []storetest.StallCase{
		{Name: "a slow but steady body", Op: storetest.ReadAll(steady, "data/trickles.bin")},
	})
}

// TestStalledUpload: behind a proxy that stops reading a PutObject's body
// (at once, or after 1 MiB of 16, far more than the socket buffers hold),
// Create fails within a few multiples of the stall timeout with an error
// naming the object and saying the server stopped reading the upload,
// after two attempts (two timeouts in a row end a put), and leaves no
// object, also once the proxy lets go of the cut uploads; it hung for
// ever before (Go's wait for response headers begins only after the
// body is written). An upload the proxy reads slowly but steadily (longer
// in all than the timeout) is stored whole.
func TestStalledUpload(t *testing.T) {
	const d = 300 * time.Millisecond
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	direct, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	target, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var stalls atomic.Int32
	putOf := func(name string) func(r *http.Request) bool {
		return func(r *http.Request) bool {
			if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/"+name) {
				stalls.Add(1)
				return true
			}
			return false
		}
	}
	quit := make(chan struct{})
	var h http.Handler = webtest.StallUpload(proxy, putOf("reads-nothing.duckdb"), 0, quit)
	h = webtest.StallUpload(h, putOf("stops-at-1mib.duckdb"), 1<<20, quit)
	// The steady reader takes 256 KiB every 40 ms (2.6 s in all) from a
	// store whose timeout is 5d (1.5 s): only a pause far beyond a busy
	// machine's late timers fails it.
	h = webtest.SlowUpload(h, putOf("slow.duckdb"), 256<<10, 40*time.Millisecond)
	front := httptest.NewServer(h)
	t.Cleanup(front.Close)
	released := false
	release := func() {
		if !released {
			released = true
			close(quit)
		}
	}
	t.Cleanup(release)
	st, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL, StallTimeout: d})
	if err != nil {
		t.Fatal(err)
	}
	create := func(st store.Store, key string) func(ctx context.Context) ([]byte, error) {
		return func(ctx context.Context) ([]byte, error) {
			if err := st.Create(ctx, key, bytes.NewReader(data)); err != nil {
				return nil, err
			}
			rc, err := direct.Open(ctx, key)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return io.ReadAll(rc)
		}
	}
	const dir = "versions/v1/catalogs/"
	// Each attempt: up to ExpectContinueTimeout (1s: the SDK asks for
	// "100 Continue" before bodies over 2 MiB) before the body, d of
	// stall, a HEAD (is the object there?) and a backoff.
	within := 2*(time.Second+3*d) + time.Second
	storetest.RunStallCases(t, d, 30*time.Second, data, &stalls, []storetest.StallCase{
		{Name: "the server reads nothing", Op: create(st, dir+"reads-nothing.duckdb"), Want: "create s3://" + bucket + "/lake/" + dir + "reads-nothing.duckdb at ",
			Says: "stopped reading the upload", Attempts: 2, Within: within},
		{Name: "the server stops after 1 MiB", Op: create(st, dir+"stops-at-1mib.duckdb"), Want: "PUT " + front.URL + "/" + bucket + "/lake/" + dir + "stops-at-1mib.duckdb: ",
			Says: "gave up after 2 attempts, the last 2 timed out", Attempts: 2, Within: within},
	})
	steady, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL, StallTimeout: 5 * d})
	if err != nil {
		t.Fatal(err)
	}
	storetest.RunStallCases(t, 5*d, 30*time.Second, data, &stalls, []storetest.StallCase{
		{Name: "a slow but steady reader", Op: create(steady, dir+"slow.duckdb")},
	})
	// The proxy lets go: the uploads it held are cut short at the server.
	// Close returns once every request to the proxy has been answered,
	// the cut uploads' included (their requests to the server then ended
	// with the proxy's error), where the test slept 200 ms.
	release()
	front.Close()
	for _, k := range []string{"reads-nothing.duckdb", "stops-at-1mib.duckdb"} {
		if info, err := direct.Stat(ctx, dir+k); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after the stalled upload: %+v, %v; want no object", k, info, err)
		}
	}
}

// TestPutNoAnswer: a gateway that takes a PutObject's body and never
// answers costs two waits for headers, not six (two timeouts in a row end
// a put), and the error counts the store's attempts, names the object
// and leaves out the SDK's "exceeded maximum number of attempts, 1".
func TestPutNoAnswer(t *testing.T) {
	const d = 300 * time.Millisecond
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	target, _ := url.Parse(srv.Endpoint)
	var puts atomic.Int32
	quit := make(chan struct{})
	front := httptest.NewServer(webtest.NoAnswer(httputil.NewSingleHostReverseProxy(target), func(r *http.Request) bool {
		if r.Method == http.MethodPut {
			puts.Add(1)
			return true
		}
		return false
	}, quit))
	t.Cleanup(front.Close)
	t.Cleanup(func() { close(quit) })
	st, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL, StallTimeout: d})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	const key = "versions/v1/catalogs/0.4.duckdb"
	start := time.Now()
	err = st.Create(ctx, key, strings.NewReader("a catalog"))
	took := time.Since(start)
	t.Logf("after %v, %d PUTs: %v", took, puts.Load(), err)
	if err == nil {
		t.Fatal("Create succeeded")
	}
	if n := puts.Load(); n != 2 {
		t.Errorf("%d PUTs, want 2", n)
	}
	if took > 2*d+2*time.Second {
		t.Errorf("gave up after %v (timeout %v)", took, d)
	}
	msg := err.Error()
	for _, want := range []string{"create s3://" + bucket + "/lake/" + key + " at ", "gave up after 2 attempts, the last 2 timed out", "timeout awaiting response headers"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "maximum number of attempts") {
		t.Errorf("error %q counts the SDK's attempts", msg)
	}
}
