package repo

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// copyLake copies parts of a conformance lake (default fdl.json, versions/
// and data/) into a private folder (the cache is never written) and returns
// its store.
func copyLake(t testing.TB, lake string, parts ...string) *local.Store {
	t.Helper()
	dst := t.TempDir()
	copyParts(t, lake, dst, parts...)
	st, err := local.New(dst)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// copyParts copies parts of a conformance lake (default fdl.json, versions/
// and data/) into dst, made if need be.
func copyParts(t testing.TB, lake, dst string, parts ...string) {
	t.Helper()
	if len(parts) == 0 {
		parts = []string{"fdl.json", "versions", "data"}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range parts {
		if err := copyTree(filepath.Join(lake, name), filepath.Join(dst, name)); err != nil {
			t.Fatal(err)
		}
	}
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

// demoRepo copies lakegen's demo repository (without recorded rows) into a
// private folder and opens it.
func demoRepo(ctx context.Context, t *testing.T) (string, *local.Store) {
	t.Helper()
	golden, _ := sharedDemo(ctx, t)
	root := filepath.Join(t.TempDir(), "demo")
	if err := copyTree(golden, root); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, st
}

// sharedDemo is lakegen's demo repository (without recorded rows),
// generated once per test binary, and what lakegen said of it. Callers
// copy the folder before changing it (sharedFixture).
func sharedDemo(ctx context.Context, t *testing.T) (string, *lakegen.Result) {
	t.Helper()
	return demoFixture.generate(t, func(dir string) (*lakegen.Result, error) {
		spec := lakegen.Demo()
		spec.RecordRows = false
		return lakegen.Repository(ctx, dir, spec)
	})
}

var demoFixture = sharedFixture{name: "demo"}

// carryHistory7 is the seven-version history of the carry tests
// (lakegen.History: 300 rows and 2 files a version, a delete every third),
// generated once per test binary, and what lakegen said of it. Callers
// copy the folder before changing it (sharedFixture).
func carryHistory7(t *testing.T) (string, *lakegen.Result) {
	t.Helper()
	return historyFixture.generate(t, func(dir string) (*lakegen.Result, error) {
		return lakegen.History(context.Background(), dir, lakegen.HistoryOptions{Versions: 7, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: 3})
	})
}

var historyFixture = sharedFixture{name: "history7"}

// lake11 is smallLake's repository with every version backfilled to 1.1
// (--jobs 2), built once per test binary. Callers copy the folder before
// changing it (sharedFixture).
func lake11(t *testing.T) string {
	t.Helper()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	return lake11Fixture.get(t, func(t *testing.T, root string) {
		copyParts(t, lake, root)
		st, err := local.New(root)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Backfill(context.Background(), st, Options{Jobs: 2, Formats: []string{"1.1"}}); err != nil {
			t.Fatal(err)
		}
	})
}

var lake11Fixture = sharedFixture{name: "lake11"}

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

// openTestCache is a digest cache of the test's own, in a temporary folder.
func openTestCache(t *testing.T) *digestcache.Cache {
	t.Helper()
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return cache
}

// repoWithFrozen is a copy of lake (fdl.json and its versions) whose
// version id has catalog as its frozen catalog and data as its data
// folder; the version's files.json and dataset.json, which describe the
// lake as it was, are left out.
func repoWithFrozen(t *testing.T, lake, id, catalog, data string) *local.Store {
	t.Helper()
	st := copyLake(t, lake, "fdl.json", "versions")
	root := st.Root()
	vdir := filepath.Join(root, "versions", id)
	frozen := filepath.Join(vdir, "ducklake.duckdb")
	if err := os.Remove(frozen); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{catalog, frozen}, {data, filepath.Join(root, "data")}} {
		if err := copyTree(c[0], c[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"files.json", "dataset.json"} {
		if err := os.Remove(filepath.Join(vdir, name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	testlakes.EditVersion(t, vdir, func(m map[string]any) { delete(m, "files"); delete(m, "dataset") })
	return st
}

// narrowed10 reads root's fdl.json, which must serve format 1.0 to DuckDB
// >= 1.5.2, and gives its path, its text and its text with that range
// narrowed to >= from.
func narrowed10(t *testing.T, root, from string) (fdl, admitting, narrowed string) {
	t.Helper()
	fdl = filepath.Join(root, "fdl.json")
	text, err := os.ReadFile(fdl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"duckdb": ">= 1.5.2"`) {
		t.Fatalf("fdl.json does not declare 1.0 for DuckDB >= 1.5.2:\n%s", text)
	}
	return fdl, string(text), strings.Replace(string(text), `"duckdb": ">= 1.5.2"`, `"duckdb": ">= `+from+`"`, 1)
}

// warningsContaining is the details of rep's warnings that contain s.
func warningsContaining(rep *CheckReport, s string) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Kind == KindWarning && strings.Contains(f.Detail, s) {
			out = append(out, f.Detail)
		}
	}
	return out
}
