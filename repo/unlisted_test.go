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
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// hidingSite serves root as a web site whose page for the folder of
// version id lists every entry but hide (as a CDN's stale copy of the
// listing or a hand-written index.html does), and answers 500 for the
// names in fail. It counts the requests for each path.
func hidingSite(t *testing.T, root, id string, hide, fail []string) (*httpSiteCounts, http.Handler) {
	return countingSite(root, id, fail, func(w http.ResponseWriter, r *http.Request, dir string) bool {
		if r.URL.Path != dir || len(hide) == 0 {
			return false
		}
		des, err := os.ReadDir(filepath.Join(root, "versions", id))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><body>\n")
		for _, d := range des {
			if slices.Contains(hide, d.Name()) {
				continue
			}
			href := d.Name()
			if d.IsDir() {
				href += "/"
			}
			fmt.Fprintf(w, "<a href=%q>%s</a>\n", href, href)
		}
		fmt.Fprint(w, "</body></html>\n")
		return true
	})
}

// countingSite serves root as a web site that counts the requests for each
// path ("STATUS METHOD PATH") and answers 500 for the names in fail under
// the folder of version id; page answers a request itself when it returns
// true (dir is the version folder's path, "/versions/<id>/").
func countingSite(root, id string, fail []string, page func(w http.ResponseWriter, r *http.Request, dir string) bool) (*httpSiteCounts, http.Handler) {
	counts := &httpSiteCounts{n: map[string]int{}}
	files := http.FileServer(http.Dir(root))
	dir := "/versions/" + id + "/"
	return counts, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w := &statusWriter{ResponseWriter: rw, status: http.StatusOK}
		defer func() { counts.add(fmt.Sprintf("%d %s %s", w.status, r.Method, r.URL.Path)) }()
		name, inVersion := strings.CutPrefix(r.URL.Path, dir)
		if inVersion && slices.Contains(fail, name) {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		if !page(w, r, dir) {
			files.ServeHTTP(w, r)
		}
	})
}

// statusWriter keeps the status a handler answers.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

type httpSiteCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *httpSiteCounts) add(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[k]++
}

// matching counts the requests whose "STATUS METHOD /path" match.
func (c *httpSiteCounts) matching(match func(status, method, path string) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.n {
		f := strings.SplitN(k, " ", 3)
		if match(f[0], f[1], f[2]) {
			n += v
		}
	}
	return n
}

// absentProbes counts the requests answered 404 for files directly in a
// version folder other than DuckDB files and logs (hiddenCatalogs' own
// probes): what the probes of unlisted files cost on top of the listing's
// requests (a file found costs the HEAD a listed one costs).
func (c *httpSiteCounts) absentProbes() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n {
		f := strings.SplitN(k, " ", 3)
		rest, ok := strings.CutPrefix(f[2], "/versions/")
		if f[0] != "404" || !ok || strings.Count(rest, "/") != 1 || strings.Contains(rest, ".duckdb") || strings.HasSuffix(rest, ".wal") {
			continue
		}
		out[f[1]+" "+rest[strings.Index(rest, "/")+1:]] += v
	}
	return out
}

// findingLines are a report's findings, one line each, as compared.
func findingLines(rep *CheckReport) []string {
	var out []string
	if rep != nil {
		for _, f := range rep.Findings {
			out = append(out, fmt.Sprintf("%s %s %s: %s", f.Kind, f.Version, f.Key, f.Detail))
		}
	}
	return out
}

// TestUnlistedVersionFiles: on a web site whose page for a version folder
// leaves files out, check probes by name the version's expired.json,
// version.json, the files version.json names and dataset.json and
// files.json where it names none, and takes a file found as a listed one:
// the folder check and the web check of the same repository give the same
// findings and the same error, for each file. Before, a withdrawn
// version whose page left out expired.json was checked as live (exit 0,
// where the folder check exits 3); a files.json version.json does not
// name, hidden, was not found (exit 0 against 3); and named files hidden
// were "missing (named in version.json)" (exit 6 against 0). A probe the
// server answers 500 leaves the file unknown: unverifiable, naming it.
func TestUnlistedVersionFiles(t *testing.T) {
	ctx := context.Background()
	withdraw := func(t *testing.T, v string) {
		writeFile(t, filepath.Join(v, "expired.json"), `{"reason": "withdrawn"}`)
	}
	for _, tc := range []struct {
		name   string
		edit   func(t *testing.T, v string) // the version folder
		hide   []string
		fail   []string // answered 500 (then hide them too)
		want   error    // of both checks (nil: no error)
		detail string   // the web check's error says it
	}{
		{"expired.json of a withdrawn version with its catalog left", withdraw, []string{"expired.json"}, nil, ErrDifferences, ""},
		{"expired.json of a withdrawn version without catalogs", func(t *testing.T, v string) {
			withdraw(t, v)
			for _, f := range []string{"ducklake.duckdb", "files.json"} {
				if err := os.Remove(filepath.Join(v, f)); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{"expired.json"}, nil, nil, ""},
		{"files.json of a withdrawn version", withdraw, []string{"expired.json", "files.json"}, nil, ErrDifferences, ""},
		{"files.json of a withdrawn version without version.json", func(t *testing.T, v string) {
			withdraw(t, v)
			if err := os.Remove(filepath.Join(v, "version.json")); err != nil {
				t.Fatal(err)
			}
		}, []string{"expired.json", "files.json"}, nil, ErrDifferences, ""},
		{"version.json", nil, []string{"version.json"}, nil, nil, ""},
		{"the frozen catalog version.json names", nil, []string{"ducklake.duckdb"}, nil, nil, ""},
		{"dataset.json version.json names", nil, []string{"dataset.json"}, nil, nil, ""},
		{"files.json version.json names", nil, []string{"files.json"}, nil, nil, ""},
		{"files.json version.json does not name", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, func(m map[string]any) { delete(m, "files") })
		}, []string{"files.json"}, nil, ErrDifferences, ""},
		{"dataset.json version.json does not name", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, func(m map[string]any) { delete(m, "dataset") })
		}, []string{"dataset.json"}, nil, ErrDifferences, ""},
		{"every file but one", nil, []string{"ducklake.duckdb", "files.json", "version.json"}, nil, nil, ""},
		{"expired.json unknown", nil, nil, []string{"expired.json"}, ErrUnverifiable, "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/expired.json: HEAD answered 500"},
		{"version.json unknown", nil, []string{"version.json"}, []string{"version.json"}, ErrUnverifiable, "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/version.json: "},
		{"the frozen catalog unknown", nil, []string{"ducklake.duckdb"}, []string{"ducklake.duckdb"}, ErrUnverifiable, "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/ducklake.duckdb: "},
		{"files.json version.json names unknown", nil, []string{"files.json"}, []string{"files.json"}, ErrUnverifiable, "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/files.json: "},
		{"files.json version.json does not name unknown", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, func(m map[string]any) { delete(m, "files") })
			if err := os.Remove(filepath.Join(v, "files.json")); err != nil {
				t.Fatal(err)
			}
		}, nil, []string{"files.json"}, ErrUnverifiable, "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/files.json: "},
		// Mutation test, session 23: held with the probe's failure left
		// to verifyRef, which an expired version does not run.
		{"files.json of a withdrawn version unknown", func(t *testing.T, v string) {
			withdraw(t, v)
			for _, f := range []string{"ducklake.duckdb", "files.json"} {
				if err := os.Remove(filepath.Join(v, f)); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{"expired.json"}, []string{"files.json"}, ErrUnverifiable, "probe a file the server's folder listing does not show: stat %[2]sversions/%[1]s/files.json: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Side by side: each case has its own lake and server, and
			// those with a failing probe mostly wait for its three retries
			// (0.7 s of httpstore's backoff).
			t.Parallel()
			st, root := smallLake(t)
			id := versionIDs(t, root)[2]
			if tc.edit != nil {
				tc.edit(t, filepath.Join(root, "versions", id))
			}
			opts := func() Options {
				return Options{Versions: []string{id}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()}
			}
			var folder *CheckReport
			var ferr error
			if tc.fail == nil {
				folder, ferr = Check(ctx, st, opts())
			}
			counts, h := hidingSite(t, root, id, tc.hide, tc.fail)
			site := webSite(t, h)
			web, werr := Check(ctx, site, opts())
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
			if tc.fail != nil {
				// One finding: the probe's, not also another rule's.
				// The probe names the file by its URL (the store's
				// error does), once.
				want, n := fmt.Sprintf(tc.detail, id, site.BaseURL()), 0
				for _, l := range findingLines(web) {
					if strings.HasPrefix(l, "unverifiable "+id+" ") && strings.Contains(l, want) && strings.Count(l, site.BaseURL()) == 1 && strings.HasSuffix(l, "500 Internal Server Error") {
						n++
					}
				}
				if n != 1 {
					t.Errorf("web findings %q, want one saying %q, naming the file once, and the server's 500", findingLines(web), want)
				}
				return
			}
			if f, w := findingLines(folder), findingLines(web); !slices.Equal(f, w) {
				t.Errorf("findings differ:\nfolder %q\nweb    %q", f, w)
			}
			// Each hidden file is probed once (HEAD), as the listing
			// would have it (the frozen catalog is asked for again).
			for _, name := range tc.hide {
				if n := counts.matching(func(status, method, path string) bool {
					return status != "404" && method == "HEAD" && path == "/versions/"+id+"/"+name
				}); n == 0 || n > 1 && name != "ducklake.duckdb" {
					t.Errorf("%d HEAD requests for hidden %s, want 1", n, name)
				}
			}
		})
	}
}

// TestUnlistedRequests: on a site whose listings show every file, the
// probes cost one request per version (its expired.json, which a live
// version does not have), and resolve one (the expired.json of the version
// it picks).
func TestUnlistedRequests(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	ids := versionIDs(t, root)
	counts, h := hidingSite(t, root, ids[2], nil, nil)
	site := webSite(t, h)
	if _, err := Check(ctx, site, Options{Versions: []string{ids[2]}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"HEAD expired.json": len(ids)}
	if got := counts.absentProbes(); !maps.Equal(got, want) {
		t.Errorf("check: requests answered 404 in version folders %v, want %v", got, want)
	}
	// A listed file is not probed: one request for each version's
	// version.json, as without probes (mutation test, session 23: two):
	// the walk's GET of it, in place of its HEAD and the GET after it.
	if n := counts.matching(func(status, method, path string) bool {
		return strings.HasPrefix(path, "/versions/") && strings.HasSuffix(path, "/version.json")
	}); n != len(ids) {
		t.Errorf("check: %d requests for listed version.json files, want %d", n, len(ids))
	}
	if n := counts.matching(func(status, method, path string) bool {
		return status == "200" && method == "GET" && strings.HasPrefix(path, "/versions/") && strings.HasSuffix(path, "/version.json")
	}); n != len(ids) {
		t.Errorf("check: %d GETs of listed version.json files, want %d (the walk's)", n, len(ids))
	}
	counts.n = map[string]int{}
	if _, err := Resolve(ctx, site, ResolveOptions{DuckDB: "1.5.6"}); err != nil {
		t.Fatal(err)
	}
	if n := counts.matching(func(_, _, path string) bool { return strings.HasSuffix(path, "/expired.json") }); n != 1 {
		t.Errorf("resolve: %d requests for expired.json, want 1 (the latest's)", n)
	}
}

// TestResolveUnlistedExpired: resolve passes over, newest first, a version
// whose expired.json the listing leaves out but the server gives, as
// readers refuse it; before, it sent readers to the withdrawn version as
// the latest. A probe answered 500 is an error, naming the file. A
// version asked for by ID is refused as expired.
func TestResolveUnlistedExpired(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	ids := versionIDs(t, root)
	for _, id := range ids[1:] {
		writeFile(t, filepath.Join(root, "versions", id, "expired.json"), `{"reason": "withdrawn"}`)
	}
	files := http.FileServer(http.Dir(root))
	var fail bool
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/expired.json") && fail {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/versions/") && strings.Count(r.URL.Path, "/") == 3 && strings.HasSuffix(r.URL.Path, "/") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<a href="dataset.json">dataset.json</a> <a href="ducklake.duckdb">ducklake.duckdb</a> <a href="files.json">files.json</a> <a href="version.json">version.json</a>`)
			return
		}
		files.ServeHTTP(w, r)
	}))
	res, err := Resolve(ctx, site, ResolveOptions{DuckDB: "1.5.6"})
	if err != nil || res.Version != ids[0] {
		t.Errorf("Resolve(latest) = %+v, %v; want version %s", res, err, ids[0])
	}
	if _, err := Resolve(ctx, site, ResolveOptions{Version: ids[2], DuckDB: "1.5.6"}); !errors.Is(err, ErrNoCatalog) || !strings.Contains(err.Error(), "withdrawn (expired.json)") {
		t.Errorf("Resolve(%s) = %v, want it refused as withdrawn", ids[2], err)
	}
	fail = true
	want := "probe a file the server's folder listing does not show: stat " + site.BaseURL() + "versions/" + ids[2] + "/expired.json: HEAD answered 500"
	if _, err := Resolve(ctx, site, ResolveOptions{DuckDB: "1.5.6"}); err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "/expired.json") != 1 {
		t.Errorf("Resolve(latest) with expired.json answered 500 = %v, want an error saying %q, naming the file once", err, want)
	}
}
