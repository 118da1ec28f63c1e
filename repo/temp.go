package repo

import (
	"os"
	"path/filepath"
	"strings"
	"time"

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

func (o *Options) workDir() string {
	if o.WorkDir != "" {
		return o.WorkDir
	}
	return os.TempDir()
}

// tempDir is where a backfill's converter keeps rewritten delete files
// until it publishes them: the repository's store.TempDir when the data
// folder is the store's own, else ".fdl-tmp" beside the data folder (the
// converter's default), so that it is on the data folder's file system
// and outside every folder readers list.
func (r *repository) tempDir() string {
	if ps, ok := r.st.(store.PathStore); ok {
		root, err := ps.Path(store.TempDir)
		if err == nil && strings.HasPrefix(r.dataPath, filepath.Dir(root)+string(os.PathSeparator)) {
			return root
		}
	}
	return filepath.Join(filepath.Dir(filepath.Clean(r.dataPath)), store.TempDir)
}

// sweep removes what runs killed before their cleanup left behind: work
// folders in the work folder, and temporary files in the repository's
// temp folder (see internal/scratch for when an entry counts as stale).
// It returns what it removed; failing to remove is only logged.
func (r *repository) sweep(opts *Options) []scratch.Removed {
	var removed []scratch.Removed
	for _, s := range []struct {
		dir      string
		prefixes []string
	}{
		{opts.workDir(), []string{planWorkPrefix, backfillWorkPrefix, checkWorkPrefix, remoteWorkPrefix, resolveWorkPrefix}},
		// Only writers of this module use the temp folder: every entry.
		{r.tempDir(), []string{""}},
	} {
		got, err := scratch.Sweep(s.dir, s.prefixes, time.Now())
		if err != nil {
			opts.log().Warn("could not remove stale temporary files", "error", err)
		}
		for _, rm := range got {
			opts.log().Info("removed stale temporary file", "path", rm.Path, "reason", rm.Reason)
		}
		removed = append(removed, got...)
	}
	if len(removed) > 0 {
		_ = os.Remove(r.tempDir()) // only if now empty
	}
	return removed
}
