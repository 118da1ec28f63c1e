package compare

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/deletionvector"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// The change feed's delete side (ducklake_table_deletions, and
// ducklake_table_changes over it) for a range of snapshots [S, E], as each
// release line's DuckLake computes it (GetTableDeletions in
// src/storage/ducklake_metadata_manager.cpp, DuckLakeDeleteFilter::Initialize
// in src/storage/ducklake_delete_filter.cpp). Every row it reports is a
// (row id, snapshot_id) of one data file row of the table (any snapshots:
// the data file is joined by data_file_id alone); its values are the data
// file's, pinned where some snapshot sees the file.
//
// v1.3-ossivalis and v1.4-andium (formats 0.1-0.3): for each delete file D
// (any end_snapshot) with begin_snapshot in [S, E], the positions of D less
// those of P(D), the same data file's delete file with the largest
// begin_snapshot below D's, at D's begin_snapshot; for each data file whose
// end_snapshot is in [S, E], its record_count positions less those of the
// delete file with the largest begin_snapshot below that end, at the end.
// So the feed of every range is the events (row id, snapshot) whose
// snapshot is in the range, of one multiset per catalog: two catalogs give
// the same feed for every range exactly when those multisets are equal.
//
// v1.5-variegata and main (formats 0.4+, the same code in the commits DuckDB
// 1.5.0-1.5.2 pin, 7ea15644, 67480b1d, 415a9ebd): for each delete file D
// with begin_snapshot <= E (whatever its end or S): a partial deletion file (three columns, the
// third _ducklake_internal_snapshot_id BIGINT; a Puffin container whose
// blobs carry snapshots) gives its positions whose stored snapshot is in
// [S, E], at that snapshot; any other the positions of D less those of the
// data file's delete file with the largest begin_snapshot below S, at D's
// begin_snapshot. The file's inlined deletions (ducklake_inlined_delete_<id>
// rows with begin_snapshot in [S, E]) are added to each such entry at their
// own snapshot (and, for a file that is not partial, less that previous
// file's positions too). A data file whose end_snapshot is in [S, E] gives
// its record_count positions less those of the delete file with the largest
// begin_snapshot below the end, at the end, or, when it has inlined
// deletions in the range, those alone; a data file with inlined deletions
// in the range and neither gives them alone. Not range-decomposable (a
// chain of delete files repeats positions, a delete file begun before S
// still counts), so two catalogs are compared range by range: the feed is
// constant while S stays in (b', b] and E in [b, b'') for consecutive
// values b of the snapshots either catalog names for the data file, one
// range per such cell.
//
// Data files are matched by their path (relative to the data folder), as
// their entries are; row ids are row_id_start + position.

// feedFile is one data file row of a table with what the change feed's
// delete side reads of it.
type feedFile struct {
	rowIDStart int64
	records    int64
	begin      int64
	end        *int64
	dels       []feedDel
	// inl: its inlined file deletions (position, begin_snapshot).
	inl []feedEvent
	// splits: a 0.1-0.3 merged file's split list (partial_file_info
	// 's1:n1|s2:n2|...'), nil for any other file.
	splits []feedSplit
}

// feedSplit is an entry of a merged file's split list: from snapshot, the
// first rows of the file.
type feedSplit struct{ snap, rows int64 }

// feedDel is a delete file row: its begin_snapshot and positions (sorted),
// with each position's stored snapshot when the format's readers read it
// as a partial deletion file.
type feedDel struct {
	// id, end: its delete_file_id and end_snapshot (nil: none), which
	// only convert's rewrite of a merged file reads (mergedChain).
	id      int64
	end     *int64
	begin   int64
	partial bool
	pos     []int64
	snaps   []int64
}

// feedEvent is a deleted row as the feed reports it (row id, snapshot_id),
// or an inlined deletion (position, begin_snapshot).
type feedEvent struct{ row, snap int64 }

// feedSide is one catalog's feed inputs of a table: its data file rows by
// path, and how its readers compute the feed.
type feedSide struct {
	newLine bool
	files   map[string][]feedFile
	// bad: why the real readers fail on a data file's feed (a delete file
	// they cannot read), by path.
	bad map[string]string
	// inlinedEvents: with the v1.4 rules, each inlined file deletion is
	// an event too (the chain check of a 0.4+ side, chainRead).
	inlinedEvents bool
}

// oldAll lists f's events under the v1.4 rules, with its inlined file
// deletions (one per position, at its smallest snapshot) where
// side.inlinedEvents.
func (side *feedSide) oldAll(f *feedFile, emit func(row, snap int64)) {
	f.oldEvents(emit)
	if !side.inlinedEvents || len(f.inl) == 0 {
		return
	}
	first := map[int64]int64{}
	for _, d := range f.inl {
		if old, ok := first[d.row]; !ok || d.snap < old {
			first[d.row] = d.snap
		}
	}
	for _, pos := range sortedKeys(first) {
		emit(f.rowIDStart+pos, first[pos])
	}
}

// feedInputs reads table t's feed inputs: every data and delete file row
// of the table, each delete file's positions (read once per comparison, as
// the plain reads read them) and its inlined file deletions.
func (r *Reader) feedInputs(ctx context.Context, t Table) (*feedSide, error) {
	all, err := r.allTableFiles(ctx, t)
	if err != nil {
		return nil, err
	}
	side := &feedSide{newLine: r.format.Has(formats.CapPartialDeleteFiles), files: map[string][]feedFile{}, bad: map[string]string{}}
	type at struct {
		path string
		i    int
		f    DataFile
	}
	byID := map[int64]at{}
	for _, row := range all.data {
		f := row.file
		p := r.relPath(f.Path)
		start := int64(0)
		if f.RowIDStart != nil {
			start = *f.RowIDStart
		}
		byID[f.ID] = at{p, len(side.files[p]), f}
		ff := feedFile{rowIDStart: start, records: f.RecordCount, begin: f.BeginSnapshot, end: row.end}
		if f.PartialInfo != nil && !side.newLine {
			ff.splits = parseFeedSplits(*f.PartialInfo)
		}
		// record_count sizes the feed's work: the rows of a file that
		// ends, and the positions a merged file's chain hides
		// (mergedChain). Past deletionvector.SmallCount it is held to the
		// file's Parquet row count, as hiddenPositions holds it (a
		// tampered 2^40 ran for hours at a file's end, and listed in a
		// chain ran out of memory): the readers' feed reads the file's
		// rows at its end, and fails there on a file it cannot read.
		// convert refuses to rewrite a merged file that claims more rows
		// than it has, or cannot be read, so no B is its chain: no
		// exemption. The claim stays a difference (recordCounts, and the
		// "data file ended" entry).
		if f.RecordCount > deletionvector.SmallCount && (row.end != nil || ff.splits != nil) {
			n, ok := r.partialFileRows(ctx, f)
			switch {
			case !ok && row.end != nil:
				side.bad[p] = fmt.Sprintf("data file %s (id %d), of record_count %d, cannot be read at its end", p, f.ID, f.RecordCount)
			case !ok:
				ff.splits = nil
			case n < f.RecordCount:
				ff.records, ff.splits = n, nil
			}
		}
		side.files[p] = append(side.files[p], ff)
	}
	for _, row := range all.dels {
		loc, ok := byID[row.dataID]
		if !ok {
			continue // the feed joins delete files to the table's data files
		}
		d := row.file
		fd, err := r.feedDelete(ctx, &d, loc.f)
		fd.id, fd.end = d.ID, row.end
		if err != nil {
			if _, ok := AsDeleteFileError(err); !ok && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("read delete file %s of %s in %s: %w", oneline.Name(d.Path), t.Shown(), oneline.Name(r.path), err)
			}
			if errors.Is(err, fs.ErrNotExist) {
				side.bad[loc.path] = fmt.Sprintf("delete file %s does not exist", r.relPath(d.Path))
			} else {
				side.bad[loc.path] = fmt.Sprintf("delete file %s: %v", r.relPath(d.Path), err)
			}
			continue
		}
		ff := &side.files[loc.path][loc.i]
		ff.dels = append(ff.dels, fd)
	}
	for _, fs := range side.files {
		for i := range fs {
			slices.SortStableFunc(fs[i].dels, func(a, b feedDel) int { return cmp.Compare(a.begin, b.begin) })
		}
	}
	if inl, ok := r.inlinedDeleteTable(t); ok && side.newLine {
		q := fmt.Sprintf(`SELECT file_id, row_id, begin_snapshot FROM cat.%s WHERE file_id IS NOT NULL AND row_id IS NOT NULL AND begin_snapshot IS NOT NULL ORDER BY ALL`, ident(inl))
		rows, err := r.conn.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("read inlined deletions of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, pos, begin int64
			if err := rows.Scan(&id, &pos, &begin); err != nil {
				return nil, fmt.Errorf("read inlined deletions of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
			}
			if loc, ok := byID[id]; ok {
				ff := &side.files[loc.path][loc.i]
				ff.inl = append(ff.inl, feedEvent{pos, begin})
			}
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read inlined deletions of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
	}
	return side, nil
}

// parseFeedSplits reads a merged file's split list 's1:n1|s2:n2|...'
// (convert's parseSplits); nil for 'partial_max:N' or a list that does not
// parse (its table is refused: refusedPartialInfo).
func parseFeedSplits(info string) []feedSplit {
	splits, err := splitList(info)
	if err != nil || slices.ContainsFunc(splits, func(s feedSplit) bool { return s.snap < 0 || s.rows < 0 }) {
		return nil
	}
	return splits
}

// feedDelete reads delete file d as the feed's reader of r's format reads
// it: a Parquet file's positions (with their snapshots where it is a
// partial deletion file for that reader), a Puffin file's (a container's
// positions each with the smallest blob snapshot holding it).
func (r *Reader) feedDelete(ctx context.Context, d *DeleteFile, f DataFile) (feedDel, error) {
	fd := feedDel{begin: d.BeginSnapshot}
	if err := r.exists(d.Path); err != nil {
		return fd, err
	}
	switch d.Format {
	case "parquet":
		raw, partial, err := r.parquetDeleteContent(ctx, d)
		if err != nil {
			return fd, err
		}
		fd.pos = raw.pos
		if partial {
			fd.partial = true
			fd.snaps = make([]int64, len(raw.pos))
			for i := range raw.pos {
				if raw.rank != nil {
					fd.snaps[i] = raw.at[raw.rank[i]]
				} else {
					fd.snaps[i] = raw.snaps[i]
				}
			}
		}
		return fd, nil
	case "puffin":
		// The checks the plain reads make (puffinDeletes), at every
		// snapshot, on one read of the file.
		data, err := r.puffinData(ctx, d)
		if err != nil {
			return fd, err
		}
		if _, err := puffinPositions(data, math.MaxInt64, r.vectorBound(ctx, f)); err != nil {
			return fd, err
		}
		blobs, snapped, err := puffinBlobs(data)
		if err != nil {
			return fd, err
		}
		first := map[int64]int64{}
		for _, b := range blobs {
			it := b.bm.Iterator()
			for it.HasNext() {
				p := int64(it.Next())
				if _, ok := first[p]; !ok {
					first[p] = b.snap
				}
			}
		}
		for p := range first {
			fd.pos = append(fd.pos, p)
		}
		slices.Sort(fd.pos)
		if snapped && bytes.HasPrefix(data, puffinMagic) {
			fd.partial = true
			fd.snaps = make([]int64, len(fd.pos))
			for i, p := range fd.pos {
				fd.snaps[i] = first[p]
			}
		}
		return fd, nil
	}
	return fd, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Unknown delete file format: %s", d.Format)}
}

// feedAgg is a multiset of feed events: its size and a sum of a hash of
// each event (equal multisets, equal aggregates; unequal ones collide with
// probability about 2^-64).
type feedAgg struct{ n, sum uint64 }

func (a *feedAgg) add(row, snap int64) {
	a.n++
	a.sum += mix64(uint64(row)*0x9e3779b97f4a7c15 ^ mix64(uint64(snap)+0x632be59bd9b4e019))
}

// mix64 is SplitMix64's finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// prevDel is the delete file of f with the largest begin_snapshot below
// before (the last of equal ones in begin order), nil for none.
func (f *feedFile) prevDel(before int64) *feedDel {
	var p *feedDel
	for i := range f.dels {
		if f.dels[i].begin < before {
			p = &f.dels[i]
		}
	}
	return p
}

// sortedHas reports whether sorted s holds v.
func sortedHas(s []int64, v int64) bool {
	_, ok := slices.BinarySearch(s, v)
	return ok
}

// oldEvents lists the events of f under the v1.3-ossivalis/v1.4-andium
// rules (see the top of this file), each range's feed being those whose
// snapshot is in it.
func (f *feedFile) oldEvents(emit func(row, snap int64)) {
	for i := range f.dels {
		d := &f.dels[i]
		var prev []int64
		if p := f.prevDel(d.begin); p != nil {
			prev = p.pos
		}
		for _, pos := range d.pos {
			if !sortedHas(prev, pos) {
				emit(f.rowIDStart+pos, d.begin)
			}
		}
	}
	if f.end != nil {
		var prev []int64
		if p := f.prevDel(*f.end); p != nil {
			prev = p.pos
		}
		for pos := int64(0); pos < f.records; pos++ {
			if !sortedHas(prev, pos) {
				emit(f.rowIDStart+pos, *f.end)
			}
		}
	}
}

// newEvents lists f's feed for the range [s, e] under the
// v1.5-variegata/main rules (see the top of this file).
func (f *feedFile) newEvents(s, e int64, emit func(row, snap int64)) {
	in := func(x int64) bool { return s <= x && x <= e }
	// The inlined deletions in the range, by position (a position given
	// twice keeps its smallest snapshot here; DuckLake keeps one of them).
	var inl map[int64]int64
	for _, d := range f.inl {
		if !in(d.snap) {
			continue
		}
		if inl == nil {
			inl = map[int64]int64{}
		}
		if old, ok := inl[d.row]; !ok || d.snap < old {
			inl[d.row] = d.snap
		}
	}
	// entry emits one scan entry's rows: base (position -> snapshot) with
	// the inlined deletions merged in, less prev's positions.
	entry := func(base func(yield func(pos, snap int64)), prev []int64) {
		if len(inl) == 0 {
			base(func(pos, snap int64) {
				if !sortedHas(prev, pos) {
					emit(f.rowIDStart+pos, snap)
				}
			})
			return
		}
		seen := map[int64]bool{}
		base(func(pos, snap int64) {
			if ov, ok := inl[pos]; ok {
				snap = ov
			}
			seen[pos] = true
			if !sortedHas(prev, pos) {
				emit(f.rowIDStart+pos, snap)
			}
		})
		for _, pos := range sortedKeys(inl) {
			if !seen[pos] && pos >= 0 && pos < f.records && !sortedHas(prev, pos) {
				emit(f.rowIDStart+pos, inl[pos])
			}
		}
	}
	begun := false
	for i := range f.dels {
		d := &f.dels[i]
		if d.begin > e {
			continue
		}
		begun = true
		if d.partial {
			entry(func(yield func(pos, snap int64)) {
				for j, pos := range d.pos {
					if in(d.snaps[j]) {
						yield(pos, d.snaps[j])
					}
				}
			}, nil)
			continue
		}
		var prev []int64
		if p := f.prevDel(s); p != nil {
			prev = p.pos
		}
		entry(func(yield func(pos, snap int64)) {
			for _, pos := range d.pos {
				yield(pos, d.begin)
			}
		}, prev)
	}
	ended := f.end != nil && in(*f.end)
	if ended {
		var prev []int64
		if p := f.prevDel(*f.end); p != nil {
			prev = p.pos
		}
		entry(func(yield func(pos, snap int64)) {
			if len(inl) > 0 {
				return // only the inlined deletions
			}
			for pos := int64(0); pos < f.records; pos++ {
				yield(pos, *f.end)
			}
		}, prev)
	}
	if !begun && !ended && len(inl) > 0 {
		entry(func(func(pos, snap int64)) {}, nil)
	}
}

func sortedKeys(m map[int64]int64) []int64 {
	if len(m) == 0 {
		return nil
	}
	k := make([]int64, 0, len(m))
	for p := range m {
		k = append(k, p)
	}
	slices.Sort(k)
	return k
}

// events lists the feed of the data file rows fs for [s, e] under side's
// rules.
func (side *feedSide) events(fs []feedFile, s, e int64, emit func(row, snap int64)) {
	for i := range fs {
		if side.newLine {
			fs[i].newEvents(s, e, emit)
			continue
		}
		side.oldAll(&fs[i], func(row, snap int64) {
			if s <= snap && snap <= e {
				emit(row, snap)
			}
		})
	}
}

// breakpoints adds the snapshot ids the feed of fs turns on.
func breakpoints(fs []feedFile, into map[int64]bool) (work int64) {
	for _, f := range fs {
		for _, d := range f.dels {
			into[d.begin] = true
			for _, s := range d.snaps {
				into[s] = true
			}
			work += int64(len(d.pos))
		}
		for _, d := range f.inl {
			into[d.snap] = true
		}
		work += int64(len(f.inl))
		if f.end != nil {
			into[*f.end] = true
			work += f.records
		}
	}
	return work
}

// feedCellCap bounds the work of comparing one data file's feed range by
// range (cells times the positions read per cell): past it only the ranges
// that start at or before the first snapshot the file's feed turns on, and
// those that end at or after the last, are compared (docs/compare.md,
// Known limits).
const feedCellCap = 5_000_000

// feedDiff is a difference between two catalogs' feeds of a data file:
// for the range [S, E], a row id reported n times by A's readers and m by
// B's, at a snapshot.
type feedDiff struct {
	s, e, row, snap int64
	na, nb          int
}

// diffFeeds compares two catalogs' feeds of the data file rows a and b
// (one path), for every range, and returns the first difference found.
func diffFeeds(sa, sb *feedSide, a, b []feedFile) (feedDiff, bool) {
	if !sa.newLine && !sb.newLine {
		// Range-decomposable on both sides: the event multisets, compared
		// snapshot by snapshot as aggregates, then listed at the first
		// snapshot where they differ.
		aggs := func(side *feedSide, fs []feedFile) map[int64]feedAgg {
			m := map[int64]feedAgg{}
			for i := range fs {
				side.oldAll(&fs[i], func(row, snap int64) {
					g := m[snap]
					g.add(row, snap)
					m[snap] = g
				})
			}
			return m
		}
		ga, gb := aggs(sa, a), aggs(sb, b)
		first, found := int64(0), false
		for _, m := range []map[int64]feedAgg{ga, gb} {
			for snap := range m {
				if ga[snap] != gb[snap] && (!found || snap < first) {
					first, found = snap, true
				}
			}
		}
		if !found {
			return feedDiff{}, false
		}
		ea, eb := map[feedEvent]int{}, map[feedEvent]int{}
		for i := range a {
			sa.oldAll(&a[i], func(row, snap int64) {
				if snap == first {
					ea[feedEvent{row, snap}]++
				}
			})
		}
		for i := range b {
			sb.oldAll(&b[i], func(row, snap int64) {
				if snap == first {
					eb[feedEvent{row, snap}]++
				}
			})
		}
		return firstEventDiff(ea, eb, math.MinInt64, math.MaxInt64)
	}
	if sa.newLine == sb.newLine && sameFeedInputs(a, b) {
		return feedDiff{}, false // one line's rules on the same inputs
	}
	bp := map[int64]bool{}
	work := breakpoints(a, bp) + breakpoints(b, bp)
	if len(bp) == 0 {
		return feedDiff{}, false
	}
	pts := sortedKeys(boolKeys(bp))
	n := len(pts)
	// S takes pts[k] (all of (pts[k-1], pts[k]]) and pts[n-1]+1; E takes
	// pts[m] (all of [pts[m], pts[m+1])) and pts[0]-1. A cell holds a
	// range S <= E only when k <= m+1.
	starts := append(slices.Clone(pts), pts[n-1]+1)
	ends := append([]int64{pts[0] - 1}, pts...)
	cells := int64(n+1) * int64(n+2) / 2
	full := cells*(work+1) <= feedCellCap
	for k, s := range starts {
		for m, e := range ends {
			// ends[m] is pts[m-1].
			// The cell S in (pts[k-1], pts[k]], E in [pts[k-1], pts[k])
			// holds a range only when they are two apart.
			if k > m || (k == m && k > 0 && k < n && pts[k]-pts[k-1] < 2) {
				continue
			}
			if !full && k != 0 && m != len(ends)-1 {
				continue
			}
			var ga, gb feedAgg
			sa.events(a, s, e, ga.add)
			sb.events(b, s, e, gb.add)
			if ga == gb {
				continue
			}
			ea, eb := map[feedEvent]int{}, map[feedEvent]int{}
			sa.events(a, s, e, func(row, snap int64) { ea[feedEvent{row, snap}]++ })
			sb.events(b, s, e, func(row, snap int64) { eb[feedEvent{row, snap}]++ })
			if d, ok := firstEventDiff(ea, eb, s, e); ok {
				return d, true
			}
		}
	}
	return feedDiff{}, false
}

// sameFeedInputs reports whether a and b are the same data file rows as
// the feed reads them (in any order): row_id_start, record_count, end, the
// delete files in begin order with their positions and stored snapshots,
// the inlined file deletions. The common case (a catalog and its
// conversion within one release line) skips the range-by-range walk.
func sameFeedInputs(a, b []feedFile) bool {
	if len(a) != len(b) {
		return false
	}
	prints := func(fs []feedFile) []uint64 {
		out := make([]uint64, len(fs))
		for i, f := range fs {
			h := mix64(uint64(f.rowIDStart)) ^ mix64(uint64(f.records)+1)
			step := func(v int64) { h = mix64(h ^ uint64(v)) }
			if f.end != nil {
				step(1)
				step(*f.end)
			} else {
				step(0)
			}
			for _, d := range f.dels {
				step(2)
				step(d.begin)
				if d.partial {
					step(1)
				}
				step(int64(len(d.pos)))
				for _, p := range d.pos {
					step(p)
				}
				for _, sn := range d.snaps {
					step(sn)
				}
			}
			step(3)
			for _, d := range f.inl {
				step(d.row)
				step(d.snap)
			}
			out[i] = h
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(prints(a), prints(b))
}

func boolKeys(m map[int64]bool) map[int64]int64 {
	out := make(map[int64]int64, len(m))
	for k := range m {
		out[k] = k
	}
	return out
}

// firstEventDiff returns the smallest (snapshot, row id) reported a
// different number of times in ea and eb.
func firstEventDiff(ea, eb map[feedEvent]int, s, e int64) (feedDiff, bool) {
	var best *feedEvent
	consider := func(ev feedEvent) {
		if ea[ev] == eb[ev] {
			return
		}
		if best == nil || ev.snap < best.snap || (ev.snap == best.snap && ev.row < best.row) {
			v := ev
			best = &v
		}
	}
	for ev := range ea {
		consider(ev)
	}
	for ev := range eb {
		consider(ev)
	}
	if best == nil {
		return feedDiff{}, false
	}
	return feedDiff{s: s, e: e, row: best.row, snap: best.snap, na: ea[*best], nb: eb[*best]}, true
}

// feedRules names the release lines whose rules a side's feed follows.
func feedRules(side *feedSide) string {
	if side.newLine {
		return "v1.5-variegata/main rules"
	}
	return "v1.3-ossivalis/v1.4-andium rules"
}

// rangeText is a range of snapshot ids as the difference names it.
func rangeText(s, e int64) string {
	lo, hi := fmt.Sprint(s), fmt.Sprint(e)
	if s == math.MinInt64 {
		lo = "any"
	}
	if e == math.MaxInt64 {
		hi = "any"
	}
	return fmt.Sprintf("[%s, %s]", lo, hi)
}

// feedDeletes compares the change feed's delete side of table x (A) and y
// (B), once per table pair: each data file's (row id, snapshot_id) rows
// for every range of snapshots, as each side's real readers compute them.
func (c *comparison) feedDeletes(x, y Table) error {
	if c.self {
		return nil
	}
	key := fmt.Sprintf("%d %s\x00%d %s", x.ID, x.dir, y.ID, y.dir)
	if c.feedSeen[key] {
		return nil
	}
	if c.feedSeen == nil {
		c.feedSeen = map[string]bool{}
	}
	c.feedSeen[key] = true
	sa, err := c.a.feedInputs(c.ctx, x)
	if err != nil {
		return markA(err)
	}
	sb, err := c.b.feedInputs(c.ctx, y)
	if err != nil {
		return markB(err)
	}
	paths := map[string]bool{}
	for p := range sa.files {
		paths[p] = true
	}
	for p := range sb.files {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	slices.Sort(sorted)
	for _, p := range sorted {
		ba, bb := sa.bad[p], sb.bad[p]
		switch {
		case ba != "" && bb != "":
			c.notCompared(fmt.Sprintf("the change feed's deletions of %s, data file %s: neither side's readers read it (A: %s; B: %s)", x.FullName(), p, ba, bb))
			continue
		case ba != "" || bb != "":
			c.add(Difference{Kind: "files", Table: x.FullName(), Item: "change feed deletions of " + p, A: ba, B: bb,
				Reason: "the change feed (ducklake_table_deletions) fails on one side only: its readers read every delete file of the data file, whether or not a snapshot sees it"})
			continue
		}
		d, ok := diffFeeds(sa, sb, sa.files[p], sb.files[p])
		if !ok {
			continue
		}
		if note, ok := feedExcused(sa, sb, x.FullName(), p, d); ok {
			c.notCompared(note)
			continue
		}
		c.add(Difference{Kind: "files", Snapshot: ptr(d.snap), Table: x.FullName(), Item: "change feed deletions of " + p,
			A: fmt.Sprintf("%d", d.na), B: fmt.Sprintf("%d", d.nb),
			Reason: fmt.Sprintf("the change feed (ducklake_table_deletions) for snapshots %s reports row id %d deleted at snapshot %d %d time(s) in A (%s), %d in B (%s)",
				rangeText(d.s, d.e), d.row, d.snap, d.na, feedRules(sa), d.nb, feedRules(sb))})
	}
	return nil
}

// feedExcused returns the note for a difference d of data file p's feed
// that convert's delete-file chains explain (B a 0.4+ catalog), and
// whether there is one.
func feedExcused(sa, sb *feedSide, table, p string, d feedDiff) (string, bool) {
	if sa.newLine && !sb.newLine {
		// The converse of a chain kept: A (0.4+) holds a chain of plain
		// delete files (a 0.1-0.3 lake's, or convert's for a 0.3 merged
		// file), which B (0.1-0.3; a downgrade keeps it) holds event for
		// event: A read by v1.4's rules gives B's feed.
		asOld := &feedSide{files: sa.files, bad: sa.bad, inlinedEvents: true}
		if _, differ := diffFeeds(asOld, sb, sa.files[p], sb.files[p]); plainDeletes(sa.files[p]) && plainDeletes(sb.files[p]) && !differ {
			return chainKept(table, p, d), true
		}
		return "", false
	}
	if !sb.newLine {
		return "", false
	}
	// B read event by event (v1.4's rules) gives A's feed: B holds A's
	// deletions as a chain of delete files, and only B's readers'
	// reading of a chain differs (see chainRead).
	// A partial deletion file of B is no chain: v1.4's rules read it
	// without the snapshots it stores, which B's readers report.
	asOld := &feedSide{files: sb.files, bad: sb.bad, inlinedEvents: true}
	if _, differ := diffFeeds(sa, asOld, sa.files[p], sb.files[p]); plainDeletes(sb.files[p]) && !differ {
		return chainRead(table, p, d, sa.newLine), true
	}
	if sa.newLine && partialAsChain(sa.files[p], sb.files[p]) {
		return chainRead(table, p, d, true), true
	}
	if !sa.newLine && mergedRewritten(sa.files[p], sb.files[p]) {
		return mergedHidden(table, p, d), true
	}
	return "", false
}

// mergedRewritten reports whether b (0.4+) gives, for every range, the
// feed of a (0.1-0.3, some of its rows merged files) as convert's
// --rewrite-deletes writes it: each merged file with its chain
// (mergedChain), no inlined deletions, the other rows as they are.
func mergedRewritten(a, b []feedFile) bool {
	want := make([]feedFile, len(a))
	merged := false
	for i, f := range a {
		want[i] = f
		if f.splits != nil {
			want[i].dels, want[i].splits = f.mergedChain(), nil
			merged = true
		}
	}
	if !merged {
		return false
	}
	rewritten := &feedSide{newLine: true}
	_, differ := diffFeeds(rewritten, &feedSide{newLine: true}, want, b)
	return !differ
}

// mergedChain returns the delete files convert's --rewrite-deletes gives
// merged file f in a 0.4+ catalog (convert/merged.go, rewriteMergedFiles),
// in begin order: f's life [begin, end) is cut at every split snapshot and
// every begin and end of one of its delete files inside it, neighbouring
// stretches showing the same rows joined; a stretch from snapshot s whose
// rows 0.3 does not all show gets a delete file begun at s of the
// positions from the split list's limit at s up to record_count and those
// of the delete file visible at s (the last so in delete_file_id order),
// except that a delete file covering exactly such a stretch with no limit
// is kept as it is. f's own delete files are dropped. Where f ends, a
// partial deletion file begun and ended at its end holds, each with the
// end's snapshot, the positions of the chain's last file that f's own
// delete file begun last before the end does not (convert's
// writeEndDeletes), so that B's feed reports at the end the rows A's does.
func (f *feedFile) mergedChain() []feedDel {
	inLife := func(s int64) bool { return s > f.begin && (f.end == nil || s < *f.end) }
	byID := slices.Clone(f.dels)
	slices.SortStableFunc(byID, func(a, b feedDel) int { return cmp.Compare(a.id, b.id) })
	cuts := []int64{f.begin}
	for _, s := range f.splits {
		if inLife(s.snap) {
			cuts = append(cuts, s.snap)
		}
	}
	for _, d := range byID {
		if inLife(d.begin) {
			cuts = append(cuts, d.begin)
		}
		if d.end != nil && inLife(*d.end) {
			cuts = append(cuts, *d.end)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	type span struct {
		from  int64
		to    *int64
		limit int64
		del   *feedDel
	}
	var spans []span
	for i, from := range cuts {
		sp := span{from: from, to: f.end, limit: f.records}
		var limit int64
		for _, s := range f.splits {
			if s.snap <= from && s.rows > limit {
				limit = s.rows
			}
		}
		sp.limit = min(limit, f.records)
		if i+1 < len(cuts) {
			sp.to = &cuts[i+1]
		}
		for k := range byID {
			if d := &byID[k]; d.begin <= from && (d.end == nil || from < *d.end) {
				sp.del = d
			}
		}
		if n := len(spans); n > 0 && spans[n-1].limit == sp.limit && spans[n-1].del == sp.del {
			spans[n-1].to = sp.to
			continue
		}
		spans = append(spans, sp)
	}
	sameEnd := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	var out []feedDel
	for _, sp := range spans {
		switch {
		case sp.limit >= f.records && sp.del == nil:
			continue
		case sp.limit >= f.records && sp.del.begin == sp.from && sameEnd(sp.del.end, sp.to):
			out = append(out, *sp.del)
			continue
		}
		var pos []int64
		for p := sp.limit; p < f.records; p++ {
			pos = append(pos, p)
		}
		if sp.del != nil {
			pos = append(pos, sp.del.pos...)
			slices.Sort(pos)
			pos = slices.Compact(pos)
		}
		out = append(out, feedDel{begin: sp.from, end: sp.to, pos: pos})
	}
	// A file that ends gets, where the chain's last file holds positions
	// f's own delete file begun last before the end does not, a partial
	// deletion file of them begun and ended at the end, each stored with
	// the end's snapshot: the rows the feed subtracts at the end in B and
	// not in A.
	if f.end != nil && len(out) > 0 {
		var own []int64
		if p := f.prevDel(*f.end); p != nil {
			own = p.pos
		}
		var pos, snaps []int64
		for _, p := range out[len(out)-1].pos {
			if !sortedHas(own, p) {
				pos = append(pos, p)
				snaps = append(snaps, *f.end)
			}
		}
		if len(pos) > 0 {
			out = append(out, feedDel{begin: *f.end, end: f.end, partial: true, pos: pos, snaps: snaps})
		}
	}
	return out
}

// chainRead is the note for a data file whose B (format 0.4+) holds A's
// deletions event for event, as a chain of cumulative delete files, while
// B's readers compute the feed of a chain otherwise: v1.5-variegata and
// main read each file of the chain begun by the range's end less only the
// file begun last before its start, so a range holding two of them
// reports the earlier one's rows again, at the later one's begin_snapshot.
// Such chains are a 0.1-0.3 source's (which convert and DuckLake's own
// migration to 0.4 keep) or convert's own for a 0.4 target whose readers
// (DuckDB 1.5.0/1.5.1) read a partial deletion file whole beside inlined
// deletions (formats.QuirkPartialDeletesWholeWithInlined). A 0.4+ writer
// writes one partial deletion file per data file instead, whose
// per-position snapshots give A's feed; convert does not (docs/compare.md,
// Known limits).
func chainRead(table, path string, d feedDiff, fromNew bool) string {
	whose := "a 0.1-0.3 chain kept (DuckLake's own migration to 0.4 keeps it too)"
	if fromNew {
		whose = "the chain convert writes for a 0.4 target in place of a partial deletion file beside inlined deletions (partial-deletes-whole-with-inlined)"
	}
	return fmt.Sprintf("the change feed's deletions of %s, data file %s: B holds A's deletions as a chain of cumulative delete files (%s), which B's readers (v1.5-variegata/main rules) read otherwise: for snapshots %s row id %d is reported at snapshot %d %d time(s) by A's readers, %d by B's (a chain's earlier rows again at each later file's begin_snapshot)",
		table, path, whose, rangeText(d.s, d.e), d.row, d.snap, d.na, d.nb)
}

// partialAsChain reports whether b is a (one data file row) written as
// convert writes a partial deletion file for a 0.4 target beside inlined
// deletions: a's only delete file is a partial deletion file, b's delete
// files are plain, one per snapshot a's file stores, the first at its
// begin_snapshot (as convert writes them), each holding the positions a's
// deletes by that snapshot (so the last holds them all), and the data file
// and its inlined deletions are alike.
func partialAsChain(a, b []feedFile) bool {
	if len(a) != 1 || len(b) != 1 || len(a[0].dels) != 1 || !a[0].dels[0].partial || len(b[0].dels) == 0 {
		return false
	}
	fa, fb := a[0], b[0]
	if fa.rowIDStart != fb.rowIDStart || fa.records != fb.records || (fa.end == nil) != (fb.end == nil) ||
		(fa.end != nil && *fa.end != *fb.end) || !slices.Equal(fa.inl, fb.inl) {
		return false
	}
	pd := fa.dels[0]
	snaps := slices.Clone(pd.snaps)
	slices.Sort(snaps)
	snaps = slices.Compact(snaps)
	if len(snaps) != len(fb.dels) {
		return false
	}
	for i, d := range fb.dels {
		if d.partial || (i > 0 && d.begin != snaps[i]) {
			return false
		}
		var by []int64
		for j, pos := range pd.pos {
			if pd.snaps[j] <= snaps[i] {
				by = append(by, pos)
			}
		}
		if !slices.Equal(by, d.pos) {
			return false
		}
	}
	return true
}

// mergedHidden is the note for a 0.3 merged data file (partial_file_info)
// of A whose B (0.4+, which has no split lists) hides the rows 0.3 did not
// show yet with delete files (convert's merged-file chains, --rewrite-deletes):
// B's readers' feed reports those hidden rows as deleted (and a chain's
// rows again). Given only where B's feed is that chain's (mergedRewritten).
func mergedHidden(table, path string, d feedDiff) string {
	return fmt.Sprintf("the change feed's deletions of %s, data file %s: a 0.3 merged file (partial_file_info), whose rows B hides with delete files until 0.3 shows them (merged-file-snapshots): B's readers report the hidden rows as deleted: for snapshots %s row id %d is reported at snapshot %d %d time(s) by A's readers, %d by B's",
		table, path, rangeText(d.s, d.e), d.row, d.snap, d.na, d.nb)
}

// plainDeletes reports whether no delete file of files is a partial
// deletion file (whose stored snapshots v1.4's rules do not read).
func plainDeletes(files []feedFile) bool {
	for _, f := range files {
		for _, del := range f.dels {
			if del.partial {
				return false
			}
		}
	}
	return true
}

// chainKept is the note for a data file whose A (format 0.4+) holds a
// chain of cumulative plain delete files that B (0.1-0.3) holds event for
// event: A's readers (v1.5-variegata/main rules) read each file of the
// chain begun by the range's end less only the file begun last before its
// start, B's (v1.3/v1.4) each file less the one before it. No 0.1-0.3
// catalog gives v1.5's reading of a chain.
func chainKept(table, path string, d feedDiff) string {
	return fmt.Sprintf("the change feed's deletions of %s, data file %s: B (0.1-0.3) holds A's chain of cumulative delete files event for event (a downgrade keeps it), which A's readers (v1.5-variegata/main rules) read otherwise: for snapshots %s row id %d is reported at snapshot %d %d time(s) by A's readers, %d by B's (a chain's earlier rows again at each later file's begin_snapshot)",
		table, path, rangeText(d.s, d.e), d.row, d.snap, d.na, d.nb)
}
