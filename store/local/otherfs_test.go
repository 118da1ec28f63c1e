package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

// linkedStore returns a store whose folder linked (a key's folder, such as
// "versions") is a symbolic link onto another file system than the root's.
func linkedStore(t *testing.T, linked string) (*Store, string) {
	t.Helper()
	l := newLocal(t)
	other := storetest.OtherFileSystem(t, l.Root())
	target := filepath.Join(other, "target")
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(l.Root(), filepath.FromSlash(linked))
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return l, target
}

// TestLocalAcrossFileSystems runs the store contract with versions/ linked
// onto another file system, as docs/repository.md allows: before, every
// Create under it failed with EXDEV (link from the root's .fdl-tmp).
func TestLocalAcrossFileSystems(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		l, _ := linkedStore(t, "versions")
		return l
	})
}

// TestCreateOnAnotherFileSystem publishes into a folder on another file
// system (versions/, a version folder, a folder not made yet under one):
// the object is there, once, never replaced; its temporary file was staged
// on that file system, in a TempDirName that List does not show and that
// Create removes again; concurrent creators still have exactly one winner.
func TestCreateOnAnotherFileSystem(t *testing.T) {
	ctx := context.Background()
	for _, linked := range []string{"versions", "versions/v1", "data"} {
		t.Run(strings.ReplaceAll(linked, "/", "_"), func(t *testing.T) {
			l, target := linkedStore(t, linked)
			key := linked + "/new/catalogs/1.0.duckdb"
			stage, err := l.StageDir(linked + "/new/catalogs")
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(l.Root(), filepath.FromSlash(linked), TempDirName); stage != want {
				t.Errorf("StageDir = %s, want %s (the linked folder's)", stage, want)
			}
			if root, _ := l.StageDir(""); root != filepath.Join(l.Root(), TempDirName) {
				t.Errorf("StageDir(\"\") = %s, want the root's", root)
			}
			if err := l.Create(ctx, key, strings.NewReader("first")); err != nil {
				t.Fatalf("Create across file systems: %v", err)
			}
			if err := l.Create(ctx, key, strings.NewReader("second")); !errors.Is(err, store.ErrExists) {
				t.Errorf("second Create error = %v, want ErrExists", err)
			}
			if got, err := store.ReadAll(ctx, l, key); err != nil || string(got) != "first" {
				t.Errorf("read = %q, %v; want first", got, err)
			}
			if got := allFiles(t, target); !slices.Equal(got, []string{"new", "new/catalogs", "new/catalogs/1.0.duckdb"}) {
				t.Errorf("on the other file system: %v, want only the object and its folders", got)
			}
			for _, dir := range []string{l.Root(), target} {
				if _, err := os.Stat(filepath.Join(dir, TempDirName)); err == nil {
					t.Errorf("temporary folder left in %s", dir)
				}
			}

			// Concurrent creators: one wins, the others get ErrExists.
			const n = 8
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = l.Create(ctx, linked+"/race", strings.NewReader(strings.Repeat("x", i+1)))
				}()
			}
			wg.Wait()
			won := 0
			for _, err := range errs {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, store.ErrExists):
					t.Errorf("racing Create: %v", err)
				}
			}
			if won != 1 {
				t.Errorf("%d racing creators won, want 1", won)
			}

			// A temporary file a killed writer left there is no object, and
			// TempDirs finds its folder for a sweep.
			if err := os.MkdirAll(stage, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(stage, "create-1.tmp"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			list, err := l.List(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range list {
				if strings.Contains(o.Key, TempDirName) {
					t.Errorf("List shows %s", o.Key)
				}
			}
			if len(list) != 2 {
				t.Errorf("List = %+v, want the two objects", list)
			}
			dirs, err := l.TempDirs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dirs, []string{stage}) {
				t.Errorf("TempDirs = %v, want [%s]", dirs, stage)
			}
		})
	}
}

// TestCreateOnAnotherFileSystemFailures fails Create at each step when the
// object's folder is on another file system: nothing is left on either.
func TestCreateOnAnotherFileSystemFailures(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("injected")
	for _, step := range []string{"temp", "write", "sync", "close", "link"} {
		t.Run(step, func(t *testing.T) {
			l, target := linkedStore(t, "versions")
			fctx := faults.With(ctx, func(p faults.Point) error {
				if p.Name == "local/"+step {
					return boom
				}
				return nil
			})
			if err := l.Create(fctx, "versions/v/catalogs/1.0.duckdb", strings.NewReader("data")); !errors.Is(err, boom) {
				t.Fatalf("Create error = %v, want injected", err)
			}
			if got := allFiles(t, target); len(got) != 0 {
				t.Errorf("left on the other file system: %v", got)
			}
			if got := allFiles(t, l.Root()); !slices.Equal(got, []string{"versions"}) {
				t.Errorf("left under the root: %v", got)
			}
		})
	}
}

// TestStageDirOneFileSystem: without a link onto another file system, every
// temporary file is staged in the root's TempDirName, as before.
func TestStageDirOneFileSystem(t *testing.T) {
	l := newLocal(t)
	other := filepath.Join(t.TempDir(), "elsewhere") // same file system
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(l.Root(), "versions")); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"versions", "versions/v/catalogs", "data/x"} {
		if got, err := l.StageDir(key); err != nil || got != filepath.Join(l.Root(), TempDirName) {
			t.Errorf("StageDir(%s) = %s, %v; want the root's", key, got, err)
		}
	}
}
