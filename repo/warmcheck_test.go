package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/digestcache"
)

// warmDelFile is a data file of the checked version of publishedLake.
const warmDelFile = "data/main/del/ducklake-01a229fa-2280-7a87-ac6f-bba0032cc116.parquet"

// TestWarmCheckSeesDataChanges: a check that reuses kept proofs and a kept
// content pass (warm) fails wherever a cold check fails after a data file
// changed: through a symbolic link (to the file, to its table's folder, or
// the data folder itself a link) and on a same-size rewrite whose
// modification time was set back (cp -p, rsync -a). Before, the warm
// check's listing (lstat of path, size, mtime) stayed the same and it
// exited 0.
func TestWarmCheckSeesDataChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, opts := publishedLake(t)
	opts.Jobs = 1
	// moveAndLink moves rel (under root) out of the repository and leaves
	// a symbolic link to it.
	moveAndLink := func(t *testing.T, root, rel string) {
		p := filepath.Join(root, rel)
		target := filepath.Join(t.TempDir(), filepath.Base(p))
		if err := os.Rename(p, target); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	grow := func(t *testing.T, root string) {
		f, err := os.OpenFile(filepath.Join(root, warmDelFile), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, root string) // before the cache-filling check
		mutate  func(t *testing.T, root string) // between the checks
		want    string                          // in the second check's findings
	}{
		{"symlinked data file, target grows",
			func(t *testing.T, root string) { moveAndLink(t, root, warmDelFile) }, grow, "9197 bytes on disk"},
		{"symlinked table folder, a file grows",
			func(t *testing.T, root string) { moveAndLink(t, root, filepath.Dir(warmDelFile)) }, grow, "9197 bytes on disk"},
		{"data folder is a symlink, a file grows",
			func(t *testing.T, root string) { moveAndLink(t, root, "data") }, grow, "9197 bytes on disk"},
		{"same size, mtime set back", nil, func(t *testing.T, root string) {
			p := filepath.Join(root, warmDelFile)
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-8]++ // the Parquet footer length
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, "footer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, warm := range []bool{true, false} {
				st, root := cloneRepo(t, golden)
				if tc.prepare != nil {
					tc.prepare(t, root)
				}
				o := opts
				o.WorkDir = t.TempDir()
				if warm {
					cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
					if err != nil {
						t.Fatal(err)
					}
					o.DigestCache = cache
				}
				// The first check fills the cache the warm check reuses;
				// the cold check has nothing to reuse, and the warm case's
				// first check (an empty cache) already showed the
				// prepared copy passing.
				if warm {
					if _, err := Check(ctx, st, o); err != nil {
						t.Fatalf("first check: %v", err)
					}
				}
				tc.mutate(t, root)
				rep, err := Check(ctx, st, o)
				if !errors.Is(err, ErrDifferences) {
					t.Fatalf("warm=%v: check after the change = %v, want %v", warm, err, ErrDifferences)
				}
				var details []string
				for _, f := range rep.Findings {
					details = append(details, f.Detail)
				}
				if all := strings.Join(details, "\n"); !strings.Contains(all, tc.want) {
					t.Errorf("warm=%v: findings lack %q:\n%s", warm, tc.want, all)
				}
			}
		})
	}
}

// TestContentPassJSONChanged: a content pass whose files.json or
// dataset.json cannot be read, parsed, or is no longer the file
// version.json names (it changed after the plan matched it) reports an
// issue and keeps no clean pass; before, the comparison was skipped
// silently and "clean" was kept under the key of bytes never compared.
func TestContentPassJSONChanged(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, file string
		change     func(t *testing.T, path string)
		want       Problem
	}{
		{"files.json removed", "files.json", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, ProblemUnreadable},
		{"dataset.json reformatted", "dataset.json", func(t *testing.T, p string) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil { // same content, other bytes
				t.Fatal(err)
			}
		}, ProblemMismatch},
		{"files.json not JSON, same size", "files.json", func(t *testing.T, p string) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[0] = '!'
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ProblemMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := load(ctx, st, &Options{DigestCache: cache})
			if err != nil {
				t.Fatal(err)
			}
			v := r.versions[len(r.versions)-1]
			key := r.contentsKey(v, true)
			if key == "" {
				t.Fatal("no content pass key")
			}
			tc.change(t, filepath.Join(root, "versions", v.id, tc.file))
			issues := r.checkContents(ctx, v, newFrozenCopies(r, t.TempDir(), nil, v.id), nil, compare.NewDiskCheck(), true)
			found := false
			for _, is := range issues {
				found = found || (is.Problem == tc.want && strings.Contains(is.Detail, tc.file))
			}
			if !found {
				t.Errorf("issues %v, want a %s issue about %s", issues, tc.want, tc.file)
			}
			if _, kept := cache.Get(key); kept {
				t.Error("a clean pass was kept")
			}
		})
	}
}
