package repo

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// Work folders in Options.WorkDir, one per Plan, Backfill or Check run.
const (
	planWorkPrefix     = "fdl-plan-"
	backfillWorkPrefix = "fdl-backfill-"
	checkWorkPrefix    = "fdl-check-"
	// remoteWorkPrefix names the run's folder of a remote store's catalogs.
	remoteWorkPrefix = "fdl-remote-"
	// resolveWorkPrefix names the folder of a file Resolve verifies.
	resolveWorkPrefix = "fdl-resolve-"
)

// DefaultMaxSpill bounds, in bytes, what each DuckDB database of a run
// may spill (in a folder of its own beside the run's work folders) when
// Options.MaxSpill is 0: duckpool.MaxSpill, 8 GiB.
const DefaultMaxSpill = duckpool.MaxSpill

func (o *Options) workDir() string {
	if o.WorkDir != "" {
		return o.WorkDir
	}
	return os.TempDir()
}

// stager is a store whose temporary files are staged on each folder's own
// file system (store/local: a folder linked onto another disk has its own
// store.TempDir at its top), and that finds those folders again.
type stager interface {
	StageDir(dirKey string) (string, error)
	TempDirs(ctx context.Context) ([]string, error)
}

// tempDir is where a backfill's converter keeps rewritten delete files
// until it publishes them, on the data folder's file system (it publishes
// with link(2)) and outside every folder readers list: when the data
// folder is the store's own, the store's temp folder for it (the root's
// store.TempDir, or, for a data folder linked onto another disk, the one
// at the top of that disk's part: store/local's StageDir), else
// ".fdl-tmp" beside the data folder (the converter's default).
func (r *repository) tempDir() string {
	if ps, ok := r.st.(store.PathStore); ok {
		root, err := ps.Path(store.TempDir)
		if base := filepath.Dir(root) + string(os.PathSeparator); err == nil && strings.HasPrefix(r.dataPath, base) {
			if sd, ok := r.st.(stager); ok {
				rel := filepath.ToSlash(strings.Trim(strings.TrimPrefix(r.dataPath, base), string(os.PathSeparator)))
				if dir, err := sd.StageDir(rel); err == nil {
					return dir
				}
			}
			return root
		}
	}
	return filepath.Join(filepath.Dir(filepath.Clean(r.dataPath)), store.TempDir)
}

// workPrefixes are the names of the work folders runs make in the work
// folder, and of their DuckDB databases' spill folders.
var workPrefixes = []string{planWorkPrefix, backfillWorkPrefix, checkWorkPrefix, remoteWorkPrefix, resolveWorkPrefix, duckpool.SpillPrefix}

// sweepWork removes the work folders that runs killed before their cleanup
// left in dir (see internal/scratch for when one counts as stale: its
// process on this host is gone, or, of another host, untouched for a day;
// a live run's folders are kept). Every command that makes work folders
// (plan, check, backfill, resolve) sweeps first: before, only backfill
// did, and a host that only checks kept every killed check's downloads.
// Failing to remove is only logged.
func sweepWork(dir string, log *slog.Logger) []scratch.Removed {
	removed, err := scratch.Sweep(dir, workPrefixes, time.Now())
	if err != nil {
		log.Warn("could not remove stale work folders", "error", err)
	}
	for _, rm := range removed {
		log.Info("removed stale work folder", "path", rm.Path, "reason", rm.Reason)
	}
	return removed
}

// sweepTemp removes the temporary files that writers killed before their
// cleanup left in the repository's temp folders: the converter's
// (tempDir), and every store.TempDir a local store staged files in (the
// root's, and those at the top of folders linked onto another disk). Only
// writers of this module use them: every stale entry goes. It returns what
// it removed; failing to remove is only logged.
func (r *repository) sweepTemp(ctx context.Context, opts *Options) []scratch.Removed {
	dirs := []string{r.tempDir()}
	if ps, ok := r.st.(store.PathStore); ok {
		if root, err := ps.Path(store.TempDir); err == nil && root != dirs[0] {
			dirs = append(dirs, root)
		}
	}
	if sd, ok := r.st.(stager); ok {
		found, err := sd.TempDirs(ctx)
		if err != nil {
			opts.log().Warn("could not look for stale temporary files", "error", err)
		}
		for _, d := range found {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	var removed []scratch.Removed
	for _, dir := range dirs {
		got, err := scratch.Sweep(dir, []string{""}, time.Now())
		if err != nil {
			opts.log().Warn("could not remove stale temporary files", "error", err)
		}
		for _, rm := range got {
			opts.log().Info("removed stale temporary file", "path", rm.Path, "reason", rm.Reason)
		}
		if len(got) > 0 {
			_ = os.Remove(dir) // only if now empty
		}
		removed = append(removed, got...)
	}
	return removed
}
