package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

func newLocal(t *testing.T) *Store {
	t.Helper()
	l, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLocal(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return newLocal(t) })
}

// allFiles lists every file and folder under root, relative.
func allFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCreateInjectedFailures fails Create at each step and checks that
// nothing is left: no object, no temporary file, no folder it made.
func TestCreateInjectedFailures(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("injected")
	for _, step := range []string{"temp", "write", "sync", "close", "link"} {
		t.Run(step, func(t *testing.T) {
			l := newLocal(t)
			if err := os.MkdirAll(filepath.Join(l.Root(), "versions", "v"), 0o755); err != nil {
				t.Fatal(err)
			}
			fctx := faults.With(ctx, func(p faults.Point) error {
				if p.Name == "local/"+step {
					return boom
				}
				return nil
			})
			err := l.Create(fctx, "versions/v/catalogs/1.0.duckdb", strings.NewReader("catalog"))
			if !errors.Is(err, boom) {
				t.Fatalf("Create error = %v, want the injected failure", err)
			}
			if got := allFiles(t, l.Root()); len(got) != 2 || got[0] != "versions" || got[1] != "versions/v" {
				t.Errorf("after a failure at %s the root holds %q, want only versions/v", step, got)
			}
			if err := l.Create(ctx, "versions/v/catalogs/1.0.duckdb", strings.NewReader("catalog")); err != nil {
				t.Fatalf("Create after the failure: %v", err)
			}
			if got := allFiles(t, l.Root()); strings.Join(got, " ") != "versions versions/v versions/v/catalogs versions/v/catalogs/1.0.duckdb" {
				t.Errorf("after Create the root holds %q", got)
			}
		})
	}
}

func TestCreatePermissionsAndList(t *testing.T) {
	l := newLocal(t)
	ctx := context.Background()
	if err := l.Create(ctx, "a/b", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(l.Root(), "a", "b"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", st.Mode().Perm())
	}
	// A leftover temp folder (from a killed process) is not listed.
	if err := os.MkdirAll(filepath.Join(l.Root(), TempDirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Root(), TempDirName, "create-1.tmp"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := l.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Key != "a/b" {
		t.Errorf("List = %+v, want only a/b", list)
	}
}

func TestNew(t *testing.T) {
	if _, err := New(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("New(missing) error = %v, want fs.ErrNotExist", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := New(f); err == nil {
		t.Error("New(file) = nil error, want not a folder")
	}
}

// TestListFollowsLinks: List shows every object Open reaches, through
// symbolic links to folders and files wherever they point (a publisher may
// keep a version or the whole versions/ folder on another disk), so a
// version readers reach is never left out silently; it fails, naming the
// link, on a link that loops back; a link whose target is missing is no
// object, for List as for Open.
func TestListFollowsLinks(t *testing.T) {
	ctx := context.Background()
	const id = "019a3c4e-7b21-7f3a-9c55-2f0d8e1a4b6c"
	version := []string{"versions/" + id + "/catalogs/1.0.duckdb", "versions/" + id + "/version.json"}
	// fill writes the files of a version into dir (its folder).
	fill := func(t *testing.T, dir string) {
		t.Helper()
		for _, name := range []string{"catalogs/1.0.duckdb", "version.json"} {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	link := func(t *testing.T, target, name string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		layout func(t *testing.T, root, elsewhere string)
		prefix string
		want   []string // when err is nil
		err    error    // the error List must return
	}{
		{"version folder linked", func(t *testing.T, root, elsewhere string) {
			fill(t, filepath.Join(elsewhere, id))
			link(t, filepath.Join(elsewhere, id), filepath.Join(root, "versions", id))
		}, "versions/", version, nil},
		{"versions/ linked", func(t *testing.T, root, elsewhere string) {
			fill(t, filepath.Join(elsewhere, "versions", id))
			link(t, filepath.Join(elsewhere, "versions"), filepath.Join(root, "versions"))
		}, "versions/", version, nil},
		{"versions/ linked, listed from the root", func(t *testing.T, root, elsewhere string) {
			fill(t, filepath.Join(elsewhere, "versions", id))
			link(t, filepath.Join(elsewhere, "versions"), filepath.Join(root, "versions"))
		}, "", version, nil},
		{"relative link inside the root", func(t *testing.T, root, elsewhere string) {
			fill(t, filepath.Join(root, "store", id))
			link(t, filepath.Join("..", "store", id), filepath.Join(root, "versions", id))
		}, "versions/" + id + "/", version, nil},
		{"catalog file linked", func(t *testing.T, root, elsewhere string) {
			fill(t, filepath.Join(root, "versions", id))
			os.Remove(filepath.Join(root, "versions", id, "catalogs", "1.0.duckdb"))
			fill(t, filepath.Join(elsewhere, "v"))
			link(t, filepath.Join(elsewhere, "v", "catalogs", "1.0.duckdb"), filepath.Join(root, "versions", id, "catalogs", "1.0.duckdb"))
		}, "versions/", version, nil},
		{"broken link to a version", func(t *testing.T, root, elsewhere string) {
			link(t, filepath.Join(elsewhere, "gone"), filepath.Join(root, "versions", id))
		}, "versions/", nil, nil},
		{"broken versions/ link", func(t *testing.T, root, elsewhere string) {
			link(t, filepath.Join(elsewhere, "gone"), filepath.Join(root, "versions"))
		}, "versions/", nil, nil},
		{"link back to an ancestor", func(t *testing.T, root, elsewhere string) {
			fill(t, filepath.Join(root, "versions", id))
			link(t, filepath.Join(root, "versions"), filepath.Join(root, "versions", id, "loop"))
		}, "versions/", nil, ErrLinkLoop},
		{"link to itself", func(t *testing.T, root, elsewhere string) {
			link(t, filepath.Join(root, "versions", id), filepath.Join(root, "versions", id))
		}, "versions/", nil, syscall.ELOOP},
		{"broken link outside the prefix is not looked at", func(t *testing.T, root, elsewhere string) {
			fill(t, filepath.Join(root, "versions", id))
			link(t, filepath.Join(elsewhere, "gone"), filepath.Join(root, "data", "x.parquet"))
		}, "versions/", version, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, elsewhere := t.TempDir(), t.TempDir()
			tc.layout(t, root, elsewhere)
			l, err := New(root)
			if err != nil {
				t.Fatal(err)
			}
			list, err := l.List(ctx, tc.prefix)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("List(%q) = %v, %v; want an error wrapping %v", tc.prefix, keysOf(list), err, tc.err)
				}
				if !strings.Contains(err.Error(), "versions") {
					t.Errorf("error %q does not name the link", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("List(%q): %v", tc.prefix, err)
			}
			if got := keysOf(list); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("List(%q) = %q, want %q (what Open reaches)", tc.prefix, got, tc.want)
			}
			for _, o := range list {
				data, err := store.ReadAll(ctx, l, o.Key)
				if err != nil {
					t.Fatalf("Open(%s): %v", o.Key, err)
				}
				if int64(len(data)) != o.Size {
					t.Errorf("%s: List says %d bytes, Open reads %d", o.Key, o.Size, len(data))
				}
			}
		})
	}
}

func keysOf(list []store.ObjectInfo) []string {
	var out []string
	for _, o := range list {
		out = append(out, o.Key)
	}
	return out
}

// TestCreateSyncsEveryFolder: Create syncs the folder of the new file and
// every folder above it up to the root, so that the folders it made (a new
// catalogs/) survive a crash with the file. The sync itself cannot be
// observed without cutting the power; the test sees the folders Create
// syncs through the fault point before each sync.
func TestCreateSyncsEveryFolder(t *testing.T) {
	for _, tc := range []struct {
		name, existing, key string
		want                []string // relative to the root, "." for it
	}{
		{"new catalogs folder", "versions/v", "versions/v/catalogs/1.0.duckdb", []string{"versions/v/catalogs", "versions/v", "versions", "."}},
		{"existing folders", "versions/v/catalogs", "versions/v/catalogs/1.0.duckdb", []string{"versions/v/catalogs", "versions/v", "versions", "."}},
		{"new tree", "", "data/main/t/f.parquet", []string{"data/main/t", "data/main", "data", "."}},
		{"at the root", "", "fdl.json", []string{"."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLocal(t)
			if tc.existing != "" {
				if err := os.MkdirAll(filepath.Join(l.Root(), tc.existing), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var synced []string
			ctx := faults.With(context.Background(), func(p faults.Point) error {
				if p.Name == "local/syncdir" {
					rel, err := filepath.Rel(l.Root(), p.Path)
					if err != nil {
						return err
					}
					synced = append(synced, filepath.ToSlash(rel))
				}
				return nil
			})
			if err := l.Create(ctx, tc.key, strings.NewReader("x")); err != nil {
				t.Fatal(err)
			}
			if strings.Join(synced, " ") != strings.Join(tc.want, " ") {
				t.Errorf("Create synced %q, want %q", synced, tc.want)
			}
		})
	}
}

// TestOpenSpecialFile: Open of a key that is a named pipe (or a link to
// one) fails at once instead of blocking until a writer comes: a FIFO
// named fdl.json hung plan, backfill and check forever (the other
// repository files are opened only when List shows them, and it shows
// regular files only).
func TestOpenSpecialFile(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "fdl.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("fdl.json", filepath.Join(root, "link.json")); err != nil {
		t.Fatal(err)
	}
	l, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"fdl.json", "link.json"} {
		done := make(chan error, 1)
		go func() {
			rc, err := l.Open(context.Background(), key)
			if err == nil {
				rc.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("Open(%s) = %v, want an error naming it", key, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("Open(%s) of a named pipe still blocks after 2 s", key)
		}
	}
}

// TestListFolders: ListFolders lists what List does and also gives the
// folders below the prefix, those holding no file too (an empty version
// folder, one holding only an empty catalogs/), a folder reached through a
// symbolic link, but not Create's temporary folder; through a Counter too
// (store.ListFolders). Before, a folder holding no file was in no listing,
// so an empty version folder on disk was ignored without a word.
func TestListFolders(t *testing.T) {
	ctx := context.Background()
	l := newLocal(t)
	for _, dir := range []string{"versions/e", "versions/c/catalogs", "elsewhere/x", "versions/" + TempDirName} {
		if err := os.MkdirAll(filepath.Join(l.Root(), filepath.FromSlash(dir)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Create(ctx, "versions/a/version.json", strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(l.Root(), "elsewhere"), filepath.Join(l.Root(), "versions", "l")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix  string
		folders []string
	}{
		{"versions/", []string{"versions/a/", "versions/c/", "versions/c/catalogs/", "versions/e/", "versions/l/", "versions/l/x/"}},
		{"versions/c", []string{"versions/c/", "versions/c/catalogs/"}},
		{"versions/c/", []string{"versions/c/catalogs/"}},
		{"versions/a/v", nil},
		{"missing/", nil},
	} {
		list, err := l.List(ctx, tc.prefix)
		if err != nil {
			t.Fatalf("List(%s): %v", tc.prefix, err)
		}
		for _, st := range []store.Store{l, store.NewCounter(l)} {
			objs, folders, err := store.ListFolders(ctx, st, tc.prefix)
			if err != nil || !slices.Equal(objs, list) || !slices.Equal(folders, tc.folders) {
				t.Errorf("ListFolders(%s) on %T = %v, %q, %v; want List's %v and %q", tc.prefix, st, objs, folders, err, list, tc.folders)
			}
		}
	}
}
