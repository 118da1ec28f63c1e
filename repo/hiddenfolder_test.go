package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestHiddenFolderUnderVersions: a folder under versions/ whose name
// starts with "." (an upload tool's staging folder holding a version's
// files, .git, .Trash-1000, or an empty one) is no version, whatever it
// holds: plan, backfill and check each warn naming it, once, and pass, in
// a folder, on a web site and in a bucket (versitygw) alike. Before, one
// holding a file was an invalid version ("folder name is not a version
// ID", exit 6), and an empty one got the empty-folder warning. A
// .DS_Store file directly under versions/ is named by nothing. A folder
// with a file whose name is no version ID and is not hidden stays an
// invalid version.
func TestHiddenFolderUnderVersions(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	ids := versionIDs(t, root)
	versions := filepath.Join(root, "versions")
	// An upload tool's staging copy of a version, whole.
	if err := os.CopyFS(filepath.Join(versions, ".staging", ids[2]), os.DirFS(filepath.Join(versions, ids[2]))); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(versions, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(versions, ".Trash-1000", "files", "notes.txt"), "deleted")
	writeFile(t, filepath.Join(versions, ".DS_Store"), "\x00\x00\x00\x01Bud1")
	if err := os.MkdirAll(filepath.Join(versions, ".empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	hidden := []string{".Trash-1000", ".git", ".staging"}

	site, err := httpstore.New(webtest.Serve(t, root, webtest.Options{})+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, root, bucket, "lake")
	bst, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]struct {
		st     store.Store
		hidden []string // the hidden folders it shows
	}{
		"folder": {st, append([]string{".empty"}, hidden...)},
		"web":    {site, append([]string{".empty"}, hidden...)},
		// A bucket has no empty folder (versitygw's disk has one: it is
		// listed by none).
		"bucket": {bst, hidden},
	}
	cache := t.TempDir()
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			opts := Options{Formats: []string{"1.0"}, Jobs: 2, Cache: cache}
			// want says whether warnings hold exactly the hidden folders'
			// warnings, once each.
			want := func(what string, warnings []string) {
				t.Helper()
				for _, h := range s.hidden {
					_, detail := hiddenFolderWarning(h)
					if n := len(slices.DeleteFunc(slices.Clone(warnings), func(w string) bool { return w != detail })); n != 1 {
						t.Errorf("%s: %d warnings %q, want one; warnings %q", what, n, detail, warnings)
					}
				}
				if slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, ".DS_Store") || strings.Contains(w, "empty folder") }) {
					t.Errorf("%s: warnings %q name .DS_Store or an empty folder", what, warnings)
				}
			}
			m, err := Plan(ctx, s.st, opts)
			if err != nil || len(m.Versions) != len(ids) {
				t.Fatalf("plan = %v (%d versions), want smallLake's %d", err, len(m.Versions), len(ids))
			}
			want("plan", m.Warnings)
			bopts := opts
			bopts.DryRun = store.IsReadOnly(s.st)
			rep, err := Backfill(ctx, s.st, bopts)
			if err != nil {
				t.Fatalf("backfill (dry run %v) = %v", bopts.DryRun, err)
			}
			want("backfill", rep.Plan.Warnings)
			crep, err := Check(ctx, s.st, opts)
			if err != nil {
				t.Fatalf("check = %v, findings %q", err, findingLines(crep))
			}
			var warnings []string
			for _, f := range crep.Findings {
				if strings.HasPrefix(f.Key, VersionsDir+".") {
					if _, detail := hiddenFolderWarning(strings.TrimSuffix(strings.TrimPrefix(f.Key, VersionsDir), "/")); f.Kind != KindWarning || f.Detail != detail {
						t.Errorf("check finding %s %s: %s, want the hidden folder's warning", f.Kind, f.Key, f.Detail)
					}
					warnings = append(warnings, f.Detail)
				}
			}
			if len(warnings) != len(s.hidden) {
				t.Errorf("check: %d findings for hidden folders, want %d: %q", len(warnings), len(s.hidden), findingLines(crep))
			}
			want("check", warnings)
		})
	}
	t.Run("not hidden", func(t *testing.T) {
		writeFile(t, filepath.Join(versions, "staging", "notes.txt"), "half uploaded")
		rep, err := Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: cache})
		if !errors.Is(err, ErrInvalidVersion) || !slices.ContainsFunc(findingLines(rep), func(l string) bool {
			return strings.Contains(l, "versions/staging/: folder name is not a version ID")
		}) {
			t.Errorf("check = %v, findings %q; want versions/staging/ invalid", err, findingLines(rep))
		}
	})
}
