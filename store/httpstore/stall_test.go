package httpstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
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
	h = webtest.Trickle(h, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/trickles.bin") }, 250, d/4)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	st, err := httpstore.New(srv.URL+"/lake", httpstore.Client(d))
	if err != nil {
		t.Fatal(err)
	}
	readAll := func(key string) func(ctx context.Context) ([]byte, error) {
		return func(ctx context.Context) ([]byte, error) {
			rc, err := st.Open(ctx, key)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return io.ReadAll(rc)
		}
	}
	for _, tc := range []struct {
		name string
		op   func(ctx context.Context) ([]byte, error)
		want string // in the error ("" for success: the file's bytes)
	}{
		{"open, read", readAll("data/stalls.bin"), srv.URL + "/lake/data/stalls.bin"},
		{"read the end", func(ctx context.Context) ([]byte, error) {
			b, _, err := st.ReadTail(ctx, "data/stalls.bin", 2000)
			return b, err
		}, srv.URL + "/lake/data/stalls.bin"},
		{"list", func(ctx context.Context) ([]byte, error) {
			_, err := st.List(ctx, "versions/")
			return nil, err
		}, srv.URL + "/lake/versions/"},
		{"a slow but steady body", readAll("data/trickles.bin"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stalls.Store(0)
			// A deadline far beyond the timeout: a read that would hang
			// fails the test instead.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			got, err := tc.op(ctx)
			took := time.Since(start)
			if tc.want == "" {
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("after %v: %d bytes, %v; want the file's %d", took, len(got), err, len(data))
				}
				if took < 2*d {
					t.Errorf("the slow body took only %v: not slower than the timeout", took)
				}
				return
			}
			t.Logf("after %v (%d stalled answers): %v", took, stalls.Load(), err)
			var se *store.StallError
			if !errors.As(err, &se) {
				t.Fatalf("after %v: %v, want a stall error", took, err)
			}
			if took > 10*d {
				t.Errorf("the stall was noticed after %v (timeout %v)", took, d)
			}
			for _, want := range []string{tc.want, "stopped sending", d.String()} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}
