package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/store"
)

// missingDataWarning warns when the folder the run reads data files from
// does not exist at all: a misspelt data_dir ("nodata/") made plan and
// backfill say nothing, and check report every data file unverifiable
// ("open .../nodata/...parquet: no such file") without saying why. The
// folder is --data where given (Options.DataPath), else data_dir in a
// local repository; in a bucket, data_dir's prefix holding no object,
// asked in one request (store.PrefixChecker). A web site's listing cannot
// tell an absent folder from an unlisted one: nothing is said there. A
// repository without versions needs no data yet. "" when there is
// nothing to say.
func (r *repository) missingDataWarning(ctx context.Context, opts *Options) string {
	if len(r.versions) == 0 {
		return ""
	}
	dataDir := r.cfg.DataDir
	switch {
	case opts.DataPath != "":
		if folderMissing(r.dataPath) {
			return fmt.Sprintf("--data %s does not exist: no data file the catalogs name can be read (check reports each as unverifiable); give the folder that holds the data files of data_dir %q", strings.TrimSuffix(r.dataPath, string(os.PathSeparator)), dataDir)
		}
	case r.remote == nil:
		if folderMissing(r.dataPath) {
			return fmt.Sprintf("data_dir %q in fdl.json resolves to %s, which does not exist: no data file the catalogs name can be read there, by readers or by check (which reports each as unverifiable); correct data_dir in fdl.json (a misspelt name?) or restore the folder", dataDir, strings.TrimSuffix(r.dataPath, string(os.PathSeparator)))
		}
	default:
		pc, ok := store.Base(r.st).(store.PrefixChecker)
		if !ok {
			return ""
		}
		prefix := strings.TrimSuffix(r.remote.dataKey, "/") + "/"
		if found, err := pc.HasPrefix(ctx, prefix); err == nil && !found {
			return fmt.Sprintf("data_dir %q in fdl.json: no object under %s in %s: no data file the catalogs name can be read there, by readers or by check (which reports each as unverifiable); correct data_dir in fdl.json (a misspelt name?) or upload the data files", dataDir, prefix, location(store.Base(r.st)))
		}
	}
	return ""
}

// folderMissing reports whether path names nothing at all (a file or a
// folder it cannot read is no missing folder: the reads say what fails).
func folderMissing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
