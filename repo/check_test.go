package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestCheckKinds: each kind of problem gives its sentinel, and the most
// serious wins (difference, invalid, unverifiable, missing).
func TestCheckKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, root string, ids []string)
		want   error
		detail string
	}{
		{"missing", func(*testing.T, string, []string) {}, ErrWorkMissing, "declared format not written yet"},
		{"invalid_version_json", func(t *testing.T, root string, ids []string) {
			p := filepath.Join(root, "versions", ids[0], "version.json")
			os.Remove(p)
			writeFile(t, p, `{"fdl": "0.1"}`)
		}, ErrInvalidVersion, "id: missing"},
		{"duplicate_key_version_json", func(t *testing.T, root string, ids []string) {
			// encoding/json would read the last catalog, DuckDB's JSON the first.
			p := filepath.Join(root, "versions", ids[0], "version.json")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(p)
			writeFile(t, p, strings.Replace(string(data), "{", `{"catalog": {"path": "elsewhere.duckdb"}, `, 1))
		}, ErrInvalidVersion, `version.json: catalog: duplicate key "catalog"`},
		{"catalog_sha_mismatch", func(t *testing.T, root string, ids []string) {
			overwrite(t, filepath.Join(root, "versions", ids[1], "ducklake.duckdb"), 4096, []byte("tampered"))
		}, ErrDifferences, "sha256"},
		{"files_json_mismatch", func(t *testing.T, root string, ids []string) {
			overwrite(t, filepath.Join(root, "versions", ids[2], "files.json"), 0, []byte(" "))
		}, ErrDifferences, "files.json: sha256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			tc.mutate(t, root, versionIDs(t, root))
			rep, err := Check(ctx, st, Options{Formats: []string{"1.1"}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check error = %v, want %v", err, tc.want)
			}
			var ce *CheckError
			if !errors.As(err, &ce) || !strings.Contains(ce.First.Detail, tc.detail) || rep.OK {
				t.Fatalf("first finding %+v, want one about %q", ce.First, tc.detail)
			}
			// A finding without a format left "<id> :" in the error, and
			// an invalid version's hint said only to see the report.
			if strings.Contains(err.Error(), " :") || !strings.Contains(err.Error(), "(first: "+string(ce.First.Kind)+" "+ce.First.Version) {
				t.Errorf("error %q", err)
			}
			if errors.Is(err, ErrInvalidVersion) && !strings.HasPrefix(ce.Hint(), "fix the file the first finding names") {
				t.Errorf("hint %q", ce.Hint())
			}
		})
	}
}

// TestCheckUnverifiable: catalogs saved at a DuckDB storage version this
// DuckDB cannot open cannot be verified, and check says so: the storage
// (DuckDB 2.0's default, v2.0.0) and what saves the catalog so that it
// opens. Before, it said "a newer DuckDB storage version" and, as a hint,
// that such a catalog needs a newer fdl-formats; and a version.json that
// claimed an older storage was told the file needs DuckDB 1.6.0, a release
// that does not exist.
func TestCheckUnverifiable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-1.1-dev1", "zz_storage_v2_unreadable")
	st := copyLake(t, lake)
	_, err := Check(ctx, st, Options{Formats: []string{"1.0"}, Versions: []string{"1"}, Cache: t.TempDir()})
	var ce *CheckError
	if !errors.Is(err, ErrUnverifiable) || !errors.As(err, &ce) {
		t.Fatalf("Check = %v, want ErrUnverifiable", err)
	}
	for _, want := range []string{"saved at storage v2.0.0 (header numbers 999 and 69: what DuckDB 2.0 saves by default", "DuckDB 2.0.0 or newer at STORAGE_VERSION 'v1.5.0'"} {
		if !strings.Contains(ce.First.Detail, want) {
			t.Errorf("first finding %q, want %q", ce.First.Detail, want)
		}
	}
	if hint := ce.Hint(); !strings.Contains(hint, "DuckDB 2.0 saves at its own storage, v2.0.0") || !strings.Contains(hint, "STORAGE_VERSION 'v1.5.0'") || strings.Contains(hint, "newer fdl-formats") {
		t.Errorf("hint %q, want DuckDB 2.0's storage and STORAGE_VERSION 'v1.5.0'", hint)
	}

	// version.json claims v1.5.0 for a file saved at v2.0.0.
	root := t.TempDir()
	copyParts(t, lake, root)
	vdirs, _ := filepath.Glob(filepath.Join(root, "versions", "*"))
	testlakes.EditVersion(t, vdirs[0], setClaim("catalog", "storage", "duckdb-v1.5.0"))
	st2, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Plan(ctx, st2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `its DuckDB header says storage v2.0.0 (DuckDB 2.0.0 or newer opens it), but version.json's catalog.storage says "duckdb-v1.5.0": the DuckDB releases from 1.5.0 up to 2.0.0`
	found := false
	for _, vp := range plan.Versions {
		found = found || strings.Contains(vp.Error, want)
		if strings.Contains(vp.Error, "1.6") {
			t.Errorf("%s: %s", vp.ID, vp.Error)
		}
	}
	if !found {
		t.Errorf("no version's error says %q", want)
	}
}

// TestCheckEmpty: a repository with no version at all checks nothing,
// which is unverifiable unless allowed (then a warning), in any store.
func TestCheckEmpty(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	if err := st.Create(ctx, FDLKey, strings.NewReader(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`)); err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		rep, err := Check(ctx, st, Options{AllowEmpty: allow, Cache: t.TempDir()})
		if rep == nil || len(rep.Findings) != 1 || rep.Findings[0].Key != VersionsDir {
			t.Fatalf("AllowEmpty %v: report %+v, %v; want one finding about %s", allow, rep, err, VersionsDir)
		}
		f := rep.Findings[0]
		if allow && (err != nil || !rep.OK || f.Kind != KindWarning) {
			t.Errorf("AllowEmpty: %v, finding %+v; want ok with a warning", err, f)
		}
		var ce *CheckError
		if !allow && (!errors.Is(err, ErrUnverifiable) || !errors.As(err, &ce) || !strings.Contains(ce.Hint(), "--allow-empty") || rep.OK) {
			t.Errorf("Check of an empty repository = %v, want ErrUnverifiable with a hint", err)
		}
	}
}
