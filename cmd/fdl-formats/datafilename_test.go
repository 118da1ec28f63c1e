package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// TestS3MissingDataFileNamed: a data file a bucket or a web site does not
// serve is named, in check's first finding (which its Try: line says to
// restore), where it is: its s3:// URL at the run's endpoint, or its URL.
// It said data/main/del/ducklake-….parquet, a key the user had to put
// together with the repository's URL and endpoint (a folder's check names
// its path).
func TestS3MissingDataFileNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a lake")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "lake")
	if err := os.Rename(copyRepo(t, "lakes", "06_deletes"), dir); err != nil {
		t.Fatal(err)
	}
	data := dataFiles(t, dir)[0]
	if err := os.Remove(data); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, data)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.ToSlash(rel)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	s3URL := "s3://" + bucket + "/lake"
	web := webtest.Serve(t, root, webtest.Options{}) + "/lake"
	for _, tc := range []struct{ args []string }{
		{[]string{"--endpoint=" + srv.Endpoint, s3URL, s3URL + "/" + key + " at " + srv.Endpoint}},
		{[]string{web, web + "/" + key}},
	} {
		args, name := tc.args[:len(tc.args)-1], tc.args[len(tc.args)-1]
		_, errOut, code := runAppStderr(t, append([]string{"check", remoteNow, "--formats=1.0", "--cache=" + t.TempDir()}, args...)...)
		first, _, _ := strings.Cut(errOut, "\nTry: ")
		if code != exitIncomparable || !strings.Contains(first, "data file: ") || strings.Count(first, name) != 1 {
			t.Errorf("check %v: exit %d, want %d and the first finding naming data file %s\n%s", args, code, exitIncomparable, name, errOut)
		}
	}
}
