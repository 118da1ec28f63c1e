package compare

// Helpers only the tests use, kept out of the package's code.

// rowSnaps returns every row's snapshot (nil for a file that is not a
// partial deletion file), as read.
func (raw rawDeletes) rowSnaps() []int64 {
	if raw.rank == nil {
		return raw.snaps
	}
	out := make([]int64, len(raw.rank))
	for i, k := range raw.rank {
		out[i] = raw.at[k]
	}
	return out
}

// len is the number of positions kept.
func (k *keptRows) len() int {
	if k == nil {
		return 0
	}
	return len(k.rows) + len(k.empty) + len(k.other)
}

// inputsKey is the key of inputsName without rules (tests).
func inputsKey(catA, catB, dataA, dataB, sumA, sumB string, l *Listings) string {
	return inputsName(catA, catB, dataA, dataB, sumA, sumB, l, Options{}).key()
}
