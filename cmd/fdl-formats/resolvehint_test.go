package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
)

// TestS3ResolveHintRuns: resolve's Try: line for a version with no
// catalog the reader's DuckDB opens names the publisher's commands with
// the run's repository and endpoint, and the file to delete where it is;
// copied, the backfill runs against the same bucket and mends it. It said
// `fdl-formats backfill` alone (run where? with which endpoint?) and "the
// publisher deletes it", the key relative to a repository the reader of
// an s3:// URL does not hold. On a web site it says backfill runs where
// the site is published from (`fdl-formats backfill URL` is refused).
func TestS3ResolveHintRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("backfills a lake")
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	lake := copyRepo(t, "lakes", "06_deletes")
	srv.Upload(t, lake, bucket, "lake")
	// The latest version with a 0.4 catalog whose header does not read.
	ids, err := os.ReadDir(filepath.Join(lake, "versions"))
	if err != nil || len(ids) == 0 {
		t.Fatal(ids, err)
	}
	latest := ids[len(ids)-1].Name()
	bad := "versions/" + latest + "/catalogs/0.4.duckdb"
	if err := os.MkdirAll(filepath.Join(lake, "versions", latest, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lake, filepath.FromSlash(bad)), []byte("not a catalog"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Upload(t, lake, bucket, "broken")
	t.Setenv("AWS_ENDPOINT_URL_S3", "") // --endpoint alone names it
	ep := "--endpoint=" + srv.Endpoint
	try := regexp.MustCompile("\nTry: .*")

	// A declared format the version lacks: the publisher's backfill.
	url := "s3://" + bucket + "/lake"
	_, errOut, code := runAppStderr(t, "resolve", "--duckdb=1.5.1", ep, url)
	want := "the publisher runs `fdl-formats backfill " + ep + " " + url + "` (`fdl-formats plan " + ep + " " + url + "` says if it is refused)"
	if code != exitNoCatalog || !strings.Contains(errOut, want) {
		t.Fatalf("resolve --duckdb 1.5.1 %s: exit %d, want %d and %q in\n%s", url, code, exitNoCatalog, want, errOut)
	}
	args := strings.Fields(regexp.MustCompile("`fdl-formats (backfill [^`]*)`").FindStringSubmatch(try.FindString(errOut))[1])
	if _, errOut, code := runAppStderr(t, args...); code != exitOK {
		t.Fatalf("the Try: line's %v: exit %d\n%s", args, code, errOut)
	}
	if out, errOut, code := runAppStderr(t, "resolve", "--duckdb=1.5.1", ep, url); code != exitOK || !strings.Contains(out, "catalogs/0.4.duckdb") {
		t.Errorf("resolve after the Try: line's backfill: exit %d\n%s\n%s", code, out, errOut)
	}

	// A published catalog that cannot be used: deleted where it is.
	url = "s3://" + bucket + "/broken"
	_, errOut, code = runAppStderr(t, "resolve", "--duckdb=1.5.1", ep, url)
	want = "the publisher deletes " + url + "/" + bad + " at " + srv.Endpoint + " and runs `fdl-formats backfill " + ep + " " + url + "`, which writes it again (`fdl-formats check " + ep + " " + url + "` reports it)"
	if code != exitNoCatalog || !strings.Contains(try.FindString(errOut), want) {
		t.Errorf("resolve --duckdb 1.5.1 %s: exit %d, want %d and %q in its Try: line\n%s", url, code, exitNoCatalog, want, errOut)
	}

	// A web site: backfill runs where the site is published from.
	root := t.TempDir()
	if err := os.Rename(lake, filepath.Join(root, "lake")); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer web.Close()
	url = web.URL + "/lake"
	_, errOut, code = runAppStderr(t, "resolve", "--duckdb=1.5.1", url)
	want = "the publisher deletes " + bad + " where the site is published from (the folder or s3:// bucket it serves; the site's " + url + "/" + bad + ") and runs `fdl-formats backfill` there, which writes it again (`fdl-formats check " + url + "` reports it)"
	if code != exitNoCatalog || !strings.Contains(try.FindString(errOut), want) || strings.Contains(errOut, "`fdl-formats backfill http") {
		t.Errorf("resolve --duckdb 1.5.1 %s: exit %d, want %d and %q in its Try: line, no backfill of the site\n%s", url, code, exitNoCatalog, want, errOut)
	}
	if err := os.Remove(filepath.Join(root, "lake", filepath.FromSlash(bad))); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runAppStderr(t, "resolve", "--duckdb=1.5.1", url)
	want = "the publisher runs `fdl-formats backfill` on the folder or s3:// bucket the site serves (`fdl-formats plan " + url + "` says if it is refused)"
	if code != exitNoCatalog || !strings.Contains(try.FindString(errOut), want) {
		t.Errorf("resolve --duckdb 1.5.1 %s: exit %d, want %d and %q in its Try: line\n%s", url, code, exitNoCatalog, want, errOut)
	}
}
