package repo

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
)

// etagRewriter lets a test change the ETag header of a server's answers
// before they are sent.
type etagRewriter struct {
	http.ResponseWriter
	path string
	fix  func(path string, h http.Header)
	done bool
}

func (w *etagRewriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		w.fix(w.path, w.Header())
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *etagRewriter) Write(p []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

func (w *etagRewriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestWebFrozenCatalogWeakThenStrong: a frozen catalog cached from a weak
// ETag's answer (W/"x", which names no bytes) is not taken for a later
// strong "x" without its bytes read: on a server that ignores Range, the
// whole answer of a catalog whose bytes changed at the same size, now
// sent under the strong "x", is read and the change reported. Before, the
// cache's record kept the validator alone, the answer was closed after its
// headers and the cached copy taken: the warm check passed on bytes the
// server no longer had.
func TestWebFrozenCatalogWeakThenStrong(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a lake on a web server")
	}
	ctx := context.Background()
	root, _ := demoRepo(ctx, t)
	id := versionIDs(t, root)[2]
	frozen := "/versions/" + id + "/ducklake.duckdb"

	var mu sync.Mutex
	strong := false
	cold := map[string]string{} // the ETag each path was first sent with
	files := webtest.Handler(root, webtest.Options{Validators: webtest.WeakETag, IgnoreRange: true})
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		files.ServeHTTP(&etagRewriter{ResponseWriter: w, path: r.URL.Path, fix: func(path string, h http.Header) {
			mu.Lock()
			defer mu.Unlock()
			etag := h.Get("ETag")
			if etag == "" {
				return
			}
			if _, ok := cold[path]; !ok {
				cold[path] = etag
			}
			if strong {
				// The value first sent for the path, now strong.
				h.Set("ETag", strings.TrimPrefix(cold[path], "W/"))
			}
		}}, r)
	}))
	opts := Options{Versions: []string{"3"}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()}

	rep, err := Check(ctx, site, opts)
	if err != nil {
		t.Fatalf("cold check: %v", err)
	}
	if tr := rep.Transfer; tr == nil || tr.CatalogsCached != 0 {
		t.Fatalf("cold check: transfer %+v, want no catalog from the cache", tr)
	}
	records, _ := filepath.Glob(filepath.Join(opts.Cache, "objects", "*.catalogs", "*"+validatorSuffix))
	if len(records) == 0 {
		t.Fatal("cold check: no frozen catalog cached")
	}

	// Other bytes of the same size, sent under the strong form of the
	// weak ETag the cached copy was delivered with.
	p := filepath.Join(root, filepath.FromSlash(frozen))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	strong = true
	if !strings.HasPrefix(cold[frozen], "W/") {
		t.Fatalf("cold check: %s sent with ETag %q, want a weak one", frozen, cold[frozen])
	}
	mu.Unlock()

	rep, err = Check(ctx, site, opts)
	if !errors.Is(err, ErrDifferences) {
		t.Fatalf("warm check, %s changed under the strong form of its weak ETag: %v (transfer %+v), want %v",
			frozen, err, rep.Transfer, ErrDifferences)
	}
	found := false
	for _, f := range rep.Findings {
		if strings.Contains(f.Detail, strings.TrimPrefix(frozen, "/")) && strings.Contains(f.Detail, "sha256") {
			found = true
		}
	}
	if !found {
		t.Errorf("warm check: no finding names %s's sha256: %+v", frozen, rep.Findings)
	}
}

// TestFrozenGate: the whole answers a cached frozen catalog drops unread
// (frozenGate) are those of its size under its record's validator where
// that validator vouches for the bytes (vouchesForBytes): a Last-Modified
// and size, an ETag made of them, or a content ETag strong now and when the
// copy was delivered. A record of an earlier release (the validator alone)
// is taken as not strong: its content ETag's answer is read once more.
// Before, a record of a weak ETag dropped the same value's strong answer.
func TestFrozenGate(t *testing.T) {
	t.Parallel()
	mod := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	const size = 4096
	nginx := strconv.FormatInt(mod.Unix(), 16) + "-" + strconv.FormatInt(size, 16)
	lastMod := validator(store.ObjectInfo{ModTime: mod, Size: size})
	record := func(v string, strong bool) string {
		return copyRecord{validator: v, size: size, sha256: "sum", strong: strong, stamp: "stamp"}.encode()
	}
	for _, tc := range []struct {
		name   string
		record string // the validator file's text
		info   store.ObjectInfo
		drop   bool
	}{
		{"strong ETag", record("etag abc", true), store.ObjectInfo{ETag: "abc", ModTime: mod, Size: size}, true},
		{"strong ETag, another size", record("etag abc", true), store.ObjectInfo{ETag: "abc", ModTime: mod, Size: size + 1}, false},
		{"another strong ETag", record("etag abc", true), store.ObjectInfo{ETag: "abd", ModTime: mod, Size: size}, false},
		{"strong ETag now weak", record("etag abc", true), store.ObjectInfo{ETag: "abc", WeakETag: true, ModTime: mod, Size: size}, false},
		{"weak ETag", record("etag abc", false), store.ObjectInfo{ETag: "abc", WeakETag: true, ModTime: mod, Size: size}, false},
		{"weak ETag now strong", record("etag abc", false), store.ObjectInfo{ETag: "abc", ModTime: mod, Size: size}, false},
		{"Last-Modified", record(lastMod, false), store.ObjectInfo{ModTime: mod, Size: size}, true},
		{"time-and-size ETag", record("etag "+nginx, false), store.ObjectInfo{ETag: nginx, ModTime: mod, Size: size}, true},
		{"earlier release, content ETag", "etag abc", store.ObjectInfo{ETag: "abc", ModTime: mod, Size: size}, false},
		{"earlier release, Last-Modified", lastMod, store.ObjectInfo{ModTime: mod, Size: size}, true},
		{"earlier release, time-and-size ETag", "etag " + nginx, store.ObjectInfo{ETag: nginx, ModTime: mod, Size: size}, true},
		{"earlier release, weak ETag", "etag abc", store.ObjectInfo{ETag: "abc", WeakETag: true, ModTime: mod, Size: size}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rm := &remote{catalogDir: dir}
			ref := &fdljson.FileRef{Bytes: size, SHA256: strings.Repeat("ab", 32)}
			cached, ok := rm.frozenPath(ref)
			if !ok {
				t.Fatal("no cache path")
			}
			if err := os.WriteFile(cached, make([]byte, size), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cached+validatorSuffix, []byte(tc.record), 0o644); err != nil {
				t.Fatal(err)
			}
			gate := rm.frozenGate(ref)
			if gate == nil {
				t.Fatal("no gate for a cached catalog")
			}
			if got := gate(tc.info); got != tc.drop {
				t.Errorf("answer %+v, record %q: drop %v, want %v", tc.info, tc.record, got, tc.drop)
			}
		})
	}
}
