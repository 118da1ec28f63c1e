package repo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/scratch"
)

// deadPID is the PID of a process of this host that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// plantWork makes, in work, the work folders a killed run (process gone)
// leaves, each holding a file, and returns their names with the live
// ones' (this process's, another host's recent one) and a stranger's,
// which every sweep keeps.
func plantWork(t *testing.T, work string) (stale, kept []string) {
	t.Helper()
	// This host's tag, read back from a folder of this process.
	mine, err := scratch.MkdirTemp(work, checkWorkPrefix)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.SplitN(strings.TrimPrefix(filepath.Base(mine), checkWorkPrefix), "-", 2)[0]
	dead := strconv.Itoa(deadPID(t))
	for i, prefix := range []string{remoteWorkPrefix, checkWorkPrefix, planWorkPrefix} {
		stale = append(stale, prefix+host+"-"+dead+"-"+strconv.Itoa(i))
	}
	kept = []string{filepath.Base(mine), remoteWorkPrefix + "0badc0de-1-7", "not-ours"}
	for _, name := range append(slices.Clone(stale), kept...) {
		if err := os.MkdirAll(filepath.Join(work, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name, "file.parquet"), []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Another host's folder younger than scratch.StaleAfter: kept.
	recent := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(work, remoteWorkPrefix+"0badc0de-1-7"), recent, recent)
	return stale, kept
}

// TestRunsSweepStaleWorkFolders: plan, check and a dry-run backfill remove
// the work folders of runs killed before their cleanup (a check killed
// with SIGKILL left fdl-remote-* with every data file it downloaded), by
// the rule backfill's sweep uses: the owner, a process of this host, is
// gone. Folders of live runs, of other hosts younger than a day, and
// others' are kept. Before, only backfill swept, so a host that only ran
// check and plan kept them for ever.
func TestRunsSweepStaleWorkFolders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := smallLake(t)
	for _, run := range []struct {
		name string
		run  func(opts Options) error
	}{
		{"plan", func(opts Options) error { _, err := Plan(ctx, st, opts); return err }},
		{"check", func(opts Options) error { _, err := Check(ctx, st, opts); return err }},
		{"backfill --dry-run", func(opts Options) error {
			opts.DryRun = true
			rep, err := Backfill(ctx, st, opts)
			if err == nil && len(rep.Removed) != 3 {
				t.Errorf("dry-run backfill reported removed %v, want the 3 stale work folders", rep.Removed)
			}
			return err
		}},
	} {
		t.Run(run.name, func(t *testing.T) {
			work := t.TempDir()
			stale, kept := plantWork(t, work)
			// The run's own error (findings of this lake) does not matter.
			_ = run.run(Options{WorkDir: work, Formats: []string{"1.1"}})
			var left []string
			des, err := os.ReadDir(work)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range des {
				left = append(left, d.Name())
			}
			slices.Sort(kept)
			if !slices.Equal(left, kept) {
				t.Errorf("work folder holds %q, want %q (stale %q removed)", left, kept, stale)
			}
		})
	}
}
