package repo

import (
	"errors"
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

// dataCacheGrace: a repository's cached files used this recently are never
// removed, so that a run does not remove the files another run sharing the
// folder is reading.
const dataCacheGrace = time.Hour

// The data cache holds one folder per repository, objects/<hash>/ (the
// mirror of its data_dir), and beside it, outside the mirror:
//
//   - <hash>.last-used, a file whose modification time is when a run last
//     used the mirror (the mirror's own files keep the times they were
//     downloaded with: proof keys name them, and a touched file would make
//     every kept proof miss);
//   - <hash>.tmp/, the downloads in progress (a partial file inside the
//     mirror would change its listing while proofs are keyed on it);
//   - <hash>.catalogs/, the repository's frozen catalogs by sha256
//     (catalogcache.go), and <hash>.footers/, the stand-ins holding data
//     files' footers that plan's conversion check read (footers.go), each
//     counted and removed with the mirror.
const (
	lastUsedSuffix = ".last-used"
	tmpSuffix      = ".tmp"
)

// touch records that a run uses a repository's mirror now.
func touch(marker string) {
	now := time.Now()
	if err := os.Chtimes(marker, now, now); err != nil {
		if f, err := os.Create(marker); err == nil {
			f.Close()
		}
	}
}

// pruneObjects keeps the data cache folder objects within max bytes by
// removing whole repository mirrors, least recently used first, never
// current (the run's own) nor one used within dataCacheGrace. It also
// removes downloads that killed runs left for longer than the grace and
// validators whose data file is gone. It returns the bytes left, which
// stay above max when the mirrors it may not remove take more.
func pruneObjects(objects, current string, max int64, log *slog.Logger) int64 {
	type mirror struct {
		dir  string
		size int64
		used time.Time
	}
	entries, err := os.ReadDir(objects)
	if err != nil {
		return 0
	}
	now := time.Now()
	var mirrors []mirror
	var total int64
	for _, e := range entries {
		p := filepath.Join(objects, e.Name())
		switch {
		case !e.IsDir():
			continue // markers, read with their mirror
		case strings.HasSuffix(e.Name(), tmpSuffix):
			removeOld(p, now)
			continue
		case strings.HasSuffix(e.Name(), catalogsSuffix), strings.HasSuffix(e.Name(), footersSuffix):
			// Read with its mirror; one whose mirror is gone (a prune
			// killed halfway) is removed once old.
			if _, err := os.Stat(strings.TrimSuffix(strings.TrimSuffix(p, catalogsSuffix), footersSuffix)); errors.Is(err, fs.ErrNotExist) {
				removeOld(p, now)
			}
			continue
		}
		m := mirror{dir: p}
		var newest time.Time
		validators := map[string]bool{}
		present := map[string]bool{}
		walk := func(f string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil // a folder removed under us is no error
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			switch name := d.Name(); {
			case strings.HasPrefix(name, ".download-"): // left by releases that downloaded in place
				if now.Sub(info.ModTime()) > dataCacheGrace {
					os.Remove(f)
				}
				return nil
			case strings.HasSuffix(name, ".etag"): // the validator of releases before .validator
				os.Remove(f)
				return nil
			case strings.HasSuffix(name, validatorSuffix):
				validators[f] = true
			default:
				present[f] = true
			}
			m.size += info.Size()
			if info.ModTime().After(newest) {
				newest = info.ModTime()
			}
			return nil
		}
		_ = filepath.WalkDir(p, walk)
		_ = filepath.WalkDir(p+catalogsSuffix, walk)
		_ = filepath.WalkDir(p+footersSuffix, walk)
		for v := range validators {
			if !present[strings.TrimSuffix(v, validatorSuffix)] {
				os.Remove(v) // a data file without a validator is never reused; this is its converse
			}
		}
		m.used = newest // a mirror of a release without markers
		if info, err := os.Stat(p + lastUsedSuffix); err == nil {
			m.used = info.ModTime()
		}
		mirrors, total = append(mirrors, m), total+m.size
	}
	if total <= max {
		return total
	}
	slices.SortFunc(mirrors, func(a, b mirror) int { return a.used.Compare(b.used) })
	for _, m := range mirrors {
		if total <= max {
			break
		}
		if m.dir == current || now.Sub(m.used) < dataCacheGrace {
			continue
		}
		// The marker last: a mirror half removed still counts as old.
		if os.RemoveAll(m.dir) == nil {
			total -= m.size
			os.RemoveAll(m.dir + tmpSuffix)
			os.RemoveAll(m.dir + catalogsSuffix)
			os.RemoveAll(m.dir + footersSuffix)
			os.Remove(m.dir + lastUsedSuffix)
		}
	}
	if total > max && log != nil {
		log.Warn("data cache above its bound: the repositories this run and recent runs use take more; raise --data-cache-max",
			"folder", objects, "bytes", total, "max_bytes", max)
	}
	return total
}

// removeOld removes the files of dir older than dataCacheGrace.
func removeOld(dir string, now time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > dataCacheGrace {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
