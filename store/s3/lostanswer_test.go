package s3_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// errCut is the upload's body failing half-way: the transport gives up
// on the request and closes its connection, as a reset would cut it.
var errCut = errors.New("upload cut half-way")

// cutBody passes the first n bytes of an upload's body, then fails.
type cutBody struct {
	r io.ReadCloser
	n int
}

func (c *cutBody) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errCut
	}
	if len(p) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= n
	return n, err
}

func (c *cutBody) Close() error { return c.r.Close() }

// loseAnswer sends the first PUT of key half its body, then stops the
// server (gone, then, before any other request is sent: no timing) and
// answers the PUT with a connection reset, as an upload whose answer was
// lost when the server went away. It counts the requests for key.
type loseAnswer struct {
	base  *http.Transport
	key   string // the request path's suffix
	stop  func()
	mu    sync.Mutex
	puts  int
	heads int // the confirmations: is the object there?
}

func (l *loseAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/"+l.key) {
		return l.base.RoundTrip(req)
	}
	l.mu.Lock()
	first := false
	switch req.Method {
	case http.MethodPut:
		l.puts++
		first = l.puts == 1
	case http.MethodHead:
		l.heads++
	}
	l.mu.Unlock()
	if !first {
		return l.base.RoundTrip(req)
	}
	cut := req.Clone(req.Context())
	cut.Body, cut.GetBody = &cutBody{r: req.Body, n: int(req.ContentLength / 2)}, nil
	if resp, err := l.base.RoundTrip(cut); err == nil {
		resp.Body.Close()
	}
	l.stop()
	l.base.CloseIdleConnections()
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
}

// TestCreateLostAnswerServerGone: a Create whose upload loses its answer
// (the connection reset half-way) and whose confirmation (the HEAD asking
// whether the object is there, and whose) then meets a server that is
// gone fails with the store's one-line error: a *s3.ConfigError of
// problem Unreachable, naming the key, the bucket and the endpoint, with
// its hint, not the SDK's error for the lost answer ("operation error S3:
// PutObject, https response error ..."); no object is there once the
// server is back, and the upload's spooled copy is removed. It is the
// path repo's TestStoreFailsMidRun/server_gone_mid-upload/backfill meant
// to check, where another job's error may win the race.
func TestCreateLostAnswerServerGone(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Create spools a body it cannot seek
	// The SDK adds a CA bundle only to its own client.
	t.Setenv("AWS_CA_BUNDLE", "")
	const key = "versions/v1/catalogs/1.1.duckdb"
	rt := &loseAnswer{base: http.DefaultTransport.(*http.Transport).Clone(), key: key, stop: srv.Stop}
	t.Cleanup(rt.base.CloseIdleConnections)
	st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	body := bytes.Repeat([]byte("a catalog's bytes "), 1<<16) // 1.1 MiB
	err = st.Create(ctx, key, bytes.NewReader(body))
	srv.Restart()
	t.Logf("create: %v", err)
	rt.mu.Lock()
	puts, heads := rt.puts, rt.heads
	rt.mu.Unlock()
	if puts != 1 || heads == 0 {
		t.Errorf("%d PUTs and %d HEADs of %s; want 1 PUT, then the HEAD that meets the stopped server", puts, heads, key)
	}
	var ce *s3.ConfigError
	if !errors.As(err, &ce) || ce.Problem != s3.Unreachable || ce.Key != key || !store.IsWholeStore(err) {
		t.Fatalf("create = %v (%T); want an *s3.ConfigError of problem Unreachable for %s", err, err, key)
	}
	msg := err.Error()
	// The object named once, where it is: the stat's error gives its
	// cause alone (it named the object again).
	for _, want := range []string{"create s3://" + bucket + "/lake/" + key + " at ", ", and then its stat: cannot reach it: ", "connection refused"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Count(msg, key) != 1 {
		t.Errorf("error %q names %s more than once", msg, key)
	}
	for _, sdk := range []string{"operation error", "RequestID", "https response error", "\n"} {
		if strings.Contains(msg, sdk) {
			t.Errorf("error %q holds the SDK's %q", msg, sdk)
		}
	}
	if ce.Hint() == "" {
		t.Errorf("no hint for %v", ce)
	}
	if info, err := st.Stat(ctx, key); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after the lost upload: %+v, %v; want no object", key, info, err)
	}
	if keys := srv.Keys(t, bucket); len(keys) > 0 {
		t.Errorf("objects left in the bucket: %q", keys)
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("left in $TMPDIR: %v, %v", left, err)
	}
}
