package repo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

// linkOntoOtherFS moves the folder rel of the repository at root onto
// another file system and leaves a symbolic link to it in its place, as
// docs/repository.md allows ("may be a link onto another disk"); it
// returns the folder's new place.
func linkOntoOtherFS(t *testing.T, root, rel string) string {
	t.Helper()
	target := filepath.Join(storetest.OtherFileSystem(t, root), filepath.Base(rel))
	src := filepath.Join(root, filepath.FromSlash(rel))
	// A rename cannot cross file systems: copy, then remove.
	if err := copyTree(src, target); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, src); err != nil {
		t.Fatal(err)
	}
	return target
}

// firstVersion is the ID of the repository's first version folder.
func firstVersion(t *testing.T, root string) string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(root, "versions"))
	if err != nil || len(des) == 0 {
		t.Fatalf("versions/: %v, %d entries", err, len(des))
	}
	return des[0].Name()
}

// TestBackfillAcrossFileSystems backfills and checks a repository whose
// versions/, one version folder, or data folder (with rewritten delete
// files) is linked onto another file system. Before, every cell converted
// and proved, then failed to publish with "invalid cross-device link"
// (link from the root's .fdl-tmp), for ever, and check then exited 5.
// The temporary files are staged on the folder's own file system and
// gone afterwards. With versions/ or a version folder linked, the first
// version alone is backfilled: its catalog crosses as the others' would;
// the rewritten delete files are the later versions'.
func TestBackfillAcrossFileSystems(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves three catalogs per case")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, format string
		linked       func(root string) string
	}{
		{"versions", "1.1", func(string) string { return "versions" }},
		{"one version folder", "1.1", func(root string) string { return "versions/" + firstVersion(t, root) }},
		{"data folder, rewritten delete files", "0.3", func(string) string { return "data" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := deletesLake(t)
			rel := tc.linked(root)
			target := linkOntoOtherFS(t, root, rel)
			opts := rewriteOptions(tc.format)
			opts.WorkDir = t.TempDir()
			cells := 3
			if tc.format == "1.1" {
				opts.Versions, cells = []string{firstVersion(t, root)}, 1
			}
			rep, err := Backfill(ctx, st, opts)
			if err != nil {
				for _, res := range rep.Results {
					t.Logf("%s %s: %s %s", res.Version, res.Format, res.Outcome, res.Error)
				}
				t.Fatalf("backfill with %s linked onto another file system: %v", rel, err)
			}
			if rep.Counts[Written] != cells {
				t.Errorf("counts %v, want %d written", rep.Counts, cells)
			}
			if crep, err := Check(ctx, st, opts); err != nil || !crep.OK {
				t.Errorf("check after the backfill: %v", err)
			}
			for _, dir := range []string{root, target} {
				if _, err := os.Lstat(filepath.Join(dir, store.TempDir)); err == nil {
					t.Errorf("temporary folder left in %s", dir)
				}
			}
			if tc.format == "1.1" {
				var written []string
				for _, p := range listFiles(t, target) {
					if strings.HasSuffix("/"+p, "/catalogs/1.1.duckdb") {
						written = append(written, p)
					}
				}
				if len(written) != 1 {
					t.Errorf("on the other file system: catalogs %q, want the first version's", written)
				}
			}
		})
	}
}

// TestBackfillKilledAcrossFileSystems kills a backfill (SIGKILL) between
// writing a catalog and linking it, with versions/ linked onto another
// file system: its temporary file is in versions/.fdl-tmp (on that file
// system), which check does not see; the next backfill removes it, says
// so, and completes.
func TestBackfillKilledAcrossFileSystems(t *testing.T) {
	if runChild(t) {
		return
	}
	t.Parallel()
	if testing.Short() {
		t.Skip("converts catalogs in child processes")
	}
	ctx := context.Background()
	st, root := deletesLake(t)
	linkOntoOtherFS(t, root, "versions")
	work := t.TempDir()
	err := startChild(t, root, work, "1.1", "local/link").Wait()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("child: %v, want killed", err)
	}
	temp := filepath.Join(root, "versions", store.TempDir)
	left := listFiles(t, temp)
	if len(left) == 0 || !strings.HasPrefix(left[0], "create-") {
		t.Fatalf("%s holds %q, want the killed run's create-*", temp, left)
	}
	if _, err := os.Stat(filepath.Join(root, store.TempDir)); err == nil {
		t.Errorf("the root's temporary folder holds %q, want it absent", listFiles(t, filepath.Join(root, store.TempDir)))
	}
	// Check does not take it for a version.
	m, err := Plan(ctx, st, Options{Formats: []string{"1.1"}, WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range m.Versions {
		if strings.Contains(v.ID, store.TempDir) {
			t.Errorf("plan shows version %s", v.ID)
		}
	}
	opts := rewriteOptions("1.1")
	opts.WorkDir = work
	rep, err := Backfill(ctx, st, opts)
	if err != nil {
		t.Fatalf("backfill after the kill: %v", err)
	}
	var removed []string
	for _, rm := range rep.Removed {
		removed = append(removed, rm.Path)
	}
	if !slices.Contains(removed, filepath.Join(temp, left[0])) {
		t.Errorf("reported removed %q, want %s among them", removed, filepath.Join(temp, left[0]))
	}
	if _, err := os.Stat(temp); err == nil {
		t.Errorf("%s still there, holding %q", temp, listFiles(t, temp))
	}
	if rep.Counts[Written] != 3 {
		t.Errorf("counts %v, want 3 written", rep.Counts)
	}
	if crep, err := Check(ctx, st, opts); err != nil || !crep.OK {
		t.Errorf("check after the backfill: %v", err)
	}
}

// TestTempDirNotAVersion: a versions/.fdl-tmp/ that a copy of a local
// repository brought to a bucket or web site (a killed backfill's file,
// staged there because versions/ was linked onto another disk) is no
// version, as the root's .fdl-tmp/ never was.
func TestTempDirNotAVersion(t *testing.T) {
	ctx := context.Background()
	st := store.NewMem()
	for key, body := range map[string]string{
		FDLKey: `{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`,
		VersionsDir + store.TempDir + "/create-0badc0de-1-2.tmp": "half a catalog",
	} {
		if err := st.Create(ctx, key, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Plan(ctx, st, Options{Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Versions) != 0 {
		t.Errorf("plan shows versions %+v, want none", m.Versions[0])
	}
}
