package repo

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// copyLake copies parts of a conformance lake (default fdl.json, versions/
// and data/) into a private folder (the cache is never written) and returns
// its store.
func copyLake(t testing.TB, lake string, parts ...string) *local.Store {
	t.Helper()
	dst := t.TempDir()
	if len(parts) == 0 {
		parts = []string{"fdl.json", "versions", "data"}
	}
	for _, name := range parts {
		if err := copyTree(filepath.Join(lake, name), filepath.Join(dst, name)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := local.New(dst)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// demoRepo generates lakegen's demo repository (without recorded rows) in a
// private folder and opens it.
func demoRepo(ctx context.Context, t *testing.T) (string, *local.Store) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "demo")
	spec := lakegen.Demo()
	spec.RecordRows = false
	if _, err := lakegen.Repository(ctx, root, spec); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, st
}

// nonWarnings is a check report's findings other than warnings (none for
// a nil report).
func nonWarnings(rep *CheckReport) []Finding {
	var out []Finding
	if rep != nil {
		for _, f := range rep.Findings {
			if f.Kind != KindWarning {
				out = append(out, f)
			}
		}
	}
	return out
}
