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
// is now kept under the ETag of the response that delivered it.
func TestCacheValidatorFromTheGET(t *testing.T) {
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
	if err := check("HEAD fresh, GET stale"); err != nil {
		t.Fatalf("check while the edge is stale = %v, want nil (it read the bytes the edge serves)", err)
	}
	// The edge catches up: every reader now gets the changed file.
	staleGET.Store(false)
	if err := check("edge caught up"); !errors.Is(err, ErrDifferences) {
		t.Fatalf("check once the edge serves the changed file = %v, want %v (the cached copy is stale)", err, ErrDifferences)
	}
}
