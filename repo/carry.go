package repo

import (
	"os"
	"path/filepath"

	"github.com/fdl-formats/fdl-formats/compare"
)

// maxEarlier is how many earlier versions with the catalog published a
// proof offers to carry (the latest first): a backfill or check proves a
// few versions at once (--jobs), so the one just before may still be in
// flight.
const maxEarlier = 4

// earlierPairs names, latest first, the pairs of catalogs of the versions
// before v (each one's frozen catalog and its published catalog in format)
// that a proof of v's catalog in format may carry (compare.Options.Carry:
// the first whose proof is kept is used, where v's catalogs restricted to
// its snapshots are it, row for row). A local repository's are read where
// they lie; a remote one's are the local copies this run already has
// (remote.earlier): nothing is downloaded to offer them. The proof hashes
// them to find the kept proof, so a file that changed since is one no kept
// proof names.
func (r *repository) earlierPairs(v *version, format string) []compare.Carry {
	if (r.paths == nil && r.remote == nil) || r.digestCache == nil {
		return nil
	}
	i, ok := r.index(v.id)
	if !ok {
		return nil
	}
	var out []compare.Carry
	for j := i - 1; j >= 0 && len(out) < maxEarlier; j-- {
		p := r.versions[j]
		if p.err != nil || p.meta == nil || p.expired != nil {
			continue
		}
		frozen := p.prefix() + p.meta.Catalog.Path
		published := catalogEntry{name: format + ".duckdb"}.key(p)
		if r.paths == nil {
			a, b, ok := r.remote.earlier(frozen, published)
			if !ok {
				continue // not at hand in this run
			}
			out = append(out, compare.Carry{A: a, B: b})
			continue
		}
		a, errA := r.paths.Path(frozen)
		b, errB := r.paths.Path(published)
		if errA != nil || errB != nil {
			continue
		}
		if info, err := os.Stat(b); err != nil || !info.Mode().IsRegular() {
			continue // not published (yet)
		}
		out = append(out, compare.Carry{A: a, B: b})
	}
	return out
}

// earlier returns this run's local copies of a version's frozen catalog
// (the download, or the frozen-catalog cache's copy, that matched
// version.json: catalog) and of its published catalog (the copy a proof of
// this run found equivalent, or the file this run converted and uploaded:
// keepPublished), for earlierPairs; false when either is not at hand: a
// download still in flight or failed, a catalog this run did not read.
func (rm *remote) earlier(frozen, published string) (a, b string, ok bool) {
	rm.mu.Lock()
	f := rm.catalogs[frozen]
	b = rm.published[published]
	rm.mu.Unlock()
	if f == nil || b == "" {
		return "", "", false
	}
	select {
	case <-f.done:
	default:
		return "", "", false // in flight
	}
	if f.err != nil || !regularFile(f.path) || !regularFile(b) {
		return "", "", false
	}
	return f.path, b, true
}

// keepPublished keeps, for the rest of the run, a copy of the published
// catalog key whose bytes are src: a copy this run downloaded and proved
// equivalent (check), or the conversion it uploaded there (backfill),
// either about to be removed. It is linked (else copied) into the work
// folder, as a pair a later version's proof may carry (earlier); a copy
// that cannot be made is only a proof that walks whole.
func (rm *remote) keepPublished(key, src string) {
	dst := filepath.Join(rm.work, "published", filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return
	}
	os.Remove(dst)
	if err := os.Link(src, dst); err != nil {
		if err := copyInto(src, dst, filepath.Dir(dst)); err != nil {
			return
		}
	}
	rm.mu.Lock()
	rm.published[key] = dst
	rm.mu.Unlock()
}

func regularFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
