package compare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// A comparison decides, per table and snapshot, whether the sums of both
// sides' part digests are equal. A data file both sides read under the same
// plan at a snapshot (the same all-rows and deleted-rows plan keys, which
// name the file's query, its deleted positions and its bytes: planKey)
// adds the same digest to both sums: equal plans cancel, and only the
// files whose plans differ, and the inlined rows, are digested. Each
// distinct plan is still read once: a file read under the same plan on
// both sides is read by a check scan, the plan's own query (column map,
// casts, defaults, row ids) with one hash() of each row's columns, so that
// a file its plan cannot read still fails the proof, and its row count is
// held to the catalog's record_count.

// samePlans marks the data files of two sides' plans of a table at a
// snapshot that cancel: as many of each side's files as the other side has
// with the same whole plan (a multiset intersection), partial files left
// out. n is the number of files cancelled on each side.
func samePlans(a, b *tablePlan) (skipA, skipB []bool, n int) {
	skipA, skipB = make([]bool, len(a.files)), make([]bool, len(b.files))
	free := map[string][]int{} // whole plan -> B's files not matched yet
	for j, fp := range b.files {
		free[fp.same] = append(free[fp.same], j)
	}
	for i, fp := range a.files {
		if fp.f.partial() {
			continue // digested: its rows are not its positions (samePlanRows)
		}
		k := fp.same
		if js := free[k]; len(js) > 0 {
			skipA[i], skipB[js[0]] = true, true
			free[k] = js[1:]
			n++
		}
	}
	return skipA, skipB, n
}

// selfSkip is samePlans(tp, tp)'s skipA: a plan paired
// with itself, every file not partial is matched (by itself or by a file
// of the same plan: the count of each plan is the same on both sides).
func selfSkip(tp *tablePlan) []bool {
	skip := make([]bool, len(tp.files))
	for i, fp := range tp.files {
		skip[i] = !fp.f.partial()
	}
	return skip
}

// checkKey is the digest cache's key of a plan's check (checkScan): a key
// of its own, so that a check, which holds no digest, is never found as
// one.
func checkKey(all string) string {
	sum := sha256.Sum256([]byte("fdl-formats plan check v1\x00" + all))
	return hex.EncodeToString(sum[:])
}

// checkEntry is a check's cache entry: the rows the plan read.
type checkEntry struct {
	Rows    int64 `json:"rows"`
	Checked bool  `json:"checked"`
}

// planRows returns the rows a plan's all-rows read returned, when it was
// read: digested (the digest's row count) or checked. Nothing is counted.
func (m *digestMemo) planRows(all string) (int64, bool) {
	m.mu.Lock()
	d, ok := m.mem[all]
	n, okC := m.checked[all]
	m.mu.Unlock()
	switch {
	case ok:
		return d.Rows, true
	case okC:
		return n, true
	}
	if m.holds(all) {
		m.ownMu.Lock()
		d := m.fromStore[all]
		m.ownMu.Unlock()
		return d.Rows, true
	}
	if m.store == nil {
		return 0, false
	}
	b, ok := m.store.Get(checkKey(all))
	var e checkEntry
	if !ok || json.Unmarshal(b, &e) != nil || !e.Checked {
		return 0, false
	}
	m.mu.Lock()
	m.checked[all] = e.Rows
	m.mu.Unlock()
	m.count(&m.stats.Cached)
	return e.Rows, true
}

// putChecked records a plan read by a check scan, with its row count,
// and keeps it in the store when keep (the file is still the copy its key
// names: stillNamed).
func (m *digestMemo) putChecked(all string, rows int64, keep bool) {
	m.mu.Lock()
	m.checked[all] = rows
	m.mu.Unlock()
	m.count(&m.stats.Checked)
	if m.store == nil || !keep {
		return
	}
	if b, err := json.Marshal(checkEntry{Rows: rows, Checked: true}); err == nil {
		_ = m.store.Put(checkKey(all), b) // a cache that cannot be written only costs time
	}
}

// checkScan reads one data file under its all-rows plan without a digest:
// count(*) and one hash() of each row's columns (so that every column is
// read, mapped and cast as the plan says; not the row id, which no file
// holds).
type checkScan struct {
	key   string // the all-rows plan key
	group string // scans with the same group are read in one query
	shape string
	path  string
	start *int64
}

// planCheck builds the check scan of a data file's all-rows plan.
func (r *Reader) planCheck(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names []string, key string) (checkScan, error) {
	opts.deletes, opts.positions, opts.shape = deletesIgnored, false, true
	q, err := r.fileSQL(ctx, t, f, cols, snap, opts)
	if err != nil {
		return checkScan{}, err
	}
	// The row id is not hashed: it is not read from the file but made
	// from the catalog's row_id_start, the same on both sides of a same
	// plan; left out, DuckDB neither reads the file's row numbers nor
	// computes the ids (a quarter of the check's time on issue 9's
	// repository).
	hashed := make([]string, 0, len(names))
	for _, n := range names {
		if n != RowIDColumn {
			hashed = append(hashed, "t."+ident(n))
		}
	}
	if len(hashed) == 0 {
		hashed = append(hashed, "t."+ident(RowIDColumn)) // no column: the rows alone
	}
	shape := fmt.Sprintf("SELECT hash(%s) AS h, t.%s FROM (%s) t", strings.Join(hashed, ", "), fileColumn, q)
	shape = r.intern(shape)
	c := checkScan{key: key, shape: shape, path: f.Path, start: f.RowIDStart}
	var root *pnode
	if f.encryptionKey == nil {
		if root, err = r.parquetSchema(ctx, f.Path); err != nil {
			return checkScan{}, err
		}
	}
	if readAlone(f, root) {
		c.group = "alone\x00" + f.Path + "\x00" + shape
	} else {
		c.group = r.intern(root.signature() + "\x00" + shape)
	}
	return c, nil
}

// runChecks reads check scans, the files of a group in one query (when it
// fails, each file alone, so that the error names the file), and records
// each plan's row count.
func (r *Reader) runChecks(ctx context.Context, scans []checkScan) error {
	var order []string
	byGroup := map[string][]int{}
	for i, c := range scans {
		if _, ok := byGroup[c.group]; !ok {
			order = append(order, c.group)
		}
		byGroup[c.group] = append(byGroup[c.group], i)
	}
	return r.scanning(ctx, func() error {
		for _, g := range order {
			for idx := range slices.Chunk(byGroup[g], maxGroupFiles) {
				if err := orEachAlone(ctx, idx, func(idx []int) error { return r.readChecks(ctx, scans, idx) }); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// readChecks runs one check query; it records nothing unless all succeeds.
func (r *Reader) readChecks(ctx context.Context, scans []checkScan, idx []int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	paths, starts := make([]string, len(idx)), make([]*int64, len(idx))
	for k, i := range idx {
		paths[k], starts[k] = scans[i].path, scans[i].start
	}
	what := "data file " + paths[0]
	if len(idx) > 1 {
		what = fmt.Sprintf("%d data files (%s, ...)", len(idx), paths[0])
	}
	if err := r.readable(ctx, paths...); err != nil {
		return err
	}
	q := fillShape(scans[idx[0]].shape, paths, starts)
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf("SELECT %s, count(*), bit_xor(h) FROM (%s) GROUP BY %s", fileColumn, q, fileColumn))
	if err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	counts := make([]int64, len(idx))
	for rows.Next() {
		var k, n int64
		var h uint64 // computed so that every column is read and cast; not kept
		if err := rows.Scan(&k, &n, &h); err != nil {
			return fmt.Errorf("read %s: %w", what, err)
		}
		if k < 0 || k >= int64(len(idx)) {
			return fmt.Errorf("read %s: file index %d of %d", what, k, len(idx))
		}
		counts[k] += n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", what, err)
	}
	r.memo.countReads(len(idx), 1)
	for k, i := range idx {
		r.memo.putChecked(scans[i].key, counts[k], r.stillNamed(scans[i].path))
	}
	return nil
}

// wrongCount is a data file whose rows are not its record_count.
type wrongCount struct {
	f    DataFile
	rows int64
}

// checkPlans reads, with a check scan, the files skip marks whose plan was
// neither digested nor checked yet (the up-front scan read them all unless
// it failed), and then holds every file's row count under its all-rows
// plan to its record_count: files of one side that disagree are returned.
// A partial file's plan reads its rows visible at the snapshot, which
// record_count does not count: it is held to its Parquet file's row count
// (partialFileRows), which every DuckLake writer records for merged and
// flushed files (lakes/16_data_inlining, 17_compaction; lakes-0.3
// 17_compaction), and which 0.4+ readers' count(*) takes for the whole
// file once partial_max is reached (DuckLakeGetPartitionStats, "After
// merge_adjacent_files ... record_count represents ALL rows").
func (r *Reader) checkPlans(ctx context.Context, t Table, snap int64, opts ScanOptions, tp *tablePlan, skip []bool) ([]wrongCount, error) {
	var scans []checkScan
	seen := map[string]bool{}
	for i, fp := range tp.files {
		if !skip[i] || seen[fp.all] {
			continue
		}
		seen[fp.all] = true
		if _, ok := r.memo.planRows(fp.all); ok {
			continue
		}
		c, err := r.planCheck(ctx, t, fp.f, tp.cols, snap, opts, tp.names, fp.all)
		if err != nil {
			return nil, fmt.Errorf("%s at snapshot %d, data file %s: %w", t.Shown(), snap, oneline.Name(fp.f.Path), err)
		}
		scans = append(scans, c)
	}
	if len(scans) > 0 {
		if err := r.runChecksShared(ctx, scans); err != nil {
			return nil, fmt.Errorf("read data files of %s at snapshot %d in %s: %w", t.Shown(), snap, oneline.Name(r.path), err)
		}
	}
	var wrong []wrongCount
	for _, fp := range tp.files {
		if fp.f.partial() {
			if n, ok := r.partialFileRows(ctx, fp.f); ok && n != fp.f.RecordCount {
				wrong = append(wrong, wrongCount{fp.f, n})
			}
			continue
		}
		if n, ok := r.memo.planRows(fp.all); ok && n != fp.f.RecordCount {
			wrong = append(wrong, wrongCount{fp.f, n})
		}
	}
	return wrong, nil
}

// partialFileRows is a data file's Parquet row count, read once per
// reader (Parquet metadata only); ok is false where the file cannot be
// read, which its plan's own read reports. Partial files are held to it
// (checkPlans), and so are the counts that would size allocations for a
// file: rows a split list hides, positions of a deletion vector.
func (r *Reader) partialFileRows(ctx context.Context, f DataFile) (n int64, ok bool) {
	if n, ok := r.partialRows[f.Path]; ok {
		return n, true
	}
	kp, err := r.keyParam(ctx, f.encryptionKey)
	if err != nil || r.readable(ctx, f.Path) != nil {
		return 0, false
	}
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM read_parquet(%s, hive_partitioning = false%s)", parquetsql.Path(f.Path), kp)).Scan(&n); err != nil {
		return 0, false
	}
	if r.partialRows == nil {
		r.partialRows = map[string]int64{}
	}
	r.partialRows[f.Path] = n
	return n, true
}

// prefetch reads, before the comparison walks its snapshots, every plan the
// walk will need (Reader.prefetch, one query per plan shape): the digests
// of the files whose plans differ between the sides, on each side, and
// check scans of the files both read under the same plan. It only saves
// reads: what it cannot plan or read is planned and read again, with its
// error, by the walk.
func (c *comparison) prefetch(snaps []int64, opts ScanOptions) {
	if c.opts.everyDigest {
		c.a.prefetch(c.ctx, snaps, opts)
		c.b.prefetch(c.ctx, snaps, opts)
		return
	}
	qa, qb := newWholeQueue(), newWholeQueue()
	var checks []checkScan
	queuedCheck := map[string]bool{}
	for _, s := range snaps {
		ta, err := c.a.Tables(c.ctx, s)
		if err != nil {
			return
		}
		tb, err := c.b.Tables(c.ctx, s)
		if err != nil {
			return
		}
		byName := map[string]Table{}
		for _, y := range readable(tb) {
			byName[y.FullName()] = y
		}
		for _, x := range readable(ta) {
			y, ok := byName[x.FullName()]
			if !ok {
				continue
			}
			pa, errA := c.a.tablePlan(c.ctx, x, s, opts)
			if errA != nil {
				continue
			}
			var pb *tablePlan
			var skipA, skipB []bool
			if c.self && y == x {
				// A self-read: b is a, and where y is x (a name shown
				// twice pairs two tables) the plan pairs with itself
				// (selfSkip), planned once.
				pb = pa
				skipA = selfSkip(pa)
				skipB = skipA
			} else {
				var errB error
				if pb, errB = c.b.tablePlan(c.ctx, y, s, opts); errB != nil {
					continue
				}
				skipA, skipB, _ = samePlans(pa, pb)
			}
			for _, side := range []struct {
				r    *Reader
				t    Table
				tp   *tablePlan
				skip []bool
				q    *wholeQueue
			}{{c.a, x, pa, skipA, qa}, {c.b, y, pb, skipB, qb}} {
				if c.self && side.q == qb {
					continue // a self-read: b is a
				}
				for i, fp := range side.tp.files {
					switch {
					case !side.skip[i]:
						if !side.r.memo.holds(fp.all) {
							_ = side.r.queueWhole(c.ctx, side.q, side.t, fp.f, side.tp.cols, s, opts, side.tp.names, side.tp.types, fp.all, fp.deleted)
						}
					case side.r == c.a && !queuedCheck[fp.all]:
						queuedCheck[fp.all] = true
						if _, ok := c.a.memo.planRows(fp.all); ok {
							continue
						}
						if sc, err := c.a.planCheck(c.ctx, x, fp.f, pa.cols, s, opts, pa.names, fp.all); err == nil {
							checks = append(checks, sc)
						}
					}
				}
			}
		}
	}
	// The walk reads what failed again, and reports it.
	_, _ = c.a.runQueue(c.ctx, qa)
	_, _ = c.b.runQueue(c.ctx, qb)
	// A plan one side digests somewhere is read there: not checked too.
	checks = slices.DeleteFunc(checks, func(sc checkScan) bool {
		_, inA := qa.index[sc.key]
		_, inB := qb.index[sc.key]
		return inA || inB
	})
	if len(checks) > 0 {
		_ = c.a.runChecksShared(c.ctx, checks)
	}
}

// countSamePlan counts data files proved by identical plans.
func (m *digestMemo) countSamePlan(n int) {
	m.ownMu.Lock()
	m.stats.SamePlan += n
	m.ownMu.Unlock()
}

// samePlanRows is the number of rows the files skip marks return at their
// snapshot: each file's rows under its all-rows plan (read by then, see
// checkPlans) less its deleted positions that have a row. Such files have
// no partial-file filter (samePlans), so their rows are the positions 0 to
// n-1.
func (r *Reader) samePlanRows(tp *tablePlan, skip []bool) int64 {
	var total int64
	for i, fp := range tp.files {
		if skip == nil || !skip[i] {
			continue
		}
		n, _ := r.memo.planRows(fp.all)
		total += n
		for _, p := range fp.deleted {
			if p >= 0 && p < n {
				total--
			}
		}
	}
	return total
}

// partial reports whether a data file is a partial file (partial_max, or
// partial_file_info): its plan may read only the rows visible at a
// snapshot.
func (f DataFile) partial() bool {
	return f.PartialMax != nil || (f.PartialInfo != nil && *f.PartialInfo != "")
}

// runChecksShared runs check scans as runChecks, sharing them with the
// comparisons that share the Digests (see inflight.go): a plan another
// comparison is checking now is waited for, not read again (two proofs of
// a backfill with --jobs 2 check the files their versions share). It
// claims all it can, reads what it owns, releases it, and only then waits.
func (r *Reader) runChecksShared(ctx context.Context, scans []checkScan) error {
	pending := scans
	for len(pending) > 0 {
		own, flights, wait, waitOn := r.memo.claimChecks(pending)
		if len(own) > 0 {
			err := r.runChecks(ctx, own)
			r.memo.releaseChecks(own, flights)
			if err != nil {
				return err
			}
		}
		for _, f := range waitOn {
			select {
			case <-f.done:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		// Read by their owner, or claimed again (the owner failed).
		pending = wait
	}
	return nil
}

// claimChecks sorts check scans: a plan read already (digested or checked)
// is dropped, a plan another comparison is checking is waited for, and
// every other plan is claimed (under its checkKey) for this comparison.
func (m *digestMemo) claimChecks(scans []checkScan) (own []checkScan, flights []*flight, wait []checkScan, waitOn []*flight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, sc := range scans {
		if _, ok := m.mem[sc.key]; ok {
			continue
		}
		if _, ok := m.checked[sc.key]; ok {
			continue
		}
		k := checkKey(sc.key)
		if f, ok := m.flights[k]; ok {
			wait, waitOn = append(wait, sc), append(waitOn, f)
			continue
		}
		f := &flight{done: make(chan struct{})}
		m.flights[k] = f
		own, flights = append(own, sc), append(flights, f)
	}
	return own, flights, wait, waitOn
}

// releaseChecks ends this comparison's claims of check scans.
func (m *digestMemo) releaseChecks(own []checkScan, flights []*flight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, sc := range own {
		k := checkKey(sc.key)
		if m.flights[k] == flights[i] {
			delete(m.flights, k)
		}
		close(flights[i].done)
	}
}
