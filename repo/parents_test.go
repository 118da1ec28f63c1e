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

// hidingStore is a local store whose listing leaves out the keys under
// hide, as a remote listing (eventual consistency, a partial web-server
// index) can; Open and Stat still reach them.
type hidingStore struct {
	*local.Store
	hide string
}

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

// setParents rewrites a version.json's parents (editVersion; the rest of
// the version still matches).
func setParents(t *testing.T, root, id string, parents ...string) {
	t.Helper()
	editVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) { m["parents"] = parents })
}

// TestCheckParents: a parent in version.json that is not in the repository
// is a difference naming the version and the parent (readers follow the
// first parent for history); an expired or withdrawn parent is there; one
// the listing hides but readers reach is unverifiable. The 06_deletes lake's
// versions each name the one before.
func TestCheckParents(t *testing.T) {
	ctx := context.Background()
	const gone = "0190a000-0000-7000-8000-000000000001"
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, root string, ids []string) (hide string)
		want   error
		detail func(ids []string) string // "" when no finding may name a parent
	}{
		{"all_present", func(*testing.T, string, []string) string { return "" }, ErrWorkMissing, nil},
		{"first_parent_unknown", func(t *testing.T, root string, ids []string) string {
			setParents(t, root, ids[2], gone)
			return ""
		}, ErrDifferences, func(ids []string) string {
			return "versions/" + ids[2] + "/version.json: parents[0]: version " + gone + " is not in the repository"
		}},
		{"second_parent_unknown", func(t *testing.T, root string, ids []string) string {
			setParents(t, root, ids[2], ids[1], gone)
			return ""
		}, ErrDifferences, func(ids []string) string {
			return "versions/" + ids[2] + "/version.json: parents[1]: version " + gone + " is not in the repository"
		}},
		{"parent_folder_removed", func(t *testing.T, root string, ids []string) string {
			if err := os.RemoveAll(filepath.Join(root, "versions", ids[0])); err != nil {
				t.Fatal(err)
			}
			return ""
		}, ErrDifferences, func(ids []string) string {
			return "versions/" + ids[1] + "/version.json: parents[0]: version " + ids[0] + " is not in the repository"
		}},
		{"parent_withdrawn", func(t *testing.T, root string, ids []string) string {
			// A withdrawn version may lose everything but expired.json.
			dir := filepath.Join(root, "versions", ids[0])
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "expired.json"), `{"reason": "withdrawn"}`)
			return ""
		}, ErrWorkMissing, nil},
		{"parent_hidden_by_listing", func(t *testing.T, root string, ids []string) string {
			return "versions/" + ids[0] + "/"
		}, ErrUnverifiable, func(ids []string) string {
			return "versions/" + ids[1] + "/version.json: parents[0]: version " + ids[0] + " is not listed under versions/, yet versions/" + ids[0] + "/version.json exists"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t, "fdl.json", "versions")
			ids := versionIDs(t, root)
			hs := &hidingStore{Store: st, hide: tc.mutate(t, root, ids)}
			rep, err := Check(ctx, hs, Options{Formats: []string{"1.1"}, DataPath: filepath.Join(testlakes.Dir(t, "lakes"), "06_deletes", "data")})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check error = %v, want %v", err, tc.want)
			}
			var named []string
			for _, f := range rep.Findings {
				if strings.Contains(f.Detail, "parents[") {
					named = append(named, f.Detail)
				}
			}
			if tc.detail == nil {
				if len(named) > 0 {
					t.Errorf("findings about parents %q, want none", named)
				}
				return
			}
			if want := tc.detail(ids); len(named) != 1 || !strings.Contains(named[0], want) {
				t.Errorf("findings about parents %q, want one containing %q", named, want)
			}
		})
	}
}
