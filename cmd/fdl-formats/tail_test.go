package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/repo"
)

// TestS3ETagChangedWhileRead: a bucket (behind a gateway or CDN) whose
// ranged GETs of data files give another ETag than their HEADs. DuckDB's
// s3:// reads fail on every such file ("ETag on reading file ... was
// initially ... and now it returned ..."), yet check compared neither and
// passed (exit 0), with the data cache and with --data. It now exits 4
// naming the file and both ETags.
func TestS3ETagChangedWhileRead(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a lake")
	}
	srv := s3test.Start(t)
	root := backfilledLake(t)
	dir := filepath.Join(root, "lake")
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	target, _ := neturl.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var changed, wholeStale atomic.Bool
	proxy.ModifyResponse = func(resp *http.Response) error {
		if changed.Load() && resp.Request.Method == http.MethodGet && resp.Request.Header.Get("Range") != "" && strings.HasSuffix(resp.Request.URL.Path, ".parquet") {
			resp.Header.Set("ETag", `"0000000000000000000000000000000a"`)
		}
		// A replica answering whole downloads from an older copy.
		if wholeStale.Load() && resp.Request.Method == http.MethodGet && resp.Request.Header.Get("Range") == "" && strings.HasSuffix(resp.Request.URL.Path, ".parquet") {
			resp.Header.Set("ETag", `"0000000000000000000000000000000b"`)
		}
		return nil
	}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	url := "s3://" + bucket + "/lake"
	// One published format: its proofs read every data file, which the
	// 0.4 proofs read again.
	one := "--formats=1.1"
	for _, mode := range []struct{ name, flag string }{
		{"data cache", "--cache=" + t.TempDir()},
		{"--data", "--data=" + filepath.Join(dir, "data")},
	} {
		t.Run(mode.name, func(t *testing.T) {
			changed.Store(false)
			if _, errOut, code := checkReport(t, one, "--endpoint="+front.URL, mode.flag, url); code != exitOK {
				t.Fatalf("check: exit %d, want %d\n%s", code, exitOK, errOut)
			}
			changed.Store(true)
			rep, errOut, code := checkReport(t, one, "--endpoint="+front.URL, mode.flag, url)
			if code != exitIncomparable {
				t.Fatalf("check with ETags changed on ranged GETs: exit %d, want %d\n%s", code, exitIncomparable, errOut)
			}
			found := false
			for _, f := range rep.Findings {
				if !found && strings.Contains(f.Detail, `by its HEAD, "0000000000000000000000000000000a" by its ranged GET`) && strings.Contains(f.Detail, ".parquet at "+front.URL+": ETag ") {
					found = true
					t.Logf("%s %s: %s", f.Kind, f.Version, strings.SplitN(f.Detail, "\n", 2)[0])
				}
			}
			if !found {
				t.Errorf("no finding names a data file and both ETags: %+v", rep.Findings)
			}
			if mode.name == "--data" && !slices.ContainsFunc(rep.Findings, func(f repo.Finding) bool {
				return strings.Contains(f.Detail, ", as the store holds it (the --data folder's copy is read in its place): read the end of ")
			}) {
				t.Errorf("no finding lays the fault with the store's answers: %+v", rep.Findings)
			}
		})
	}

	// Whole downloads (GETs without a range) with another ETag than the
	// HEAD and ranged GET: passed (exit 0) before, the download being
	// compared by size and last bytes only.
	t.Run("whole GETs from a stale replica", func(t *testing.T) {
		changed.Store(false)
		wholeStale.Store(true)
		defer wholeStale.Store(false)
		rep, errOut, code := checkReport(t, one, "--endpoint="+front.URL, "--cache="+t.TempDir(), url)
		if code != exitIncomparable {
			t.Fatalf("check: exit %d, want %d\n%s", code, exitIncomparable, errOut)
		}
		found := false
		for _, f := range rep.Findings {
			found = found || strings.Contains(f.Detail, " by its HEAD and ranged GET, 0000000000000000000000000000000b by the GET that downloaded it")
		}
		if !found {
			t.Errorf("no finding names a data file and both ETags: %+v", rep.Findings)
		}
	})
}

// TestS3WrongRegion: a bucket in another region answers 301
// PermanentRedirect; check exited 1 with the SDK's bare error. It now names
// the bucket, the region the server gives, and AWS_REGION to set.
func TestS3WrongRegion(t *testing.T) {
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-amz-bucket-region", "ap-southeast-2")
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusMovedPermanently)
		if r.Method != http.MethodHead {
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message><Bucket>lakes</Bucket></Error>`)
		}
	}))
	t.Cleanup(front.Close)
	for k, v := range s3test.Env(front.URL) {
		t.Setenv(k, v)
	}
	_, errOut, code := runAppStderr(t, "check", remoteNow, "--cache="+t.TempDir(), "s3://lakes/lake")
	t.Logf("exit %d\n%s", code, errOut)
	for _, want := range []string{"bucket lakes is in region ap-southeast-2, not us-east-1", "set AWS_REGION=ap-southeast-2", "Try: export AWS_REGION=ap-southeast-2"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("check of a bucket in another region: exit %d, stderr lacks %q:\n%s", code, want, errOut)
		}
	}
}
