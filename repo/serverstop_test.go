package repo

import (
	"context"
	"errors"
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
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// hangFrom serves h until trip matches a request; from that request on
// (it included) the server takes every request and never answers (a
// gateway whose backend died, a CDN edge holding connections), until the
// test ends.
func hangFrom(t *testing.T, h http.Handler, trip func(*http.Request) bool) http.Handler {
	t.Helper()
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit) })
	var hung atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hung.Load() && !trip(r) {
			h.ServeHTTP(w, r)
			return
		}
		hung.Store(true)
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	})
}

// TestServerStopsAnsweringMidRun: a web server that takes requests and
// never answers once a check reads the data files stops the check after
// about a stall timeout or two, with one error naming the server, saying
// it stopped answering, and a hint to check it or raise --stall-timeout.
// Before, each file waited the timeout four times, then again at each of
// the download's three attempts, and became an unverifiable file whose
// hint said to restore it (exit 4), the run lasting tens of timeouts for
// this small lake, hours for a repository of hundreds of files.
func TestServerStopsAnsweringMidRun(t *testing.T) {
	t.Parallel()
	const d = 200 * time.Millisecond
	ctx := context.Background()
	_, root := smallLake(t)
	srv := httptest.NewServer(hangFrom(t, webtest.Handler(root, webtest.Options{}), func(r *http.Request) bool {
		return strings.Contains(r.URL.Path, "/data/")
	}))
	t.Cleanup(srv.Close)
	site, err := httpstore.New(srv.URL+"/", httpstore.Client(d))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep, err := Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir(), WorkDir: t.TempDir()})
	took := time.Since(start)
	t.Logf("check ended after %v: %v", took, err)
	var se *store.ServerStoppedError
	if !errors.As(err, new(*StoppedError)) || !errors.As(err, &se) {
		t.Fatalf("check = %v (%T; after %v; findings %q), want a *StoppedError of a server that stopped answering", err, err, took, findingLines(rep))
	}
	if want := "check stopped: the server at " + srv.URL + " stopped answering: "; !strings.HasPrefix(err.Error(), want) ||
		!strings.Contains(err.Error(), srv.URL+"/data/") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want one line starting %q and naming a data file", err, want)
	}
	if !strings.Contains(se.Hint(), "check the server at "+srv.URL) || !strings.Contains(se.Hint(), "raise --stall-timeout") {
		t.Errorf("hint %q", se.Hint())
	}
	// Two waits of d each, the transport's retry of the first object
	// included, and the run's setup: generous for a loaded machine, far
	// below the tens of timeouts per file of before.
	if took > 20*d+5*time.Second {
		t.Errorf("check stopped after %v, want a few stall timeouts of %v", took, d)
	}
}

// TestWebListingFailsMidRun: a web server that goes away (connection
// refused) while check, plan or resolve walks the folder listings of
// versions/ stops the run as any other request of the run that meets it
// does, and as a bucket's listing does: "COMMAND stopped: list
// versions/... in URL: cannot reach HOST:PORT: ...", with the site's
// Try: line. Before, the walk went around the run's watcher and the
// listing's failure was Go's error alone ("Get URL: dial tcp ...:
// connection refused", no hint), and resolve had no watcher at all.
func TestWebListingFailsMidRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, root := smallLake(t)
	for _, command := range []string{"check", "plan", "resolve"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(webtest.Handler(root, webtest.Options{}))
			t.Cleanup(srv.Close)
			// The listing of a version's folder, after versions/'s.
			versionFolder := func(r *http.Request) bool {
				return strings.HasPrefix(r.URL.Path, "/versions/") && strings.HasSuffix(r.URL.Path, "/") && r.URL.Path != "/versions/"
			}
			rt := &breakAt{base: srv.Client().Transport, trip: versionFolder,
				onTrip: func() { srv.Listener.Close(); srv.CloseClientConnections() }}
			site, err := httpstore.New(srv.URL+"/", &http.Client{Transport: rt})
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir(), WorkDir: t.TempDir()}
			switch command {
			case "check":
				_, err = Check(ctx, site, opts)
			case "plan":
				_, err = Plan(ctx, site, opts)
			case "resolve":
				_, err = Resolve(ctx, site, ResolveOptions{DuckDB: "1.5.6"})
			}
			var se *httpstore.SetupError
			if !errors.As(err, new(*StoppedError)) || !errors.As(err, &se) || se.Problem != httpstore.Unreachable || se.Op != "list" {
				t.Fatalf("%s = %v (%T), want a *StoppedError of the site unreachable at a listing", command, err, err)
			}
			// The folder whose listing failed, named once, by its URL.
			if want := command + " stopped: list " + srv.URL + "/versions/"; !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), srv.URL) != 1 ||
				!strings.Contains(err.Error(), "cannot reach ") || se.Hint() == "" {
				t.Errorf("error %q (hint %q): want it to start %q, name the site once, say the host cannot be reached, and a hint", err, se.Hint(), want)
			}
		})
	}
}

// TestS3ServerStopsAnsweringMidRun: TestServerStopsAnsweringMidRun on a
// bucket, behind a front (a proxy to the S3 server, as a gateway would
// be) that takes requests and never answers once check reads the data
// files: the stall watchdog on the SDK's client reports to the same
// watch, and the check stops naming the endpoint.
func TestS3ServerStopsAnsweringMidRun(t *testing.T) {
	const d = 300 * time.Millisecond
	ctx := context.Background()
	_, root := smallLake(t)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, root, bucket, "lake")
	t.Setenv("AWS_CA_BUNDLE", "")
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(hangFrom(t, httputil.NewSingleHostReverseProxy(target), func(r *http.Request) bool {
		return strings.Contains(r.URL.Path, "/data/")
	}))
	t.Cleanup(front.Close)
	st, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL, StallTimeout: d})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir(), WorkDir: t.TempDir()})
	took := time.Since(start)
	t.Logf("check ended after %v: %v", took, err)
	var se *store.ServerStoppedError
	if !errors.As(err, new(*StoppedError)) || !errors.As(err, &se) || se.Server != front.URL {
		t.Fatalf("check = %v (%T), want a *StoppedError of %s stopped answering", err, err, front.URL)
	}
	// The SDK's backoff between its attempts (up to 2 s) comes on top.
	if took > 20*d+10*time.Second {
		t.Errorf("check stopped after %v, want a few stall timeouts of %v", took, d)
	}
}
