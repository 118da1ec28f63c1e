package repo

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// breakAt passes requests to the server until the first that trip
// matches; from it on (it included) each goes through broken, once
// onTrip has run: credentials going wrong, or the server going away, in
// the middle of a run.
type breakAt struct {
	base   http.RoundTripper
	trip   func(*http.Request) bool
	onTrip func()
	broken func(*http.Request) (*http.Request, *http.Response, error)
	once   sync.Once
	mu     sync.Mutex
	hit    bool
	asked  map[string]bool // the keys (a listing's prefix) asked from the trip on
}

func (b *breakAt) RoundTrip(req *http.Request) (*http.Response, error) {
	b.mu.Lock()
	if !b.hit && b.trip(req) {
		b.hit = true
	}
	hit := b.hit
	if hit {
		if b.asked == nil {
			b.asked = map[string]bool{}
		}
		b.asked[askedKey(req)] = true
	}
	b.mu.Unlock()
	if !hit {
		return b.base.RoundTrip(req)
	}
	if b.onTrip != nil {
		b.once.Do(b.onTrip)
	}
	if b.broken == nil {
		return b.base.RoundTrip(req)
	}
	req, resp, err := b.broken(req.Clone(req.Context()))
	if resp != nil || err != nil {
		return resp, err
	}
	return b.base.RoundTrip(req)
}

// askedFrom is whether the request for key went through broken (or to
// a stopped server): a key asked from the trip on.
func (b *breakAt) askedFrom(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asked[key]
}

// askedKey is the store key req asks for under the tests' prefix "lake/",
// or for a listing its prefix.
func askedKey(req *http.Request) string {
	if p := req.URL.Query().Get("prefix"); req.Method == http.MethodGet && req.URL.Query().Get("list-type") == "2" {
		return strings.TrimPrefix(p, "lake/")
	}
	_, key, _ := strings.Cut(req.URL.Path, "/lake/")
	return key
}

// wrongSecret signs the request with another secret than the key ID's.
func wrongSecret(req *http.Request) (*http.Request, *http.Response, error) {
	req.Header.Set("Authorization", signature.ReplaceAllString(req.Header.Get("Authorization"), "Signature="+zeros))
	return req, nil, nil
}

// denyKey answers requests for one object as S3 does for an object a
// policy denies the credentials (403 AccessDenied), the others going on
// to the server: versitygw's root account, the tests', is denied nothing.
func denyKey(key string) func(*http.Request) (*http.Request, *http.Response, error) {
	return func(req *http.Request) (*http.Request, *http.Response, error) {
		if !strings.HasSuffix(req.URL.Path, "/"+key) {
			return req, nil, nil
		}
		body := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
		if req.Method == http.MethodHead {
			body = ""
		}
		return req, &http.Response{StatusCode: http.StatusForbidden, Status: "403 Forbidden", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/xml"}}, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req}, nil
	}
}

// resetOnce fails the first request it is given as a connection the
// server reset half-way through the upload would; the others go on.
func resetOnce() func(*http.Request) (*http.Request, *http.Response, error) {
	var once sync.Once
	return func(req *http.Request) (*http.Request, *http.Response, error) {
		reset := false
		once.Do(func() { reset = true })
		if reset {
			return nil, nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
		}
		return req, nil, nil
	}
}

// catalogPut is a backfill's upload of a catalog; firstRead a data file's
// or catalog's first read (a HEAD, or a GET under data/).
func catalogPut(req *http.Request) bool {
	return req.Method == http.MethodPut && strings.Contains(req.URL.Path, "/catalogs/")
}

func firstRead(req *http.Request) bool {
	return req.Method == http.MethodHead || strings.Contains(req.URL.Path, "/data/")
}

// bucketListing is a listing of the bucket (ListObjectsV2): versions/'s,
// the run's first request after fdl.json's.
func bucketListing(req *http.Request) bool {
	return req.Method == http.MethodGet && req.URL.Query().Get("list-type") == "2"
}

// runCommand runs check, plan or backfill (format 1.1, missing in the
// lake) and returns its error and, for backfill, its report.
func runCommand(ctx context.Context, t *testing.T, command string, st store.Store) (*BackfillReport, error) {
	t.Helper()
	opts := Options{Formats: []string{"1.1"}, Jobs: 2, Cache: t.TempDir(), WorkDir: t.TempDir()}
	switch command {
	case "check":
		// The lake is sound: a stopped check's report (of what it found
		// before the stop) holds no finding but warnings; every other
		// would be a file it could not read for the stop.
		rep, err := Check(ctx, st, opts)
		if err != nil && rep != nil && errors.As(err, new(*StoppedError)) && (rep.Stopped == nil || rep.OK || len(nonWarnings(rep)) > 0) {
			t.Errorf("check stopped, yet returned a report not marked stopped, ok, or with findings: stopped %+v, ok %v, findings %q", rep.Stopped, rep.OK, findingLines(rep))
		}
		return nil, err
	case "plan":
		m, err := Plan(ctx, st, opts)
		if err != nil && m != nil {
			t.Errorf("plan stopped, yet returned a matrix")
		}
		return nil, err
	}
	return Backfill(ctx, st, opts)
}

// TestStoreFailsMidRun: credentials that stop working in the middle of a
// run (a secret rotated, a session token expired) or a server that goes
// away stop check, plan and backfill with the store's one-line error and
// hint, as at setup, naming the file being read; a backfill publishes
// nothing half-way. Before, check reported each file it then could not
// read as unverifiable, with the hint to restore it (a CI log telling to
// restore hundreds of files that are fine), plan showed every version in
// error and exited 0, and backfill failed each cell.
func TestStoreFailsMidRun(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, root, bucket, "lake")
	// The SDK adds a CA bundle only to its own client.
	t.Setenv("AWS_CA_BUNDLE", "")
	for _, tc := range []struct {
		name    string
		command string
		trip    func(*http.Request) bool
		gone    bool // the server is stopped at the trip; else the secret goes wrong
		reset   bool // and the trip's own request has its connection reset
		problem s3.Problem
	}{
		{"secret rotated", "check", firstRead, false, false, s3.BadSecret},
		{"secret rotated", "plan", firstRead, false, false, s3.BadSecret},
		{"secret rotated", "backfill", catalogPut, false, false, s3.BadSecret},
		{"server gone", "check", firstRead, true, false, s3.Unreachable},
		{"server gone", "backfill", catalogPut, true, false, s3.Unreachable},
		// Gone at versions/'s listing, right after fdl.json: stopped
		// too (it was the listing's error alone, as at setup), as a web
		// site's walk is (TestWebListingFailsMidRun).
		{"server gone at the listing", "plan", bucketListing, true, false, s3.Unreachable},
		// The upload's answer lost, then no connection: the store's
		// error, not the SDK's for the lost answer.
		{"server gone mid-upload", "backfill", catalogPut, true, true, s3.Unreachable},
	} {
		t.Run(tc.name+"/"+tc.command, func(t *testing.T) {
			rt := &breakAt{base: http.DefaultTransport, trip: tc.trip, broken: wrongSecret}
			if tc.gone {
				rt.onTrip, rt.broken = srv.Stop, nil
				t.Cleanup(srv.Restart)
			}
			if tc.reset {
				rt.broken = resetOnce()
			}
			st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: rt}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := runCommand(ctx, t, tc.command, st)
			var stopped *StoppedError
			var ce *s3.ConfigError
			if !errors.As(err, &stopped) || !errors.As(err, &ce) || ce.Problem != tc.problem || errors.Is(err, context.Canceled) {
				t.Fatalf("%s = %v (%T), want a *StoppedError of an *s3.ConfigError of problem %d", tc.command, err, err, tc.problem)
			}
			// Which request meets the failure first is the run's timing:
			// with two jobs, another cell may be reading a data file (a
			// delete file's stat) when the catalog's upload trips, and its
			// error may be the first the run notes. Any is right so long
			// as it names a file the run asked for once the store had
			// failed (before, the test wanted a key under versions/, and
			// failed under load).
			// The file is named once, where it is (its s3:// URL at the
			// endpoint), with the store's cause.
			if !strings.HasPrefix(err.Error(), tc.command+" stopped: ") || ce.Key == "" || !rt.askedFrom(ce.Key) ||
				!strings.Contains(err.Error(), " s3://"+bucket+"/lake/"+ce.Key+" at "+srv.Endpoint+": ") || strings.Count(err.Error(), ce.Key) != 1 ||
				strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "RequestID") {
				t.Errorf("error %q (key %q): want one line naming a file read once the store failed, once, where it is, without the SDK's request IDs", err, ce.Key)
			}
			if ce.Hint() == "" {
				t.Errorf("no hint for %v", ce)
			}
			if tc.command != "backfill" {
				return
			}
			if rep == nil {
				t.Fatal("backfill stopped with no report")
			}
			for _, c := range rep.Results {
				if c.Outcome == Written {
					t.Errorf("cell %s %s written after the store failed", c.Version, c.Format)
				}
			}
			if tc.gone {
				srv.Restart()
			}
			for _, k := range srv.Keys(t, bucket) {
				if strings.Contains(k, "/catalogs/") {
					t.Errorf("%s published by a backfill that stopped", k)
				}
			}
		})
	}
}

// TestObjectDeniedMidRun: a store that refuses one object to the run's
// credentials (S3's AccessDenied for a key, a web site's 403 for a file)
// leaves the run going: the file is unverifiable, as before, and the
// check's hint says the file is not readable with these credentials or on
// that site, not to restore it (it may be there and whole).
func TestObjectDeniedMidRun(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	// The first data file of the lake, which every version reads.
	lakeStore, _ := smallLake(t)
	objs, err := lakeStore.List(ctx, "data/")
	if err != nil || len(objs) == 0 {
		t.Fatalf("list data/: %v (%d)", err, len(objs))
	}
	denied := objs[0].Key

	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, root, bucket, "lake")
	t.Setenv("AWS_CA_BUNDLE", "")
	bucketStore, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: &breakAt{base: http.DefaultTransport,
		trip: func(*http.Request) bool { return true }, broken: denyKey(denied)}}})
	if err != nil {
		t.Fatal(err)
	}
	files := webtest.Handler(root, webtest.Options{})
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/"+denied) {
			http.Error(w, "members only", http.StatusForbidden)
			return
		}
		files.ServeHTTP(w, r)
	}))
	for _, tc := range []struct {
		name string
		st   store.Store
		hint string
	}{
		{"bucket", bucketStore, "not readable with these credentials (AccessDenied; first: " + denied + ")"},
		{"web site", site, "the web site denies 1 file(s) to a reader without credentials (401 or 403; first: " + denied + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Check(ctx, tc.st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir(), WorkDir: t.TempDir()})
			var ce *CheckError
			if !errors.As(err, &ce) || !errors.Is(err, ErrUnverifiable) {
				t.Fatalf("check = %v (%T), want unverifiable files", err, err)
			}
			if !strings.Contains(ce.Hint(), tc.hint) || strings.Contains(ce.Hint(), "restore the file the first finding names") {
				t.Errorf("hint %q, want %q and no 'restore the file'", ce.Hint(), tc.hint)
			}
			named := false
			for _, f := range rep.Findings {
				named = named || (f.Kind == KindUnverifiable && strings.Contains(f.Detail, denied))
			}
			if !named {
				t.Errorf("findings %q, want %s unverifiable", findingLines(rep), denied)
			}
		})
	}
}

// TestWebServerGoneMidRun: a web site whose server goes away (connection
// refused) once check reads the data files stops the check with the
// site's one-line error and hint, naming the file.
func TestWebServerGoneMidRun(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	srv := httptest.NewServer(webtest.Handler(root, webtest.Options{}))
	t.Cleanup(srv.Close)
	rt := &breakAt{base: srv.Client().Transport, trip: func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/data/") },
		onTrip: func() { srv.Listener.Close(); srv.CloseClientConnections() }}
	site, err := httpstore.New(srv.URL+"/", &http.Client{Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir(), WorkDir: t.TempDir()})
	var se *httpstore.SetupError
	if !errors.As(err, new(*StoppedError)) || !errors.As(err, &se) || se.Problem != httpstore.Unreachable {
		t.Fatalf("check = %v (%T; findings %q), want a *StoppedError of an unreachable site", err, err, findingLines(rep))
	}
	if !strings.Contains(err.Error(), "data/") || se.Hint() == "" {
		t.Errorf("error %q (hint %q): want the data file named, and a hint", err, se.Hint())
	}
}

// TestStoppedCheckKeepsFindings: a check that a whole-store failure stops
// after it found a difference reports that difference, in a report
// marked stopped that names what it did not check, and counts it in the
// stop's one-line error; what it could not read for the stop is no
// finding. Before, the stopped check returned no report at all: the
// difference was learnt on the rerun, or never if that stopped too.
// Version 1's published catalog is version 2's, so its proof fails; the
// secret goes wrong at the end of that proof (Progress; one job, so
// versions 2 and 3 come after it). Version 2's content pass asks the
// store nothing (its frozen catalog, dataset.json and files.json are the
// plan's reads, held), so it finishes; the stop comes at its proof.
func TestStoppedCheckKeepsFindings(t *testing.T) {
	ctx := context.Background()
	_, root := cloneRepo(t, lake11(t))
	ids := versionIDs(t, root)
	if len(ids) != 3 {
		t.Fatalf("versions %v, want 3", ids)
	}
	wrong := CatalogKey(ids[0], "1.1")
	other, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(CatalogKey(ids[1], "1.1"))))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(wrong)), other, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, root, bucket, "lake")
	t.Setenv("AWS_CA_BUNDLE", "")
	var tripped atomic.Bool
	st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: &breakAt{base: http.DefaultTransport,
		trip: func(*http.Request) bool { return tripped.Load() }, broken: wrongSecret}}})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Formats: []string{"1.1"}, Jobs: 1, Cache: t.TempDir(), WorkDir: t.TempDir(),
		Progress: func(p Progress) {
			if p.Result != "proved" {
				tripped.Store(true)
			}
		}}
	rep, err := Check(ctx, st, opts)
	var stopped *StoppedError
	var ce *s3.ConfigError
	if !errors.As(err, &stopped) || !errors.As(err, &ce) || ce.Problem != s3.BadSecret {
		t.Fatalf("check = %v (%T), want a *StoppedError of a bad secret", err, err)
	}
	if !tripped.Load() {
		t.Fatal("no proof failed: the test's difference was not found")
	}
	if rep == nil {
		t.Fatal("the stopped check returned no report: the difference it found before the stop is lost")
	}
	if !strings.Contains(err.Error(), "before the stop it found 1 difference") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want one line counting the difference found before the stop", err)
	}
	var found []string
	for _, f := range nonWarnings(rep) {
		found = append(found, string(f.Kind)+" "+f.Key)
	}
	if want := []string{"difference " + wrong}; !slices.Equal(found, want) {
		t.Errorf("findings %q, want only %q: those of the files the stop kept from being read are none", findingLines(rep), want)
	}
	want := &StoppedCheck{Reason: ce.Error(), VersionsNotChecked: ids[2:], CatalogsNotProved: []string{CatalogKey(ids[1], "1.1"), CatalogKey(ids[2], "1.1")}}
	if rep.OK || rep.Stopped == nil || rep.Stopped.Reason != want.Reason || !slices.Equal(rep.Stopped.VersionsNotChecked, want.VersionsNotChecked) ||
		!slices.Equal(rep.Stopped.CatalogsNotProved, want.CatalogsNotProved) || len(rep.Proofs) != 1 || rep.Proofs[0].Key != wrong || len(rep.Readers) != 0 {
		t.Errorf("ok %v, stopped %+v, %d proof(s), %d reader range(s); want not ok, stopped %+v, one proof (of %s), no reader evaluated", rep.OK, rep.Stopped, len(rep.Proofs), len(rep.Readers), want, wrong)
	}
	// As check --json writes it: the difference, and why and where the
	// run stopped.
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		OK       bool `json:"ok"`
		Findings []struct {
			Kind, Key string
		} `json:"findings"`
		Stopped struct {
			Reason             string   `json:"reason"`
			VersionsNotChecked []string `json:"versions_not_checked"`
			CatalogsNotProved  []string `json:"catalogs_not_proved"`
		} `json:"stopped"`
	}
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.OK || !slices.ContainsFunc(back.Findings, func(f struct{ Kind, Key string }) bool { return f.Kind == "difference" && f.Key == wrong }) ||
		back.Stopped.Reason == "" || len(back.Stopped.VersionsNotChecked) != 1 || len(back.Stopped.CatalogsNotProved) != 2 {
		t.Errorf("JSON report %s: want ok false, the difference of %s, and stopped with its reason and what was not checked", js, wrong)
	}
}
