package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestHiddenCatalogs: over http(s), check learns catalogs/ from the
// server's folder listing, but readers fetch catalogs/<format>.duckdb by
// name, newest format first, so a catalog or write-ahead log the listing
// leaves out is read by them; check probes every registry format's names
// the listing did not show (two requests each, declared formats filtered
// out of the run left alone, as listed ones are) and reports a hit as a
// violation naming the version and the file. Before, a catalogs/1.0.duckdb
// hidden by a hand-written index page was never proved and check exited 0.
func TestHiddenCatalogs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Check runs 1.0 (the source's own format) alone: the declared 0.3,
	// 0.4 and 1.1 are filtered out, every other registry format probed.
	// One request each: a catalog's .wal is asked for only once the
	// catalog is found (two before, 18 a version of which 9 asked for the
	// log of a catalog that is not there).
	probes := len(formats.All) - 3
	for _, tc := range []struct {
		name   string
		files  []string // under the version's catalogs/ (a copy of its frozen catalog, or junk for a .wal)
		listed bool     // the server's own listing, which shows catalogs/
		fail   string   // a name under catalogs/ the server answers 500 for
		frozen string   // catalog.path, with a ducklake.duckdb (the first version's catalog) and its .wal beside it, hidden
		want   []string // keys of findings (in the version folder), in order
		detail string   // a phrase of the first finding
		probes int      // requests under catalogs/
	}{
		{"nothing there", nil, false, "", "", nil, "", probes},
		{"a probe the server fails", nil, false, "1.0.duckdb", "", []string{""}, "probe a file the server's listing does not show: stat SITE/versions/", -1},
		{"a hidden catalog in the source's format", []string{"1.0.duckdb"}, false, "", "", []string{"catalogs/1.0.duckdb"}, "hidden by the server's folder listing: readers of format 1.0 fetch catalogs/1.0.duckdb by name", probes + 1},
		{"a hidden catalog of a development layout", []string{"1.1-dev1.duckdb"}, false, "", "", []string{"catalogs/1.1-dev1.duckdb"}, "readers of format 1.1-dev1", probes + 1},
		{"a hidden write-ahead log beside a hidden catalog", []string{"1.1-dev1.duckdb", "1.1-dev1.duckdb.wal"}, false, "", "", []string{"catalogs/1.1-dev1.duckdb", "catalogs/1.1-dev1.duckdb.wal"}, "readers of format 1.1-dev1", probes + 1},
		{"a hidden write-ahead log without its catalog: no reader replays it", []string{"0.2.duckdb.wal"}, false, "", "", nil, "", probes},
		{"a hidden catalog of a declared format left out of the run", []string{"1.1.duckdb"}, false, "", "", nil, "", probes},
		{"a hidden ducklake.duckdb beside a renamed frozen catalog", nil, false, "", "frozen.duckdb", []string{"ducklake.duckdb", "ducklake.duckdb.wal"}, "readers that fall back to ducklake.duckdb by name", probes},
		{"a listed catalog is checked as listed, not probed", []string{"1.0.duckdb"}, true, "", "", []string{"catalogs/1.0.duckdb"}, "a catalog in the frozen catalog's own format 1.0", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, root := smallLake(t)
			id := versionIDs(t, root)[2]
			v := filepath.Join(root, "versions", id)
			for _, f := range tc.files {
				if strings.HasSuffix(f, ".wal") {
					writeFile(t, filepath.Join(v, "catalogs", f), "junk")
				} else {
					writeFile(t, filepath.Join(v, "catalogs", f), "")
					copyFile(t, filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, "catalogs", f))
				}
			}
			frozen := "ducklake.duckdb"
			if tc.frozen != "" {
				frozen = tc.frozen
				if err := os.Rename(filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, frozen)); err != nil {
					t.Fatal(err)
				}
				testlakes.EditVersion(t, v, func(m map[string]any) { m["catalog"].(map[string]any)["path"] = frozen })
				copyFile(t, filepath.Join(root, "versions", versionIDs(t, root)[0], "ducklake.duckdb"), filepath.Join(v, "ducklake.duckdb"))
				writeFile(t, filepath.Join(v, "ducklake.duckdb.wal"), "junk")
			}
			var probed atomic.Int64
			files := http.FileServer(http.Dir(root))
			site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/versions/"+id+"/catalogs/") {
					probed.Add(1)
				}
				if tc.fail != "" && r.URL.Path == "/versions/"+id+"/catalogs/"+tc.fail {
					http.Error(w, "overloaded", http.StatusInternalServerError)
					return
				}
				if !tc.listed && r.URL.Path == "/versions/"+id+"/" {
					// A hand-written index page that leaves catalogs/ out.
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprintf(w, `<pre><a href="dataset.json">dataset.json</a> <a href="%[1]s">%[1]s</a> <a href="files.json">files.json</a> <a href="version.json">version.json</a></pre>`, frozen)
					return
				}
				files.ServeHTTP(w, r)
			}))
			rep, err := Check(ctx, site, Options{Versions: []string{"3"}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
			got := nonWarnings(rep)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Check = %v (%+v), want nil", err, got)
				}
			} else {
				want := ErrDifferences
				if tc.fail != "" {
					want = ErrUnverifiable
				}
				if !errors.Is(err, want) {
					t.Fatalf("Check = %v, want %v", err, want)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("findings %+v, want %d about %v", got, len(tc.want), tc.want)
				}
				for i, f := range got {
					key := "versions/" + id + "/" + tc.want[i]
					if tc.want[i] == "" {
						key = ""
					}
					if f.Key != key || f.Version != id {
						t.Errorf("finding %d: version %s key %s, want version %s key %s", i, f.Version, f.Key, id, key)
					}
				}
				// SITE: the site's URL, where the probe names the file.
				// Named once (the store's error names it).
				if detail := strings.ReplaceAll(tc.detail, "SITE/", site.BaseURL()); !strings.Contains(got[0].Detail, detail) || strings.Count(got[0].Detail, site.BaseURL()) > 1 {
					t.Errorf("detail %q, want it to say %q, naming the site once", got[0].Detail, detail)
				}
			}
			if tc.probes >= 0 && probed.Load() != int64(tc.probes) {
				t.Errorf("%d requests under catalogs/, want %d (one per registry format probed, one more per catalog found)", probed.Load(), tc.probes)
			}
		})
	}
}

// TestSoftNotFoundHost: hosts that answer every missing path with a page
// (200 and their index.html: single-page-app fallbacks) seemed to hold
// every catalog and write-ahead log check probes for; a sound repository
// got one "hidden catalog, remove it" difference per probe (51 on the demo
// repository). A page is no repository file: check passes, as on a host
// that answers 404. A real file the server types as HTML (a wrong
// Content-Type) is still read.
func TestSoftNotFoundHost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const page = "<!DOCTYPE html><html><head><title>Population</title></head><body><div id=app></div></body></html>"
	for _, tc := range []struct {
		name      string
		allAsHTML bool // every file typed text/html
	}{
		{"missing paths answered with a page", false},
		{"and every file typed as HTML", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, root := smallLake(t)
			files := http.FileServer(http.Dir(root))
			var pages atomic.Int64
			site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.URL.Path))); err != nil {
					pages.Add(1)
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprint(w, page)
					return
				}
				if tc.allAsHTML {
					w.Header().Set("Content-Type", "text/html")
				}
				files.ServeHTTP(w, r)
			}))
			rep, err := Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
			if err != nil {
				t.Fatalf("Check = %v (%+v), want nil", err, nonWarnings(rep))
			}
			if pages.Load() == 0 {
				t.Fatal("no missing path was asked for: the test tests nothing")
			}
			if got := len(rep.Proofs); got != 0 {
				t.Errorf("%d proofs, want none (no published catalog)", got)
			}
		})
	}
}

// TestHiddenCatalogsOfTheRunAreProved: a catalogs/<format>.duckdb of a
// format the run checks, which the server's listing leaves out (a stale
// copy of the folder's page kept by a CDN), is fetched by its readers by
// name; check proves it as if listed and says so in a warning. Before, it
// was a violation (exit 3) of a sound repository until the cache expired.
// Proved, not waved through: a hidden 0.4 catalog that is a copy of the
// 1.0 frozen catalog fails its proof.
func TestHiddenCatalogsOfTheRunAreProved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		wrong bool // the hidden 0.4 catalog is the frozen 1.0 catalog's bytes
		// inCatalogs: the stale page is catalogs/'s, which lists another
		// file, not the version folder's, which then leaves out catalogs/
		// (whose listing is never read)
		inCatalogs bool
	}{
		{"a sound catalog the listing hides", false, false},
		{"a wrong catalog the listing hides", true, false},
		{"a sound catalog the catalogs/ listing hides", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			id := versionIDs(t, root)[2]
			v := filepath.Join(root, "versions", id)
			if tc.wrong {
				writeFile(t, filepath.Join(v, "catalogs", "0.4.duckdb"), "")
				copyFile(t, filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, "catalogs", "0.4.duckdb"))
			} else if _, err := Backfill(ctx, st, Options{Versions: []string{"3"}, Formats: []string{"0.4"}, Jobs: 2, Cache: t.TempDir()}); err != nil {
				t.Fatalf("Backfill: %v", err)
			}
			if _, err := os.Stat(filepath.Join(v, "catalogs", "0.4.duckdb")); err != nil {
				t.Fatal(err)
			}
			if tc.inCatalogs {
				writeFile(t, filepath.Join(v, "catalogs", "0.3.duckdb"), "not checked: --formats leaves 0.3 alone")
			}
			files := http.FileServer(http.Dir(root))
			site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.inCatalogs && r.URL.Path == "/versions/"+id+"/catalogs/" {
					// A stale page listing a catalog of a format the run leaves alone.
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprint(w, `<pre><a href="../">../</a> <a href="0.3.duckdb">0.3.duckdb</a></pre>`)
					return
				}
				if !tc.inCatalogs && r.URL.Path == "/versions/"+id+"/" {
					// A stale page from before catalogs/ was published.
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprint(w, `<pre><a href="dataset.json">dataset.json</a> <a href="ducklake.duckdb">ducklake.duckdb</a> <a href="files.json">files.json</a> <a href="version.json">version.json</a></pre>`)
					return
				}
				files.ServeHTTP(w, r)
			}))
			rep, err := Check(ctx, site, Options{Versions: []string{"3"}, Formats: []string{"1.0", "0.4"}, Jobs: 2, Cache: t.TempDir()})
			key := "versions/" + id + "/catalogs/0.4.duckdb"
			var proved *Proof
			if rep != nil {
				for _, p := range rep.Proofs {
					if p.Key == key {
						proved = p
					}
				}
			}
			if proved == nil {
				t.Fatalf("Check = %v: no proof of %s (findings %+v)", err, key, rep)
			}
			if tc.wrong {
				if !errors.Is(err, ErrDifferences) || proved.OK {
					t.Fatalf("Check = %v, proof ok=%v (%s): want the hidden wrong catalog's proof to fail", err, proved.OK, proved.Error)
				}
				return
			}
			if err != nil || !proved.OK {
				t.Fatalf("Check = %v, proof ok=%v (%s), findings %+v", err, proved.OK, proved.Error, nonWarnings(rep))
			}
			warned := false
			for _, f := range rep.Findings {
				if f.Kind == KindWarning && strings.Contains(f.Detail, key+" is not in the server's folder listing") {
					// Only a listing that was read is said to leave it out.
					where := key + " is not in the server's folder listings of versions/" + id + "/, which show no file under catalogs/ (the version folder's listing leaves catalogs/ out"
					if tc.inCatalogs {
						where = key + " is not in the server's folder listing of versions/" + id + "/catalogs/:"
					}
					if !strings.Contains(f.Detail, where) {
						t.Errorf("warning %q, want it to say %q", f.Detail, where)
					}
					warned = true
				}
			}
			if !warned {
				t.Errorf("no warning that the listing hides %s: %+v", key, rep.Findings)
			}
		})
	}
}

// TestWalProbeFailureIsUnverifiable: a server that fails the look for the
// frozen catalog's .wal (a 500, a cancelled run) leaves the question open:
// unverifiable (exit 4) naming the file. Before, it was reported as a
// write-ahead log found beside the catalog (exit 3).
func TestWalProbeFailureIsUnverifiable(t *testing.T) {
	t.Parallel() // mostly waits for a probe's retries (httpstore's backoff)
	ctx := context.Background()
	_, root := smallLake(t)
	id := versionIDs(t, root)[2]
	files := http.FileServer(http.Dir(root))
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/versions/"+id+"/ducklake.duckdb.wal" {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		files.ServeHTTP(w, r)
	}))
	rep, err := Check(ctx, site, Options{Versions: []string{"3"}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	if !errors.Is(err, ErrUnverifiable) || errors.Is(err, ErrDifferences) {
		t.Fatalf("Check = %v, want unverifiable and no difference (findings %+v)", err, nonWarnings(rep))
	}
	found := false
	for _, f := range nonWarnings(rep) {
		if f.Kind == KindDifference {
			t.Errorf("difference %+v: the log's presence is unknown", f)
		}
		found = found || strings.Contains(f.Detail, "look for a write-ahead log versions/"+id+"/ducklake.duckdb.wal")
	}
	if !found {
		t.Errorf("no finding names the .wal look-up: %+v", nonWarnings(rep))
	}
}
