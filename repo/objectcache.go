package repo

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultDataCacheMax bounds the data cache (<cache>/objects/, the data
// files of s3:// and https:// repositories) when Options.DataCacheMax is 0.
const DefaultDataCacheMax = 10 << 30

// dataCacheGrace: a cached file used (downloaded or found valid) this
// recently is never removed, so that a run does not remove the files
// another run sharing the folder is reading.
const dataCacheGrace = time.Hour

// pruneObjects keeps the data cache folder objects (every repository's
// folder in it) within max bytes: it removes the least recently used data
// files (and their validators) that this run did not use and no run used
// within dataCacheGrace, temporary downloads older than the grace, and
// validators whose data file is gone. It returns the bytes left, which
// stay above max when the files it may not remove take more.
func pruneObjects(objects string, max int64, used map[string]bool, log *slog.Logger) int64 {
	type entry struct {
		path string
		size int64
		mod  time.Time
	}
	var files []entry
	var total int64
	validators := map[string]bool{}
	now := time.Now()
	_ = filepath.WalkDir(objects, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil // a folder removed under us is no error
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		switch name := d.Name(); {
		case strings.HasPrefix(name, ".download-"):
			if now.Sub(info.ModTime()) > dataCacheGrace {
				os.Remove(p) // left by a killed run
			}
		case strings.HasSuffix(name, validatorSuffix) || strings.HasSuffix(name, ".etag"):
			validators[p] = true
		default:
			files = append(files, entry{p, info.Size(), info.ModTime()})
			total += info.Size()
		}
		return nil
	})
	present := map[string]bool{}
	for _, f := range files {
		present[f.path] = true
	}
	for v := range validators {
		data := strings.TrimSuffix(strings.TrimSuffix(v, validatorSuffix), ".etag")
		if !present[data] {
			os.Remove(v)
		}
	}
	if total <= max {
		return total
	}
	slices.SortFunc(files, func(a, b entry) int { return a.mod.Compare(b.mod) })
	for _, f := range files {
		if total <= max {
			break
		}
		if used[f.path] || now.Sub(f.mod) < dataCacheGrace {
			continue
		}
		// The validator first: a data file without one is never reused.
		os.Remove(f.path + validatorSuffix)
		os.Remove(f.path + ".etag")
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
	if total > max && log != nil {
		log.Warn("data cache above its bound: the files this run and recent runs use take more; raise --data-cache-max",
			"folder", objects, "bytes", total, "max_bytes", max)
	}
	return total
}
