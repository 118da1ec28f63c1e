package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
