package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tamperCatalog replaces a published catalog of the local repository dir
// with another version's frozen catalog (a valid catalog with other rows)
// and returns its key.
func tamperCatalog(t *testing.T, dir string) string {
	t.Helper()
	cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "catalogs", "*.duckdb"))
	if len(cats) == 0 {
		t.Fatal("no published catalog")
	}
	own := filepath.Dir(filepath.Dir(cats[0]))
	frozen, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
	for _, f := range frozen {
		if filepath.Dir(f) == own {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cats[0], data, 0o644); err != nil {
			t.Fatal(err)
		}
		key, _ := filepath.Rel(dir, cats[0])
		return filepath.ToSlash(key)
	}
	t.Fatal("no other version's frozen catalog")
	return ""
}

// TestCheckHintNamesObject: check's Try: line after a published catalog
// that differs names it as the user can remove it: a local repository's
// file by its path (it said "remove versions/<id>/catalogs/X.duckdb",
// relative to a repository the user need not be in), and on a web site
// where it is removed and backfilled (not through the site). (For a
// bucket, s3://BUCKET/PREFIX/KEY at its endpoint: TestS3Repository.)
func TestCheckHintNamesObject(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "lake")
	if err := os.Rename(copyRepo(t, "lakes", "06_deletes"), dir); err != nil {
		t.Fatal(err)
	}
	cache := "--cache=" + t.TempDir()
	if _, errOut, code := runApp(t, "backfill", remoteNow, cache, dir); code != exitOK {
		t.Fatalf("backfill: exit %d\n%s", code, errOut)
	}
	key := tamperCatalog(t, dir)

	_, errOut, code := runAppStderr(t, "check", remoteNow, cache, dir)
	if want := "remove " + filepath.Join(dir, filepath.FromSlash(key)) + " and run `fdl-formats backfill "; code != exitDifferent || !strings.Contains(errOut, "\nTry: ") || !strings.Contains(errOut[strings.Index(errOut, "\nTry: "):], want) {
		t.Errorf("check of a local repository with %s tampered: exit %d, want %d and a Try: line with %q\n%s", key, code, exitDifferent, want, errOut)
	}

	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	url := srv.URL + "/lake"
	_, errOut, code = runAppStderr(t, "check", remoteNow, cache, url)
	if want := "remove " + key + " where the site is published from (the folder or s3:// bucket it serves; the site's " + url + "/" + key + ") and run `fdl-formats backfill` there"; code != exitDifferent || !strings.Contains(errOut, want) {
		t.Errorf("check of a web site with %s tampered: exit %d, want %d and a Try: line with %q\n%s", key, code, exitDifferent, want, errOut)
	}
}
