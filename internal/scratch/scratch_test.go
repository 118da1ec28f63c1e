package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSweep makes real entries with every kind of owner and age, and checks
// which ones Sweep removes.
func TestSweep(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("cannot start a process to get a dead PID: %v", err)
	}
	deadPID := strconv.Itoa(dead.Process.Pid)
	me, self := hostID(), strconv.Itoa(os.Getpid())
	old := time.Now().Add(-StaleAfter - time.Hour)
	for _, tc := range []struct {
		name    string
		dir     bool
		mtime   time.Time // zero: now
		removed bool
	}{
		{"fdl-backfill-" + me + "-" + self + "-1", true, old, false},           // this process: never
		{"fdl-backfill-" + me + "-" + deadPID + "-2", true, time.Time{}, true}, // dead run of this host: at once
		{"create-" + me + "-" + deadPID + "-3.tmp", false, time.Time{}, true},  // the same for files
		{"create-" + me + "-1-4.tmp", false, old, false},                       // PID 1 lives: kept however old
		{"fdl-plan-0badc0de-" + self + "-5", true, time.Time{}, false},         // another host, recent: kept
		{"fdl-plan-0badc0de-" + self + "-6", true, old, true},                  // another host, old: removed
		{"fdl-check-123456", true, old, true},                                  // no owner (older releases), old
		{"fdl-check-123457", true, time.Time{}, false},                         // no owner, recent
		{"other-" + me + "-" + deadPID + "-7", false, old, false},              // not a prefix it sweeps
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, tc.name)
			var err error
			if tc.dir {
				err = os.MkdirAll(filepath.Join(p, "cell-1"), 0o755)
			} else {
				err = os.WriteFile(p, []byte("x"), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.mtime.IsZero() {
				if err := os.Chtimes(p, tc.mtime, tc.mtime); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Sweep(dir, []string{"fdl-backfill-", "fdl-plan-", "fdl-check-", "create-"}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(p)
			if gone := statErr != nil; gone != tc.removed {
				t.Errorf("removed = %v, want %v (report %v)", gone, tc.removed, got)
			}
			if tc.removed != (len(got) == 1 && got[0].Path == p && got[0].Reason != "") {
				t.Errorf("report %v does not match", got)
			}
		})
	}
	// With an empty prefix (a folder only this module writes to), the owner
	// is still found after the writer's prefix.
	dir := t.TempDir()
	for _, name := range []string{"convert-" + me + "-" + deadPID + "-1", "create-" + me + "-" + self + "-2.tmp"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	if got, err := Sweep(dir, []string{""}, time.Now()); err != nil || len(got) != 1 || filepath.Base(got[0].Path) != "convert-"+me+"-"+deadPID+"-1" {
		t.Errorf("Sweep with an empty prefix removed %v (%v), want only the dead run's entry", got, err)
	}
	if got, err := Sweep(filepath.Join(t.TempDir(), "missing"), []string{"x"}, time.Now()); err != nil || len(got) != 0 {
		t.Errorf("Sweep of a missing folder = %v, %v", got, err)
	}
}

// TestNames: what MkdirTemp and CreateTemp make carries this process as
// owner, so Sweep keeps it while the process lives.
func TestNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made", "on", "demand")
	d, err := MkdirTemp(dir, "fdl-backfill-")
	if err != nil {
		t.Fatal(err)
	}
	f, err := CreateTemp(dir, "create-", ".tmp")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for p, prefix := range map[string]string{d: "fdl-backfill-", f.Name(): "create-"} {
		rest, ok := strings.CutPrefix(filepath.Base(p), prefix)
		m := owned.FindStringSubmatch(rest)
		if !ok || m == nil || m[1] != hostID() || m[2] != strconv.Itoa(os.Getpid()) {
			t.Errorf("%s does not name this process as owner", p)
		}
	}
	got, err := Sweep(dir, []string{"fdl-backfill-", "create-"}, time.Now().Add(10*StaleAfter))
	if err != nil || len(got) != 0 {
		t.Errorf("Sweep removed live entries: %v %v", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if names := len(entries); names != 2 || !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.IsDir() }) {
		t.Errorf("entries %v", entries)
	}
}

// TestCreateTempFolderRemovedMeanwhile: writers that remove their temporary
// folder when done (store/local's Create does) race others creating theirs in
// it. os.MkdirAll then fails with "file exists" when the folder is removed
// between its mkdir and its check of what is there; CreateTemp tries again
// then, as it does when the folder goes before the file is made.
func TestCreateTempFolderRemovedMeanwhile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tmp")
	const writers, rounds = 8, 400
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				f, err := CreateTemp(dir, "w-", ".tmp")
				if err != nil {
					errs <- err
					return
				}
				f.Close()
				os.Remove(f.Name())
				_ = os.Remove(dir) // only if empty, as Create does
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("CreateTemp while others remove the folder: %v", err)
	}
}

// TestTempName: a name TempName gives is new each time, creates nothing,
// and names its owner as MkdirTemp's do: the folder made under it is kept
// while its process lives, and removed once that process is gone.
func TestTempName(t *testing.T) {
	dir := t.TempDir()
	a, b := TempName("fdl-spill-"), TempName("fdl-spill-")
	if a == b || !strings.HasPrefix(a, "fdl-spill-"+tag()) {
		t.Fatalf("TempName gave %q and %q", a, b)
	}
	if err := os.Mkdir(filepath.Join(dir, a), 0o755); err != nil {
		t.Fatal(err)
	}
	if removed, err := Sweep(dir, []string{"fdl-spill-"}, time.Now()); err != nil || len(removed) != 0 {
		t.Fatalf("Sweep removed %v (%v), a live process's folder", removed, err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skipf("cannot start a process to get a dead PID: %v", err)
	}
	gone := strings.Replace(a, "-"+strconv.Itoa(os.Getpid())+"-", "-"+strconv.Itoa(dead.Process.Pid)+"-", 1)
	if err := os.Rename(filepath.Join(dir, a), filepath.Join(dir, gone)); err != nil {
		t.Fatal(err)
	}
	if removed, err := Sweep(dir, []string{"fdl-spill-"}, time.Now()); err != nil || len(removed) != 1 {
		t.Fatalf("Sweep removed %v (%v), want the folder of a process gone", removed, err)
	}
}
