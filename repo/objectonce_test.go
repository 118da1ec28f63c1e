package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestStoreErrorsNameObjectOnce: a catalog a bucket or web site lacks, or
// refuses (S3's AccessDenied, a site's 403), is named exactly once where it
// is (its s3:// URL at the endpoint, its URL) in the error of resolve's
// header read (readHeader), of resolve --verify's copy (copyObject, which
// verifyFile gives as it is) and of DuckDB 1.3's ranged read of its end
// (rangesRead), with the store's cause kept. They named it two or three
// times: "read the header of s3://b/lake/KEY at EP: open KEY: file does
// not exist". A folder's messages are as they were.
func TestStoreErrorsNameObjectOnce(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	lake := filepath.Join(root, "lake")
	if err := os.MkdirAll(lake, 0o755); err != nil {
		t.Fatal(err)
	}
	const missing, denied = "missing.duckdb", "denied.duckdb"
	if err := os.WriteFile(filepath.Join(lake, denied), []byte("not a catalog"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A version whose version.json is refused and whose files.json is
	// missing: probeVersion's stat and readRef's read of them.
	const vid = "01a18fe9-3745-7242-83ff-4805b982203e"
	vdir := filepath.Join(lake, "versions", vid)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vdir, "version.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	deniedVersion := "versions/" + vid + "/version.json"
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, lake, bucket, "lake")
	t.Setenv("AWS_CA_BUNDLE", "")
	bucketStore, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: srv.Endpoint, HTTPClient: &http.Client{Transport: &breakAt{base: http.DefaultTransport,
		trip: func(*http.Request) bool { return true }, broken: func(req *http.Request) (*http.Request, *http.Response, error) {
			if strings.HasSuffix(req.URL.Path, "/"+deniedVersion) {
				return denyKey("version.json")(req)
			}
			return denyKey(denied)(req)
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir(root))
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/"+denied) || strings.HasSuffix(r.URL.Path, "/"+deniedVersion) {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer web.Close()
	site, err := httpstore.New(web.URL+"/lake/", web.Client())
	if err != nil {
		t.Fatal(err)
	}
	dv := goversion.Must(goversion.NewVersion("1.3.2"))

	for _, tc := range []struct {
		name         string
		st           store.Store
		where        func(key string) string
		absent, deny string // the store's causes
	}{
		{"bucket", bucketStore, func(key string) string { return "s3://" + bucket + "/lake/" + key + " at " + srv.Endpoint }, "file does not exist", "access denied (403 AccessDenied)"},
		{"web site", site, func(key string) string { return web.URL + "/lake/" + key }, "404 Not Found: file does not exist", "403 Forbidden"},
	} {
		for _, key := range []string{missing, denied} {
			cause := tc.absent
			if key == denied {
				cause = tc.deny
			}
			name := tc.where(key)
			_, herr := readHeader(ctx, tc.st, key)
			_, _, _, cerr := copyObject(ctx, &repository{st: tc.st}, key, t.TempDir())
			_, rerr := rangesRead(ctx, tc.st, key, dv)
			for op, err := range map[string]error{"readHeader": herr, "copyObject": cerr, "rangesRead": rerr} {
				if err == nil {
					t.Errorf("%s: %s of %s: no error", tc.name, op, key)
					continue
				}
				msg := err.Error()
				if strings.Count(msg, key) != 1 || !strings.Contains(msg, name+": ") || !strings.Contains(msg, cause) {
					t.Errorf("%s: %s of %s: %q, want %s named once and the cause %q", tc.name, op, key, msg, name, cause)
				}
			}
		}
		// A version's files: the stat of its refused version.json
		// (probeVersion), the read of its missing files.json (readRef),
		// named once where they are. They said "stat KEY: stat NAME:
		// ...", "read KEY: open NAME: ...".
		r := &repository{st: tc.st}
		_, err := r.probeVersion(ctx, vid)
		if msg := fmt.Sprint(err); err == nil || strings.Count(msg, "version.json") != 1 || !strings.Contains(msg, tc.where(deniedVersion)+": ") || !strings.Contains(msg, tc.deny) {
			t.Errorf("%s: probeVersion: %q, want %s named once and the cause %q", tc.name, msg, tc.where(deniedVersion), tc.deny)
		}
		_, _, err = r.readRef(ctx, &version{id: vid}, &fdljson.FileRef{Path: "files.json"})
		if msg := fmt.Sprint(err); err == nil || strings.Count(msg, "files.json") != 1 || !strings.Contains(msg, tc.where("versions/"+vid+"/files.json")+": ") || !strings.Contains(msg, tc.absent) {
			t.Errorf("%s: readRef: %q, want %s named once and the cause %q", tc.name, msg, tc.where("versions/"+vid+"/files.json"), tc.absent)
		}
	}

	// A site's HEAD and GET disagreeing on a file's size, the GET failing
	// (sizeProblem): the file named once, where it is (its URL), the GET's
	// cause kept. It named it by its key, then by its URL in the GET's
	// error; then by its key alone.
	want := web.URL + "/lake/" + denied + ": 13 bytes by the server's HEAD (Content-Length), version.json says 12, and the GET that would tell a wrong size from a wrong file failed: the server answers 403 Forbidden: the site requires authentication or denies access to it"
	if _, err := sizeProblem(ctx, site, denied, 13, 12); err == nil || err.Error() != want || !errors.Is(err, store.ErrAccessDenied) {
		t.Errorf("web site: sizeProblem:\n got %v\nwant %s (and ErrAccessDenied)", err, want)
	}
	// A folder's messages, as they were: the store's key beside the os
	// error's path.
	folder, err := local.New(lake)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(lake, missing)
	if _, err := readHeader(ctx, folder, missing); err == nil || err.Error() != "open "+missing+": open "+path+": no such file or directory" {
		t.Errorf("folder: readHeader: %v", err)
	}
	if _, _, _, err := copyObject(ctx, &repository{st: folder}, missing, t.TempDir()); err == nil || err.Error() != "stat "+missing+": stat "+path+": no such file or directory" {
		t.Errorf("folder: copyObject: %v", err)
	}
}
