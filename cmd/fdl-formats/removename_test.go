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

// TestS3RemoveNamesObject: a catalog plan tells to remove (here one
// written for a version created after its format's until) is named where
// it can be removed: its s3:// URL at the run's endpoint in a bucket, on
// a web site its key where the site is published from and its URL on the
// site (as check's and resolve's hints say it: TestCheckHintNamesObject,
// TestS3ResolveHintRuns), its path in a folder. It said
// versions/<id>/catalogs/0.3.duckdb, relative to a repository the user of
// an s3:// URL holds no folder of.
func TestS3RemoveNamesObject(t *testing.T) {
	lake := copyRepo(t, "lakes", "06_deletes") // 0.3 until 2026-06-30, versions of 2026-10-31
	ids, err := os.ReadDir(filepath.Join(lake, "versions"))
	if err != nil || len(ids) == 0 {
		t.Fatal(ids, err)
	}
	key := "versions/" + ids[0].Name() + "/catalogs/0.3.duckdb"
	if err := os.MkdirAll(filepath.Join(lake, "versions", ids[0].Name(), "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lake, filepath.FromSlash(key)), []byte("not a catalog"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, lake, bucket, "lake")
	root := t.TempDir()
	if err := os.Rename(lake, filepath.Join(root, "lake")); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer web.Close()
	s3URL, webURL, dir := "s3://"+bucket+"/lake", web.URL+"/lake", filepath.Join(root, "lake")

	for _, tc := range []struct{ repo, name string }{
		{s3URL, s3URL + "/" + key + " at " + srv.Endpoint},
		{webURL, key + " where the site is published from (the folder or s3:// bucket it serves; the site's " + webURL + "/" + key + ")"},
		{dir, filepath.Join(dir, filepath.FromSlash(key))},
	} {
		out, errOut, code := runAppStderr(t, "plan", remoteNow, "--formats=0.3", tc.repo)
		want := "(a format past its until is not written for newer versions): remove " + tc.name + ", or, if until is too early"
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("plan %s: exit %d, want %d and %q in\n%s\n%s", tc.repo, code, exitOK, want, out, errOut)
		}
	}
}
