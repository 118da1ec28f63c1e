package compare

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestKeptRowsAsMap: the kept row digests (sorted 24-byte rows, positions
// without a row apart) answer every lookup, cover and sum as the map by
// position they replace did, through scans that keep overlapping,
// unsorted or repeated positions, positions without a row, and digests of
// more than one row; a scan's later digest replaces an earlier one.
func TestKeptRowsAsMap(t *testing.T) {
	row := func(h uint64) Digest { return Digest{Rows: 1, Hi: h, Lo: ^h} }
	type scan struct {
		kept []int64
		got  map[int64]Digest
	}
	cases := []struct {
		name  string
		scans []scan
	}{
		{"one scan", []scan{{[]int64{3, 7, 9}, map[int64]Digest{3: row(3), 7: row(7), 9: row(9)}}}},
		{"nothing kept", []scan{{nil, map[int64]Digest{1: row(1)}}}},
		{"merged, later scans win", []scan{
			{[]int64{1, 4, 8}, map[int64]Digest{1: row(1), 4: row(4), 8: row(8)}},
			{[]int64{2, 4, 9}, map[int64]Digest{2: row(2), 4: row(40), 9: row(9)}},
			{[]int64{0, 10}, map[int64]Digest{0: row(0), 10: row(10)}},
		}},
		{"unsorted and repeated positions", []scan{
			{[]int64{9, 2, 9, 5, 2}, map[int64]Digest{2: row(2), 5: row(5), 9: row(9)}},
			{[]int64{6, 1, 6}, map[int64]Digest{1: row(1), 6: row(6)}},
		}},
		{"positions without a row", []scan{
			{[]int64{-3, 2, 1 << 41}, map[int64]Digest{2: row(2)}},
			{[]int64{5, -3}, map[int64]Digest{5: row(5)}},
		}},
		{"a row where there was none, and none where there was one", []scan{
			{[]int64{1, 2}, map[int64]Digest{2: row(2)}},
			{[]int64{1, 2}, map[int64]Digest{1: row(1)}},
		}},
		{"digests of more than one row", []scan{
			{[]int64{1, 2, 3}, map[int64]Digest{1: {Rows: 2, Hi: 5, Lo: 6}, 2: row(2), 3: {Rows: -1, Hi: 7}}},
			{[]int64{3, 4}, map[int64]Digest{3: row(3), 4: {Rows: 3}}},
		}},
		{"a zero hash is still a row", []scan{{[]int64{1, 2}, map[int64]Digest{1: {Rows: 1}}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newDigestMemo(NewDigests(nil))
			model := map[int64]Digest{} // what the map by position held
			const key = "plan"
			for _, s := range tc.scans {
				kept := slices.Clone(s.kept)
				m.keepRows(key, s.kept, s.got)
				if !slices.Equal(kept, s.kept) {
					t.Fatalf("keepRows changed its positions: %v, was %v", s.kept, kept)
				}
				for _, p := range s.kept {
					model[p] = s.got[p]
				}
			}
			rows := m.rows[key]
			if rows.len() != len(model) {
				t.Errorf("%d positions kept, want %d", rows.len(), len(model))
			}
			all := slices.Sorted(maps.Keys(model))
			for _, p := range all {
				if d, ok := rows.get(p); !ok || d != model[p] {
					t.Errorf("position %d: %v %v, want %v", p, d, ok, model[p])
				}
			}
			for _, p := range []int64{-100, -1, 11, 100, 1 << 42} {
				if _, ok := model[p]; ok {
					continue
				}
				if d, ok := rows.get(p); ok {
					t.Errorf("position %d, never kept, has %v", p, d)
				}
			}
			var want Digest
			for _, p := range all {
				want = want.Add(model[p])
			}
			if got, ok := m.sumRows(key, all); !ok || got != want {
				t.Errorf("sum of every kept row %v %v, want %v", got, ok, want)
			}
			if !m.covers(key, all) {
				t.Error("the kept positions are not covered")
			}
			if m.covers(key, append(slices.Clone(all), 1<<50)) {
				t.Error("a position never kept is covered")
			}
			if _, ok := m.sumRows(key, []int64{1 << 50}); ok {
				t.Error("a position never kept has a sum")
			}
			if len(all) > 0 && m.covers("another plan", all[:1]) {
				t.Error("another plan's key covers this plan's rows")
			}
		})
	}
}

// TestPartialDeletesPerSnapshot: a partial deletion file's positions
// (strictly increasing, as every real reader requires; their snapshots in
// any order), read once and shared, are at each snapshot those deleted at
// or before it, whether the file is read alone or in a batch, and a reader
// handing out its kept cut again does not hand out another snapshot's.
func TestPartialDeletesPerSnapshot(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	r, _ := openWithSnapshots(t, catalog, filepath.Join(lake, "data"))
	// (position, snapshot), the snapshots out of order.
	pairs := [][2]int64{{0, 9}, {1, 3}, {2, 5}, {4, 3}, {6, 7}, {9, 5}}
	cases := []struct {
		snap int64
		want []int64
	}{
		{2, []int64{}},
		{3, []int64{1, 4}},
		{4, []int64{1, 4}},
		{5, []int64{1, 2, 4, 9}},
		{3, []int64{1, 4}},
		{7, []int64{1, 2, 4, 6, 9}},
		{9, []int64{0, 1, 2, 4, 6, 9}},
		{100, []int64{0, 1, 2, 4, 6, 9}},
		{6, []int64{1, 2, 4, 9}},
	}
	values := ""
	for i, p := range pairs {
		if i > 0 {
			values += ", "
		}
		values += fmt.Sprintf("('f.parquet', %d::BIGINT, %d::BIGINT)", p[0], p[1])
	}
	path := filepath.Join(t.TempDir(), "partial-delete.parquet")
	q := "COPY (SELECT * FROM (VALUES " + values + ") v(file_path, pos, _ducklake_internal_snapshot_id)) TO " + sqlString(path) + " (FORMAT parquet)"
	if _, err := r.conn.ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
	alone, err := r.readParquetDeletes(ctx, &DeleteFile{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := r.readDeleteBatch(ctx, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string]rawDeletes{"alone": alone, "batch": batch[path]} {
		if want := []int64{0, 1, 2, 4, 6, 9}; !slices.Equal(raw.pos, want) {
			t.Errorf("%s: positions %v, want %v", name, raw.pos, want)
		}
		if want := []int64{9, 3, 5, 3, 7, 5}; !slices.Equal(raw.rowSnaps(), want) {
			t.Errorf("%s: snapshots %v, want %v", name, raw.rowSnaps(), want)
		}
	}
	// Then with the cuts' bound reached at every cut: the same positions,
	// and the reader keeps no more than the one cut it just made.
	for _, limit := range []int{maxRawDeletes, 1} {
		r.cutCap = limit
		for _, tc := range cases {
			got, err := r.parquetDeletes(ctx, &DeleteFile{Path: path}, tc.snap)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) || !slices.Equal(got, tc.want) {
				t.Errorf("cut bound %d, snapshot %d: %v, want %v", limit, tc.snap, got, tc.want)
			}
			if limit == 1 && r.cutPositions > 2*len(pairs) {
				t.Errorf("cut bound 1: %d positions kept alive by cuts", r.cutPositions)
			}
		}
	}
}

// TestPartialDeleteSnapshotsKeptSmall: what a reader keeps of a partial
// deletion file's snapshots to name its states (deleteSnaps) is its
// distinct snapshots, not a sorted copy of every row's: a file of 100,000
// deleted rows over two snapshots keeps two values (and its content, read
// once and shared, no more than it was), however many readers ask. A
// sorted copy per reader and file kept 8 bytes per deleted row alive for
// the whole proof: in a long history of deletes, the largest part of a
// proof's live Go heap, growing with the versions (docs/compare.md,
// "Memory").
func TestPartialDeleteSnapshotsKeptSmall(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	r, _ := openWithSnapshots(t, catalog, filepath.Join(lake, "data"))
	const rows = 100_000
	d, raw := partialDeleteFile(t, r, fmt.Sprintf("SELECT i AS pos, CASE WHEN i %% 2 = 0 THEN 5 ELSE 3 END::BIGINT AS snap FROM range(%d) t(i)", rows))
	// What the comparison and the run keep of the content: a position and
	// a one-byte snapshot index a row, not two 8-byte values.
	if got := rawSize(raw); got > rows+rows/8+8 {
		t.Errorf("the content of a partial deletion file of %d rows over 2 snapshots holds %d 8-byte values, want at most %d", rows, got, rows+rows/8+8)
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	const readers = 4 // each reader of a comparison asks for its own
	var kept [][]int64
	for range readers {
		clear(r.deleteSnapsOf)
		at, ok := r.deleteSnaps(ctx, d)
		if !ok {
			t.Fatal("deleteSnaps: not readable")
		}
		if want := []int64{3, 5}; !slices.Equal(at, want) {
			t.Fatalf("deleteSnaps: %v, want %v", at, want)
		}
		kept = append(kept, at)
	}
	// Four sorted copies of 100,000 snapshots would hold 3.2 MB.
	if grew := int64(heap()) - int64(before); grew > 64<<10 {
		t.Errorf("the snapshots kept for %d readers of one partial deletion file of %d rows hold %d more bytes of heap, want at most 64 KiB", readers, rows, grew)
	}
	runtime.KeepAlive(kept)
}

// TestPartialDeletesManySnapshots: a partial deletion file naming more
// distinct snapshots than a one-byte index holds keeps every row's
// snapshot as it is, and is cut at each snapshot as one naming few.
func TestPartialDeletesManySnapshots(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	r, _ := openWithSnapshots(t, catalog, filepath.Join(lake, "data"))
	// Row i (position 2i) deleted at snapshot 1000 - i: 300 snapshots,
	// in the opposite order of the positions.
	const rows = 300
	d, raw := partialDeleteFile(t, r, fmt.Sprintf("SELECT 2 * i AS pos, (1000 - i)::BIGINT AS snap FROM range(%d) t(i)", rows))
	if len(raw.at) != rows || raw.rank != nil || len(raw.snaps) != rows {
		t.Errorf("%d distinct snapshots, %d indexes, %d snapshots kept; want %d, none, %d", len(raw.at), len(raw.rank), len(raw.snaps), rows, rows)
	}
	for _, snap := range []int64{0, 700, 701, 702, 850, 999, 1000, 5000} {
		var want []int64
		for i := range int64(rows) {
			if 1000-i <= snap {
				want = append(want, 2*i)
			}
		}
		got, err := r.parquetDeletes(ctx, d, snap)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || !slices.Equal(got, want) {
			t.Errorf("snapshot %d: %d positions (%v...), want %d", snap, len(got), got[:min(len(got), 3)], len(want))
		}
	}
}

// partialDeleteFile writes a partial deletion file of data file f.parquet
// whose rows (pos, snap) the query rows gives, and reads it as a proof does.
func partialDeleteFile(t *testing.T, r *Reader, rows string) (*DeleteFile, rawDeletes) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "partial-delete.parquet")
	q := fmt.Sprintf("COPY (SELECT 'f.parquet' AS file_path, pos, snap AS _ducklake_internal_snapshot_id FROM (%s)) TO %s (FORMAT parquet)", rows, sqlString(path))
	if _, err := r.conn.ExecContext(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	d := &DeleteFile{Path: path, Format: "parquet"}
	raw, partial, err := r.parquetDeleteContent(context.Background(), d)
	if err != nil || !partial {
		t.Fatalf("partial %v, %v", partial, err)
	}
	return d, raw
}

// TestPartialCutsLeftBehind: a reader keeps the positions it cut from a
// partial deletion file (parquetDeletes) for the snapshot it walks and the
// one before, not for every file the walk met: once the walk has moved two
// snapshots past a file, or past the file's last deletion (where nothing
// is cut), its cut is dropped. Kept for the reader's life,
// the cuts of the delete files a walk had left behind were a part of a
// proof's live Go heap that grew with the history (docs/compare.md,
// "Figure 3, one cell").
func TestPartialCutsLeftBehind(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	r, _ := openWithSnapshots(t, catalog, filepath.Join(lake, "data"))
	// Each file deletes the even positions at snapshot 3, the odd ones at 9:
	// every snapshot from 3 to 8 cuts it.
	const rows = 1000
	x, _ := partialDeleteFile(t, r, fmt.Sprintf("SELECT i AS pos, CASE WHEN i %% 2 = 0 THEN 3 ELSE 9 END::BIGINT AS snap FROM range(%d) t(i)", rows))
	y, _ := partialDeleteFile(t, r, fmt.Sprintf("SELECT i AS pos, CASE WHEN i %% 2 = 0 THEN 3 ELSE 9 END::BIGINT AS snap FROM range(%d) t(i)", rows))
	cut := func(d *DeleteFile, snap int64) {
		t.Helper()
		got, err := r.parquetDeletes(ctx, d, snap)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != rows/2 {
			t.Fatalf("snapshot %d: %d positions, want %d", snap, len(got), rows/2)
		}
	}
	cut(x, 3)
	cut(y, 3)
	if !cutKept(r, x.Path) || !cutKept(r, y.Path) {
		t.Fatal("the cuts of the walked snapshot are not kept")
	}
	// The walk goes on with y alone (x's data file is gone).
	cut(y, 4)
	if !cutKept(r, x.Path) {
		t.Error("the cut of the snapshot before is dropped")
	}
	cut(y, 5)
	if cutKept(r, x.Path) {
		t.Error("the cut of a file two snapshots behind the walk is still kept")
	}
	if !cutKept(r, y.Path) {
		t.Error("the cut of the walked snapshot is not kept")
	}
	// The same positions again, whether kept or cut afresh.
	cut(x, 6)
	cut(x, 6)
	// Past the files' last deletion nothing is cut (every position is
	// deleted), and the window moves on all the same: no cut is left.
	for _, snap := range []int64{9, 10} {
		for _, d := range []*DeleteFile{x, y} {
			got, err := r.parquetDeletes(ctx, d, snap)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != rows {
				t.Fatalf("snapshot %d: %d positions, want %d", snap, len(got), rows)
			}
		}
	}
	if cutKept(r, x.Path) || cutKept(r, y.Path) {
		t.Error("cuts are kept two snapshots past the files' last deletion")
	}
}

// cutKept reports whether r keeps a cut of the delete file at path.
func cutKept(r *Reader, path string) bool {
	_, inCur := r.partialCuts.cur[path]
	_, inPrev := r.partialCuts.prev[path]
	return inCur || inPrev
}
