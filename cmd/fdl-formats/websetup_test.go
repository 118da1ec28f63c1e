package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// TestWebSetupErrors: a web repository the run cannot read at all (a host
// that does not answer or resolve, a certificate this machine refuses, a
// site behind authentication, redirects that loop, a URL that points at a
// site, not a repository) ends the run with one line naming fdl.json and
// the URL, a Try: line saying what to change, and an exit code a CI job
// can act on: a URL that names no repository is 6, as a missing folder;
// the runner's network or trust store and the site's setup are 1. Before,
// each printed Go's error (`Get "…": dial tcp …: connect: connection
// refused`, `tls: failed to verify certificate: …`, `stopped after 10
// redirects`) without a hint, and a page for fdl.json said "no fdl.json".
func TestWebSetupErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() // nothing listens there once closed
	l.Close()

	lake := filepath.Join(t.TempDir(), "site")
	if err := os.MkdirAll(filepath.Join(lake, "lake"), 0o755); err != nil {
		t.Fatal(err)
	}
	fdl := `{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`
	if err := os.WriteFile(filepath.Join(lake, "lake", "fdl.json"), []byte(fdl), 0o644); err != nil {
		t.Fatal(err)
	}
	site := webtest.Handler(lake, webtest.Options{})
	tlsSrv := webtest.ServeTLS(t, site) // its certificate: no authority this machine trusts
	expired := webtest.ServeExpiredTLS(t, site)
	plain := webtest.Serve(t, lake, webtest.Options{})
	gzipped := webtest.Serve(t, lake, webtest.Options{Encode: "/"}) // nginx gzip_static always
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Basic realm="lake"`)
			http.Error(w, http.StatusText(code), code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// http -> https -> http, as a proxy and a server that disagree
		// about the scheme do, here between two paths.
		if strings.HasPrefix(r.URL.Path, "/a/") {
			http.Redirect(w, r, "/b/"+strings.TrimPrefix(r.URL.Path, "/a/"), http.StatusMovedPermanently)
			return
		}
		http.Redirect(w, r, "/a/"+strings.TrimPrefix(r.URL.Path, "/b/"), http.StatusMovedPermanently)
	}))
	t.Cleanup(loop.Close)
	spa := func(contentType string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			io.WriteString(w, "<!doctype html>\n<html><head><title>Data portal</title></head><body><div id=\"app\"></div><script src=\"/app.js\"></script></body></html>\n")
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}

	const invalidHost = "fdl-formats-test.invalid" // RFC 6761: never resolves
	for _, tc := range []struct {
		name, url string
		code      int
		err, try  string
	}{
		{"connection refused", closed + "/lake", exitFailure,
			"cannot reach " + strings.TrimPrefix(closed, "http://") + ": connect: connection refused",
			"check the host and port in the URL, that the web server runs"},
		{"unknown host", "https://" + invalidHost + "/lake", exitFailure,
			"cannot resolve the host name: lookup " + invalidHost,
			"check the host name in the URL"},
		{"certificate of an unknown authority", tlsSrv.URL + "/lake", exitFailure,
			"the site's TLS certificate is signed by an authority this machine does not trust (x509: certificate signed by unknown authority)",
			"for a site with a private CA, add the CA to this machine's trusted certificates or point $SSL_CERT_FILE"},
		{"expired certificate", expired + "/lake", exitFailure,
			"the site's TLS certificate is not valid now (x509: certificate has expired or is not yet valid",
			"the site must renew its certificate; check this machine's clock too"},
		{"certificate for another host", strings.Replace(tlsSrv.URL, "127.0.0.1", "localhost", 1) + "/lake", exitFailure,
			"the site's TLS certificate is not for localhost (x509: certificate is valid for",
			"use the host name the certificate names in the URL"},
		{"401", status(http.StatusUnauthorized) + "/lake", exitFailure,
			"the server answers 401 Unauthorized: the site requires authentication or denies access to it",
			"fdl-formats reads public web sites only"},
		{"403", status(http.StatusForbidden) + "/lake", exitFailure,
			"the server answers 403 Forbidden: the site requires authentication or denies access to it",
			"fdl-formats reads public web sites only"},
		{"redirect loop", loop.URL + "/a/lake", exitFailure,
			"redirect loop: " + loop.URL + "/a/lake/fdl.json -> " + loop.URL + "/b/lake/fdl.json -> " + loop.URL + "/a/lake/fdl.json",
			"fix the server's redirects"},
		{"fdl.json sent gzip-encoded, unasked", gzipped + "/lake", exitFailure,
			`the server sends the file with Content-Encoding "gzip" though none was asked for (to a GET): readers get the encoded bytes, not the file`,
			"serve the repository's files as stored, without Content-Encoding"},
		{"404: the URL names no repository", plain + "/elsewhere", exitInvalid,
			"",
			"give the folder that holds fdl.json"},
		{"an HTML page for fdl.json", spa("text/html; charset=utf-8") + "/lake", exitInvalid,
			"is not JSON (the site answers every path with a page?)",
			"give the folder that holds fdl.json"},
		{"an HTML page for fdl.json, typed as text", spa("text/plain") + "/lake", exitInvalid,
			"is not JSON (the site answers every path with a page?)",
			"give the folder that holds fdl.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.url, invalidHost) {
				// No network needed: the resolver answers NXDOMAIN for
				// .invalid at once. One that cannot answer (no resolver
				// reachable) must not make the test wait.
				ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
				defer cancel()
				_, err := net.DefaultResolver.LookupHost(ctx, invalidHost)
				var dns *net.DNSError
				if !errors.As(err, &dns) || !dns.IsNotFound {
					t.Skipf("this machine's resolver does not answer %s with 'no such host' within 3s (%v): the case needs one that does", invalidHost, err)
				}
			}
			start := time.Now()
			_, errOut, code := runAppStderr(t, "plan", "--cache="+t.TempDir(), tc.url)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			prefix := "Error: read fdl.json: open " + tc.url + "/fdl.json: "
			if tc.code == exitInvalid {
				prefix = "Error: not an FDL repository: "
			}
			if code != tc.code || len(lines) != 2 || !strings.HasPrefix(lines[0], prefix) || !strings.Contains(lines[0], tc.err) ||
				strings.Contains(lines[0], `Get "`) || !strings.HasPrefix(lines[1], "Try: "+tc.try) {
				t.Errorf("plan %s: exit %d, want %d, and the lines\n%s...%s...\nTry: %s...\ngot:\n%s", tc.url, code, tc.code, prefix, tc.err, tc.try, errOut)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("plan %s took %s: a setup error is not retried", tc.url, d)
			}
		})
	}
}
