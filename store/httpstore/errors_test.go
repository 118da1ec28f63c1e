package httpstore_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestSetupErrors: Open and Stat of a site the run cannot read at all
// return a *SetupError of the right Problem, classified from Go's typed
// errors and the status, naming the file and the site and giving a hint;
// a redirect loop or a certificate is not asked again (one request, not
// four), and a missing file or an HTML page stays a missing file.
func TestSetupErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "{}") })
	tlsSrv := webtest.ServeTLS(t, ok)
	expired := webtest.ServeExpiredTLS(t, ok)
	var asked atomic.Int64
	server := func(h http.HandlerFunc) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			h(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	status := func(code int) string {
		return server(func(w http.ResponseWriter, r *http.Request) { http.Error(w, http.StatusText(code), code) })
	}
	loop := server(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/a/") {
			http.Redirect(w, r, "/b/"+r.URL.Path[3:], http.StatusFound)
			return
		}
		http.Redirect(w, r, "/a/"+strings.TrimPrefix(r.URL.Path, "/b/"), http.StatusFound)
	})
	endless := server(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	})
	page := server(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!DOCTYPE html><html><body>app</body></html>")
	})

	for _, tc := range []struct {
		name, url string
		problem   httpstore.Problem // 0: no SetupError
		err       string
		requests  int64 // requests the server saw, -1 not counted
		notExist  bool
	}{
		{"refused", closed, httpstore.Unreachable, "connect: connection refused", -1, false},
		{"unknown authority", tlsSrv.URL, httpstore.UntrustedCertificate, "x509: certificate signed by unknown authority", -1, false},
		{"expired", expired, httpstore.ExpiredCertificate, "x509: certificate has expired", -1, false},
		{"wrong host", strings.Replace(tlsSrv.URL, "127.0.0.1", "localhost", 1), httpstore.WrongHostCertificate, "not for localhost", -1, false},
		{"401", status(http.StatusUnauthorized), httpstore.NeedsAuth, "the server answers 401 Unauthorized", 1, false},
		{"403", status(http.StatusForbidden), httpstore.NeedsAuth, "the server answers 403 Forbidden", 1, false},
		{"redirect loop", loop, httpstore.RedirectLoop, "redirect loop: " + loop + "/a/lake/fdl.json -> " + loop + "/b/lake/fdl.json -> " + loop + "/a/lake/fdl.json", 2, false},
		{"endless redirects", endless, httpstore.RedirectLoop, "more than 10 redirects: " + endless + "/a/lake/fdl.json -> " + endless + "/a/lake/fdl.jsonx", 10, false},
		{"404", status(http.StatusNotFound), 0, "", 1, true},
		{"a page", page, 0, store.ErrPage.Error(), 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := httpstore.New(tc.url+"/a/lake", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range []string{"open", "stat"} {
				asked.Store(0)
				var err error
				if op == "open" {
					_, err = st.Open(t.Context(), "fdl.json")
				} else {
					_, err = st.Stat(t.Context(), "fdl.json")
				}
				var se *httpstore.SetupError
				isSetup := errors.As(err, &se)
				switch {
				case err == nil:
					t.Fatalf("%s: no error", op)
				case tc.problem == 0 && isSetup:
					t.Errorf("%s: %v: a SetupError (problem %d), want none", op, err, se.Problem)
				case tc.problem != 0 && (!isSetup || se.Problem != tc.problem):
					t.Errorf("%s: %v (%T): want a SetupError of problem %d", op, err, err, tc.problem)
				case tc.problem != 0 && (!strings.HasPrefix(err.Error(), op+" "+tc.url+"/a/lake/fdl.json: ") || se.Hint() == ""):
					t.Errorf("%s: %q does not start %q, or no hint", op, err, op+" "+tc.url+"/a/lake/fdl.json: ")
				}
				if !strings.Contains(fmt.Sprint(err), tc.err) {
					t.Errorf("%s: %v: want %q in it", op, err, tc.err)
				}
				if errors.Is(err, fs.ErrNotExist) != tc.notExist {
					t.Errorf("%s: %v: matches fs.ErrNotExist %v, want %v", op, err, !tc.notExist, tc.notExist)
				}
				if n := asked.Load(); tc.requests >= 0 && op == "open" && n != tc.requests {
					t.Errorf("%s: the server saw %d requests, want %d (a setup error is not asked again)", op, n, tc.requests)
				}
			}
		})
	}
}

// goneAfterHEAD answers HEADs from the server and refuses the connection of
// every GET: a server that goes away between a file's HEAD and its GET.
type goneAfterHEAD struct{ base http.RoundTripper }

func (g goneAfterHEAD) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodHead {
		return g.base.RoundTrip(req)
	}
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
}

// TestSetupErrorsAfterTheHEAD: the GETs that follow a HEAD (ReadTail's
// ranged read of a file's end, Stat's sniff of a file typed as HTML)
// classify a server gone as every other request does: a *SetupError,
// Unreachable, which stops a run as a failure of the whole site. They were
// Go's error alone, which a check took for the file's: unverifiable, with
// the hint to restore it.
func TestSetupErrorsAfterTheHEAD(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html")
		}
		fmt.Fprint(w, "{}")
	}))
	t.Cleanup(srv.Close)
	st, err := httpstore.New(srv.URL+"/lake", &http.Client{Transport: goneAfterHEAD{srv.Client().Transport}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op, key string
		call    func() error
	}{
		{"read the end of", "fdl.json", func() error { _, _, err := st.ReadTail(t.Context(), "fdl.json", 8); return err }},
		{"stat", "page.html", func() error { _, err := st.Stat(t.Context(), "page.html"); return err }},
	} {
		err := tc.call()
		var se *httpstore.SetupError
		if !errors.As(err, &se) || se.Problem != httpstore.Unreachable || !strings.HasPrefix(err.Error(), tc.op+" "+srv.URL+"/lake/"+tc.key+": ") {
			t.Errorf("%s %s: %v (%T), want a SetupError, Unreachable, starting %q", tc.op, tc.key, err, err, tc.op+" "+srv.URL+"/lake/"+tc.key+": ")
		}
	}
}
