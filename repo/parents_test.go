package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// hidingStore is a local store whose listing leaves out the keys under
// hide; Open and Stat still reach them. With partial it says so, as a web
// site (whose index pages may leave files out) does; without, it stands
// for a store whose listing is whole, where an unlisted key is absent.
type hidingStore struct {
	*local.Store
	hide    string
	partial bool
}

func (s *hidingStore) ListsPartially() bool { return s.partial }

func (s *hidingStore) List(ctx context.Context, prefix string) ([]store.ObjectInfo, error) {
	objs, err := s.Store.List(ctx, prefix)
	if err != nil || s.hide == "" {
		return objs, err
	}
	var out []store.ObjectInfo
	for _, o := range objs {
		if !strings.HasPrefix(o.Key, s.hide) {
			out = append(out, o)
		}
	}
	return out, nil
}

// ListFolders hides the folder from the folder listing too (the local
// store is a store.FolderLister): a hidden version is not seen at all.
func (s *hidingStore) ListFolders(ctx context.Context, prefix string) ([]store.ObjectInfo, []string, error) {
	objs, err := s.List(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	_, folders, err := s.Store.ListFolders(ctx, prefix)
	if err != nil || s.hide == "" {
		return objs, folders, err
	}
	var out []string
	for _, f := range folders {
		if !strings.HasPrefix(f, s.hide) {
			out = append(out, f)
		}
	}
	return objs, out, nil
}

// setParents rewrites a version.json's parents (testlakes.EditVersion; the rest of
// the version still matches).
func setParents(t *testing.T, root, id string, parents ...string) {
	t.Helper()
	testlakes.EditVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) { m["parents"] = parents })
}

// setSeq rewrites a version.json's seq.
func setSeq(t *testing.T, root, id string, seq int) {
	t.Helper()
	testlakes.EditVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) { m["seq"] = seq })
}

// withdraw makes a version withdrawn as the spec allows at its most: its
// catalogs and version.json deleted, expired.json added.
func withdraw(t *testing.T, root, id string) {
	t.Helper()
	dir := filepath.Join(root, "versions", id)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "expired.json"), `{"reason": "withdrawn"}`)
}

// TestCheckParents: what a version.json says of its history is checked
// against the repository. A parent that is not in it is a difference
// naming the version and the parent (readers follow the first parent for
// history); an expired or withdrawn parent is there; one a web site's
// listing hides but readers reach is unverifiable, while on a store whose
// listing is whole an unlisted parent is absent (no probe). seq must be 1
// without parents and the first parent's plus 1 after: otherwise the
// version.json is invalid, naming the seq and the one expected; against a
// parent whose version.json a withdrawal deleted it is not checked, which
// a warning says. First parents that come back to a version (a cycle) make
// each version on it invalid, naming the cycle; the run, and Resolve of
// the latest version, end. The 06_deletes lake's versions (seq 1, 2, 3)
// each name the one before.
func TestCheckParents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const gone = "0190a000-0000-7000-8000-000000000001"
	for _, tc := range []struct {
		name    string
		mutate  func(t *testing.T, root string, ids []string) (hide string)
		partial bool // the store says its listing may leave files out
		want    error
		// findings about parents, seq or history ("kind: phrase"), each
		// matched by exactly one finding
		detail func(ids []string) []string
	}{
		{"all_present", func(*testing.T, string, []string) string { return "" }, false, nil, nil},
		{"first_parent_unknown", func(t *testing.T, root string, ids []string) string {
			setParents(t, root, ids[2], gone)
			return ""
		}, false, ErrDifferences, func(ids []string) []string {
			return []string{"difference: versions/" + ids[2] + "/version.json: parents[0]: version " + gone + " is not in the repository"}
		}},
		{"second_parent_unknown", func(t *testing.T, root string, ids []string) string {
			setParents(t, root, ids[2], ids[1], gone)
			return ""
		}, false, ErrDifferences, func(ids []string) []string {
			return []string{"difference: versions/" + ids[2] + "/version.json: parents[1]: version " + gone + " is not in the repository"}
		}},
		{"parent_folder_removed", func(t *testing.T, root string, ids []string) string {
			if err := os.RemoveAll(filepath.Join(root, "versions", ids[0])); err != nil {
				t.Fatal(err)
			}
			return ""
		}, false, ErrDifferences, func(ids []string) []string {
			return []string{"difference: versions/" + ids[1] + "/version.json: parents[0]: version " + ids[0] + " is not in the repository"}
		}},
		// As the spec has a withdrawal at its most: nothing to report,
		// nothing anyone could mend (it warned on every run), also for
		// a seq that cannot be checked against it.
		{"parent_withdrawn", func(t *testing.T, root string, ids []string) string {
			withdraw(t, root, ids[0])
			return ""
		}, false, nil, nil},
		{"parent_withdrawn_child_seq_unchecked", func(t *testing.T, root string, ids []string) string {
			withdraw(t, root, ids[0])
			setSeq(t, root, ids[1], 9)
			setSeq(t, root, ids[2], 10)
			return ""
		}, false, nil, nil},
		// Only a withdrawal deletes version.json: an expired parent that
		// lost it is warned of, saying what mends it.
		{"parent_expired_without_version_json", func(t *testing.T, root string, ids []string) string {
			withdraw(t, root, ids[0])
			writeFile(t, filepath.Join(root, "versions", ids[0], "expired.json"), `{"reason": "expired"}`)
			return ""
		}, false, nil, func(ids []string) []string {
			return []string{"warning: versions/" + ids[1] + "/version.json: seq: 2 not checked: its first parent " + ids[0] + ` is marked "expired" (expired.json) and its version.json is gone, which the spec allows only for a withdrawal (FDL 0.1, Versions: version.json is deleted if it holds the withdrawn data); restore versions/` + ids[0] + `/version.json, or, if the version was withdrawn, say so in its expired.json ("reason": "withdrawn")`}
		}},
		{"parent_hidden_by_listing", func(t *testing.T, root string, ids []string) string {
			return "versions/" + ids[0] + "/"
		}, true, ErrUnverifiable, func(ids []string) []string {
			return []string{"unverifiable: versions/" + ids[1] + "/version.json: parents[0]: version " + ids[0] + " is not listed under versions/, yet versions/" + ids[0] + "/version.json exists"}
		}},
		{"parent_unlisted_by_a_whole_listing", func(t *testing.T, root string, ids []string) string {
			return "versions/" + ids[0] + "/"
		}, false, ErrDifferences, func(ids []string) []string {
			return []string{"difference: versions/" + ids[1] + "/version.json: parents[0]: version " + ids[0] + " is not in the repository"}
		}},
		{"seq_not_first_parents_plus_one", func(t *testing.T, root string, ids []string) string {
			setSeq(t, root, ids[2], 5)
			return ""
		}, false, ErrInvalidVersion, func(ids []string) []string {
			return []string{"invalid: versions/" + ids[2] + "/version.json: seq: 5, want 3: its first parent " + ids[1] + " has seq 2"}
		}},
		{"seq_of_a_first_version_not_1", func(t *testing.T, root string, ids []string) string {
			setSeq(t, root, ids[0], 2)
			return ""
		}, false, ErrInvalidVersion, func(ids []string) []string {
			return []string{
				"invalid: versions/" + ids[0] + "/version.json: seq: 2 for a version without parents, want 1",
				"invalid: versions/" + ids[1] + "/version.json: seq: 2, want 3: its first parent " + ids[0] + " has seq 2",
			}
		}},
		{"seq_after_an_expired_parent_that_kept_its_version_json", func(t *testing.T, root string, ids []string) string {
			dir := filepath.Join(root, "versions", ids[0])
			for _, name := range []string{"ducklake.duckdb", "files.json"} { // the spec deletes both
				if err := os.Remove(filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			writeFile(t, filepath.Join(dir, "expired.json"), `{"reason": "expired"}`)
			setSeq(t, root, ids[1], 4)
			setSeq(t, root, ids[2], 5) // only the first edge is wrong
			return ""
		}, false, ErrInvalidVersion, func(ids []string) []string {
			return []string{"invalid: versions/" + ids[1] + "/version.json: seq: 4, want 2"}
		}},
		{"seq_after_a_hidden_parent", func(t *testing.T, root string, ids []string) string {
			setSeq(t, root, ids[1], 9) // not checked against the hidden parent
			setSeq(t, root, ids[2], 10)
			return "versions/" + ids[0] + "/"
		}, true, ErrUnverifiable, func(ids []string) []string {
			return []string{"unverifiable: versions/" + ids[1] + "/version.json: parents[0]: version " + ids[0] + " is not listed"}
		}},
		{"cycle_of_two", func(t *testing.T, root string, ids []string) string {
			setParents(t, root, ids[0], ids[1])
			return ""
		}, false, ErrInvalidVersion, func(ids []string) []string {
			return []string{
				"invalid: versions/" + ids[0] + "/version.json: parents[0]: its history comes back to it (" + ids[0] + " -> " + ids[1] + " -> " + ids[0] + ")",
				"invalid: versions/" + ids[1] + "/version.json: parents[0]: its history comes back to it (" + ids[1] + " -> " + ids[0] + " -> " + ids[1] + ")",
			}
		}},
		{"cycle_of_three", func(t *testing.T, root string, ids []string) string {
			setParents(t, root, ids[0], ids[2])
			setSeq(t, root, ids[0], 4)
			return ""
		}, false, ErrInvalidVersion, func(ids []string) []string {
			return []string{
				"invalid: versions/" + ids[0] + "/version.json: parents[0]: its history comes back to it (" + ids[0] + " -> " + ids[2] + " -> " + ids[1] + " -> " + ids[0] + ")",
				"invalid: versions/" + ids[1] + "/version.json: parents[0]: its history comes back to it (" + ids[1] + " -> " + ids[0] + " -> " + ids[2] + " -> " + ids[1] + ")",
				"invalid: versions/" + ids[2] + "/version.json: parents[0]: its history comes back to it (" + ids[2] + " -> " + ids[1] + " -> " + ids[0] + " -> " + ids[2] + ")",
			}
		}},
		{"history_into_a_cycle", func(t *testing.T, root string, ids []string) string {
			setParents(t, root, ids[1], ids[0])
			setParents(t, root, ids[0], ids[1])
			setSeq(t, root, ids[0], 3) // ids[1] says 2, want 4: not reported on a cycle; ids[2] (3) follows ids[1]
			return ""
		}, false, ErrInvalidVersion, func(ids []string) []string {
			// ids[2] leads into the cycle and is not on it: reported on
			// the versions that are, whose seqs cannot all follow.
			return []string{
				"invalid: versions/" + ids[0] + "/version.json: parents[0]: its history comes back to it",
				"invalid: versions/" + ids[1] + "/version.json: parents[0]: its history comes back to it",
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case its own copy
			st, root := smallLake(t)
			ids := versionIDs(t, root)
			hs := &hidingStore{Store: st, hide: tc.mutate(t, root, ids), partial: tc.partial}
			// The source's format alone: parents and seq are checked whatever
			// the formats, and a missing cell would be planned (a dry-run
			// conversion) for nothing this test looks at.
			rep, err := Check(ctx, hs, Options{Formats: []string{"1.0"}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check error = %v, want %v", err, tc.want)
			}
			var named []string
			for _, f := range rep.Findings {
				if strings.Contains(f.Detail, "parents[") || strings.Contains(f.Detail, "version.json: seq") {
					named = append(named, string(f.Kind)+": "+f.Detail)
				}
			}
			var want []string
			if tc.detail != nil {
				want = tc.detail(ids)
			}
			if len(named) != len(want) {
				t.Fatalf("findings about parents and seq %q, want %d: %q", named, len(want), want)
			}
			for _, w := range want {
				if n := len(slices.DeleteFunc(slices.Clone(named), func(d string) bool { return !strings.Contains(d, w) })); n != 1 {
					t.Errorf("%d findings contain %q, want 1 (findings %q)", n, w, named)
				}
			}
			// Readers pick the latest version without walking history.
			res, err := Resolve(ctx, hs, ResolveOptions{DuckDB: "1.5.6"})
			if err != nil || res.Version != ids[2] {
				t.Errorf("Resolve(latest) = %+v, %v; want version %s", res, err, ids[2])
			}
		})
	}
}

// TestCheckParentProbes: on a web site whose listing of versions/ leaves
// a parent out, check asks the server for the parent's version.json and
// expired.json: an answer other than "absent" (500) makes the version
// unverifiable, naming the parent and the error, never a parent that is
// not there; 404 for both is a parent not in the repository; a parent the
// server gives is one the listing hides.
func TestCheckParentProbes(t *testing.T) {
	t.Parallel() // mostly waits for a probe's retries (httpstore's backoff)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		status int // the server's answer for the parent's files (0: the files)
		want   error
		detail string
	}{
		// The parent's version.json named once, by its URL (SITE/).
		{"server_error", http.StatusInternalServerError, ErrUnverifiable, "is not listed under versions/ and probing it failed: stat SITE/versions/%s/version.json: HEAD answered 500"},
		{"absent", http.StatusNotFound, ErrDifferences, "version %s is not in the repository"},
		{"hidden", 0, ErrUnverifiable, "is not listed under versions/, yet versions/%s/version.json exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case its own copy and web site
			_, root := smallLake(t)
			ids := versionIDs(t, root)
			files := http.FileServer(http.Dir(root))
			site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/versions/":
					// A hand-written index page that leaves the first version out.
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprintf(w, `<pre><a href="%[1]s/">%[1]s/</a> <a href="%[2]s/">%[2]s/</a></pre>`, ids[1], ids[2])
					return
				case tc.status != 0 && strings.HasPrefix(r.URL.Path, "/versions/"+ids[0]+"/"):
					http.Error(w, http.StatusText(tc.status), tc.status)
					return
				}
				files.ServeHTTP(w, r)
			}))
			rep, err := Check(ctx, site, Options{Versions: []string{ids[1]}, Formats: []string{"1.0"}, Cache: t.TempDir()})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			got := nonWarnings(rep)
			want := "versions/" + ids[1] + "/version.json: parents[0]: "
			detail := strings.ReplaceAll(fmt.Sprintf(tc.detail, ids[0]), "SITE/", site.BaseURL())
			if len(got) != 1 || !strings.HasPrefix(got[0].Detail, want) || !strings.Contains(got[0].Detail, detail) || strings.Count(got[0].Detail, ids[0]+"/version.json") > 1 {
				t.Fatalf("findings %+v, want one starting %q and saying %q, naming the parent's version.json at most once", got, want, detail)
			}
		})
	}
}
