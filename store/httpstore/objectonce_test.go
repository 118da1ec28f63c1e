package httpstore_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestObjectNamedOnce: a web site's errors name the object by its URL,
// once, with the server's cause: a missing file (404), a forbidden one
// (403), a ranged GET whose ETag is not the HEAD's, a create (the site
// is read-only), a listing whose walk loses the server. Before, the ETag
// error named the key alone, the create's "KEY in SITE", and a listing's
// walk "list PREFIX in SITE: list URL/PREFIX/SUB/: ..." (the site twice)
// or Go's client's error alone (`Get "URL/PREFIX/SUB/": EOF`), and a
// request the server did not answer `open URL: Get "URL": EOF`.
func TestObjectNamedOnce(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for _, f := range []string{"versions/v1/a.json", "versions/v2/b.json", "f.parquet", "denied.bin"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("some bytes of "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := webtest.Handler(root, webtest.Options{})
	var gone atomic.Bool
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/denied.bin":
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		case r.URL.Path == "/f.parquet" && r.Method == http.MethodHead:
			w.Header().Set("ETag", `"v1"`)
		case r.URL.Path == "/f.parquet":
			w.Header().Set("ETag", `"v2"`)
		case r.URL.Path == "/eof.bin":
			// No answer: Go's client says `Get "URL": EOF`.
			srv.CloseClientConnections()
			return
		case gone.Load() && strings.HasPrefix(r.URL.Path, "/versions/v"):
			// The server goes away at a version's folder, after versions/'s.
			srv.CloseClientConnections()
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	st, err := httpstore.New(srv.URL+"/", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	once := func(what string, err error, key, name, cause string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		msg := err.Error()
		if strings.Count(msg, key) != 1 || strings.Count(msg, srv.URL) != 1 || !strings.Contains(msg, name+": ") || !strings.Contains(msg, cause) {
			t.Errorf("%s: %q, want %s named once and the cause %q", what, msg, name, cause)
		}
	}
	_, err = st.Open(ctx, "missing.bin")
	once("open a missing file", err, "missing.bin", "open "+srv.URL+"/missing.bin", "404 Not Found")
	_, err = st.Stat(ctx, "missing.bin")
	once("stat a missing file", err, "missing.bin", "stat "+srv.URL+"/missing.bin", "404 Not Found")
	_, err = st.Open(ctx, "eof.bin")
	once("open a file the server does not answer", err, "eof.bin", "open "+srv.URL+"/eof.bin", "EOF")
	_, err = st.Open(ctx, "denied.bin")
	once("open a forbidden file", err, "denied.bin", "open "+srv.URL+"/denied.bin", "403 Forbidden")
	_, _, err = st.ReadTail(ctx, "denied.bin", 4)
	once("read the end of a forbidden file", err, "denied.bin", "stat "+srv.URL+"/denied.bin", "403 Forbidden") // its HEAD first
	_, _, err = st.ReadTail(ctx, "f.parquet", 4)
	if !errors.Is(err, store.ErrETagChanged) {
		t.Errorf("read the end of f.parquet = %v, want ErrETagChanged", err)
	}
	once("read the end, the ETag changed", err, "f.parquet", "read the end of "+srv.URL+"/f.parquet", `ETag "v1" by its HEAD, "v2" by its ranged GET`)
	err = st.Create(ctx, "new.bin", strings.NewReader("x"))
	if !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("create = %v, want ErrReadOnly", err)
	}
	once("create", err, "new.bin", "create "+srv.URL+"/new.bin", store.ErrReadOnly.Error())
	gone.Store(true)
	_, err = st.List(ctx, "versions/")
	if err == nil || strings.Count(err.Error(), srv.URL) != 1 || !strings.HasPrefix(err.Error(), "list "+srv.URL+"/versions/v") {
		t.Errorf("list with the server gone at a version's folder = %v, want the folder named once, by its URL", err)
	}
}
