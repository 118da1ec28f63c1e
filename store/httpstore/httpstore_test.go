package httpstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// serve publishes files (key -> content) under /site/lake/ with Go's file
// server, folder listings on, and returns the repository URL.
func serve(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for k, v := range files {
		p := filepath.Join(root, "lake", filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.StripPrefix("/site/", http.FileServer(http.Dir(root))))
	t.Cleanup(srv.Close)
	return srv.URL + "/site/lake"
}

func TestHTTPStore(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"fdl.json":                       "{}",
		"versions/a/version.json":        "va",
		"versions/a/catalogs/1.0.duckdb": "cat",
		"versions/b c/version.json":      "vb",
		"versionsx":                      "x",
		"data/main/t/f.parquet":          "PAR1",
	}
	st, err := httpstore.New(serve(t, files), nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := st.Open(ctx, "versions/a/version.json")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "va" {
		t.Errorf("Open = %q", got)
	}
	info, err := st.Stat(ctx, "data/main/t/f.parquet")
	if err != nil || info.Size != 4 {
		t.Errorf("Stat = %+v, %v; want size 4", info, err)
	}
	// The GET describes the object as the HEAD does (Go's file server:
	// Last-Modified and length, no ETag).
	rc, got2, err := st.OpenInfo(ctx, "data/main/t/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if got2 != info || info.ModTime.IsZero() {
		t.Errorf("OpenInfo describes %+v, Stat %+v", got2, info)
	}
	tail, got3, err := st.ReadTail(ctx, "data/main/t/f.parquet", 2)
	if err != nil || string(tail) != "R1" || got3 != info {
		t.Errorf("ReadTail = %q, %+v, %v; want %q, %+v", tail, got3, err, "R1", info)
	}
	for _, k := range []string{"nope", "versions/a", "versions/a/nope.json"} {
		if _, err := st.Open(ctx, k); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want fs.ErrNotExist", k, err)
		}
		if _, err := st.Stat(ctx, k); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%q) = %v, want fs.ErrNotExist", k, err)
		}
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"versions/", []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b c/version.json"}},
		{"versions", []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b c/version.json", "versionsx"}},
		{"versions/a/v", []string{"versions/a/version.json"}},
	} {
		list, err := st.List(ctx, tc.prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", tc.prefix, err)
		}
		var keys []string
		for _, o := range list {
			keys = append(keys, o.Key)
		}
		if !slices.Equal(keys, tc.want) && !(len(keys) == 0 && len(tc.want) == 0) {
			t.Errorf("List(%q) = %q, want %q", tc.prefix, keys, tc.want)
		}
	}
	// A folder that answers 404 may be unlisted rather than absent: an
	// error, never "nothing there".
	if list, err := st.List(ctx, "nothing/"); !errors.Is(err, store.ErrNoListing) || !strings.Contains(err.Error(), "/site/lake/nothing/") {
		t.Errorf("List(nothing/) = %v, %v; want ErrNoListing naming the folder", list, err)
	}
	if err := st.Create(ctx, "new", strings.NewReader("x")); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("Create = %v, want ErrReadOnly", err)
	}
	if _, err := st.Open(ctx, "../up"); !errors.Is(err, store.ErrInvalidKey) {
		t.Errorf("Open(../up) = %v, want ErrInvalidKey", err)
	}
}

func TestNewRejects(t *testing.T) {
	for _, u := range []string{"ftp://h/x", "https://user:pw@h/x", "http:///x"} {
		if _, err := httpstore.New(u, nil); err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("New(%q) = %v, want an error without the password", u, err)
		}
	}
}

// TestListings lists a repository through the folder listings of the
// servers repositories are published on: links relative, absolute, full
// URLs or without a folder's slash are understood; a server whose folders
// answer 404, or whose listing links nothing below the folder, is an error
// naming the folder (store.ErrNoListing) rather than an empty repository.
func TestListings(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for k, v := range map[string]string{
		"lake/fdl.json":                       "{}",
		"lake/versions/a/version.json":        "va",
		"lake/versions/a/catalogs/1.0.duckdb": "cat",
		"lake/versions/b c:d/version.json":    "vb",
		"lake/versionsx":                      "x",
		"lake/data/main/t/f.parquet":          "PAR1",
		"other/versions/c/version.json":       "vc",
	} {
		p := filepath.Join(root, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b c:d/version.json"}
	for _, tc := range []struct {
		name    string
		listing webtest.Listing
		noList  string // "": lists want; else the error names this folder
	}{
		{"relative links", webtest.Relative, ""},
		{"absolute paths", webtest.AbsolutePath, ""},
		{"full URLs", webtest.FullURL, ""},
		{"folders without slash", webtest.NoSlash, ""},
		{"404 for folders", webtest.None, "/lake/versions/"},
		{"links elsewhere", webtest.Stray, "/lake/versions/"},
		{"403 for folders (nginx, Apache without listings)", webtest.Forbidden, "/lake/versions/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := httpstore.New(webtest.Serve(t, root, webtest.Options{Listing: tc.listing})+"/lake", nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Stat(ctx, "versions/a/version.json"); err != nil {
				t.Fatalf("the version is served: %v", err)
			}
			list, err := st.List(ctx, "versions/")
			if tc.noList != "" {
				var le *httpstore.ListingError
				if !errors.Is(err, store.ErrNoListing) || !errors.As(err, &le) || !strings.HasSuffix(le.URL, tc.noList) || le.Hint() == "" {
					t.Fatalf("List(versions/) = %v, %v; want ErrNoListing naming %s", list, err, tc.noList)
				}
				return
			}
			if err != nil {
				t.Fatalf("List(versions/): %v", err)
			}
			var keys []string
			for _, o := range list {
				keys = append(keys, o.Key)
			}
			if !slices.Equal(keys, want) {
				t.Errorf("List(versions/) = %q, want %q", keys, want)
			}
			if list[1].Size != 2 || list[1].ModTime.IsZero() {
				t.Errorf("List: %+v, want size 2 and a modification time", list[1])
			}
		})
	}
}

// TestListingLinksDeeper: an index page that links files further down
// ("b/index.html", "c/d/e.json") shows its subfolders, which are walked
// through their own listings, as is a folder linked without its slash and
// served at both addresses, whose listing is fetched once.
func TestListingLinksDeeper(t *testing.T) {
	pages := map[string]string{
		"/lake/versions/": `<a href="a/index.html">a</a> <a href="/lake/versions/b/c/version.json">b</a> <a href="d">d</a>`,
		// A folder linked without its slash, whose listing the server
		// gives at both addresses, without redirecting.
		"/lake/versions/d":    `<a href="d/version.json">v</a>`,
		"/lake/versions/d/":   `<a href="version.json">v</a>`,
		"/lake/versions/a/":   `<a href="version.json">v</a>`,
		"/lake/versions/b/":   `<a href="c/">c</a>`,
		"/lake/versions/b/c/": `<a href="version.json">v</a>`,
	}
	var mu sync.Mutex
	gets := map[string]int{} // path -> GET requests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			gets[r.URL.Path]++
			mu.Unlock()
		}
		if page, ok := pages[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/version.json") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	st, err := httpstore.New(srv.URL+"/lake", nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := st.List(context.Background(), "versions/")
	var keys []string
	for _, o := range list {
		keys = append(keys, o.Key)
	}
	if want := []string{"versions/a/version.json", "versions/b/c/version.json", "versions/d/version.json"}; err != nil || !slices.Equal(keys, want) {
		t.Errorf("List(versions/) = %q, %v; want %q", keys, err, want)
	}
	mu.Lock()
	defer mu.Unlock()
	for page := range pages {
		if strings.HasSuffix(page, "/") && gets[page] != 1 {
			t.Errorf("GET %s: %d requests, want the listing fetched once", page, gets[page])
		}
	}
}

// TestListFolders: ListFolders lists what List does and also gives the
// folders below the prefix whose listings the walk read, those whose pages
// link no file too (an empty page, a page linking only an empty
// catalogs/, a folder linked without its slash and served at both
// addresses), for no request more than List; through a Counter too
// (store.ListFolders). A folder whose page answers 404 is still an error.
func TestListFolders(t *testing.T) {
	pages := map[string]string{
		"/lake/versions/":            `<a href="../">..</a> <a href="a/">a</a> <a href="e/">e</a> <a href="c/">c</a> <a href="d">d</a>`,
		"/lake/versions/a/":          `<a href="version.json">v</a>`,
		"/lake/versions/e/":          `<a href="../">..</a>`,
		"/lake/versions/c/":          `<a href="catalogs/">catalogs</a>`,
		"/lake/versions/c/catalogs/": ``,
		"/lake/versions/d":           `<a href="d/">d</a>`,
		"/lake/versions/d/":          ``,
	}
	var mu sync.Mutex
	requests, missing := 0, false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		gone := missing && r.URL.Path == "/lake/versions/e/"
		mu.Unlock()
		if page, ok := pages[r.URL.Path]; ok && !gone {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page)
			return
		}
		if r.URL.Path == "/lake/versions/a/version.json" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	site, err := httpstore.New(srv.URL+"/lake", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		prefix  string
		folders []string
	}{
		{"versions/", []string{"versions/a/", "versions/c/", "versions/c/catalogs/", "versions/d/", "versions/e/"}},
		{"versions/c", []string{"versions/c/", "versions/c/catalogs/"}},
		{"versions/c/", []string{"versions/c/catalogs/"}},
		{"versions/a/v", nil},
	} {
		mu.Lock()
		requests = 0
		mu.Unlock()
		list, err := site.List(ctx, tc.prefix)
		if err != nil {
			t.Fatalf("List(%s): %v", tc.prefix, err)
		}
		mu.Lock()
		listRequests := requests
		requests = 0
		mu.Unlock()
		for _, st := range []store.Store{site, store.NewCounter(site)} {
			objs, folders, err := store.ListFolders(ctx, st, tc.prefix)
			if err != nil || !slices.Equal(objs, list) || !slices.Equal(folders, tc.folders) {
				t.Errorf("ListFolders(%s) = %v, %q, %v; want List's %v and %q", tc.prefix, objs, folders, err, list, tc.folders)
			}
		}
		mu.Lock()
		if requests != 2*listRequests {
			t.Errorf("ListFolders(%s): %d requests for two lists, List %d for one", tc.prefix, requests, listRequests)
		}
		mu.Unlock()
	}
	mu.Lock()
	missing = true
	mu.Unlock()
	if _, _, err := site.ListFolders(ctx, "versions/"); !errors.Is(err, store.ErrNoListing) || !strings.Contains(err.Error(), "/lake/versions/e/") {
		t.Errorf("ListFolders(versions/) with a folder answering 404 = %v, want ErrNoListing naming it", err)
	}
	// Stores that list every object give no folders.
	mem := store.NewMem()
	if err := mem.Create(ctx, "versions/a/version.json", strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	if objs, folders, err := store.ListFolders(ctx, mem, "versions/"); err != nil || len(objs) != 1 || folders != nil {
		t.Errorf("ListFolders(memory) = %v, %q, %v; want its one object and no folders", objs, folders, err)
	}
}

// TestListsPartially: a web site lists only what its index pages link, and
// says so through the wrappers a run puts around it; other stores do not.
func TestListsPartially(t *testing.T) {
	site, err := httpstore.New("https://example.org/lake/", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		st   store.Store
		want bool
	}{
		{"web site", site, true},
		{"web site behind a counter", store.NewCounter(site), true},
		{"memory", store.NewMem(), false},
		{"memory behind a counter", store.NewCounter(store.NewMem()), false},
	} {
		if got := store.ListsPartially(tc.st); got != tc.want {
			t.Errorf("%s: ListsPartially = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPercentSentAsDuckDBSendsIt pins how a key holding a "%" (DuckDB
// escapes hive partition values so: name=hello%20world) is asked for: as
// DuckDB asks for it, the escape sent as it is (url.JoinPath takes its
// parts as escaped), so the web server decodes it and the check opens the
// file readers open, not the one a folder holds under the literal name.
func TestPercentSentAsDuckDBSendsIt(t *testing.T) {
	ctx := context.Background()
	st, err := httpstore.New(serve(t, map[string]string{
		"data/name=hello world/f.parquet":   "decoded",
		"data/name=hello%20world/f.parquet": "literal",
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := st.Open(ctx, "data/name=hello%20world/f.parquet")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "decoded" {
		t.Errorf("Open(name=hello%%20world) = %q, want the file readers open, %q", got, "decoded")
	}
	// A "%" that starts no escape is no key: url.JoinPath would give the
	// repository's own address (its index page) instead.
	for _, k := range []string{"data/x%zz.parquet", "data/100%.parquet"} {
		if _, err := st.Open(ctx, k); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Open(%q) = %v, want ErrInvalidKey", k, err)
		}
		if _, err := st.Stat(ctx, k); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("Stat(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
	// The base URL's own escapes are kept as they are.
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a%b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a%b", "fdl.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)
	st, err = httpstore.New(srv.URL+"/a%25b/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := st.Stat(ctx, "fdl.json"); err != nil || info.Size != 2 {
		t.Errorf("Stat(fdl.json) under a base URL holding %%25 = %+v, %v", info, err)
	}
}

// TestListingDepth: a site whose listings link ever deeper folders (a link
// loop on the server) stops the walk at 16 folders below its start, with
// an error naming the folder, whether it links folders with their slash or
// without (served as listings at both addresses), and fetches no listing
// far past that depth.
func TestListingDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		link string
	}{{"slash", `<a href="x/">x</a>`}, {"no slash", `<a href="x">x</a>`}} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			listings := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !strings.HasPrefix(r.URL.Path, "/lake/versions") {
					http.NotFound(w, r)
					return
				}
				if r.Method == http.MethodGet {
					mu.Lock()
					listings++
					mu.Unlock()
				}
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, tc.link)
			}))
			defer srv.Close()
			st, err := httpstore.New(srv.URL+"/lake", nil)
			if err != nil {
				t.Fatal(err)
			}
			list, err := st.List(context.Background(), "versions/")
			// The folder named once, by its URL, as listings' errors are.
			want := "list " + srv.URL + "/lake/versions/" + strings.Repeat("x/", 17) + ": folders nested more than 16 deep"
			if err == nil || err.Error() != want {
				t.Fatalf("List(versions/) = %d objects, %v; want the error %q", len(list), err, want)
			}
			if mu.Lock(); listings > 18 {
				t.Errorf("%d listings fetched, want at most 18 (16 folders deep, and the start)", listings)
			}
			mu.Unlock()
		})
	}
}

// TestReadTail: the end of a file by a HEAD and a GET of the explicit
// range, as DuckDB reads it (a server mishandling suffix ranges, which
// DuckDB never sends, still reads); a server that ignores ranges (200 and
// the whole file, which DuckDB then downloads whole and reads) is read to
// its end for the tail, and must send the HEAD's size (no tail was read,
// and a --data check compared nothing); an unknown complete length takes
// the size from a HEAD; a ranged answer that is not the file's end, or
// holds other bytes than it says, is an error (DuckDB's ranged reads fail
// on it), as is a GET whose ETag is not the HEAD's once quotes are off
// (DuckDB fails the read: "ETag ... was initially ... and now it
// returned ...").
func TestReadTail(t *testing.T) {
	ctx := context.Background()
	body := strings.Repeat("x", 100_000) + "footPAR1"
	// etags serves body with one ETag to HEAD and another to GET.
	etags := func(head, get string, ranges bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", head)
			if r.Method == http.MethodGet {
				w.Header().Set("ETag", get)
				if !ranges {
					w.Header().Set("Content-Length", fmt.Sprint(len(body)))
					io.WriteString(w, body)
					return
				}
			}
			http.ServeContent(w, r, "f.parquet", time.Time{}, strings.NewReader(body))
		}
	}
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		want string // tail, or a phrase of the error
		ok   bool
		// ignored: the server answered the range with the whole file
		// (info.IgnoredRange), which DuckDB 1.3 fails on
		ignored bool
	}{
		{"ranges", func(w http.ResponseWriter, r *http.Request) {
			http.ServeContent(w, r, "f.parquet", time.Time{}, strings.NewReader(body))
		}, "PAR1", true, false},
		{"suffix ranges mishandled, as DuckDB never sends them", func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.Header.Get("Range"), "bytes=-") {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-3/%d", len(body)))
				w.WriteHeader(http.StatusPartialContent)
				io.WriteString(w, body[:4])
				return
			}
			http.ServeContent(w, r, "f.parquet", time.Time{}, strings.NewReader(body))
		}, "PAR1", true, false},
		{"no ranges", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			io.WriteString(w, body)
		}, "PAR1", true, true},
		{"no ranges, chunked", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				return
			}
			io.WriteString(w, body[:50_000])
			w.(http.Flusher).Flush()
			io.WriteString(w, body[50_000:])
		}, "PAR1", true, true},
		{"no ranges, a shorter file than its HEAD", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			if r.Method == http.MethodGet {
				w.Header().Set("Content-Length", fmt.Sprint(len(body)-1))
				io.WriteString(w, body[1:])
			}
		}, "the whole-object answer holds 100007 bytes, the object has 100008", false, false},
		{"the same ETag", etags(`"v1"`, `"v1"`, true), "PAR1", true, false},
		{"the same ETag, quoted by the HEAD only", etags(`"v1"`, `v1`, true), "PAR1", true, false},
		{"an ETag by the HEAD only", etags(`"v1"`, ``, true), "PAR1", true, false},
		{"the ETag changed", etags(`"v1"`, `"v2"`, true), `f.parquet: ETag "v1" by its HEAD, "v2" by its ranged GET`, false, false},
		{"a weak ETag by the GET", etags(`"v1"`, `W/"v1"`, true), `ETag "v1" by its HEAD, W/"v1" by its ranged GET`, false, false},
		{"the ETag changed, no ranges", etags(`"v1"`, `"v2"`, false), `ETag "v1" by its HEAD, "v2" by its ranged GET`, false, false},
		{"unknown complete length", func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				return
			}
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/*", len(body)-4, len(body)-1))
			w.WriteHeader(http.StatusPartialContent)
			io.WriteString(w, body[len(body)-4:])
		}, "PAR1", true, false},
		{"a range from the start", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-3/%d", len(body)))
			w.WriteHeader(http.StatusPartialContent)
			io.WriteString(w, body[:4])
		}, "is not the object's end", false, false},
		{"fewer bytes than the range", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", len(body)-4, len(body)-1, len(body)))
			w.WriteHeader(http.StatusPartialContent)
			io.WriteString(w, "R1")
		}, "the answer held 2", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			t.Cleanup(srv.Close)
			st, err := httpstore.New(srv.URL+"/", srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			tail, info, err := st.ReadTail(ctx, "f.parquet", 4)
			if tc.ok {
				if err != nil || string(tail) != tc.want || info.Size != int64(len(body)) || info.IgnoredRange != tc.ignored {
					t.Errorf("ReadTail = %q, size %d, ignored range %t, %v; want %q, size %d, ignored range %t", tail, info.Size, info.IgnoredRange, err, tc.want, len(body), tc.ignored)
				}
				// ReadTailKeep also hands over a whole answer (the
				// download a caller needing the file adopts), and
				// nothing of a ranged one.
				var whole bytes.Buffer
				tail, _, kept, err := st.ReadTailKeep(ctx, "f.parquet", 4, &whole)
				if want := map[bool]string{true: body}[tc.ignored]; err != nil || string(tail) != tc.want || kept != tc.ignored || whole.String() != want {
					t.Errorf("ReadTailKeep = %q, kept %t (%d bytes), %v; want %q, kept %t (%d bytes)", tail, kept, whole.Len(), err, tc.want, tc.ignored, len(want))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadTail = %q, %v; want an error containing %q", tail, err, tc.want)
			}
		})
	}
}

// TestReadTailWholeFileAsked: a server that ignores ranges, asked for a
// range that is the whole file (one no longer than the tail), sends what
// was asked: DuckDB 1.3 reads that answer, so it is no ignored range.
func TestReadTailWholeFileAsked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4")
		io.WriteString(w, "PAR1")
	}))
	t.Cleanup(srv.Close)
	st, err := httpstore.New(srv.URL+"/", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	tail, info, err := st.ReadTail(context.Background(), "f.parquet", 8)
	if err != nil || string(tail) != "PAR1" || info.Size != 4 || info.IgnoredRange {
		t.Errorf("ReadTail = %q, size %d, ignored range %t, %v; want PAR1, size 4, not ignored", tail, info.Size, info.IgnoredRange, err)
	}
}

// TestEncodedAnswers: the store asks for the bytes as stored (no gzip, as
// DuckDB) and refuses an answer encoded all the same: readers get the
// encoded bytes, not the file. The refusal is a *SetupError (Encoded)
// naming the file, the request and the encoding, with a hint to serve
// the files without Content-Encoding, from every request that meets it:
// the HEAD of Stat (the folder walk's, which stopped the run with Go's
// wording and no hint), the GET of Open, the ranged GET of ReadTail and
// a folder's listing.
func TestEncodedAnswers(t *testing.T) {
	ctx := context.Background()
	const body = "....PAR1"
	type call struct {
		name string
		do   func(*httpstore.Store) error
	}
	open := call{"Open", func(st *httpstore.Store) error {
		rc, err := st.Open(ctx, "f.parquet")
		if err != nil {
			return err
		}
		defer rc.Close()
		got, err := io.ReadAll(rc)
		if err == nil && string(got) != body {
			err = fmt.Errorf("read %q, want %q", got, body)
		}
		return err
	}}
	stat := call{"Stat", func(st *httpstore.Store) error { _, err := st.Stat(ctx, "f.parquet"); return err }}
	tail := call{"ReadTail", func(st *httpstore.Store) error { _, _, err := st.ReadTail(ctx, "f.parquet", 4); return err }}
	list := call{"List", func(st *httpstore.Store) error { _, err := st.List(ctx, "versions/"); return err }}
	gzipped := func(w http.ResponseWriter) {
		w.Header().Set("Content-Encoding", "gzip")
		io.WriteString(w, "\x1f\x8b not the file")
	}
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		calls   []call
		request string // "" for no error; else the request the error names
	}{
		{"gzip only when asked", func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				gzipped(w)
				return
			}
			http.ServeContent(w, r, "f.parquet", time.Time{}, strings.NewReader(body))
		}, []call{open, stat, tail}, ""},
		{"gzip unasked, to GET", func(w http.ResponseWriter, r *http.Request) {
			gzipped(w)
		}, []call{open}, "GET "},
		{"gzip unasked, to HEAD", func(w http.ResponseWriter, r *http.Request) {
			gzipped(w)
		}, []call{stat, tail}, "HEAD "},
		{"gzip unasked, to ranged GETs only", func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Range") != "" {
				gzipped(w)
				return
			}
			http.ServeContent(w, r, "f.parquet", time.Time{}, strings.NewReader(body))
		}, []call{tail}, "GET "},
		{"gzip unasked, a listing", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			gzipped(w)
		}, []call{list}, "GET "},
	} {
		for _, c := range tc.calls {
			t.Run(tc.name+", "+c.name, func(t *testing.T) {
				srv := httptest.NewServer(tc.h)
				t.Cleanup(srv.Close)
				st, err := httpstore.New(srv.URL+"/", srv.Client())
				if err != nil {
					t.Fatal(err)
				}
				err = c.do(st)
				if tc.request == "" {
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					return
				}
				var se *httpstore.SetupError
				if !errors.As(err, &se) || se.Problem != httpstore.Encoded {
					t.Fatalf("%s: %v (%T), want a *SetupError of Problem Encoded", c.name, err, err)
				}
				msg := err.Error()
				for _, want := range []string{" " + srv.URL + "/", `with Content-Encoding "gzip" though none was asked for (to a ` + strings.TrimSpace(tc.request) + "): ", "readers get the encoded bytes, not the file"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: %q, want it to contain %q", c.name, msg, want)
					}
				}
				if c.name != "List" && !strings.Contains(msg, " "+srv.URL+"/f.parquet: ") {
					t.Errorf("%s: %q names no file", c.name, msg)
				}
				if !strings.Contains(se.Hint(), "without Content-Encoding") || !strings.Contains(se.Hint(), "gzip_static") {
					t.Errorf("%s: hint %q", c.name, se.Hint())
				}
			})
		}
	}
}

// TestGETSize: the size a GET gives, asked where a HEAD's size disagrees
// with a recorded one: a ranged answer's complete length, the bytes of a
// whole answer from a server that ignores the range, 0 for an empty file
// (416, "bytes */0"); an answer that tells no size, or is encoded, is an
// error.
func TestGETSize(t *testing.T) {
	const body = "0123456789"
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		want int64
		err  string
	}{
		{"ranged", func(w http.ResponseWriter, r *http.Request) {
			http.ServeContent(w, r, "f", time.Time{}, strings.NewReader(body))
		}, int64(len(body)), ""},
		{"range ignored", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, body)
		}, int64(len(body)), ""},
		{"empty file", func(w http.ResponseWriter, r *http.Request) {
			http.ServeContent(w, r, "f", time.Time{}, strings.NewReader(""))
		}, 0, ""},
		{"unknown complete length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Range", "bytes 0-0/*")
			w.WriteHeader(http.StatusPartialContent)
			io.WriteString(w, "0")
		}, 0, "gives no complete length"},
		{"encoded", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "br")
			io.WriteString(w, body)
		}, 0, `Content-Encoding "br"`},
		{"missing", http.NotFound, 0, "file does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			t.Cleanup(srv.Close)
			st, err := httpstore.New(srv.URL+"/", srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			n, err := st.GETSize(context.Background(), "f")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("GETSize = %d, %v; want an error containing %q", n, err, tc.err)
				}
				return
			}
			if err != nil || n != tc.want {
				t.Errorf("GETSize = %d, %v; want %d", n, err, tc.want)
			}
		})
	}
}

// TestListWalksAtOnce: a walk asks for several version folders' listings
// and files at once, at most 8 (one at a time, N versions cost N times
// several round trips to a far server), finds what a walk one at a time
// found, and of several folders without a listing names the first in
// the listing's order, whichever answers first.
func TestListWalksAtOnce(t *testing.T) {
	const versions = 20
	var ids []string
	pages := map[string]string{}
	top := ""
	for i := range versions {
		id := fmt.Sprintf("v%02d", i)
		ids = append(ids, id)
		top += fmt.Sprintf(`<a href="%s/">%s</a> `, id, id)
		pages["/lake/versions/"+id+"/"] = `<a href="version.json">v</a> <a href="files.json">f</a>`
	}
	pages["/lake/versions/"] = top
	var (
		mu             sync.Mutex
		inFlight, most int
		failing        map[string]bool
		two            = make(chan struct{})
		twoOnce        sync.Once
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		fail := failing[r.URL.Path]
		if inFlight >= 2 {
			twoOnce.Do(func() { close(two) })
		}
		mu.Unlock()
		defer func() {
			mu.Lock()
			inFlight--
			mu.Unlock()
		}()
		if r.URL.Path != "/lake/versions/" {
			// A request below versions/ waits for a second one, so that
			// a walk asking several at once is seen doing so; one asking
			// one at a time waits 5 s once, then no more.
			select {
			case <-two:
			case <-time.After(5 * time.Second):
				twoOnce.Do(func() { close(two) })
			}
		}
		if fail {
			http.NotFound(w, r)
			return
		}
		if page, ok := pages[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, page)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".json") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	site, err := httpstore.New(srv.URL+"/lake", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	objs, folders, err := site.ListFolders(ctx, "versions/")
	if err != nil {
		t.Fatal(err)
	}
	var wantKeys, wantFolders []string
	for _, id := range ids {
		wantKeys = append(wantKeys, "versions/"+id+"/files.json", "versions/"+id+"/version.json")
		wantFolders = append(wantFolders, "versions/"+id+"/")
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	if !slices.Equal(keys, wantKeys) || !slices.Equal(folders, wantFolders) {
		t.Errorf("ListFolders(versions/) = %q, %q; want %q, %q", keys, folders, wantKeys, wantFolders)
	}
	mu.Lock()
	if most < 2 || most > 8 {
		t.Errorf("the walk had at most %d requests in flight, want 2 to 8", most)
	}
	// Two folders without a listing: the error names the first of them
	// in versions/'s order, every time.
	failing = map[string]bool{"/lake/versions/v03/": true, "/lake/versions/v15/": true}
	mu.Unlock()
	for range 3 {
		_, _, err := site.ListFolders(ctx, "versions/")
		if !errors.Is(err, store.ErrNoListing) || !strings.Contains(err.Error(), "/lake/versions/v03/") {
			t.Fatalf("ListFolders(versions/) with v03/ and v15/ answering 404 = %v, want ErrNoListing naming v03/", err)
		}
	}
}

// TestReadTailOf: the ranged GET of an object's end without a HEAD, for
// an object this run's ReadTail described: one request, held to that
// description as ReadTail holds its GET to its HEAD (the ETag, weak or
// strong, and the object's size).
func TestReadTailOf(t *testing.T) {
	ctx := context.Background()
	body := strings.Repeat("x", 100_000) + "footPAR1"
	for _, tc := range []struct {
		name string
		etag string // the server's
		head store.ObjectInfo
		want string // the tail, or a phrase of the error
	}{
		{"the same object", `"v1"`, store.ObjectInfo{Size: int64(len(body)), ETag: "v1"}, "tPAR1"},
		{"no ETag", ``, store.ObjectInfo{Size: int64(len(body))}, "tPAR1"},
		{"the same weak ETag", `W/"v1"`, store.ObjectInfo{Size: int64(len(body)), ETag: "v1", WeakETag: true}, "tPAR1"},
		{"the ETag changed", `"v2"`, store.ObjectInfo{Size: int64(len(body)), ETag: "v1"}, `ETag "v1" by its HEAD, "v2" by its ranged GET`},
		{"a weak ETag now", `W/"v1"`, store.ObjectInfo{Size: int64(len(body)), ETag: "v1"}, `ETag "v1" by its HEAD, W/"v1" by its ranged GET`},
		{"the object grew", `"v1"`, store.ObjectInfo{Size: int64(len(body)) - 10, ETag: "v1"}, "100008 by its ranged GET (changed since?)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if tc.etag != "" {
					w.Header().Set("ETag", tc.etag)
				}
				http.ServeContent(w, r, "f.parquet", time.Time{}, strings.NewReader(body))
			}))
			t.Cleanup(srv.Close)
			st, err := httpstore.New(srv.URL+"/", srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			tail, info, _, err := st.ReadTailOf(ctx, "f.parquet", 5, tc.head, nil)
			if requests.Load() != 1 {
				t.Errorf("%d requests, want the ranged GET alone", requests.Load())
			}
			if !strings.HasPrefix(tc.want, "tPAR1") {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("ReadTailOf = %q, %v; want an error containing %q", tail, err, tc.want)
				}
				return
			}
			if err != nil || string(tail) != tc.want || info.Size != int64(len(body)) || info.ETag != tc.head.ETag || info.WeakETag != tc.head.WeakETag {
				t.Errorf("ReadTailOf = %q, %+v, %v; want %q of the object %+v", tail, info, err, tc.want, tc.head)
			}
		})
	}
}

// TestListRead: a walk that reads the files a caller selects (ListRead)
// asks each a plain GET, as readers do, in place of its HEAD: a file that
// fits is returned whole with its description, and the others keep their
// HEADs. An answer that cannot stand for the HEAD (a file larger than
// asked, a page, an encoded file) has the HEAD asked, and the walk finds
// and reports what it did before; ranges play no part (a server that
// ignores them answers the same).
func TestListRead(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{
		"v/small.json":  "{}",
		"v/large.json":  strings.Repeat("x", 50),
		"v/other.bin":   "abc",
		"v/page.json":   "<!DOCTYPE html><html><body>a page</body></html>",
		"v/zipped.json": "{}",
	}
	for k, v := range files {
		p := filepath.Join(root, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, ignoreRange := range []bool{false, true} {
		var mu sync.Mutex
		asked := map[string]int{}
		fsrv := http.FileServer(http.Dir(root))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			what := r.Method
			if r.Header.Get("Range") != "" {
				what += " ranged"
				if ignoreRange {
					r.Header.Del("Range")
				}
			}
			mu.Lock()
			asked[what+" "+r.URL.Path]++
			mu.Unlock()
			switch r.URL.Path {
			case "/v/page.json":
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
			case "/v/zipped.json":
				w.Header().Set("Content-Encoding", "gzip")
			}
			fsrv.ServeHTTP(w, r)
		}))
		st, err := httpstore.New(srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := store.NewCounter(st)
		_, _, _, err = store.ListRead(ctx, c, "v/", func(key string) bool { return strings.HasSuffix(key, ".json") }, 10)
		_, _, lerr := st.ListFolders(ctx, "v/")
		srv.Close()
		name := fmt.Sprintf("ignore range %v", ignoreRange)
		// The encoded file fails the walk as it failed ListFolders.
		if err == nil || lerr == nil || err.Error() != lerr.Error() || !strings.Contains(err.Error(), "Content-Encoding") {
			t.Fatalf("%s: ListRead = %v, want the encoded file's error, as ListFolders gives it: %v", name, err, lerr)
		}
		delete(files, "v/zipped.json")
		os.Remove(filepath.Join(root, "v", "zipped.json"))
		srv = httptest.NewServer(srv.Config.Handler)
		if st, err = httpstore.New(srv.URL, nil); err != nil {
			t.Fatal(err)
		}
		c = store.NewCounter(st)
		mu.Lock()
		clear(asked)
		mu.Unlock()
		objs, _, bodies, err := store.ListRead(ctx, c, "v/", func(key string) bool { return strings.HasSuffix(key, ".json") }, 10)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		mu.Lock()
		readAsked := maps.Clone(asked)
		mu.Unlock()
		lobjs, _, err := st.ListFolders(ctx, "v/")
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got, want []string
		for _, o := range objs {
			got = append(got, fmt.Sprintf("%s %d", o.Key, o.Size))
		}
		for _, o := range lobjs {
			want = append(want, fmt.Sprintf("%s %d", o.Key, o.Size))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || !strings.Contains(fmt.Sprint(got), "v/large.json 50") {
			t.Errorf("%s: objects %v, want those of ListFolders, %v", name, got, want)
		}
		if len(bodies) != 1 || string(bodies["v/small.json"]) != "{}" {
			t.Errorf("%s: bodies %q, want small.json's alone", name, bodies)
		}
		if c.Downloaded() != 2 {
			t.Errorf("%s: %d bytes counted, want small.json's 2", name, c.Downloaded())
		}
		// The requests of ListRead, against those of ListFolders: small.json
		// by its GET instead of its HEAD; large.json (larger than asked)
		// and the page by their GET and then what ListFolders asks.
		mu.Lock()
		listAsked := map[string]int{}
		for k, n := range asked {
			listAsked[k] = n - readAsked[k]
		}
		mu.Unlock()
		extra := map[string]int{"GET /v/small.json": 1, "HEAD /v/small.json": -1, "GET /v/large.json": 1, "GET /v/page.json": 1}
		for k := range maps.Keys(mapsUnion(readAsked, listAsked)) {
			if readAsked[k]-listAsked[k] != extra[k] {
				t.Errorf("%s: %s asked %d times by ListRead, %d by ListFolders, want %+d (ListRead %v, ListFolders %v)", name, k, readAsked[k], listAsked[k], extra[k], readAsked, listAsked)
			}
		}
		files["v/zipped.json"] = "{}"
		os.WriteFile(filepath.Join(root, "v", "zipped.json"), []byte("{}"), 0o644)
	}
}

// mapsUnion is a map holding the keys of a and b.
func mapsUnion(a, b map[string]int) map[string]int {
	out := maps.Clone(a)
	for k := range b {
		out[k] += 0
	}
	return out
}
