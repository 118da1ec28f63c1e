package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
)

// TestS3ResolveLinesNameObject: resolve's error lines on a bucket or a web
// site name each catalog where it is (its s3:// URL at the endpoint, its
// URL), the catalog that cannot be used and the cause alike, as check's
// findings name a data file; a folder's keys stay as they are, REPO
// locating them. They said versions/<id>/..., a key inside a store the
// reader had to put together with the repository's URL and endpoint.
func TestS3ResolveLinesNameObject(t *testing.T) {
	lake := copyRepo(t, "lakes", "06_deletes")
	ids, err := os.ReadDir(filepath.Join(lake, "versions"))
	if err != nil || len(ids) == 0 {
		t.Fatal(ids, err)
	}
	latest := ids[len(ids)-1].Name()
	bad, frozen := "versions/"+latest+"/catalogs/0.4.duckdb", "versions/"+latest+"/ducklake.duckdb"
	if err := os.MkdirAll(filepath.Join(lake, "versions", latest, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lake, filepath.FromSlash(bad)), []byte("not a catalog"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, lake, bucket, "lake")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	root := t.TempDir()
	if err := os.Rename(lake, filepath.Join(root, "lake")); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer web.Close()
	s3URL, webURL := "s3://"+bucket+"/lake", web.URL+"/lake"

	for _, tc := range []struct {
		args []string
		name func(key string) string
	}{
		{[]string{"--endpoint=" + srv.Endpoint, s3URL}, func(key string) string { return s3URL + "/" + key + " at " + srv.Endpoint }},
		{[]string{webURL}, func(key string) string { return webURL + "/" + key }},
		{[]string{filepath.Join(root, "lake")}, func(key string) string { return key }},
	} {
		_, errOut, code := runAppStderr(t, append([]string{"resolve", "--duckdb=1.5.1"}, tc.args...)...)
		lines := strings.Join(strings.Split(errOut, "\nTry: ")[:1], "")
		for _, want := range []string{
			"\n  " + tc.name(frozen) + " (format 1.0, storage v1.5.0): DuckDB >= 1.5.2",
			"\n  " + tc.name(bad) + " (format 0.4) cannot be used: read the header of " + tc.name(bad) + ": not a DuckDB database file",
		} {
			if code != exitNoCatalog || !strings.Contains(lines, want) {
				t.Errorf("resolve %v: exit %d, want %d and the line %q\n%s", tc.args, code, exitNoCatalog, want, errOut)
			}
		}
	}
}

// TestS3RestoreParentNamesObject: the warning of a seq not checked against
// a first parent marked expired whose version.json is gone says to restore
// that version.json where it is: its s3:// URL at the endpoint in a bucket
// (it said versions/<id>/version.json, a key inside the bucket).
func TestS3RestoreParentNamesObject(t *testing.T) {
	lake := copyRepo(t, "lakes", "06_deletes")
	ids, err := os.ReadDir(filepath.Join(lake, "versions"))
	if err != nil || len(ids) < 2 {
		t.Fatal(ids, err)
	}
	first := ids[0].Name()
	dir := filepath.Join(lake, "versions", first)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "expired.json"), []byte(`{"reason": "expired"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, lake, bucket, "lake")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	url := "s3://" + bucket + "/lake"
	out, errOut, code := runAppStderr(t, "plan", "--endpoint="+srv.Endpoint, remoteNow, url)
	want := "restore " + url + "/versions/" + first + "/version.json at " + srv.Endpoint + ", or, if the version was withdrawn"
	if code != exitOK || !strings.Contains(out+errOut, want) {
		t.Errorf("plan %s: exit %d, want %d and %q\n%s\n%s", url, code, exitOK, want, out, errOut)
	}
}
