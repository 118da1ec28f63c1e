package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckThroughLinks: a publisher may keep a version folder, or the
// whole versions/ folder, on another disk behind a symbolic link. Readers
// go through the link, so check must too: a corrupt published catalog
// behind a link is a difference (before, List skipped links, check read
// fewer versions or none, and passed), and an intact one is proved. A link
// to nowhere holds no version, for check as for readers.
func TestCheckThroughLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, opts := publishedLake(t)
	opts.Formats = []string{"1.0", "1.1"}
	id := versionIDs(t, golden)[2]
	// moveAndLink moves root's rel elsewhere and links it back.
	moveAndLink := func(t *testing.T, root, rel string) string {
		t.Helper()
		moved := filepath.Join(t.TempDir(), filepath.Base(rel))
		if err := os.Rename(filepath.Join(root, rel), moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(moved, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
		return moved
	}
	corrupt := func(t *testing.T, v string) {
		p := filepath.Join(v, "catalogs", "1.1.duckdb")
		flipByte(t, p, usedBlockOffset(t, p, "ducklake_table_stats"))
	}
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, root string)
		want   error  // nil: the check passes
		detail string // in a finding, or in the error when there is no report
	}{
		{"version linked, its catalog corrupt", func(t *testing.T, root string) {
			corrupt(t, moveAndLink(t, root, filepath.Join("versions", id)))
		}, ErrDifferences, "B cannot be read while A can"},
		{"versions/ linked, a catalog corrupt", func(t *testing.T, root string) {
			corrupt(t, filepath.Join(moveAndLink(t, root, "versions"), id))
		}, ErrDifferences, "B cannot be read while A can"},
		{"version linked, intact", func(t *testing.T, root string) {
			moveAndLink(t, root, filepath.Join("versions", id))
		}, nil, ""},
		{"versions/ linked, intact", func(t *testing.T, root string) {
			moveAndLink(t, root, "versions")
		}, nil, ""},
		{"version linked to nowhere", func(t *testing.T, root string) {
			moved := moveAndLink(t, root, filepath.Join("versions", id))
			os.RemoveAll(moved)
		}, nil, `no version "3"`}, // readers cannot reach it either
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			tc.mutate(t, root)
			rep, err := Check(ctx, st, opts)
			if rep == nil {
				if err == nil || tc.detail == "" || !strings.Contains(err.Error(), tc.detail) {
					t.Fatalf("Check = %v, want an error naming %q", err, tc.detail)
				}
				return
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want ok", err)
				}
				if len(rep.Proofs) != 1 || !rep.Proofs[0].OK || rep.Proofs[0].Version != id {
					t.Errorf("proofs %+v, want version %s's 1.1 proved", rep.Proofs, id)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			var details []string
			for _, f := range rep.Findings {
				details = append(details, fmt.Sprintf("%s %s: %s", f.Kind, f.Key, f.Detail))
			}
			if all := strings.Join(details, "\n"); !strings.Contains(all, tc.detail) {
				t.Errorf("no finding about %q:\n%s", tc.detail, all)
			}
		})
	}
}
