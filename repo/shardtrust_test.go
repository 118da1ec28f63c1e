package repo

import (
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

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// TestShardParentAnsweredOtherwise: a check shard holding a version whose
// first parent another shard holds reads the parent's frozen catalog, for
// the parent's row of history, from a web site that answers that catalog
// wrongly to this shard's requests alone (other bytes of the same size, or
// 404: a CDN edge, a replica, a proxy's cache) and rightly to the parent's
// shard. The child's shard logged it as the parent's fault, which it took
// the parent's shard to report; that shard read the right bytes and passed,
// so no shard reported anything and the child's history went unverified
// with exit 0. Now the child's shard fails (unverifiable, exit 4), with a
// finding of the child naming the parent, its catalog and what was expected
// against what came.
func TestShardParentAnsweredOtherwise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	parent, child := res.Versions[1], res.Versions[2]
	n := splittingShards(parent.ID, child.ID)
	key := "versions/" + parent.ID + "/ducklake.duckdb"

	for _, tc := range []struct {
		name string
		want []string // in the child's finding, beside the parent's ID and key
	}{
		{"other bytes", []string{"sha256"}},
		{"not found", []string{"404"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, root := cloneRepo(t, golden)
			// wrongRoot is the repository with other bytes, of the same
			// size, for the parent's catalog (its last bytes unchanged).
			wrongRoot := t.TempDir()
			if err := copyTree(root, wrongRoot); err != nil {
				t.Fatal(err)
			}
			cat := filepath.Join(wrongRoot, filepath.FromSlash(key))
			b, err := os.ReadFile(cat)
			if err != nil {
				t.Fatal(err)
			}
			want := sha256.Sum256(b)
			b[len(b)/2] ^= 0xff
			got := sha256.Sum256(b)
			if err := os.WriteFile(cat, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.name == "other bytes" {
				tc.want = append(tc.want, hex.EncodeToString(want[:]), hex.EncodeToString(got[:]))
			}

			var wrong atomic.Bool
			right := webtest.Handler(root, webtest.Options{Validators: webtest.ETag})
			other := webtest.Handler(wrongRoot, webtest.Options{Validators: webtest.ETag})
			site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case !wrong.Load() || r.URL.Path != "/"+key:
					right.ServeHTTP(w, r)
				case tc.name == "not found":
					http.NotFound(w, r)
				default:
					other.ServeHTTP(w, r)
				}
			}))
			opts := func() Options {
				return Options{Jobs: 2, Formats: []string{"1.0"}, Cache: filepath.Join(t.TempDir(), "cache")}
			}

			// The parent's shard, answered rightly, passes.
			o := opts()
			o.Shard = Shard{shardOf(parent.ID, n), n}
			rep, err := Check(ctx, site, o)
			t.Logf("parent's shard %s: %v", o.Shard, err)
			if err != nil {
				t.Fatalf("parent's shard %s: %v, want a pass (findings %v)", o.Shard, err, nonWarnings(rep))
			}

			wrong.Store(true)
			o = opts()
			o.Shard = Shard{shardOf(child.ID, n), n}
			rep, err = Check(ctx, site, o)
			t.Logf("child's shard %s, the parent's catalog answered otherwise: %v", o.Shard, err)
			if !errors.Is(err, ErrUnverifiable) {
				t.Fatalf("child's shard %s: %v, want unverifiable (exit 4); findings %v", o.Shard, err, nonWarnings(rep))
			}
			f := nonWarnings(rep)
			if len(f) != 1 || f[0].Version != child.ID {
				t.Fatalf("findings %v, want one, of %s", f, child.ID)
			}
			for _, s := range append([]string{parent.ID, key, "run this shard again"}, tc.want...) {
				if !strings.Contains(f[0].Detail, s) {
					t.Errorf("the finding does not name %q: %s", s, f[0].Detail)
				}
			}
			// Checking the parent passes here: the hint says what else
			// it may be.
			if h := hintOf(err); !strings.Contains(h, "otherwise to different requests") {
				t.Errorf("hint %q, want one naming a store that answers otherwise", h)
			}
		})
	}
}

// hintOf is the Try: line of a check's error, "" where it has none.
func hintOf(err error) string {
	var ce *CheckError
	if errors.As(err, &ce) {
		return ce.Hint()
	}
	return ""
}

// TestShardParentVersionJSONAnsweredOtherwise: as
// TestShardParentAnsweredOtherwise, for the parent's version.json, which
// the child's shard needs to know the parent's snapshot and catalog: a
// web site answering it with 404 or JSON cut short to the child's
// shard alone left the child's history, seq and changes unchecked with
// warnings only, and exit 0, while the parent's shard, answered rightly,
// passed. Now the child's shard fails (unverifiable, exit 4).
func TestShardParentVersionJSONAnsweredOtherwise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	parent, child := res.Versions[1], res.Versions[2]
	n := splittingShards(parent.ID, child.ID)
	key := "versions/" + parent.ID + "/version.json"
	_, root := cloneRepo(t, golden)
	right := webtest.Handler(root, webtest.Options{Validators: webtest.ETag})
	for _, tc := range []struct {
		name   string
		answer http.HandlerFunc
		want   string // in the child's finding, beside the parent's ID and key
	}{
		{"not found", http.NotFound, "missing"},
		{"cut short", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"fdl": "0.1", "id": "`))
		}, "JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var wrong atomic.Bool
			site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if wrong.Load() && r.URL.Path == "/"+key {
					tc.answer(w, r)
					return
				}
				right.ServeHTTP(w, r)
			}))
			opts := func(holds string) Options {
				return Options{Jobs: 2, Formats: []string{"1.0"}, Cache: filepath.Join(t.TempDir(), "cache"), Shard: Shard{shardOf(holds, n), n}}
			}
			o := opts(parent.ID)
			rep, err := Check(ctx, site, o)
			t.Logf("parent's shard %s: %v", o.Shard, err)
			if err != nil {
				t.Fatalf("parent's shard %s: %v, want a pass (findings %v)", o.Shard, err, nonWarnings(rep))
			}
			wrong.Store(true)
			o = opts(child.ID)
			rep, err = Check(ctx, site, o)
			t.Logf("child's shard %s, the parent's version.json answered otherwise: %v", o.Shard, err)
			if !errors.Is(err, ErrUnverifiable) {
				t.Fatalf("child's shard %s: %v, want unverifiable (exit 4); findings %v", o.Shard, err, rep.Findings)
			}
			f := nonWarnings(rep)
			if len(f) != 1 || f[0].Version != child.ID {
				t.Fatalf("findings %v, want one, of %s", f, child.ID)
			}
			for _, s := range []string{parent.ID, key, tc.want, "run this shard again"} {
				if !strings.Contains(f[0].Detail, s) {
					t.Errorf("the finding does not name %q: %s", s, f[0].Detail)
				}
			}
			if h := hintOf(err); !strings.Contains(h, "otherwise to different requests") {
				t.Errorf("hint %q, want one naming a store that answers otherwise", h)
			}
		})
	}
}
