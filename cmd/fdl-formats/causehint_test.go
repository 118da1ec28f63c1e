package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// TestServerCauseHints: a check whose first unverifiable finding (exit 4)
// is the web server's doing, not the file's, says in its Try: line, and in
// check.json's hint, what to change on the server. Each hint said to
// restore a file that is there and whole: a data file the server sends
// encoded (Content-Encoding), a frozen catalog or a data file whose HEAD
// gives another size than its GETs (0, or too few bytes: the ranged read
// of its end then is not the end), a data file the site refuses (403), a
// data file whose download stalls, a data file answered 503 on every
// attempt and a page (a single-page app's fallback) served in place of a
// data file.
func TestServerCauseHints(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a lake")
	}
	root := backfilledLake(t)
	frozen, _ := filepath.Glob(filepath.Join(root, "lake", "versions", "*", "ducklake.duckdb"))
	data, _ := filepath.Glob(filepath.Join(root, "lake", "data", "*", "*", "*.parquet"))
	if len(frozen) == 0 || len(data) == 0 {
		t.Fatalf("lake without frozen catalogs (%d) or data files (%d)", len(frozen), len(data))
	}
	urlPath := func(file string) string {
		return "/" + filepath.ToSlash(strings.TrimPrefix(file, root+string(filepath.Separator)))
	}
	oneData := urlPath(data[0])
	files := func(opts webtest.Options) http.Handler { return webtest.Handler(root, opts) }
	for _, tc := range []struct {
		name  string
		site  http.Handler
		flags []string
		hint  string // what the Try: line says
	}{
		{"data files sent encoded", files(webtest.Options{Encode: "/data/"}), nil,
			"the web server sends files with a Content-Encoding though none was asked for"},
		{"frozen catalog's HEAD gives another size", files(webtest.Options{HeadLengths: map[string]int64{urlPath(frozen[0]): 0}}), nil, headSizeHint},
		{"a data file's HEAD gives 0 bytes", files(webtest.Options{HeadLengths: map[string]int64{oneData: 0}}), nil, headSizeHint},
		{"a data file's HEAD gives 10 bytes", files(webtest.Options{HeadLengths: map[string]int64{oneData: 10}}), nil, headSizeHint},
		{"a data file refused (403)", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == oneData {
				http.Error(w, "members only", http.StatusForbidden)
				return
			}
			files(webtest.Options{}).ServeHTTP(w, r)
		}), nil, "the web site denies 1 file(s) to a reader without credentials (401 or 403; first: "},
		{"a data file's download stalls", webtest.Stall(files(webtest.Options{}), func(r *http.Request) bool {
			return r.Method == http.MethodGet && r.URL.Path == oneData
		}, 10), []string{"--stall-timeout", "300ms"},
			"the server stopped sending a file half-way (no byte for 300ms; first: http://"},
		{"a data file fails with 503", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == oneData {
				http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
				return
			}
			files(webtest.Options{}).ServeHTTP(w, r)
		}), nil, "the server failed to answer for a file (503 Service Unavailable"},
		// A single-page app's fallback: every path the site does not
		// hold, and the data file (missing from the deployment, or
		// rewritten to the page), answered 200 with its index.html.
		{"a page served in place of a data file", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.URL.Path))); err != nil || r.URL.Path == oneData {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				io.WriteString(w, "<!doctype html><html><head><title>App</title></head><body><div id=\"root\"></div></body></html>")
				return
			}
			files(webtest.Options{}).ServeHTTP(w, r)
		}), nil, "the web site answers with an HTML page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.site)
			t.Cleanup(srv.Close)
			assertCauseHint(t, tc.hint, append(append([]string{}, tc.flags...), "check", "--json", remoteNow, causeSelection(tc.name), "--no-cache", srv.URL+"/lake")...)
		})
	}
}

// causeSelection is the versions a cause hint test's check selects: the
// first, whose frozen catalog the "frozen catalog" cases serve otherwise,
// else the last, whose catalog holds every snapshot and so every data file.
// The other versions' proofs, from no cache, added nothing to the finding
// and hint asserted.
func causeSelection(name string) string {
	if strings.HasPrefix(name, "frozen catalog") {
		return "--versions=1"
	}
	return "--versions=3"
}

// assertCauseHint runs args (a check --json) and requires exit 4, a Try:
// line that says hint and not to restore the file, and check.json's hint
// the same as the Try: line.
// headSizeHint begins the hint of a HEAD that disagrees with the GETs.
const headSizeHint = "the server's HEAD gives a file another size (Content-Length) than its GETs deliver"

func assertCauseHint(t *testing.T, hint string, args ...string) {
	t.Helper()
	const restore = "restore the file the first finding names"
	out, errOut, code := runAppStderr(t, args...)
	if code != exitIncomparable {
		t.Fatalf("check: exit %d, want %d\n%s", code, exitIncomparable, errOut)
	}
	var try string
	for _, l := range strings.Split(errOut, "\n") {
		if s, ok := strings.CutPrefix(l, "Try: "); ok {
			try = s
		}
	}
	t.Logf("Try: %s", try)
	if !strings.Contains(try, hint) || strings.Contains(try, restore) {
		t.Errorf("Try: %q\nwant it to say %q, and not %q", try, hint, restore)
	}
	var rep struct {
		Hint     string `json:"hint"`
		ExitCode int    `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check.json: %v\n%s", err, out)
	}
	if rep.Hint != try || rep.ExitCode != exitIncomparable {
		t.Errorf("check.json: hint %q, exit_code %d; want the Try: line %q and %d", rep.Hint, rep.ExitCode, try, exitIncomparable)
	}
}

// TestS3ServerCauseHints: the same hints for a bucket (versitygw behind a
// front proxy): a data file whose HEAD gives another size than its GETs
// (0, or 10 bytes), a frozen catalog's HEAD of 0 bytes, a data file
// whose ranged GET gives another ETag than its HEAD (a gateway or CDN
// answering from another copy), a data file whose download stalls and a
// data file answered 503 (ServiceUnavailable) on every attempt.
func TestS3ServerCauseHints(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a lake")
	}
	srv := s3test.Start(t)
	root := backfilledLake(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, filepath.Join(root, "lake"), bucket, "lake")
	frozen, _ := filepath.Glob(filepath.Join(root, "lake", "versions", "*", "ducklake.duckdb"))
	data, _ := filepath.Glob(filepath.Join(root, "lake", "data", "*", "*", "*.parquet"))
	if len(frozen) == 0 || len(data) == 0 {
		t.Fatalf("lake without frozen catalogs (%d) or data files (%d)", len(frozen), len(data))
	}
	// The URL path of a file in the bucket (path-style requests).
	urlPath := func(file string) string {
		return "/" + bucket + "/" + filepath.ToSlash(strings.TrimPrefix(file, root+string(filepath.Separator)))
	}
	oneData := urlPath(data[0])
	target, _ := neturl.Parse(srv.Endpoint)
	// headLength answers a HEAD of path with n bytes as its Content-Length.
	headLength := func(path string, n int64) http.Handler {
		p := httputil.NewSingleHostReverseProxy(target)
		p.ModifyResponse = func(resp *http.Response) error {
			if resp.Request.Method == http.MethodHead && resp.Request.URL.Path == path {
				resp.ContentLength = n
				resp.Header.Set("Content-Length", strconv.FormatInt(n, 10))
			}
			return nil
		}
		return p
	}
	// etagOnRanges answers ranged GETs of path with another ETag than
	// its HEAD (a gateway or CDN answering from another copy).
	etagOnRanges := func(path string) http.Handler {
		p := httputil.NewSingleHostReverseProxy(target)
		p.ModifyResponse = func(resp *http.Response) error {
			if resp.Request.Method == http.MethodGet && resp.Request.Header.Get("Range") != "" && resp.Request.URL.Path == path {
				resp.Header.Set("ETag", `"0000000000000000000000000000000a"`)
			}
			return nil
		}
		return p
	}
	for _, tc := range []struct {
		name  string
		front http.Handler
		flags []string
		hint  string
	}{
		{"frozen catalog's HEAD gives 0 bytes", headLength(urlPath(frozen[0]), 0), nil, headSizeHint},
		{"a data file's HEAD gives 0 bytes", headLength(oneData, 0), nil, headSizeHint},
		{"a data file's HEAD gives 10 bytes", headLength(oneData, 10), nil, headSizeHint},
		{"a data file's ranged GET gives another ETag", etagOnRanges(oneData), nil,
			"the server answers a file's requests from different copies, or the file changed while read"},
		{"a data file fails with 503", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == oneData {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code><Message>Please reduce your request rate.</Message></Error>`)
				return
			}
			httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
		}), nil, "the server failed to answer for a file (503 Service Unavailable"},
		{"a data file's download stalls", webtest.Stall(httputil.NewSingleHostReverseProxy(target), func(r *http.Request) bool {
			return r.Method == http.MethodGet && r.URL.Path == oneData
		}, 10), []string{"--stall-timeout", "300ms"},
			"the server stopped sending a file half-way (no byte for 300ms; first: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			front := httptest.NewServer(tc.front)
			t.Cleanup(front.Close)
			assertCauseHint(t, tc.hint, append(append([]string{}, tc.flags...), "check", "--json", remoteNow, causeSelection(tc.name), "--no-cache", "--endpoint="+front.URL, "s3://"+bucket+"/lake")...)
		})
	}
}
