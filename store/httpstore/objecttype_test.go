package httpstore_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestObjectNamedOnceByType: the site's errors name the object once, by
// type (a *store.ObjectError), not by searching their text for its URL.
// A folder whose name has a space was named twice, unescaped and escaped
// ("list URL/a b/: list URL/a%20b/: ..."); after a redirect, the address
// that answered 403, 416, 5xx, an unlisted status or the unwanted
// encoding was named nowhere; a setup error of the repository's own
// folder named it "URL/./".
func TestObjectNamedOnceByType(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/r/a b/":
			http.Error(w, "no", http.StatusTeapot)
		case strings.HasPrefix(p, "/r/"):
			http.Redirect(w, r, "/cdn/"+strings.TrimPrefix(p, "/r/"), http.StatusFound)
		case p == "/cdn/denied.bin":
			http.Error(w, "no", http.StatusForbidden)
		case p == "/cdn/teapot.bin":
			http.Error(w, "no", http.StatusTeapot)
		case p == "/cdn/down.bin":
			http.Error(w, "no", http.StatusServiceUnavailable)
		case p == "/cdn/range.bin":
			w.Header().Set("Content-Range", "bytes */5")
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		case p == "/cdn/gz.bin":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("x"))
		case p == "/loop/":
			http.Redirect(w, r, "/loop/", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	st, err := httpstore.New(srv.URL+"/r/", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	u := srv.URL
	is := func(what string, err error, want string) {
		t.Helper()
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", what, err, want)
		}
		var oe *store.ObjectError
		if err != nil && !errors.As(err, &oe) {
			t.Errorf("%s: no *store.ObjectError in %v", what, err)
		}
	}
	_, err = st.List(ctx, "a b/")
	is("list a folder with a space", err, "list "+u+"/r/a b/: GET answered 418 I'm a teapot")
	_, err = st.Open(ctx, "denied.bin")
	is("open, redirected to a 403", err, "open "+u+"/r/denied.bin: redirected to "+u+"/cdn/denied.bin, which answers 403 Forbidden: the site requires authentication or denies access to it")
	if !errors.Is(err, store.ErrAccessDenied) {
		t.Errorf("open, redirected to a 403: %v, want ErrAccessDenied", err)
	}
	_, err = st.Open(ctx, "teapot.bin")
	is("open, redirected to a 418", err, "open "+u+"/r/teapot.bin: GET redirected to "+u+"/cdn/teapot.bin: 418 I'm a teapot")
	_, err = st.Open(ctx, "down.bin")
	is("open, redirected to a 503", err, "open "+u+"/r/down.bin: GET redirected to "+u+"/cdn/down.bin: 503 Service Unavailable")
	var se *store.ServerError
	if !errors.As(err, &se) || se.Status != http.StatusServiceUnavailable {
		t.Errorf("open, redirected to a 503: %v, want a *store.ServerError", err)
	}
	_, err = st.GETSize(ctx, "range.bin")
	is("GET the size, redirected to a 416", err, "GET the size of "+u+"/r/range.bin: GET redirected to "+u+"/cdn/range.bin: 416 Requested Range Not Satisfiable, Content-Range \"bytes */5\"")
	_, err = st.Open(ctx, "gz.bin")
	is("open, redirected to an encoded answer", err, "open "+u+"/r/gz.bin: the server sends the file with Content-Encoding \"gzip\" though none was asked for (to a GET, redirected to "+u+"/cdn/gz.bin): readers get the encoded bytes, not the file")
	if !errors.Is(err, store.ErrEncoded) {
		t.Errorf("open, redirected to an encoded answer: %v, want ErrEncoded", err)
	}

	loop, err := httpstore.New(srv.URL+"/loop/", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	_, err = loop.List(ctx, "")
	var setup *httpstore.SetupError
	if !errors.As(err, &setup) || !strings.HasPrefix(err.Error(), "list "+u+"/loop/: ") || strings.Contains(err.Error(), "/./") {
		t.Errorf("list the repository's folder, a redirect loop: %v, want a *SetupError naming %s/loop/ (not .../loop/./)", err, u)
	}
}
