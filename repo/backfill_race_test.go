package repo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// The child half of the tests below: the test binary re-run with these
// variables backfills one repository and exits 0, or 1 on failure; with
// childKillAt it kills itself with SIGKILL at that injected point, leaving
// whatever a real kill -9 there would leave.
const (
	childRepo    = "FDL_TEST_CHILD_REPO"
	childWorkDir = "FDL_TEST_CHILD_WORKDIR"
	childFormat  = "FDL_TEST_CHILD_FORMAT"
	childKillAt  = "FDL_TEST_CHILD_KILL_AT"
)

// runChild is called first by each test that starts children; it returns
// false in the parent.
func runChild(t *testing.T) bool {
	root := os.Getenv(childRepo)
	if root == "" {
		return false
	}
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if at := os.Getenv(childKillAt); at != "" {
		ctx = faults.With(ctx, func(p faults.Point) error {
			if p.Name == at {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Minute)
			}
			return nil
		})
	}
	opts := rewriteOptions(os.Getenv(childFormat))
	opts.Jobs, opts.WorkDir = 1, os.Getenv(childWorkDir)
	if _, err := Backfill(ctx, st, opts); err != nil {
		t.Fatalf("child backfill: %v", err)
	}
	return true
}

// startChild runs this test in a new process as a child backfilling root.
func startChild(t *testing.T, root, workDir, format, killAt string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), childRepo+"="+root, childWorkDir+"="+workDir, childFormat+"="+format, childKillAt+"="+killAt)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// rewriteOptions backfill one format with rewritten delete files.
func rewriteOptions(format string) Options {
	o := Options{Formats: []string{format}}
	o.Convert.RewriteDeletes = true
	return o
}

// deletesLake is 06_deletes with 0.3 declared without until: every version
// needs partial deletion files rewritten, and its three versions share
// them, so concurrent cells write the same deterministic files.
func deletesLake(t *testing.T) (*local.Store, string) {
	t.Helper()
	st, root := smallLake(t)
	os.Remove(filepath.Join(root, "fdl.json"))
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","data_dir":"data/","formats":[{"ducklake":"0.3"},{"ducklake":"1.0"},{"ducklake":"1.1"}]}`)
	return st, root
}

// listFiles lists every file and folder under dir, relative, "" if absent.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// TestBackfillRewriteDeletesConcurrent: cells of one run (--jobs 8), two
// runs in one process and two processes at once all publish the same
// rewritten delete files. A file another writer published first with the
// same content is already there: every run succeeds, each catalog is
// written once, and check proves them all.
func TestBackfillRewriteDeletesConcurrent(t *testing.T) {
	if runChild(t) {
		return
	}
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves three catalogs per case")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, st *local.Store, root string) []*BackfillReport
	}{
		{"one run, 8 jobs", func(t *testing.T, st *local.Store, _ string) []*BackfillReport {
			opts := rewriteOptions("0.3")
			opts.Jobs = 8
			rep, err := Backfill(ctx, st, opts)
			if err != nil {
				t.Fatalf("Backfill --jobs 8: %v", err)
			}
			return []*BackfillReport{rep}
		}},
		{"two runs at once", func(t *testing.T, st *local.Store, _ string) []*BackfillReport {
			reps := make([]*BackfillReport, 2)
			var wg sync.WaitGroup
			for i := range reps {
				wg.Go(func() {
					opts := rewriteOptions("0.3")
					opts.Jobs = 1
					rep, err := Backfill(ctx, st, opts)
					if err != nil {
						t.Errorf("run %d: %v", i, err)
					}
					reps[i] = rep
				})
			}
			wg.Wait()
			return reps
		}},
		{"two processes at once", func(t *testing.T, _ *local.Store, root string) []*BackfillReport {
			a, b := startChild(t, root, t.TempDir(), "0.3", ""), startChild(t, root, t.TempDir(), "0.3", "")
			for i, c := range []*exec.Cmd{a, b} {
				if err := c.Wait(); err != nil {
					t.Errorf("process %d: %v", i, err)
				}
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := deletesLake(t)
			before := snapshotTree(t, root)
			reps := tc.run(t, st, root)
			written := map[string]int{}
			for _, rep := range reps {
				for _, r := range rep.Results {
					if r.Outcome == Written {
						written[r.Key]++
					}
				}
			}
			for key, n := range written {
				if n != 1 {
					t.Errorf("%s written %d times", key, n)
				}
			}
			if got := newFiles(before, snapshotTree(t, root)); len(got) != 3 {
				t.Errorf("new files under versions/: %q, want the three 0.3 catalogs", got)
			}
			if _, err := Check(ctx, st, Options{Formats: []string{"0.3"}}); err != nil {
				t.Errorf("Check: %v", err)
			}
			for _, f := range listFiles(t, filepath.Join(root, "data")) {
				if strings.Contains(f, ".tmp") {
					t.Errorf("temporary file in the data folder: %s", f)
				}
			}
		})
	}
}

// TestBackfillKilled kills a backfill (SIGKILL, at an injected point) while
// its temporary files exist. They are in the repository's temp folder and
// the work folder, never in data/ or versions/; the next backfill removes
// them, says so, and completes.
func TestBackfillKilled(t *testing.T) {
	if runChild(t) {
		return
	}
	t.Parallel()
	if testing.Short() {
		t.Skip("converts catalogs in child processes")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, format, killAt string
		leftInTemp           string // name prefix of what the kill leaves in .fdl-tmp
	}{
		{"rewritten delete files not yet published", "0.3", "convert/publish", "convert-"},
		{"catalog written, not yet linked", "1.1", "local/link", "create-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := deletesLake(t)
			work := t.TempDir()
			data, versions := listFiles(t, filepath.Join(root, "data")), snapshotTree(t, root)

			err := startChild(t, root, work, tc.format, tc.killAt).Wait()
			if err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("child: %v, want killed", err)
			}
			if got := listFiles(t, filepath.Join(root, "data")); !slices.Equal(got, data) {
				t.Errorf("the killed run changed the data folder: %q", newNames(data, got))
			}
			if got := newFiles(versions, snapshotTree(t, root)); len(got) != 0 {
				t.Errorf("the killed run left files under versions/: %q", got)
			}
			temp := filepath.Join(root, store.TempDir)
			left := listFiles(t, temp)
			if len(left) == 0 || !strings.HasPrefix(left[0], tc.leftInTemp) {
				t.Fatalf("%s holds %q, want what the killed run was writing (%s*)", temp, left, tc.leftInTemp)
			}
			works := listFiles(t, work)
			if len(works) == 0 || !strings.HasPrefix(works[0], backfillWorkPrefix) {
				t.Fatalf("work folder holds %q, want the killed run's %s*", works, backfillWorkPrefix)
			}

			opts := rewriteOptions(tc.format)
			opts.WorkDir = work
			rep, err := Backfill(ctx, st, opts)
			if err != nil {
				t.Fatalf("backfill after the kill: %v", err)
			}
			var removed []string
			for _, rm := range rep.Removed {
				if !strings.Contains(rm.Reason, "is gone") {
					t.Errorf("removed %s: reason %q", rm.Path, rm.Reason)
				}
				removed = append(removed, rm.Path)
			}
			want := []string{filepath.Join(work, works[0]), filepath.Join(temp, left[0])}
			slices.Sort(removed)
			slices.Sort(want)
			if !slices.Equal(removed, want) {
				t.Errorf("reported removed %q, want %q", removed, want)
			}
			if got := listFiles(t, temp); len(got) != 0 {
				t.Errorf("%s still holds %q", temp, got)
			}
			if got := listFiles(t, work); len(got) != 0 {
				t.Errorf("work folder still holds %q", got)
			}
			if rep.Counts[Written] != 3 {
				t.Errorf("counts %v, want 3 written", rep.Counts)
			}
		})
	}
}

func newNames(before, after []string) []string {
	var out []string
	for _, a := range after {
		if !slices.Contains(before, a) {
			out = append(out, a)
		}
	}
	return out
}

// TestBackfillRewriteDeletesKeysNameWrittenFiles: the delete files a
// backfill's conversions write into the data folder are in the keys of the
// proofs it keeps after them, though the run lists the data folder once for
// its keys (it lists again after each write). A proof's key names every
// file of the data folder, so a proof kept before a later cell wrote its
// files names a folder that is gone; the proof kept after the last write
// names the folder as it now is, and a check with the same cache finds it.
func TestBackfillRewriteDeletesKeysNameWrittenFiles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves three catalogs per case")
	}
	ctx := context.Background()
	for _, jobs := range []int{1, 2} {
		t.Run(fmt.Sprintf("jobs %d", jobs), func(t *testing.T) {
			st, root := deletesLake(t)
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			before := listFiles(t, filepath.Join(root, "data"))
			opts := rewriteOptions("0.3")
			opts.Jobs, opts.DigestCache = jobs, cache
			rep, err := Backfill(ctx, st, opts)
			if err != nil || rep.Counts[Written] != 3 {
				t.Fatalf("Backfill: %v (%v), want 3 catalogs written", err, rep.Counts)
			}
			if after := listFiles(t, filepath.Join(root, "data")); len(after) <= len(before) {
				t.Fatalf("no delete file written into the data folder (%d entries, then %d)", len(before), len(after))
			}
			check, err := Check(ctx, st, Options{Formats: []string{"0.3"}, Jobs: jobs, DigestCache: cache})
			if err != nil || len(check.Proofs) != 3 {
				t.Fatalf("Check: %v (%d proofs)", err, len(check.Proofs))
			}
			cached := 0
			for _, p := range check.Proofs {
				if p.Cached {
					cached++
				}
			}
			if cached == 0 {
				t.Errorf("check found none of the backfill's proofs kept; want the one proved after the last write")
			}
		})
	}
}
