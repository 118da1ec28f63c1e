package httpstore

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestListReadBudget: a walk holds at most its budget of bodies (ListRead's
// is maxHeldBodies); the files past it are described by their HEADs, and
// the walk finds what ListFolders finds.
func TestListReadBudget(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	names := []string{"a.json", "b.json", "c.json"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(root, n), []byte("0123456789"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	asked := map[string]int{}
	fsrv := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.Method]++
		mu.Unlock()
		fsrv.ServeHTTP(w, r)
	}))
	defer srv.Close()
	s, err := New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := func(string) bool { return true }
	for _, tc := range []struct {
		budget int64
		held   int
	}{{30, 3}, {20, 2}, {9, 0}} {
		mu.Lock()
		clear(asked)
		mu.Unlock()
		// Each file is exactly the most a read may hold (10 bytes), so a
		// read gives none of its reservation back.
		objs, _, bodies, err := s.listRead(ctx, "", all, 10, tc.budget)
		if err != nil {
			t.Fatalf("budget %d: %v", tc.budget, err)
		}
		mu.Lock()
		heads := asked[http.MethodHead]
		mu.Unlock()
		if len(bodies) != tc.held || heads != len(names)-tc.held {
			t.Errorf("budget %d: %d bodies held, %d HEADs; want %d and %d", tc.budget, len(bodies), heads, tc.held, len(names)-tc.held)
		}
		lobjs, _, err := s.ListFolders(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(objs) != fmt.Sprint(lobjs) {
			t.Errorf("budget %d: ListRead found %v, ListFolders %v", tc.budget, objs, lobjs)
		}
	}
}
