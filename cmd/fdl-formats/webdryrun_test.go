package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/repo"
)

// TestWebDryRun: backfill --dry-run of a web site plans and reports, as
// the library allows (a dry run writes nothing), and says that a real
// backfill runs where the site is written; a real backfill is refused,
// and check's Try: line says where backfill runs.
// The CLI refused the dry run as it refuses a backfill (exit 2,
// "store is read-only").
func TestWebDryRun(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.Rename(copyRepo(t, "lakes", "06_deletes"), filepath.Join(root, "lake")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	url := srv.URL + "/lake"
	cache := "--cache=" + t.TempDir()

	out, errOut, code := runApp(t, "backfill", "--dry-run", remoteNow, cache, url)
	if code != exitOK || !strings.Contains(out, "planned ") || !strings.Contains(out, "note: "+url+" is a web site, which is read-only: a real backfill runs on the folder or s3:// bucket the site serves") {
		t.Fatalf("backfill --dry-run %s: exit %d, want %d with the planned cells and the site's note\nstdout %s\nstderr %s", url, code, exitOK, out, errOut)
	}
	rep, errOut, code := backfillJSON(t, "--dry-run", cache, url)
	if code != exitOK || !rep.DryRun || rep.Counts[repo.Planned] == 0 || rep.Counts[repo.Planned] != len(rep.Results) {
		t.Errorf("backfill --dry-run --json %s: exit %d, dry_run %v, counts %v, %d results\n%s", url, code, rep.DryRun, rep.Counts, len(rep.Results), errOut)
	}
	// Nothing was written (the site's folder is the test's).
	if cats, _ := filepath.Glob(filepath.Join(root, "lake", "versions", "*", "catalogs", "*")); len(cats) != 0 {
		t.Errorf("a dry run wrote %q", cats)
	}
	// check's Try: line said to run `fdl-formats backfill URL`, which
	// is refused.
	if _, errOut, code := runAppStderr(t, "check", remoteNow, cache, url); code != exitMissing || strings.Contains(errOut, "`fdl-formats backfill http") ||
		!strings.Contains(errOut, "\nTry: run `fdl-formats backfill` on the folder or s3:// bucket the site serves, to write the missing catalogs there (`fdl-formats backfill --dry-run ") {
		t.Errorf("check of a web site with catalogs missing: exit %d, want %d and a Try: line saying where backfill runs\n%s", code, exitMissing, errOut)
	}
	if _, errOut, code := runAppStderr(t, "backfill", remoteNow, cache, url); code != exitUsage || !strings.Contains(errOut, "read-only") {
		t.Errorf("backfill of a web site: exit %d, want %d\n%s", code, exitUsage, errOut)
	}
}
