package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/repo"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// remoteNow pins `until` for the remote tests.
const remoteNow = "--now=2026-11-30T00:00:00Z"

// s3Lake starts an S3 server with lake 06_deletes of the conformance lakes
// at s3://bucket/lake, and returns the server and the bucket.
func s3Lake(t *testing.T) (*s3test.Server, string) {
	t.Helper()
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, copyRepo(t, "lakes", "06_deletes"), bucket, "lake")
	return srv, bucket
}

func backfillJSON(t *testing.T, args ...string) (*repo.BackfillReport, string, int) {
	t.Helper()
	out, errOut, code := runApp(t, append([]string{"--log-level", "error", "backfill", "--json", remoteNow}, args...)...)
	var rep repo.BackfillReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("backfill %v: exit %d, no JSON report: %v\nstdout %s\nstderr %s", args, code, err, out, errOut)
	}
	return &rep, errOut, code
}

// TestS3Repository runs plan, backfill and check on a conformance lake in a
// bucket of a real S3 server (versitygw), by s3:// URL.
func TestS3Repository(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	srv, bucket := s3Lake(t)
	url := "s3://" + bucket + "/lake"
	cache := "--cache=" + t.TempDir()

	out, errOut, code := runApp(t, "--log-level", "error", "plan", remoteNow, cache, url)
	if code != exitOK || !strings.Contains(out, "missing") || !strings.Contains(out, "bytes downloaded") {
		t.Fatalf("plan %s: exit %d\n%s\n%s", url, code, out, errOut)
	}
	if _, _, code := runApp(t, "check", remoteNow, cache, url); code != exitMissing {
		t.Errorf("check before backfill: exit %d, want %d", code, exitMissing)
	}

	rep, errOut, code := backfillJSON(t, cache, url)
	if code != exitOK || rep.Counts[repo.Written] == 0 || rep.Counts[repo.Failed] != 0 {
		t.Fatalf("backfill: exit %d, counts %v\n%s", code, rep.Counts, errOut)
	}
	written := rep.Counts[repo.Written]
	// check above already filled the cache with every data file.
	if tr := rep.Transfer; tr == nil || tr.Downloaded == 0 || tr.Uploaded == 0 || tr.DataFiles != 0 || tr.Cached == 0 {
		t.Errorf("backfill transfer = %+v, want bytes both ways and the data files reused from the cache", tr)
	}
	for _, r := range rep.Results {
		if !slices.Contains(srv.Keys(t, bucket), "lake/"+r.Key) {
			t.Errorf("%s not in the bucket after backfill", r.Key)
		}
	}

	// Nothing left to do: nothing written, nothing uploaded, and the data
	// cache is reused (no data file downloaded again).
	rep, _, code = backfillJSON(t, cache, url)
	if code != exitOK || len(rep.Results) != 0 || rep.Transfer.Uploaded != 0 || rep.Transfer.DataFiles != 0 {
		t.Errorf("second backfill: exit %d, %d results, transfer %+v; want nothing", code, len(rep.Results), rep.Transfer)
	}

	out, errOut, code = runApp(t, "check", remoteNow, cache, url)
	if code != exitOK || !strings.Contains(out, "check: ok") {
		t.Fatalf("check after backfill: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "proofs: "+itoa(written)+" of "+itoa(written)) {
		t.Errorf("check proved other than the %d written catalogs:\n%s", written, out)
	}

	// A data file replaced in the bucket by one of the same size: the cached
	// copy is stale (its ETag no longer matches), so it is downloaded again,
	// and only it. (Both sides of a proof read the same data files, so the
	// proof itself cannot tell; the cache must not hide the change.)
	client := srv.Client()
	var dataKey string
	for _, k := range srv.Keys(t, bucket) {
		if strings.HasPrefix(k, "lake/data/") && strings.HasSuffix(k, ".parquet") {
			dataKey = k
			break
		}
	}
	if dataKey == "" {
		t.Fatal("no data file in the bucket")
	}
	orig := getObject(t, client, bucket, dataKey)
	bad := []byte(orig)
	bad[len(bad)/2] ^= 0xff
	for _, body := range []string{string(bad), orig} {
		putObject(t, client, bucket, dataKey, body)
		out, _, _ := runApp(t, "--log-level", "error", "check", "--json", remoteNow, cache, url)
		var crep repo.CheckReport
		if err := json.Unmarshal([]byte(out), &crep); err != nil || crep.Transfer == nil {
			t.Fatalf("check --json: %v\n%s", err, out)
		}
		if crep.Transfer.DataFiles != 1 || crep.Transfer.Cached == 0 {
			t.Errorf("check after %s changed in the bucket: transfer %+v, want exactly that data file downloaded again", dataKey, crep.Transfer)
		}
	}

	// Replace a published catalog behind our back (an unconditional put):
	// check proves it differs.
	cat := rep.Plan.Cells()[0]
	var present *repo.Cell
	for _, c := range rep.Plan.Cells() {
		if c.State == repo.Present {
			present = c
		}
	}
	if present == nil {
		t.Fatalf("no present cell after backfill (first cell %+v)", cat)
	}
	var source string
	for _, v := range rep.Plan.Versions {
		if v.ID == present.Version {
			source = v.Catalog
		}
	}
	for _, v := range rep.Plan.Versions {
		if v.ID != present.Version && v.Catalog != "" {
			// Another version's frozen catalog: a valid catalog with other rows.
			putObject(t, client, bucket, "lake/"+present.Key, getObject(t, client, bucket, "lake/"+v.Catalog))
			break
		}
	}
	_ = source
	// The tampered catalog's cell alone: the other cells' proofs, from a
	// cold cache, add nothing to the exit code and Try: line asserted.
	out, errOut, code = runAppStderr(t, "check", remoteNow, "--versions="+present.Version, "--formats="+present.Format, "--cache="+t.TempDir(), url)
	if code != exitDifferent {
		t.Errorf("check of a tampered catalog: exit %d, want %d\n%s", code, exitDifferent, out)
	}
	// The Try: line names the object as the bucket's, at its endpoint:
	// it said "remove versions/<id>/catalogs/<format>.duckdb".
	if want := "remove " + url + "/" + present.Key + " at " + srv.Endpoint + " and run `fdl-formats backfill "; !strings.Contains(errOut, want) {
		t.Errorf("check of a tampered catalog: no %q in its Try: line\n%s", want, errOut)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// getObject and putObject go around the store: a plain, unconditional
// client, as another tool (or an attacker) would.
func getObject(t *testing.T, c *awss3.Client, bucket, key string) string {
	t.Helper()
	out, err := c.GetObject(context.Background(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func putObject(t *testing.T, c *awss3.Client, bucket, key, body string) {
	t.Helper()
	if _, err := c.PutObject(context.Background(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
}

// TestS3RewriteDeletes: with --rewrite-deletes the delete files a 0.3
// catalog needs go up to the bucket with the catalog, so that a check on
// another machine (an empty cache) proves it.
func TestS3RewriteDeletes(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	dir := copyRepo(t, "lakes", "06_deletes")
	if err := os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"0.3"},{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Upload(t, dir, bucket, "lake")
	before := srv.Keys(t, bucket)
	url := "s3://" + bucket + "/lake"
	args := []string{"--versions=2", "--formats=0.3", "--cache=" + t.TempDir()}
	rep, errOut, code := backfillJSON(t, append(args, "--rewrite-deletes", url)...)
	if code != exitOK || rep.Counts[repo.Written] != 1 {
		t.Fatalf("backfill --rewrite-deletes: exit %d, counts %v\n%s", code, rep.Counts, errOut)
	}
	var added []string
	for _, k := range srv.Keys(t, bucket) {
		if !slices.Contains(before, k) {
			added = append(added, k)
		}
	}
	var data, catalogs int
	for _, k := range added {
		switch {
		case strings.HasPrefix(k, "lake/data/"):
			data++
		case strings.HasSuffix(k, "/catalogs/0.3.duckdb"):
			catalogs++
		default:
			t.Errorf("unexpected new object %s", k)
		}
	}
	if data == 0 || catalogs != 1 {
		t.Errorf("new objects %q: want rewritten delete files under data/ and one catalog", added)
	}
	if rep.Transfer.Uploaded == 0 {
		t.Errorf("transfer %+v: want bytes uploaded", rep.Transfer)
	}
	out, errOut, code := runApp(t, append([]string{"check", remoteNow, "--versions=2", "--formats=0.3", "--cache=" + t.TempDir()}, url)...)
	if code != exitOK {
		t.Errorf("check with an empty cache: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestS3ConcurrentBackfills runs two backfills of one bucket at once: every
// catalog is written exactly once, by one of them.
func TestS3ConcurrentBackfills(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	_, bucket := s3Lake(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	reps := make([]*repo.BackfillReport, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := s3.New(ctx, bucket, "lake", s3.Options{})
			if err != nil {
				errs[i] = err
				return
			}
			// Separate caches: two machines.
			reps[i], errs[i] = repo.Backfill(ctx, st, repo.Options{Cache: t.TempDir(), Jobs: 2})
		}()
	}
	wg.Wait()
	byKey := map[string][]repo.Outcome{}
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("backfill %d: %v", i, errs[i])
		}
		for _, r := range reps[i].Results {
			byKey[r.Key] = append(byKey[r.Key], r.Outcome)
		}
	}
	if len(byKey) == 0 {
		t.Fatal("nothing to backfill")
	}
	for key, outcomes := range byKey {
		if n := count(outcomes, repo.Written); n != 1 {
			t.Errorf("%s: outcomes %v, want exactly one written", key, outcomes)
		}
	}
	if _, _, code := runApp(t, "check", remoteNow, "--cache="+t.TempDir(), "s3://"+bucket+"/lake"); code != exitOK {
		t.Errorf("check after concurrent backfills: exit %d", code)
	}
}

func count[T comparable](s []T, v T) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// TestS3KilledUpload stops the server as a backfill publishes: the run
// stops with the unreachable endpoint's error (exit 1; it failed each cell
// before, repo.ErrBackfillIncomplete), check then finds work missing and
// nothing published half-written, and a rerun completes.
func TestS3KilledUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	srv, bucket := s3Lake(t)
	ctx := context.Background()
	st, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stopAtPublish := faults.With(ctx, func(p faults.Point) error {
		if p.Name == "backfill/publish" {
			once.Do(srv.Stop)
		}
		return nil
	})
	_, err = repo.Backfill(stopAtPublish, st, repo.Options{Cache: t.TempDir(), Jobs: 1})
	var ce *s3.ConfigError
	if !errors.As(err, new(*repo.StoppedError)) || !errors.As(err, &ce) || ce.Problem != s3.Unreachable || exitCode(err) != exitFailure {
		t.Fatalf("backfill with the server stopped: %v (exit %d), want a *repo.StoppedError of the unreachable endpoint, exit %d", err, exitCode(err), exitFailure)
	}
	srv.Restart()
	for _, k := range srv.Keys(t, bucket) {
		if strings.Contains(k, "/catalogs/") {
			t.Errorf("%s was published by the killed run", k)
		}
	}
	url := "s3://" + bucket + "/lake"
	if _, _, code := runApp(t, "check", remoteNow, "--cache="+t.TempDir(), url); code != exitMissing {
		t.Errorf("check after the killed run: exit %d, want %d (work missing, nothing broken)", code, exitMissing)
	}
	rep, errOut, code := backfillJSON(t, "--cache="+t.TempDir(), url)
	if code != exitOK || rep.Counts[repo.Written] == 0 {
		t.Fatalf("rerun: exit %d, counts %v\n%s", code, rep.Counts, errOut)
	}
	if _, _, code := runApp(t, "check", remoteNow, "--cache="+t.TempDir(), url); code != exitOK {
		t.Errorf("check after the rerun: exit %d", code)
	}
}

// TestS3RefusesUnsafeServer: a server that ignores If-None-Match is found
// by the probe, and backfill publishes nothing there.
func TestS3RefusesUnsafeServer(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	srv, bucket := s3Lake(t)
	// A gateway in front of the real server that drops the condition, as
	// a server without conditional writes behaves.
	proxy := httptest.NewServer(dropCondition(srv.Endpoint))
	defer proxy.Close()
	out, errOut, code := runAppStderr(t, "backfill", remoteNow, "--endpoint="+proxy.URL, "--cache="+t.TempDir(), "s3://"+bucket+"/lake")
	if code != exitFailure || !strings.Contains(errOut, "ignored If-None-Match") {
		t.Errorf("backfill through a server ignoring conditions: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, k := range srv.Keys(t, bucket) {
		if strings.Contains(k, "/catalogs/") || strings.Contains(k, s3.PrivatePrefix) {
			t.Errorf("%s left in the bucket", k)
		}
	}
}

// TestS3ReadOnlyCredentials: credentials that may read but not write (every
// PutObject answered 403 AccessDenied, as IAM answers) were reported as
// "backfill refused: probe conditional writes ... AccessDenied" with a hint
// blaming the server's If-None-Match support (trial 2 F3.8). The error and
// the hint now say the credentials may not write.
func TestS3ReadOnlyCredentials(t *testing.T) {
	srv, bucket := s3Lake(t)
	target, _ := neturl.Parse(srv.Endpoint)
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	out, errOut, code := runAppStderr(t, "backfill", remoteNow, "--endpoint="+proxy.URL, "--cache="+t.TempDir(), "s3://"+bucket+"/lake")
	// The probe object named once, where it is.
	if code != exitFailure || !strings.Contains(errOut, "Error: backfill cannot publish: probe conditional writes: create s3://"+bucket+"/lake/.fdl-formats/probe-") ||
		strings.Count(errOut, ".fdl-formats/probe-") != 1 || !strings.Contains(errOut, " at "+proxy.URL+": the credentials may not write to the store (PutObject answered 403): ") ||
		!strings.Contains(errOut, "Try: use credentials that may write to the repository: backfill needs s3:PutObject") || strings.Contains(errOut, "If-None-Match") {
		t.Errorf("backfill with read-only credentials: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestHTTPRepository checks a backfilled lake served by Go's file server.
func TestHTTPRepository(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	dir := copyRepo(t, "lakes", "06_deletes")
	if _, errOut, code := runApp(t, "backfill", remoteNow, dir); code != exitOK {
		t.Fatalf("local backfill: exit %d\n%s", code, errOut)
	}
	root := t.TempDir()
	if err := os.Rename(dir, filepath.Join(root, "lake")); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, "lake")
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	url := srv.URL + "/lake"
	cache := "--cache=" + t.TempDir()

	out, errOut, code := runApp(t, "check", remoteNow, cache, url)
	if code != exitOK || !strings.Contains(out, "bytes downloaded") {
		t.Fatalf("check %s: exit %d\n%s\n%s", url, code, out, errOut)
	}
	// The transfer's log line gives its time in milliseconds, as the
	// other durations: it printed the float sum, 0.5704661259999999.
	if m := regexp.MustCompile(`msg="check transfer" .*download_seconds=([0-9.e-]+) `).FindStringSubmatch(errOut); m == nil {
		t.Errorf("no check transfer log line with download_seconds:\n%s", errOut)
	} else if _, frac, _ := strings.Cut(m[1], "."); len(frac) > 3 || strings.Contains(m[1], "e") {
		t.Errorf("check transfer: download_seconds=%s, want milliseconds at most", m[1])
	}
	// --no-cache: the data files go to the run's work folder, gone after it.
	if out, errOut, code := runApp(t, "check", remoteNow, "--no-cache", url); code != exitOK || !strings.Contains(out, "12 data files") {
		t.Errorf("check --no-cache %s: exit %d\n%s\n%s", url, code, out, errOut)
	}
	if _, errOut, code := runAppStderr(t, "backfill", remoteNow, cache, url); code != exitUsage || !strings.Contains(errOut, "read-only") ||
		!strings.Contains(errOut, "read by plan, check, resolve and backfill --dry-run only") ||
		!strings.Contains(errOut, "\nTry: run backfill on the folder or s3:// bucket the site serves, then `fdl-formats check "+remoteNow+" "+cache+" "+url+"`") {
		// It said "read by plan and check only", leaving out resolve,
		// and "Try: fdl-formats backfill --help", which tells nothing
		// of where to run it instead.
		t.Errorf("backfill of a web site: exit %d, want %d, naming every command that reads one\n%s", code, exitUsage, errOut)
	}

	// A data file the server no longer has: the proofs cannot be made.
	var data []string
	filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			data = append(data, p)
		}
		return nil
	})
	if len(data) == 0 {
		t.Fatal("no data files")
	}
	hidden := data[0] + ".hidden"
	if err := os.Rename(data[0], hidden); err != nil {
		t.Fatal(err)
	}
	if out, _, code := runApp(t, "check", remoteNow, cache, url); code != exitIncomparable {
		t.Errorf("check with a data file 404: exit %d, want %d\n%s", code, exitIncomparable, out)
	}
	if err := os.Rename(hidden, data[0]); err != nil {
		t.Fatal(err)
	}

	// A frozen catalog changed on the server: its sha256 differs.
	cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
	if len(cats) == 0 {
		t.Fatal("no frozen catalogs")
	}
	f, err := os.OpenFile(cats[0], os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	f.Close()
	if out, _, code := runApp(t, "check", remoteNow, cache, url); code != exitDifferent {
		t.Errorf("check of a tampered catalog: exit %d, want %d\n%s", code, exitDifferent, out)
	}
}

// Compile-time: the e2e tests use the store interfaces they document.
var _ store.Prober = (*s3.Store)(nil)

// dropCondition is a reverse proxy to an S3 endpoint that answers a
// refused conditional PutObject (412) with success, as a server that
// ignores If-None-Match does.
func dropCondition(endpoint string) http.Handler {
	target, _ := neturl.Parse(endpoint)
	p := httputil.NewSingleHostReverseProxy(target)
	p.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodPut && resp.StatusCode == http.StatusPreconditionFailed {
			resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
			resp.Body = io.NopCloser(strings.NewReader(""))
			resp.ContentLength = 0
			resp.Header.Del("Content-Length")
			resp.Header.Set("ETag", `"0"`)
		}
		return nil
	}
	return p
}

// TestS3ResolveNamesEndpoint: resolve of a repository at an S3-compatible
// endpoint prints, before the ATTACH, the S3 secret a DuckDB needs to
// read s3:// there (its httpfs sends s3:// to AWS otherwise).
func TestS3ResolveNamesEndpoint(t *testing.T) {
	srv, bucket := s3Lake(t)
	url := "s3://" + bucket + "/lake"
	out, errOut, code := runAppStderr(t, "resolve", "--duckdb", "1.5.6", url)
	host := strings.TrimPrefix(srv.Endpoint, "http://")
	want := "CREATE SECRET (TYPE s3, ENDPOINT '" + host + "', URL_STYLE 'path', USE_SSL false);\nATTACH 'ducklake:" + url + "/versions/"
	if code != exitOK || !strings.Contains(out, want) {
		t.Fatalf("resolve %s: exit %d, want %q in\n%s\n%s", url, code, want, out, errOut)
	}
}

// TestS3ResolveEndpointFlag: resolve takes the endpoint as plan, backfill
// and check do, by --endpoint (docs/remote.md: "MinIO and other gateways:
// the same with their endpoint, e.g. --endpoint http://minio:9000"), not
// only from $AWS_ENDPOINT_URL_S3; before, resolve --endpoint was an
// unknown flag (exit 2), though its own hint for an endpoint that does not
// answer named --endpoint.
func TestS3ResolveEndpointFlag(t *testing.T) {
	srv, bucket := s3Lake(t)
	t.Setenv("AWS_ENDPOINT_URL_S3", "") // the flag alone names the endpoint
	url := "s3://" + bucket + "/lake"
	out, errOut, code := runAppStderr(t, "resolve", "--duckdb", "1.5.6", "--endpoint", srv.Endpoint, url)
	host := strings.TrimPrefix(srv.Endpoint, "http://")
	want := "CREATE SECRET (TYPE s3, ENDPOINT '" + host + "', URL_STYLE 'path', USE_SSL false);\nATTACH 'ducklake:" + url + "/versions/"
	if code != exitOK || !strings.Contains(out, want) {
		t.Fatalf("resolve --endpoint %s %s: exit %d, want %q in\n%s\n%s", srv.Endpoint, url, code, want, out, errOut)
	}
	// --virtual-hosted is taken too, and named in the reader's secret.
	_, errOut, code = runAppStderr(t, "resolve", "--duckdb", "1.5.6", "--endpoint", srv.Endpoint, "--virtual-hosted", url)
	if strings.Contains(errOut, "unknown flag") {
		t.Fatalf("resolve --virtual-hosted: exit %d, %s", code, errOut)
	}
}

// TestS3SetupErrors: a bucket, credentials or endpoint that do not work
// end the run with one line naming the bucket and the endpoint, a Try:
// line saying what to change, and an exit code a CI job can act on: a
// bucket that does not exist is a REPO that names no repository (6, as a
// missing folder); the runner's credentials or network are its setup (1).
// Before, each printed the SDK's error with its request IDs, and
// versitygw's 404 for an unknown access key read as "no fdl.json" (6).
func TestS3SetupErrors(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	putObject(t, srv.Client(), bucket, "lake/fdl.json", `{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`)
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
	}))
	t.Cleanup(denied.Close)
	// The closed port is taken after the test's last server has started:
	// a listener started after it was closed could get the same port back
	// (denied did, and "nothing listening" read a 403).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() // nothing listens there once closed
	l.Close()

	for _, tc := range []struct {
		name, bucket, endpoint string
		env                    map[string]string
		code                   int
		err, try               string
	}{
		{"missing bucket", "no-such-bucket", srv.Endpoint, nil, exitInvalid,
			"the server has no bucket no-such-bucket (404 NoSuchBucket)",
			"check the bucket's name in s3://BUCKET/PREFIX and the endpoint (" + srv.Endpoint},
		{"wrong secret", bucket, srv.Endpoint, map[string]string{"AWS_SECRET_ACCESS_KEY": "not-the-secret"}, exitFailure,
			"the server rejected the request's signature (403 SignatureDoesNotMatch)",
			"set AWS_SECRET_ACCESS_KEY"},
		{"wrong access key", bucket, srv.Endpoint, map[string]string{"AWS_ACCESS_KEY_ID": "nosuchkey"}, exitFailure,
			"the server does not know the access key ID in use (404 XAdminUserNotFound)",
			"set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) to a key of the service at " + srv.Endpoint},
		{"access denied", bucket, denied.URL, nil, exitFailure,
			"access denied (403 AccessDenied): the credentials may not read it (s3:GetObject)",
			"use credentials allowed s3:ListBucket on bucket " + bucket},
		{"nothing listening", bucket, closed, nil, exitFailure,
			"cannot reach it: connect: connection refused",
			"check the endpoint (--endpoint, $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL)"},
		{"wrong region", bucket, srv.Endpoint, map[string]string{"AWS_REGION": "eu-west-3"}, exitFailure,
			"bucket " + bucket + " is in region " + s3test.Region + ", not eu-west-3",
			"export AWS_REGION=" + s3test.Region},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			url := "s3://" + tc.bucket + "/lake"
			_, errOut, code := runAppStderr(t, "plan", "--endpoint="+tc.endpoint, "--cache="+t.TempDir(), url)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != tc.code || len(lines) != 2 ||
				!strings.HasPrefix(lines[0], "Error: read fdl.json: open "+url+"/fdl.json at "+tc.endpoint+": ") || !strings.Contains(lines[0], tc.err) ||
				strings.Contains(lines[0], "RequestID") || !strings.HasPrefix(lines[1], "Try: "+tc.try) {
				t.Errorf("plan %s at %s: exit %d, want %d, and the lines\nError: read fdl.json: open fdl.json in %s at %s: ...%s...\nTry: %s...\ngot:\n%s", url, tc.endpoint, code, tc.code, url, tc.endpoint, tc.err, tc.try, errOut)
			}
		})
	}
}

// TestS3MissingDataFolderWarned: in a bucket, a data_dir under whose
// prefix there is no object (a misspelt "nodata/") is named by plan's
// warning, asked in one listing of one key; the lake's own data_dir is not.
func TestS3MissingDataFolderWarned(t *testing.T) {
	srv, bucket := s3Lake(t)
	url := "s3://" + bucket + "/lake"
	want := `data_dir "nodata/" in fdl.json: no object under nodata/ in ` + url + " at " + srv.Endpoint
	out, errOut, code := runAppStderr(t, "plan", "--formats=1.0", remoteNow, "--cache="+t.TempDir(), url)
	if code != exitOK || strings.Contains(out, "no object under") {
		t.Fatalf("plan %s: exit %d, want 0 and no warning of a missing data folder:\n%s\n%s", url, code, out, errOut)
	}
	cfg := getObject(t, srv.Client(), bucket, "lake/fdl.json")
	if !strings.Contains(cfg, `"data_dir": "data/"`) {
		t.Fatalf("fdl.json has another data_dir than data/:\n%s", cfg)
	}
	putObject(t, srv.Client(), bucket, "lake/fdl.json", strings.Replace(cfg, `"data_dir": "data/"`, `"data_dir": "nodata/"`, 1))
	out, errOut, code = runAppStderr(t, "plan", "--formats=1.0", remoteNow, "--cache="+t.TempDir(), url)
	if code != exitOK || strings.Count(out, want) != 1 {
		t.Errorf("plan %s with data_dir nodata/: exit %d, want 0 and one line with %q:\n%s\n%s", url, code, want, out, errOut)
	}
}

// TestS3EndpointNotS3: an --endpoint that is a plain web server (its 404
// is text, with no S3 error code) still reads as "no fdl.json" (exit 6,
// as the SDK cannot tell it from an absent key), but the error says the
// 404 was no S3 answer, so the user checks the endpoint, not the bucket.
func TestS3EndpointNotS3(t *testing.T) {
	web := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(web.Close)
	for k, v := range s3test.Env(web.URL) {
		t.Setenv(k, v)
	}
	url := "s3://bucket/lake"
	_, errOut, code := runAppStderr(t, "plan", "--endpoint="+web.URL, "--cache="+t.TempDir(), url)
	want := "no fdl.json in " + url + " at " + web.URL + "; the server's 404 is no S3 error (Content-Type text/plain; charset=utf-8, no S3 error code): is the endpoint of " + url + " at " + web.URL + " an S3 server?"
	if code != exitInvalid || !strings.Contains(errOut, want) {
		t.Errorf("plan %s at a plain web server: exit %d, want %d and %q:\n%s", url, code, exitInvalid, want, errOut)
	}
}
