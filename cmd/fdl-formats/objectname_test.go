package main

import (
	"encoding/json"
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
// reader had to put together with the repository's URL and endpoint. So
// do the Try: line's hint and --json's reasons (resolve's lines were
// renamed by rewriting the key in their text; --json and the hint kept
// it), --verify's too.
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
	// A 1.0 catalog under 1.1's name: --verify passes it over. Format
	// 1.0 promised up to DuckDB 2.0: 2.0.0 is warned it opens the frozen
	// catalog all the same.
	misnamed := "versions/" + latest + "/catalogs/1.1.duckdb"
	cfg, err := os.ReadFile(filepath.Join(lake, "fdl.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lake, "fdl.json"), []byte(strings.Replace(string(cfg), `"duckdb": ">= 1.5.2"`, `"duckdb": ">= 1.5.2, < 2.0.0"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(lake, filepath.FromSlash(frozen)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lake, filepath.FromSlash(misnamed)), body, 0o644); err != nil {
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
		lines, try, _ := strings.Cut(errOut, "\nTry: ")
		for _, want := range []string{
			"\n  " + tc.name(frozen) + " (format 1.0, storage v1.5.0): DuckDB >= 1.5.2",
			"\n  " + tc.name(bad) + " (format 0.4) cannot be used: read the header of " + tc.name(bad) + ": not a DuckDB database file",
		} {
			if code != exitNoCatalog || !strings.Contains(lines, want) {
				t.Errorf("resolve %v: exit %d, want %d and the line %q\n%s", tc.args, code, exitNoCatalog, want, errOut)
			}
		}
		// The Try: line's hint begins with the catalog, named as the
		// lines name it (it said the key before the removable name).
		if want := tc.name(bad) + ", in format 0.4, which DuckDB 1.5.1 reads, cannot be used (above): the publisher deletes "; !strings.HasPrefix(try, want) {
			t.Errorf("resolve %v: the Try: line %q, want it to begin %q", tc.args, try, want)
		}
		// --json's reason, the cause as the source gave it: named so too
		// (only the text lines were renamed, by rewriting the key).
		out, errOut, code := runAppStderr(t, append([]string{"resolve", "--json", "--duckdb=1.5.1"}, tc.args...)...)
		var res struct {
			Files    []struct{ Key, Reason string }
			Warnings []string
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitNoCatalog {
			t.Fatalf("resolve --json %v: exit %d, %v\n%s\n%s", tc.args, code, err, out, errOut)
		}
		for _, f := range res.Files {
			if want := "read the header of " + tc.name(bad) + ": not a DuckDB database file"; f.Key == bad && f.Reason != want {
				t.Errorf("resolve --json %v: %s's reason %q, want %q", tc.args, bad, f.Reason, want)
			}
		}
		// --verify's reason for a file it passes over, so too.
		out, errOut, code = runAppStderr(t, append([]string{"resolve", "--json", "--verify", "--duckdb=2.0.0"}, tc.args...)...)
		res.Files = nil
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK {
			t.Fatalf("resolve --json --verify %v: exit %d, %v\n%s\n%s", tc.args, code, err, out, errOut)
		}
		for _, f := range res.Files {
			if want := tc.name(misnamed) + " holds DuckLake format 1.0 "; f.Key == misnamed && !strings.HasPrefix(f.Reason, want) {
				t.Errorf("resolve --json --verify %v: %s's reason %q, want it to begin %q", tc.args, misnamed, f.Reason, want)
			}
		}
		// DuckDB 2.0.0, outside fdl.json's range for 1.0 (above), is
		// warned that it opens the frozen catalog all the same: named so
		// too.
		if want := "it opens " + tc.name(frozen) + " all the same"; len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], want) {
			t.Errorf("resolve --json --verify %v: warnings %q, want one saying %q", tc.args, res.Warnings, want)
		}
	}
}

// TestS3ResolveInvalidVersionNamesObject: resolve of a version whose
// version.json is invalid (exit 6) names the file where it is on a bucket
// (its s3:// URL at the endpoint) or web site (its URL); a folder's key
// stays as it is, and the Try: line names it as the error does. They
// said versions/<id>/version.json, a key inside the store.
func TestS3ResolveInvalidVersionNamesObject(t *testing.T) {
	lake := copyRepo(t, "lakes", "06_deletes")
	ids, err := os.ReadDir(filepath.Join(lake, "versions"))
	if err != nil || len(ids) == 0 {
		t.Fatal(ids, err)
	}
	latest := ids[len(ids)-1].Name()
	key := "versions/" + latest + "/version.json"
	if err := os.WriteFile(filepath.Join(lake, filepath.FromSlash(key)), []byte("{not json"), 0o644); err != nil {
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
		name string
	}{
		{[]string{"--endpoint=" + srv.Endpoint, s3URL}, s3URL + "/" + key + " at " + srv.Endpoint},
		{[]string{webURL}, webURL + "/" + key},
		{[]string{filepath.Join(root, "lake")}, key},
	} {
		_, errOut, code := runAppStderr(t, append([]string{"resolve", "--duckdb=1.5.2", "--version=" + latest}, tc.args...)...)
		for _, want := range []string{"Error: repository has invalid versions: " + tc.name + ": ", "\nTry: fix " + tc.name + " (see"} {
			if code != exitInvalid || !strings.Contains(errOut, want) {
				t.Errorf("resolve %v: exit %d, want %d and %q\n%s", tc.args, code, exitInvalid, want, errOut)
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
