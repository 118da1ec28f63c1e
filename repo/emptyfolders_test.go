package repo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/store"
)

// emptyPage is an index page that links no file: only its parent folder,
// as a server's listing does.
const emptyPage = `<html><body><a href="../">../</a></body></html>`

// emptyFolderSite serves root as a web site whose page for the folder of
// version id links no file: page "empty" links nothing, "catalogs"
// links only catalogs/, whose own page is empty, "404" answers 404. The
// names in fail (relative to the version folder) are answered 500. It
// counts the requests as hidingSite does.
func emptyFolderSite(t *testing.T, root, id, page string, fail []string) (*httpSiteCounts, http.Handler) {
	t.Helper()
	return countingSite(root, id, fail, func(w http.ResponseWriter, r *http.Request, dir string) bool {
		html := func(body string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
		switch {
		case r.URL.Path == dir && page == "empty":
			html(emptyPage)
		case r.URL.Path == dir && page == "catalogs":
			html(`<html><body><a href="../">../</a> <a href="catalogs/">catalogs/</a></body></html>`)
		case r.URL.Path == dir+"catalogs/" && page == "catalogs":
			html(emptyPage)
		case r.URL.Path == dir && page == "404":
			http.NotFound(w, r)
		default:
			return false
		}
		return true
	})
}

// TestEmptyFolderVersion: a version folder that versions/'s listing links
// but whose own page links no file (an empty index.html, a CDN's copy of
// an empty page, a page linking only a catalogs/ whose page is empty) is a
// version, whose files are probed by name as unlisted ones are: the web
// check gives the findings and error of a check of the same repository as
// a folder. Before, the store learnt versions only from the files it
// listed: the version was never seen (a --versions filter naming it found
// "no version", and a whole check of a repository whose newest version has
// no version.json passed). A version folder whose page lists no file and
// whose version.json, expired.json and presenceFiles answer 404 is ignored
// with a warning, as an empty folder on disk is
// (TestEmptyFolderVersionDropped): a folder holding only a stray file no
// reader asks for, a version without version.json on disk, looks so on the
// web (TestEmptyFolderRule); a probe the server answers 500 is
// unverifiable, naming the file; a version folder whose page answers 404
// stays an error (no listing).
func TestEmptyFolderVersion(t *testing.T) {
	t.Parallel() // mostly waits for a probe's retries (httpstore's backoff)
	ctx := context.Background()
	remove := func(t *testing.T, v string, names ...string) {
		for _, f := range names {
			if err := os.Remove(filepath.Join(v, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		page string                       // emptyFolderSite's
		edit func(t *testing.T, v string) // the version folder
		fail []string                     // answered 500
		want error                        // of both checks (nil: no error)
		// whole checks every version (else only the one whose page is
		// empty, with --versions).
		whole bool
		// detail is in a finding of the web check (%s: the version ID).
		detail string
		// probes are the requests answered 404 for files directly in the
		// version folder (absentProbes), beyond one HEAD expired.json per
		// version that a site whose listings show every file costs.
		probes map[string]int
		// dropped: the web check cannot tell the folder from an empty
		// one (its only file, a stray one, is on no page and no reader
		// asks for it), so it ignores it with a warning (exit 0, or no
		// version for --versions), where the folder check gives want.
		dropped bool
	}{
		{name: "empty page, a sound version", page: "empty",
			probes: map[string]int{"HEAD expired.json": 3}},
		{name: "page linking only an empty catalogs/, a sound version", page: "catalogs",
			probes: map[string]int{"HEAD expired.json": 3}},
		{name: "empty page, no version.json", page: "empty", edit: func(t *testing.T, v string) {
			remove(t, v, "version.json", "ducklake.duckdb", "dataset.json", "files.json")
			writeFile(t, filepath.Join(v, "notes.txt"), "moved")
		}, want: ErrInvalidVersion, dropped: true},
		{name: "empty page, no version.json, every version checked", page: "empty", edit: func(t *testing.T, v string) {
			remove(t, v, "version.json", "ducklake.duckdb", "dataset.json", "files.json")
			writeFile(t, filepath.Join(v, "notes.txt"), "moved")
		}, whole: true, want: ErrInvalidVersion, dropped: true},
		{name: "empty page, a withdrawn version", page: "empty", edit: func(t *testing.T, v string) {
			remove(t, v, "ducklake.duckdb", "files.json")
			writeFile(t, filepath.Join(v, "expired.json"), `{"reason": "withdrawn"}`)
		}, probes: map[string]int{"HEAD expired.json": 2, "HEAD files.json": 1}},
		{name: "empty page, a withdrawn version with its catalog left", page: "catalogs", edit: func(t *testing.T, v string) {
			writeFile(t, filepath.Join(v, "expired.json"), `{"reason": "withdrawn"}`)
		}, want: ErrDifferences, probes: map[string]int{"HEAD expired.json": 2}},
		{name: "empty page, version.json unknown", page: "empty", fail: []string{"version.json"},
			want: ErrUnverifiable, detail: "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/version.json: HEAD answered 500"},
		{name: "empty page, the frozen catalog unknown", page: "catalogs", fail: []string{"ducklake.duckdb"},
			want: ErrUnverifiable, detail: "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/ducklake.duckdb: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			ids := versionIDs(t, root)
			id := ids[2]
			if tc.edit != nil {
				tc.edit(t, filepath.Join(root, "versions", id))
			}
			opts := func() Options {
				o := Options{Versions: []string{id}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()}
				if tc.whole {
					o.Versions = nil
				}
				return o
			}
			var folder *CheckReport
			var ferr error
			if tc.fail == nil {
				folder, ferr = Check(ctx, st, opts())
			}
			counts, h := emptyFolderSite(t, root, id, tc.page, tc.fail)
			site := webSite(t, h)
			web, werr := Check(ctx, site, opts())
			if tc.dropped {
				if !errors.Is(ferr, tc.want) {
					t.Errorf("folder check = %v, want %v", ferr, tc.want)
				}
				_, warning := emptyFolderWarning(id, true)
				switch {
				case tc.whole && (werr != nil || !slices.ContainsFunc(findingLines(web), func(l string) bool { return strings.HasSuffix(l, warning) })):
					t.Errorf("web check = %v, findings %q; want no error and the warning %q", werr, findingLines(web), warning)
				case !tc.whole && !errors.Is(werr, ErrBadFilter):
					t.Errorf("web check = %v, want no version (ErrBadFilter)", werr)
				}
				want := map[string]int{"HEAD expired.json": 3, "HEAD version.json": 1, "HEAD dataset.json": 1, "HEAD files.json": 1}
				if got := counts.absentProbes(); !maps.Equal(got, want) {
					t.Errorf("requests answered 404 in version folders %v, want %v", got, want)
				}
				return
			}
			for _, c := range []struct {
				what string
				err  error
			}{{"folder", ferr}, {"web", werr}} {
				if c.what == "folder" && tc.fail != nil {
					continue // the folder has no server to fail
				}
				if tc.want == nil && c.err != nil || tc.want != nil && !errors.Is(c.err, tc.want) {
					t.Errorf("%s check = %v, want %v", c.what, c.err, tc.want)
				}
			}
			if tc.detail != "" {
				want := fmt.Sprintf(tc.detail, id, site.BaseURL()) // the probe names the URL
				// Named once, by its URL (the store's error names it).
				if !slices.ContainsFunc(findingLines(web), func(l string) bool {
					return strings.Contains(l, " "+id+" ") && strings.Contains(l, want) && strings.Count(l, site.BaseURL()) == 1
				}) {
					t.Errorf("web findings %q, want one of version %s saying %q", findingLines(web), id, want)
				}
			}
			if tc.fail != nil {
				return
			}
			// Two differences are the server's: a stray file in the
			// folder (what makes the version folder one there) is on no
			// page and no reader asks for it, so the web check cannot see
			// it (a warning, failing nothing); and a catalog found by
			// name is said to be hidden by the listing.
			f := slices.DeleteFunc(findingLines(folder), func(l string) bool {
				return strings.HasPrefix(l, "warning ") && strings.Contains(l, "/notes.txt: a regular file that is not part of the FDL layout")
			})
			w := findingLines(web)
			for i, l := range w {
				w[i] = strings.Replace(l, "a catalog hidden by the server's folder listing left", "a catalog left", 1)
			}
			if !slices.Equal(f, w) {
				t.Errorf("findings differ:\nfolder %q\nweb    %q", f, w)
			}
			if got := counts.absentProbes(); !maps.Equal(got, tc.probes) {
				t.Errorf("requests answered 404 in version folders %v, want %v", got, tc.probes)
			}
		})
	}
	t.Run("page 404", func(t *testing.T) {
		_, root := smallLake(t)
		id := versionIDs(t, root)[2]
		_, h := emptyFolderSite(t, root, id, "404", nil)
		_, err := Check(ctx, webSite(t, h), Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
		if !errors.Is(err, store.ErrNoListing) || !strings.Contains(err.Error(), "/versions/"+id+"/") {
			t.Errorf("check = %v, want ErrNoListing naming the version folder", err)
		}
	})
}

// TestResolveEmptyFolderVersion: resolve finds a version whose folder's
// page links no file, as readers fetch its files by name: as the latest
// (before, the version before it was sent to readers as the latest), by
// its ID (before: no such version) and by its seq; and by its seq a
// version whose page lists other files but not version.json (before: no
// such version, as the seq is in the unlisted version.json). Picking by
// seq costs a HEAD for each version whose listing leaves version.json
// out, none where listings show it; a failed one is an error naming it.
func TestResolveEmptyFolderVersion(t *testing.T) {
	t.Parallel() // mostly waits for a probe's retries (httpstore's backoff)
	ctx := context.Background()
	_, root := smallLake(t)
	ids := versionIDs(t, root)
	_, h := emptyFolderSite(t, root, ids[2], "empty", nil)
	site := webSite(t, h)
	for _, sel := range []string{"latest", ids[2], "3"} {
		res, err := Resolve(ctx, site, ResolveOptions{Version: sel, DuckDB: "1.5.6"})
		if err != nil || res.Version != ids[2] || res.Seq != 3 || !res.OK {
			t.Errorf("Resolve(%s) = %+v, %v; want version %s (seq 3)", sel, res, err, ids[2])
		}
	}
	// version.json left out of a page that lists the other files.
	counts, h := hidingSite(t, root, ids[1], []string{"version.json"}, nil)
	site = webSite(t, h)
	res, err := Resolve(ctx, site, ResolveOptions{Version: "2", DuckDB: "1.5.6"})
	if err != nil || res.Version != ids[1] || !res.OK {
		t.Errorf("Resolve(2) with version.json unlisted = %+v, %v; want version %s", res, err, ids[1])
	}
	// Each version.json is read once by a GET: by the listing's walk where
	// it is listed (in place of its HEAD), after the probe's HEAD where not.
	heads := func(counts *httpSiteCounts, hidden string) {
		t.Helper()
		for _, id := range ids {
			wantHeads := 0
			if id == hidden {
				wantHeads = 1
			}
			if n := counts.matching(func(_, method, path string) bool {
				return method == http.MethodHead && path == "/versions/"+id+"/version.json"
			}); n != wantHeads {
				t.Errorf("%d HEAD requests for versions/%s/version.json, want %d", n, id, wantHeads)
			}
			if n := counts.matching(func(_, method, path string) bool {
				return method == http.MethodGet && path == "/versions/"+id+"/version.json"
			}); n != 1 {
				t.Errorf("%d GET requests for versions/%s/version.json, want 1", n, id)
			}
		}
	}
	heads(counts, ids[1])
	counts, h = hidingSite(t, root, ids[1], nil, nil)
	if _, err := Resolve(ctx, webSite(t, h), ResolveOptions{Version: "2", DuckDB: "1.5.6"}); err != nil {
		t.Fatal(err)
	}
	heads(counts, "")
	_, h = hidingSite(t, root, ids[0], []string{"version.json"}, []string{"version.json"})
	site = webSite(t, h)
	want := "probe a file the server's folder listing does not show: stat " + site.BaseURL() + "versions/" + ids[0] + "/version.json: "
	if _, err := Resolve(ctx, site, ResolveOptions{Version: "2", DuckDB: "1.5.6"}); err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "/version.json") != 1 {
		t.Errorf("Resolve(2) with another version's version.json answered 500 = %v, want an error saying %q", err, want)
	}
}

// emptyVersionID is a version ID newer than smallLake's: an empty folder
// named so is the newest version folder.
const emptyVersionID = "01ffffff-0000-7000-8000-000000000000"

// TestEmptyFolderVersionDropped: a version folder holding no file at all
// (or only an empty catalogs/), which a web server's listing shows as an
// empty page, is no version on a web site as it is none on disk: a whole
// check passes with a warning naming the folder (on disk too: before, only
// the web check warned), a --versions filter naming it finds no version.
// Its probes (expired.json, version.json, then the presenceFiles) cost a
// HEAD each. A probe the server fails still leaves it unverifiable.
// Before, the web check said "version.json: missing" (exit 6) where the
// folder's passed.
func TestEmptyFolderVersionDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, sub := range []string{"", "catalogs"} {
		for _, filter := range []bool{false, true} {
			t.Run(fmt.Sprintf("sub %q filter %v", sub, filter), func(t *testing.T) {
				st, root := smallLake(t)
				if err := os.MkdirAll(filepath.Join(root, "versions", emptyVersionID, sub), 0o755); err != nil {
					t.Fatal(err)
				}
				opts := Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()}
				if filter {
					opts.Versions = []string{emptyVersionID}
				}
				folder, ferr := Check(ctx, st, opts)
				counts, h := hidingSite(t, root, emptyVersionID, nil, nil)
				opts.Cache = t.TempDir()
				web, werr := Check(ctx, webSite(t, h), opts)
				if filter {
					for _, err := range []error{ferr, werr} {
						if !errors.Is(err, ErrBadFilter) {
							t.Errorf("check --versions %s = %v, want ErrBadFilter", emptyVersionID, err)
						}
					}
					return
				}
				if ferr != nil || werr != nil {
					t.Fatalf("folder check = %v, web check = %v; want both to pass", ferr, werr)
				}
				// Each warns naming the folder, saying what it looked at.
				var lines [2][]string
				for i, c := range []struct {
					rep     *CheckReport
					partial bool
				}{{folder, false}, {web, true}} {
					key, detail := emptyFolderWarning(emptyVersionID, c.partial)
					warning := "warning  " + key + ": " + detail
					lines[i] = findingLines(c.rep)
					if !slices.Contains(lines[i], warning) {
						t.Errorf("findings %q, want %q", lines[i], warning)
					}
					lines[i] = slices.DeleteFunc(lines[i], func(l string) bool { return l == warning })
				}
				if !slices.Equal(lines[0], lines[1]) {
					t.Errorf("findings differ:\nfolder %q\nweb    %q", lines[0], lines[1])
				}
				want := map[string]int{"HEAD expired.json": 4, "HEAD version.json": 1, "HEAD dataset.json": 1, "HEAD files.json": 1}
				if got := counts.absentProbes(); !maps.Equal(got, want) {
					t.Errorf("requests answered 404 in version folders %v, want %v", got, want)
				}
				// Its DuckDB files asked for by name: ducklake.duckdb and
				// each known format's catalog, once each (docs/remote.md).
				dir := "/versions/" + emptyVersionID + "/"
				if n := counts.matching(func(status, method, path string) bool {
					return strings.HasPrefix(path, dir) && strings.HasSuffix(path, ".duckdb")
				}); n != 1+len(formats.All) {
					t.Errorf("%d requests for DuckDB files in the empty folder, want %d", n, 1+len(formats.All))
				}
			})
		}
	}
	t.Run("probe fails", func(t *testing.T) {
		_, root := smallLake(t)
		if err := os.MkdirAll(filepath.Join(root, "versions", emptyVersionID), 0o755); err != nil {
			t.Fatal(err)
		}
		_, h := hidingSite(t, root, emptyVersionID, nil, []string{"version.json"})
		_, err := Check(ctx, webSite(t, h), Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
		if !errors.Is(err, ErrUnverifiable) || !strings.Contains(err.Error(), emptyVersionID+"/version.json") {
			t.Errorf("check = %v, want ErrUnverifiable naming %s/version.json", err, emptyVersionID)
		}
	})
}

// TestResolveEmptyFolderVersionDropped: resolve of a repository whose
// newest version folder is empty picks the version before it as the
// latest, and finds no version by the folder's ID, on a web site as on
// disk (before, on the web site, latest failed: version.json missing);
// a probe the server fails is an error naming the file (expired.json, or
// a presence probe: ducklake.duckdb).
func TestResolveEmptyFolderVersionDropped(t *testing.T) {
	t.Parallel() // mostly waits for a probe's retries (httpstore's backoff)
	ctx := context.Background()
	st, root := smallLake(t)
	ids := versionIDs(t, root)
	if err := os.MkdirAll(filepath.Join(root, "versions", emptyVersionID), 0o755); err != nil {
		t.Fatal(err)
	}
	_, h := hidingSite(t, root, emptyVersionID, nil, nil)
	site := webSite(t, h)
	for _, s := range []store.Store{st, site} {
		res, err := Resolve(ctx, s, ResolveOptions{DuckDB: "1.5.6"})
		if err != nil || res.Version != ids[2] || !res.OK {
			t.Errorf("Resolve(latest) on %T = %+v, %v; want version %s", s, res, err, ids[2])
		}
		if _, err := Resolve(ctx, s, ResolveOptions{Version: emptyVersionID, DuckDB: "1.5.6"}); !errors.Is(err, ErrBadFilter) {
			t.Errorf("Resolve(%s) on %T = %v, want ErrBadFilter", emptyVersionID, s, err)
		}
	}
	for _, name := range []string{"expired.json", "ducklake.duckdb"} {
		_, h = hidingSite(t, root, emptyVersionID, nil, []string{name})
		site := webSite(t, h)
		want := "probe a file the server's folder listing does not show: stat " + site.BaseURL() + "versions/" + emptyVersionID + "/" + name + ": "
		if _, err := Resolve(ctx, site, ResolveOptions{DuckDB: "1.5.6"}); err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), emptyVersionID+"/"+name) != 1 {
			t.Errorf("Resolve(latest) with the empty folder's %s answered 500 = %v, want an error saying %q", name, err, want)
		}
	}
}

// TestResolveSeqWithdrawn: by seq, resolve does not probe the version.json
// of a withdrawn version whose listing shows expired.json (and not
// version.json, as withdrawn versions may delete it) while a version the
// listing does not show withdrawn holds the seq: on a site whose listings
// show every file, no request more (before, a HEAD per withdrawn
// version). The withdrawn version's own seq gives what it gives on disk:
// no version when its version.json is gone, and, when its version.json
// is there but unlisted (found by the probe made when no other version
// holds the seq), the version, which has no catalog to open.
func TestResolveSeqWithdrawn(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	ids := versionIDs(t, root)
	v0 := filepath.Join(root, "versions", ids[0])
	writeFile(t, filepath.Join(v0, "expired.json"), `{"reason": "withdrawn"}`)
	heads := func(counts *httpSiteCounts) int {
		return counts.matching(func(_, method, path string) bool {
			return method == http.MethodHead && path == "/versions/"+ids[0]+"/version.json"
		})
	}
	// version.json there but unlisted: seq 1 is the withdrawn version.
	counts, h := hidingSite(t, root, ids[0], []string{"version.json"}, nil)
	site := webSite(t, h)
	if res, err := Resolve(ctx, site, ResolveOptions{Version: "2", DuckDB: "1.5.6"}); err != nil || res.Version != ids[1] {
		t.Errorf("Resolve(2) = %+v, %v; want version %s", res, err, ids[1])
	}
	if n := heads(counts); n != 0 {
		t.Errorf("Resolve(2) sent %d HEAD for the withdrawn version's version.json, want 0", n)
	}
	for _, s := range []store.Store{st, site} {
		if _, err := Resolve(ctx, s, ResolveOptions{Version: "1", DuckDB: "1.5.6"}); !errors.Is(err, ErrNoCatalog) || !strings.Contains(err.Error(), ids[0]) {
			t.Errorf("Resolve(1) on %T = %v, want ErrNoCatalog naming withdrawn %s", s, err, ids[0])
		}
	}
	// version.json deleted, every file listed.
	if err := os.Remove(filepath.Join(v0, "version.json")); err != nil {
		t.Fatal(err)
	}
	counts, h = hidingSite(t, root, ids[0], nil, nil)
	site = webSite(t, h)
	if res, err := Resolve(ctx, site, ResolveOptions{Version: "2", DuckDB: "1.5.6"}); err != nil || res.Version != ids[1] {
		t.Errorf("Resolve(2) = %+v, %v; want version %s", res, err, ids[1])
	}
	if n := heads(counts); n != 0 {
		t.Errorf("Resolve(2) sent %d HEAD for the withdrawn version's version.json, want 0", n)
	}
	for _, s := range []store.Store{st, site} {
		if _, err := Resolve(ctx, s, ResolveOptions{Version: "1", DuckDB: "1.5.6"}); !errors.Is(err, ErrBadFilter) {
			t.Errorf("Resolve(1) on %T = %v, want ErrBadFilter (no version)", s, err)
		}
	}
}
