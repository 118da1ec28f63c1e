package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayoutLinkedOutside: a file or folder of the layout readers open
// (fdl.json, versions/, a version folder, its frozen catalog, catalogs/)
// that is a symbolic link leading out of a repository in a folder is read
// through the link, by readers and by check; but a copy made with cp -a,
// rsync -a or tar keeps the link, which then leads nowhere, or to another
// file, where the target is not copied along. The data files and the data
// folder were warned of (TestDataLinkedOutside); these passed without a
// word. A link that stays inside the repository is no concern.
func TestLayoutLinkedOutside(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, opts := publishedLake(t)
	opts.Formats = []string{"1.0", "1.1"}
	id := versionIDs(t, golden)[2]
	for _, tc := range []struct {
		name    string
		rel     string // moved and linked back
		outside bool   // moved out of the repository (else into a hidden folder of it)
		want    string // the warning names it ("" for no warning)
	}{
		{"fdl.json", "fdl.json", true, "fdl.json resolves to"},
		{"versions/", "versions", true, "versions/ resolves to"},
		{"a version folder", "versions/" + id, true, "versions/" + id + "/ resolves to"},
		{"catalogs/", "versions/" + id + "/catalogs", true, "versions/" + id + "/catalogs/ resolves to"},
		{"the frozen catalog", "versions/" + id + "/ducklake.duckdb", true, "versions/" + id + "/ducklake.duckdb resolves to"},
		{"a published catalog's folder inside", "versions/" + id + "/catalogs", false, ""},
		{"nothing linked", "", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, root := cloneRepo(t, golden)
			var target string
			if tc.rel != "" {
				dir := filepath.Join(root, ".elsewhere")
				if tc.outside {
					dir = t.TempDir()
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				target = filepath.Join(dir, filepath.Base(tc.rel))
				if err := os.Rename(filepath.Join(root, tc.rel), target); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(root, tc.rel)); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Check(ctx, st, opts)
			if err != nil {
				t.Fatalf("Check = %v, want ok (readers go through the link)", err)
			}
			warned := warningsContaining(rep, "cp -a, rsync -a or tar")
			switch {
			case tc.want == "" && len(warned) > 0:
				t.Errorf("check warns %q, want nothing", warned)
			case tc.want != "" && (len(warned) != 1 || !strings.Contains(warned[0], tc.want) || !strings.Contains(warned[0], target)):
				t.Errorf("check warns %q, want one warning saying %q and naming %s", warned, tc.want, target)
			}
		})
	}
}
