package repo

import (
	"os"

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
// its snapshots are it, row for row). Only a local repository's, read
// where they lie: the proof hashes them to find the kept proof, so a file
// that changed since is one no kept proof names.
func (r *repository) earlierPairs(v *version, format string) []compare.Carry {
	if r.paths == nil || r.digestCache == nil {
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
		a, errA := r.paths.Path(p.prefix() + p.meta.Catalog.Path)
		b, errB := r.paths.Path(catalogEntry{name: format + ".duckdb"}.key(p))
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
