package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"10GiB", 10 << 30, false},
		{"500MB", 500e6, false},
		{"1.5 KiB", 1536, false},
		{"42", 42, false},
		{"7b", 7, false},
		{"unlimited", -1, false},
		{"0", 0, true},
		{"-1GB", 0, true},
		{"ten", 0, true},
		{"", 0, true},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestDataCacheBounded: after a check of a web repository with a small
// --data-cache-max, a stale file of another repository's cache folder is
// gone and the files the run used are kept (a second check reuses them).
func TestDataCacheBounded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	root := backfilledLake(t)
	url := webtest.Serve(t, root, webtest.Options{Validators: webtest.ETag}) + "/lake"
	cacheDir, stale := cacheWithStaleFile(t)
	args := []string{"--cache=" + cacheDir, "--data-cache-max=1B", url}
	rep, errOut, code := checkReport(t, args...)
	if code != exitOK || rep.Transfer.DataFiles == 0 {
		t.Fatalf("check: exit %d, transfer %+v\n%s", code, rep.Transfer, errOut)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale cached file of another repository kept past the bound (%v)", err)
	}
	files := rep.Transfer.DataFiles
	// The second check finds every file; proofs the first kept while the
	// mirror was still filling may miss, and are kept again; the third
	// finds them all (a reused file keeps its time: proof keys name it).
	for i := 2; i <= 3; i++ {
		rep, errOut, code = checkReport(t, args...)
		if code != exitOK || rep.Transfer.Cached != files || rep.Transfer.DataFiles != 0 {
			t.Fatalf("check %d: exit %d, transfer %+v, want the %d files the first run used reused\n%s", i, code, rep.Transfer, files, errOut)
		}
	}
	for _, p := range rep.Proofs {
		if !p.Cached {
			t.Errorf("third check: proof of %s %s not taken from the cache", p.Version, p.Format)
		}
	}
	if rep.Transfer.CatalogsCached == 0 {
		t.Errorf("third check: transfer %+v, want the frozen catalogs taken from the cache (the run's own, never pruned)", rep.Transfer)
	}
	// The stale repository's folder is gone; this one's mirror, frozen
	// catalogs, footer stand-ins (kept at download), marker and download
	// folder remain.
	entries, err := os.ReadDir(filepath.Join(cacheDir, "objects"))
	var got, want []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) > 0 {
		for _, suffix := range []string{"", ".catalogs", ".footers", ".last-used", ".tmp"} {
			want = append(want, got[0]+suffix)
		}
	}
	if err != nil || len(got) == 0 || !slices.Equal(got, want) {
		t.Errorf("objects/ holds %v (%v), want one repository's mirror, frozen catalogs, footer stand-ins, marker and download folder", got, err)
	}
}

// TestDataCacheUnlimited: with --data-cache-max unlimited nothing is
// pruned, however old.
func TestDataCacheUnlimited(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	root := backfilledLake(t)
	url := webtest.Serve(t, root, webtest.Options{Validators: webtest.ETag}) + "/lake"
	cacheDir, stale := cacheWithStaleFile(t)
	if rep, errOut, code := checkReport(t, "--cache="+cacheDir, "--data-cache-max=unlimited", url); code != exitOK || rep.Transfer.DataFiles == 0 {
		t.Fatalf("check: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("an unlimited data cache lost a file: %v", err)
	}
}

// cacheWithStaleFile is a cache folder holding one file of another
// repository's mirror, last used two days ago.
func cacheWithStaleFile(t *testing.T) (cacheDir, stale string) {
	t.Helper()
	cacheDir = t.TempDir()
	stale = filepath.Join(cacheDir, "objects", "0123456789abcdef", "data", "old.parquet")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	return cacheDir, stale
}
