package compare

import "context"

// Comparisons that share a Digests (a backfill's or check's concurrent
// proofs) often read the same data files: version k+1 holds version k's.
// Each all-rows plan key one of them is scanning is claimed in the shared
// Digests (a flight); another comparison about to scan the same key waits
// for that scan instead of reading the file again, and reuses its digest.
//
// A comparison claims all the keys of a queue it can in one step, reads
// the keys it owns (files of one shape still in one query), releases them,
// and only then waits for the keys others own: it never waits while it
// holds a claim, so two comparisons that each wait for a key of the other
// cannot deadlock. A waiter takes the digest only if the memo holds it
// and the kept row digests cover the positions it needs (its deleted
// rows); else (the owner failed, was cancelled, or kept other rows) it
// claims the key and reads the file itself, as it would have alone.

// flight is a comparison's scan of an all-rows plan key in progress; done
// closes when the scan ended, successfully or not.
type flight struct{ done chan struct{} }

// claims is what claim made of a queue's scans.
type claims struct {
	own     []int     // scans this comparison reads (it owns their keys)
	flights []*flight // own's flights, in the order of own
	wait    []int     // scans of keys another comparison is reading
	waitOn  []*flight // their flights, in the order of wait
	reused  int       // scans whose digest another comparison had read
}

// needed is the kept row digests a queued scan's file needs from a scan
// made by someone else: those of its deleted positions, unless there are
// more than rowCap of them (it then keeps none and its deleted rows are
// read apart, as runQueue plans it).
func (m *digestMemo) needed(q *wholeQueue, i int) []int64 {
	if len(q.deleted[i]) > m.rowCap {
		return nil
	}
	return q.deleted[i]
}

// claim sorts the scans idx of a queue: a key the memo holds with the kept
// rows the scan needs is reused, a key another comparison is reading is
// waited for, and every other key is claimed for this comparison, which
// must release the flights once it has read them (release).
func (m *digestMemo) claim(q *wholeQueue, idx []int) claims {
	m.mu.Lock()
	defer m.mu.Unlock()
	var c claims
	for _, i := range idx {
		key := q.scans[i].key
		if _, ok := m.mem[key]; ok && m.coversLocked(key, m.needed(q, i)) {
			c.reused++
			continue
		}
		if f, ok := m.flights[key]; ok {
			c.wait, c.waitOn = append(c.wait, i), append(c.waitOn, f)
			continue
		}
		f := &flight{done: make(chan struct{})}
		m.flights[key] = f
		c.own, c.flights = append(c.own, i), append(c.flights, f)
	}
	return c
}

// release ends this comparison's flights of the scans own.
func (m *digestMemo) release(q *wholeQueue, own []int, flights []*flight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, i := range own {
		key := q.scans[i].key
		if m.flights[key] == flights[k] {
			delete(m.flights, key)
		}
		close(flights[k].done)
	}
}

// coversLocked is covers with mu held.
func (m *digestMemo) coversLocked(key string, pos []int64) bool {
	rows := m.rows[key]
	for _, p := range pos {
		if _, ok := rows.get(p); !ok {
			return false
		}
	}
	return true
}

// runQueue reads the queued scans (runWholes). Each keeps its deleted and
// hinted rows; past the memo's rowCap (maxRowHashes) its deleted rows only,
// or none (the walk then reads the deleted rows apart). A scan whose key
// another comparison sharing the Digests is reading waits for it instead
// (see claim); reused counts the digests so obtained, not read here.
func (r *Reader) runQueue(ctx context.Context, q *wholeQueue) (reused int, err error) {
	pending := make([]int, len(q.scans))
	for i := range q.scans {
		keep := mergeSorted(q.deleted[i], r.memo.hint(q.scans[i].path))
		if len(keep) > r.memo.rowCap {
			keep = q.deleted[i]
		}
		if len(keep) > r.memo.rowCap {
			keep = nil
		}
		q.scans[i].keep = keep
		pending[i] = i
	}
	for len(pending) > 0 {
		c := r.memo.claim(q, pending)
		reused += c.reused
		if hook := r.memo.claimedHook; hook != nil && len(c.own)+len(c.wait) > 0 {
			hook(len(c.own), len(c.wait))
		}
		if err := r.readOwn(ctx, q, c); err != nil {
			return reused, err
		}
		for _, f := range c.waitOn {
			select {
			case <-f.done:
			case <-ctx.Done():
				return reused, ctx.Err()
			}
		}
		// Claimed again: reused if the owner read what they need, else
		// read here (or waited for again if yet another comparison
		// claimed them first).
		pending = c.wait
	}
	return reused, nil
}

// readOwn reads the scans a claim gave this comparison, files of a shape in
// one query, and releases their flights whatever happens.
func (r *Reader) readOwn(ctx context.Context, q *wholeQueue, c claims) error {
	if len(c.own) == 0 {
		return nil
	}
	defer r.memo.release(q, c.own, c.flights)
	scans := make([]wholeScan, len(c.own))
	for k, i := range c.own {
		scans[k] = q.scans[i]
	}
	return r.scanning(ctx, func() error { return r.runWholes(ctx, scans) })
}
