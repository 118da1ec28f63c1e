package repo

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// requestCounter counts the requests a run sends, by method, and its GETs
// by URL path.
type requestCounter struct {
	base    http.RoundTripper
	mu      sync.Mutex
	methods map[string]int
	gets    map[string]int
}

func (c *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	if c.methods == nil {
		c.methods, c.gets = map[string]int{}, map[string]int{}
	}
	c.methods[req.Method]++
	if req.Method == http.MethodGet {
		c.gets[req.URL.Path]++
	}
	c.mu.Unlock()
	return c.base.RoundTrip(req)
}

// getsOf is how many GETs asked for a path ending with key.
func (c *requestCounter) getsOf(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for p, k := range c.gets {
		if strings.HasSuffix(p, "/"+key) {
			n += k
		}
	}
	return n
}

// reset starts the counts again.
func (c *requestCounter) reset() {
	c.mu.Lock()
	c.methods, c.gets = nil, nil
	c.mu.Unlock()
}

func (c *requestCounter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(c.methods)) {
		parts = append(parts, m+" "+strconv.Itoa(c.methods[m]))
	}
	return strings.Join(parts, ", ")
}

// TestReaderHeadersFromProofCopies: on a web site and in a bucket, a cold
// check's reader matrix takes each proved catalog's DuckDB header from the
// copy its proof downloaded and held to the run's ranged read: a proved
// catalog costs two GETs (the ranged read of its end, the download), not
// a third one after the proofs for its header (before: three). The reader
// table is the same: every version read from its 1.1 catalog.
//
// A catalog changed in the store after its proof: within the run (version
// 1's replaced by version 2's as soon as its proof finished), the proofs
// and the reader table are of the bytes the run proved, and the check
// passes, as it did when it read the header again (the two catalogs have
// the same header); the next run, with the same cache, downloads the new
// bytes, proves them and finds the difference, its reader table from them
// too (nothing is carried from one run to the next).
func TestReaderHeadersFromProofCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a lake on a web site and in a bucket")
	}
	type site struct {
		store   store.Store
		replace func(t *testing.T, key string, body []byte)
	}
	for _, tc := range []struct {
		name  string
		serve func(t *testing.T, root string, rt *requestCounter) site
	}{
		{"web site", func(t *testing.T, root string, rt *requestCounter) site {
			srv := httptest.NewServer(webtest.Handler(root, webtest.Options{Validators: webtest.ETag}))
			t.Cleanup(srv.Close)
			rt.base = srv.Client().Transport
			st, err := httpstore.New(srv.URL+"/", &http.Client{Transport: rt})
			if err != nil {
				t.Fatal(err)
			}
			return site{st, func(t *testing.T, key string, body []byte) {
				if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(key)), body, 0o644); err != nil {
					t.Fatal(err)
				}
			}}
		}},
		{"bucket", func(t *testing.T, root string, rt *requestCounter) site {
			srv := s3test.Start(t)
			bucket := srv.Bucket(t)
			srv.Upload(t, root, bucket, "lake")
			// The SDK adds a CA bundle only to its own client (a plain
			// endpoint needs none).
			t.Setenv("AWS_CA_BUNDLE", "")
			rt.base = http.DefaultTransport
			st, err := s3.New(context.Background(), bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: rt}})
			if err != nil {
				t.Fatal(err)
			}
			return site{st, func(t *testing.T, key string, body []byte) {
				put(t, srv.Client(), bucket, "lake/"+key, body)
			}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, root := cloneRepo(t, lake11(t))
			ids := versionIDs(t, root)
			if len(ids) != 3 {
				t.Fatalf("versions %v, want 3", ids)
			}
			var cats [][]byte
			for _, id := range ids {
				b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(CatalogKey(id, "1.1"))))
				if err != nil {
					t.Fatal(err)
				}
				cats = append(cats, b)
			}
			rt := &requestCounter{}
			s := tc.serve(t, root, rt)
			ctx := context.Background()
			cache := t.TempDir()
			changed := false
			opts := Options{Formats: []string{"1.1"}, Jobs: 1, Cache: cache, WorkDir: t.TempDir(),
				Progress: func(p Progress) {
					if p.Cell.Version == ids[0] && !changed {
						changed = true
						s.replace(t, CatalogKey(ids[0], "1.1"), cats[1])
					}
				}}
			rep, err := Check(ctx, s.store, opts)
			if err != nil {
				t.Fatalf("cold check, version 1's catalog changed after its proof: %v (findings %q)", err, findingLines(rep))
			}
			t.Logf("cold check: %s; %d bytes downloaded", rt, rep.Transfer.Downloaded)
			for _, id := range ids {
				if n := rt.getsOf(CatalogKey(id, "1.1")); n != 2 {
					t.Errorf("%s: %d GETs, want 2 (its proof's ranged read and download; none more for its header)", CatalogKey(id, "1.1"), n)
				}
			}
			readsOwnCatalogs(t, rep, ids)

			rt.reset()
			opts.WorkDir, opts.Progress = t.TempDir(), nil
			rep, err = Check(ctx, s.store, opts)
			var found []string
			for _, f := range nonWarnings(rep) {
				found = append(found, string(f.Kind)+" "+f.Key)
			}
			if want := []string{"difference " + CatalogKey(ids[0], "1.1")}; err == nil || !slices.Equal(found, want) {
				t.Errorf("next check: %v, findings %q; want only %q", err, findingLines(rep), want)
			}
			if n := rt.getsOf(CatalogKey(ids[0], "1.1")); n != 2 {
				t.Errorf("next check: %s: %d GETs, want 2", CatalogKey(ids[0], "1.1"), n)
			}
			if rep != nil && len(rep.Readers) == 1 {
				// Version 1's catalog fails check: its readers get none.
				for _, rv := range rep.Readers[0].Unreadable {
					if rv.Version != ids[0] {
						t.Errorf("next check: version %s unreadable", rv.Version)
					}
				}
			}
		})
	}
}

// readsOwnCatalogs checks that a check's reader table reads every version
// from its own 1.1 catalog in every DuckDB tried.
func readsOwnCatalogs(t *testing.T, rep *CheckReport, ids []string) {
	t.Helper()
	if len(rep.Readers) != 1 || len(rep.Readers[0].Unreadable) != 0 || len(rep.Readers[0].Readable) != len(ids) {
		t.Fatalf("readers %+v, want format 1.1 reading every version", rep.Readers)
	}
	for _, rv := range rep.Readers[0].Readable {
		for dv, file := range rv.Opens {
			if file != CatalogKey(rv.Version, "1.1") {
				t.Errorf("version %s: DuckDB %s opens %s, want its 1.1 catalog", rv.Version, dv, file)
			}
		}
	}
}

// TestReaderHeaderChangedBeforeProof: a published catalog changed between
// the run's listing and its proof (version 2's replaced by version 3's, of
// the same size, as the proof's ranged read comes) is one whose download the listing does
// not describe: the reader matrix reads its header from the store, as
// before (a third GET), not from the copy; the proof finds the difference
// (on a server of Last-Modified times, which a ranged GET is not held
// to). The proof's ranged read asks no HEAD of its own since the folder
// walk's HEAD described the catalog: on a server of ETags, the GET's is
// not the walk's, and the catalog is unverifiable, naming both (the run
// read another object than its listing described).
func TestReaderHeaderChangedBeforeProof(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		validators webtest.Validators
		kind       Kind
		gets       int
	}{
		{"Last-Modified", webtest.LastModified, "difference", 3},
		{"ETag", webtest.ETag, "unverifiable", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, root := cloneRepo(t, lake11(t))
			ids := versionIDs(t, root)
			// Versions 2 and 3 have 1.1 catalogs of one size.
			key := CatalogKey(ids[1], "1.1")
			other, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(CatalogKey(ids[2], "1.1"))))
			if err != nil {
				t.Fatal(err)
			}
			files := webtest.Handler(root, webtest.Options{Validators: tc.validators})
			var mu sync.Mutex
			heads, ranged := 0, 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/"+key {
					mu.Lock()
					switch {
					case r.Method == http.MethodHead:
						heads++
					case r.Header.Get("Range") != "":
						// The proof's ranged read: the walk's HEAD came
						// before.
						if ranged++; ranged == 1 {
							p := filepath.Join(root, filepath.FromSlash(key))
							if err := os.WriteFile(p, other, 0o644); err != nil {
								t.Error(err)
							}
							later := time.Now().Add(time.Hour)
							if err := os.Chtimes(p, later, later); err != nil {
								t.Error(err)
							}
						}
					}
					mu.Unlock()
				}
				files.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			rt := &requestCounter{base: srv.Client().Transport}
			site, err := httpstore.New(srv.URL+"/", &http.Client{Transport: rt})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(context.Background(), site, Options{Formats: []string{"1.1"}, Jobs: 1, Cache: t.TempDir(), WorkDir: t.TempDir()})
			var found []string
			for _, f := range nonWarnings(rep) {
				found = append(found, string(f.Kind)+" "+f.Key)
			}
			if want := []string{string(tc.kind) + " " + key}; err == nil || !slices.Equal(found, want) {
				t.Errorf("check: %v, findings %q; want only %q", err, findingLines(rep), want)
			}
			if heads != 1 || ranged < 1 {
				t.Fatalf("%d HEADs and %d ranged GETs of %s, want the listing's HEAD and the proof's ranged GET", heads, ranged, key)
			}
			if n := rt.getsOf(key); n != tc.gets {
				t.Errorf("%s: %d GETs, want %d (the reader matrix's, its copy not the object listed)", key, n, tc.gets)
			}
			if n := rt.getsOf(CatalogKey(ids[2], "1.1")); n != 2 {
				t.Errorf("%s: %d GETs, want 2", CatalogKey(ids[2], "1.1"), n)
			}
		})
	}
}
