package convert

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// fakeFooters is an Options.Footers whose delete files lie in stash, not
// in the data folder: Footers gives the stashed file as its own stand-in
// (or footersErr, or nothing when absent), Fetch copies it in (or fails
// with fetchErr).
type fakeFooters struct {
	data, stash          string
	footersErr, fetchErr error
	absent, corrupt      bool // no stand-ins; stand-ins DuckDB cannot read
}

func (f *fakeFooters) Footers(_ context.Context, locals []string) (map[string]string, error) {
	if f.footersErr != nil {
		return nil, f.footersErr
	}
	out := map[string]string{}
	if f.absent {
		return out, nil
	}
	for _, l := range locals {
		rel, err := filepath.Rel(f.data, l)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(f.stash, rel)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if f.corrupt {
			p += ".corrupt"
			if err := os.WriteFile(p, []byte("PAR1 not a footer PAR1"), 0o644); err != nil {
				return nil, err
			}
		}
		out[l] = p
	}
	return out, nil
}

func (f *fakeFooters) Fetch(_ context.Context, local string) error {
	if f.fetchErr != nil {
		return f.fetchErr
	}
	rel, err := filepath.Rel(f.data, local)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(f.stash, rel))
	if err != nil {
		return err
	}
	return os.WriteFile(local, b, 0o644)
}

// stashDeleteFiles makes data a bucket's local folder, which holds no
// delete file until fetched: it copies data into a new folder, the store
// a fakeFooters reads (stash), and removes every delete file from data
// (failing the test if there is none).
func stashDeleteFiles(t *testing.T, data string) (stash string) {
	t.Helper()
	stash = t.TempDir()
	copyTree(t, data, stash)
	n := 0
	err := filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "-delete.parquet") {
			return err
		}
		n++
		return os.Remove(p)
	})
	if err != nil || n == 0 {
		t.Fatalf("removing delete files: %d, %v", n, err)
	}
	return stash
}

// TestFooterSourceErrorsFailTheCheck: a conversion's checks whose
// Options.Footers (a bucket's cache) fails to read a delete file's footer
// or to fetch the file fail naming the file, as the download of every
// delete file before the check did; before, the partial-deletion check
// took the catalog's partial_max instead and went on (06_deletes to 0.3:
// the two partial deletion files come from a Fetch that fails). A delete
// file the store lacks (left out by Footers) still falls back to the
// catalog's word, as does one DuckDB cannot read: refused as
// partial-delete-files.
func TestFooterSourceErrorsFailTheCheck(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	for _, tc := range []struct {
		name      string
		fake      fakeFooters
		wantError string // "" for the catalog's word
	}{
		{"fetch fails", fakeFooters{fetchErr: errors.New("GET: 503 Slow Down")}, "503 Slow Down"},
		{"footers fail", fakeFooters{footersErr: errors.New("ranged GET: object changed")}, "object changed"},
		{"fetch cancelled", fakeFooters{fetchErr: context.Canceled}, "canceled"},
		{"absent", fakeFooters{absent: true}, ""},
		{"unreadable to DuckDB", fakeFooters{corrupt: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := editedCopy(t, vs[len(vs)-1])
			data := columnNamedFolder(t, t.TempDir())
			copyTree(t, filepath.Join(lake, "data"), data)
			stash := stashDeleteFiles(t, data) // the stand-ins lie in the run's work folder, as a bucket's
			fake := tc.fake
			fake.data, fake.stash = data, stash
			_, err := Check(ctx, src, formats.V0_3, Options{DataPath: data, TempDir: stash, AllowInlined: true, Footers: &fake})
			if tc.wantError == "" {
				var refused *RefusedError
				if !errors.As(err, &refused) || !strings.Contains(err.Error(), "partial-delete-files") {
					t.Fatalf("Check: %v, want refused for partial-delete-files from partial_max", err)
				}
				return
			}
			var refused *RefusedError
			if err == nil || errors.As(err, &refused) {
				t.Fatalf("Check: %v, want the store's error", err)
			}
			if !strings.Contains(err.Error(), tc.wantError) || !strings.Contains(err.Error(), "-delete.parquet") {
				t.Errorf("Check: %v, want %q naming the delete file", err, tc.wantError)
			}
		})
	}
}
