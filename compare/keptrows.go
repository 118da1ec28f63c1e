package compare

import (
	"cmp"
	"slices"
)

// keptRows are the row digests one plan's scans kept by position (see
// fileDigests): a run keeps one per row that any version of a repository
// deletes, for the whole run, so they are stored compactly. A position's
// digest is the digest of its row (one row), or the zero digest when the
// file has no row there (a position of a bad delete file). Rows are kept
// as sorted 24-byte entries, positions without a row as a sorted list; a
// map by position cost about twice as much (about 45 bytes an entry with
// its buckets), and a backfill of a 40-version repository kept 18,000
// of them (docs/compare.md, "Memory"). Lookups are binary searches.
type keptRows struct {
	rows  []keptRow        // one-row digests, by position
	empty []int64          // positions without a row (zero digest)
	other map[int64]Digest // any other digest (none: a position is one row)
}

// keptRow is a one-row digest (Rows = 1) at a position.
type keptRow struct {
	pos    int64
	hi, lo uint64
}

// get returns the digest kept for a position.
func (k *keptRows) get(pos int64) (Digest, bool) {
	if k == nil {
		return Digest{}, false
	}
	if i, ok := slices.BinarySearchFunc(k.rows, pos, func(r keptRow, p int64) int { return cmp.Compare(r.pos, p) }); ok {
		r := k.rows[i]
		return Digest{Rows: 1, Hi: r.hi, Lo: r.lo}, true
	}
	if _, ok := slices.BinarySearch(k.empty, pos); ok {
		return Digest{}, true
	}
	d, ok := k.other[pos]
	return d, ok
}

// with returns k with the digests of positions added, got[p] for each p
// (the zero digest when got has none), replacing what k held for them.
// k itself is not changed.
func (k *keptRows) with(positions []int64, got map[int64]Digest) *keptRows {
	pos := positions // callers' positions are sorted, without duplicates, and shared
	if !increasing(pos) {
		pos = slices.Compact(slices.Sorted(slices.Values(pos)))
	}
	var old keptRows
	if k != nil {
		old = *k
	}
	out := &keptRows{rows: make([]keptRow, 0, len(old.rows)+len(pos))}
	// Merge old rows and the new positions, the new ones winning.
	i := 0
	for _, p := range pos {
		for ; i < len(old.rows) && old.rows[i].pos < p; i++ {
			out.rows = append(out.rows, old.rows[i])
		}
		if i < len(old.rows) && old.rows[i].pos == p {
			i++
		}
		switch d := got[p]; {
		case d.Rows == 1:
			out.rows = append(out.rows, keptRow{pos: p, hi: d.Hi, lo: d.Lo})
		case d == Digest{}:
			out.empty = append(out.empty, p)
		default:
			if out.other == nil {
				out.other = map[int64]Digest{}
			}
			out.other[p] = d
		}
	}
	out.rows = append(out.rows, old.rows[i:]...)
	// What old held apart stays unless a new position replaced it.
	replaced := func(p int64) bool { _, ok := slices.BinarySearch(pos, p); return ok }
	for _, p := range old.empty {
		if !replaced(p) {
			out.empty = append(out.empty, p)
		}
	}
	slices.Sort(out.empty)
	for p, d := range old.other {
		if !replaced(p) {
			if out.other == nil {
				out.other = map[int64]Digest{}
			}
			out.other[p] = d
		}
	}
	out.empty = slices.Clip(out.empty)
	return out
}

// increasing reports whether pos is sorted without duplicates.
func increasing(pos []int64) bool {
	for i := 1; i < len(pos); i++ {
		if pos[i] <= pos[i-1] {
			return false
		}
	}
	return true
}
