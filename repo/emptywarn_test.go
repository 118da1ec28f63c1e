package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// emptyStores are the stores a repository at root is read through in the
// empty-folder tests: the folder itself, a web server listing every file
// (webtest, as nginx's autoindex does) and one whose page for the folder
// of version id lists nothing (emptyFolderSite, a CDN's stale copy of an
// empty page).
func emptyStores(t *testing.T, st store.Store, root, id string) map[string]store.Store {
	t.Helper()
	site, err := httpstore.New(webtest.Serve(t, root, webtest.Options{})+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, h := emptyFolderSite(t, root, id, "empty", nil)
	return map[string]store.Store{"folder": st, "web": site, "web, empty page": webSite(t, h)}
}

// hasWarning says whether warnings hold the empty-folder warning for
// version id on st.
func hasWarning(warnings []string, st store.Store, id string) bool {
	_, want := emptyFolderWarning(id, store.ListsPartially(st))
	return slices.Contains(warnings, want)
}

// TestEmptyFolderWarnings: plan, backfill (a dry run on a web site, which
// it cannot write to) and check of a repository with an empty version
// folder all carry the same warning naming it in the plan's warnings (the
// text reports and --json print them), on a folder as on a web site, and
// check's finding keeps the folder's key. Before, plan and backfill
// dropped it without a word everywhere, and on disk check did too.
func TestEmptyFolderWarnings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := smallLake(t)
	if err := os.MkdirAll(filepath.Join(root, "versions", emptyVersionID), 0o755); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for name, s := range emptyStores(t, st, root, emptyVersionID) {
		t.Run(name, func(t *testing.T) {
			opts := Options{Formats: []string{"1.0"}, Jobs: 2, Cache: cache}
			m, err := Plan(ctx, s, opts)
			if err != nil || !hasWarning(m.Warnings, s, emptyVersionID) {
				t.Errorf("plan = %v, warnings %q; want the empty folder's warning", err, m.Warnings)
			}
			if err == nil && len(m.Versions) != 3 {
				t.Errorf("plan has %d versions, want smallLake's 3", len(m.Versions))
			}
			bopts := opts
			bopts.DryRun = store.IsReadOnly(s)
			rep, err := Backfill(ctx, s, bopts)
			if err != nil || !hasWarning(rep.Plan.Warnings, s, emptyVersionID) {
				t.Errorf("backfill (dry run %v) = %v, report %+v; want the empty folder's warning", bopts.DryRun, err, rep)
			}
			crep, err := Check(ctx, s, opts)
			key, detail := emptyFolderWarning(emptyVersionID, store.ListsPartially(s))
			n := 0
			for _, f := range crep.Findings {
				if f.Kind == KindWarning && f.Key == key && f.Detail == detail {
					n++
				}
			}
			if err != nil || n != 1 {
				t.Errorf("check = %v, findings %q; want one warning %q with key %s", err, findingLines(crep), detail, key)
			}
		})
	}
}

// TestEmptyFolderRule: a version folder holding no file at all (nothing,
// or an empty catalogs/) is no version, ignored with a warning; one
// holding any file but neither version.json nor expired.json is a
// half-uploaded version, invalid (exit 6), whatever the file: on disk as
// on a web site. Before, on a web site whose page for the folder lists
// nothing, a half-uploaded version (its catalog, dataset.json or
// files.json there, version.json not yet) was dropped as empty with a
// warning where the folder check failed; now its presenceFiles are asked
// for by name, and each known format's catalogs/<format>.duckdb, which
// that format's DuckDB opens by name (before, a folder left with only
// one was a warning there, exit 6 on disk). A stray file no reader asks for behind such a page stays
// out of a web site's sight (the one difference left: a warning there). A
// presence probe the server fails leaves the folder unknown
// (unverifiable, naming the file).
func TestEmptyFolderRule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const (
		warn    = "warning"
		invalid = "invalid"
	)
	for _, tc := range []struct {
		name  string
		files []string // in the folder; a name ending in "/" an empty folder
		// want is the outcome on disk and on both web sites, but
		// emptyPage on the site whose page lists nothing, when set.
		want, emptyPage string
	}{
		{name: "nothing", want: warn},
		{name: "an empty catalogs/", files: []string{"catalogs/"}, want: warn},
		// Files no reader opens: the index page a host without listings
		// needs in each folder (on such a host it is the folder's page),
		// macOS Finder's .DS_Store; an empty folder all the same.
		{name: "an index page", files: []string{"index.html"}, want: warn},
		{name: "a hidden file and an index page in catalogs/", files: []string{".DS_Store", "catalogs/INDEX.HTM"}, want: warn},
		{name: "a stray file", files: []string{"notes.txt"}, want: invalid, emptyPage: warn},
		{name: "a stray file in catalogs/", files: []string{"catalogs/notes.txt"}, want: invalid, emptyPage: warn},
		{name: "the catalog, no version.json yet", files: []string{"ducklake.duckdb"}, want: invalid},
		{name: "dataset.json, no version.json yet", files: []string{"dataset.json"}, want: invalid},
		{name: "files.json, no version.json yet", files: []string{"files.json"}, want: invalid},
		// A DuckDB reader asks for its format's catalog by name (resolve):
		// a version whose version.json and frozen catalog are gone (a
		// withdrawal half done) but whose catalogs/1.0.duckdb is left.
		{name: "a published catalog, nothing else", files: []string{"catalogs/1.0.duckdb"}, want: invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case its own copy, web sites and cache
			st, root := smallLake(t)
			// The first version alone: the rule is the listing's, and
			// each of the three checks a case makes proved the later
			// versions' contents for nothing it asserts.
			firstVersionOnly(t, root)
			dir := filepath.Join(root, "versions", emptyVersionID)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				if strings.HasSuffix(f, "/") {
					if err := os.MkdirAll(filepath.Join(dir, f), 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				writeFile(t, filepath.Join(dir, f), "half uploaded")
			}
			cache := t.TempDir()
			for name, s := range emptyStores(t, st, root, emptyVersionID) {
				want := tc.want
				if name == "web, empty page" && tc.emptyPage != "" {
					want = tc.emptyPage
				}
				rep, err := Check(ctx, s, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: cache})
				lines := findingLines(rep)
				switch want {
				case warn:
					_, detail := emptyFolderWarning(emptyVersionID, store.ListsPartially(s))
					if err != nil || !slices.ContainsFunc(lines, func(l string) bool { return strings.HasSuffix(l, detail) }) {
						t.Errorf("%s: check = %v, findings %q; want a pass with the warning %q", name, err, lines, detail)
					}
				case invalid:
					// (A stray file in catalogs/ is a difference too.)
					var ce *CheckError
					if !errors.As(err, &ce) || ce.Counts[KindInvalid] != 1 || !slices.ContainsFunc(lines, func(l string) bool {
						// The finding says what mends it, as check's hint
						// for an invalid version does not here.
						return strings.HasPrefix(l, "invalid "+emptyVersionID+" ") && strings.Contains(l, "version.json: missing: finish publishing the version")
					}) {
						t.Errorf("%s: check = %v, findings %q; want version %s invalid, its version.json missing", name, err, lines, emptyVersionID)
					}
				}
			}
		})
	}
	t.Run("presence probe fails", func(t *testing.T) {
		_, root := smallLake(t)
		firstVersionOnly(t, root)
		if err := os.MkdirAll(filepath.Join(root, "versions", emptyVersionID), 0o755); err != nil {
			t.Fatal(err)
		}
		// Side by side, each with its own server and cache: each check
		// mostly waits for the failing probe's three retries (0.7 s of
		// httpstore's backoff).
		for _, name := range append(slices.Clone(presenceFiles), "catalogs/0.3.duckdb") {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				_, h := emptyFolderSite(t, root, emptyVersionID, "empty", []string{name})
				_, err := Check(ctx, webSite(t, h), Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
				if !errors.Is(err, ErrUnverifiable) || errors.Is(err, ErrInvalidVersion) || !strings.Contains(err.Error(), emptyVersionID+"/"+name) {
					t.Errorf("check with %s answered 500 = %v, want ErrUnverifiable (not invalid) naming %s/%s", name, err, emptyVersionID, name)
				}
			})
		}
	})
}

// firstVersionOnly removes every version of the repository at root but
// the first (the one without parents, in the oldest ID's folder).
func firstVersionOnly(t *testing.T, root string) {
	t.Helper()
	for _, id := range versionIDs(t, root)[1:] {
		if err := os.RemoveAll(filepath.Join(root, "versions", id)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEmptyNonVersionFolder: an empty folder under versions/ whose name is
// no version ID (a system's lost+found, another tool's .staging) is no
// version and ignored, with a warning that does not tell the publisher to
// finish publishing a version there (a hidden one's is the hidden
// folder's: TestHiddenFolderUnderVersions).
func TestEmptyNonVersionFolder(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	for _, name := range []string{"lost+found", ".staging"} {
		if err := os.MkdirAll(filepath.Join(root, "versions", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	if err != nil {
		t.Fatalf("check = %v, findings %q", err, findingLines(rep))
	}
	for _, name := range []string{"lost+found", ".staging"} {
		key := VersionsDir + name + "/"
		want := "whose name is not a version ID"
		if name == ".staging" {
			want = "hidden folder under versions/ ignored: no version"
		}
		n := 0
		for _, f := range rep.Findings {
			if f.Key == key {
				n++
				if f.Kind != KindWarning || !strings.Contains(f.Detail, want) || strings.Contains(f.Detail, "finish publishing") {
					t.Errorf("finding %s %q; want a warning saying %q", f.Kind, f.Detail, want)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d findings for %s, want one warning; findings %q", n, key, findingLines(rep))
		}
	}
}
