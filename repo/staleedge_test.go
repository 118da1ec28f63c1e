package repo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCacheValidatorFromTheGET: a web site whose HEAD answers are fresher
// than its GET answers for a while (a CDN edge or a replica behind the
// origin). The data cache kept the HEAD's ETag beside the GET's bytes, so
// once the edge caught up every later check reused the stale copy and
// exited 0 on a file readers got changed (a cold check exited 3). The copy
// is now kept under the ETag of the response that delivered it. While the
// edge is stale, DuckDB fails every read of the file (its ranged GET gives
// another ETag than its HEAD), and so does the check (exit 4).
func TestCacheValidatorFromTheGET(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, root := smallLake(t)
	files, err := filepath.Glob(filepath.Join(root, "data", "*", "*", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data file in %s (%v)", root, err)
	}
	target := files[0]
	key := "/" + filepath.ToSlash(strings.TrimPrefix(target, root+string(filepath.Separator)))
	good, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	var staleGET atomic.Bool // GETs of the target answered from the old copy
	listings := http.FileServer(http.Dir(root))
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := filepath.Join(root, filepath.FromSlash(r.URL.Path))
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			listings.ServeHTTP(w, r)
			return
		}
		body, err := os.ReadFile(p)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if r.URL.Path == key && r.Method == http.MethodGet && staleGET.Load() {
			body = good
		}
		sum := sha256.Sum256(body)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
		http.ServeContent(w, r, p, time.Unix(1700000000, 0), bytes.NewReader(body))
	}))
	cache := t.TempDir()
	check := func(step string) error {
		t.Helper()
		_, err := Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: cache})
		t.Logf("%s: %v", step, err)
		return err
	}
	if err := check("first check"); err != nil {
		t.Fatalf("first check = %v, want nil", err)
	}
	// The publisher's file changes at the origin, same size (its footer
	// length off by one); the edge still serves the old bytes to GETs.
	bad := bytes.Clone(good)
	bad[len(bad)-8]++
	if err := os.WriteFile(target, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	staleGET.Store(true)
	if err := check("HEAD fresh, GET stale"); !errors.Is(err, ErrUnverifiable) || !strings.Contains(err.Error(), "by its ranged GET") {
		t.Fatalf("check while the edge is stale = %v, want %v naming the HEAD's and the GET's ETags (DuckDB's reads fail)", err, ErrUnverifiable)
	}
	// The edge catches up: every reader now gets the changed file.
	staleGET.Store(false)
	if err := check("edge caught up"); !errors.Is(err, ErrDifferences) {
		t.Fatalf("check once the edge serves the changed file = %v, want %v (the cached copy is stale)", err, ErrDifferences)
	}
}

// TestWarmCheckReadsEveryDataFile: a warm check revalidates each cached
// data file with a ranged GET of its end, not a HEAD. Objects readers can
// no longer GET (S3 moves old objects to archive storage classes whose
// GET fails while HEAD answers; here a server denying GETs) passed a warm
// check with exit 0 while a cold one failed; and a server whose ranged
// answers are wrong, which DuckDB's ranged reads fail on, passed every
// check. Both are now unverifiable (exit 4); so is a server whose ranged
// GETs give another ETag than its HEADs, on which DuckDB's reads fail.
func TestWarmCheckReadsEveryDataFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request) bool // answers r itself when true
	}{
		{"GET denied, HEAD answered", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodGet {
				http.Error(w, "InvalidObjectState: the object is archived", http.StatusForbidden)
				return true
			}
			return false
		}},
		{"ranged answers that are not the end", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method == http.MethodGet && r.Header.Get("Range") != "" {
				w.Header().Set("Content-Range", "bytes 0-7/8")
				w.WriteHeader(http.StatusPartialContent)
				w.Write([]byte("PAR1PAR1"))
				return true
			}
			return false
		}},
		{"ranged answers with another ETag than the HEAD", func(w http.ResponseWriter, r *http.Request) bool {
			switch {
			case r.Method == http.MethodHead:
				w.Header().Set("ETag", `"v1"`)
			case r.Header.Get("Range") != "":
				w.Header().Set("ETag", `"v2"`) // DuckDB fails the read
			}
			return false
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, root := smallLake(t)
			var broken atomic.Bool
			files := http.FileServer(http.Dir(root))
			site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if broken.Load() && strings.HasSuffix(r.URL.Path, ".parquet") && tc.answer(w, r) {
					return
				}
				files.ServeHTTP(w, r)
			}))
			cache := t.TempDir()
			if _, err := Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: cache}); err != nil {
				t.Fatalf("first check = %v, want nil", err)
			}
			broken.Store(true)
			_, err := Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: cache})
			if !errors.Is(err, ErrUnverifiable) {
				t.Fatalf("warm check = %v, want %v", err, ErrUnverifiable)
			}
		})
	}
}

// TestDataFolderTailAgainstStore: with --data DIR, a run reads the local
// copies and asks the store whether it holds each file: it compared only
// sizes, so a bucket object with a corrupt footer of the same size (that
// readers of the bucket cannot read) passed. The store's last bytes must
// now be the local copy's: a difference otherwise (exit 3). A server that
// ignores ranges (200 and the whole file, which DuckDB then downloads and
// reads) gave no last bytes, and the comparison was skipped: such an
// answer is now read to its end.
func TestDataFolderTailAgainstStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		serve func(root string) http.Handler
	}{
		{"ranges", func(root string) http.Handler { return http.FileServer(http.Dir(root)) }},
		{"no ranges", func(root string) http.Handler {
			files := http.FileServer(http.Dir(root))
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Header.Del("Range")
				files.ServeHTTP(w, r)
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, root := smallLake(t)
			local := filepath.Join(t.TempDir(), "data")
			if err := copyTree(filepath.Join(root, "data"), local); err != nil {
				t.Fatal(err)
			}
			site := webSite(t, tc.serve(root))
			if _, err := Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, DataPath: local}); err != nil {
				t.Fatalf("check with the same files = %v, want nil", err)
			}
			files, err := filepath.Glob(filepath.Join(root, "data", "*", "*", "*.parquet"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no data file (%v)", err)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-8]++ // the store's copy: its footer length, same size
			if err := os.WriteFile(files[0], b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Check(ctx, site, Options{Formats: []string{"1.0"}, Jobs: 2, DataPath: local})
			if !errors.Is(err, ErrDifferences) || !strings.Contains(err.Error(), "are not the --data folder's copy's") {
				t.Fatalf("check = %v, want %v naming the file's last bytes", err, ErrDifferences)
			}
		})
	}
}
