package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// A comparison walks every snapshot of a version, and at each one plans and
// describes every data file of every table: for a version whose history
// has S snapshots and F files that is S x F file plans per side, most of
// them the plan the file had at the snapshot before. A backfill proves
// every version, each holding the history before it, so this work grew with
// the cube of the versions (a 200-version repository's last cells took a
// second each, all of it in these per-file steps).
//
// What a data file's plan (tablePlan) and description (fileEntries) are
// built from at a snapshot is its file state: its catalog row, the delete
// file row visible with it, its inlined deletions (which only accumulate:
// their number names them), for a partial deletion file the number of its
// distinct per-row snapshots at or before the snapshot (its positions only
// accumulate too), and the snapshot itself only where the file's rows
// depend on it otherwise (a partial data file, a Puffin deletion vector).
// Two snapshots where a file has the same state give it the same plan and
// description, so each is built once per state and reused while the walk
// moves on (stateWindow). A file's check on disk (onDisk) is not part of
// its description: a reader serves several proofs (Source), each checking
// every file it walks.

// fileState is a data file's state at a snapshot (see above).
type fileState struct {
	files     *tableFiles // the table's file rows (Files)
	data, del int32       // the file's row in files.data; 1 + its delete file's row in files.dels (0: none)
	inlined   int         // its inlined deletions visible at the snapshot
	cut       int         // a partial deletion file's snapshots at or before the snapshot
	snap      int64       // the snapshot, for files read by it; else math.MinInt64
}

// fileStateOf returns the state of a file Files listed at snap; ok is false
// for a file that did not come from Files, or whose state cannot be told
// without an error (its plan is then built, and the error reported, as
// without the memo).
func (r *Reader) fileStateOf(ctx context.Context, t Table, f DataFile, snap int64) (_ fileState, ok bool) {
	if f.src == nil || r.noStateMemo {
		return fileState{}, false
	}
	s := fileState{files: f.src, data: f.row, del: f.delRow, snap: math.MinInt64}
	if f.PartialMax != nil || f.PartialInfo != nil {
		s.snap = snap // its visible rows (hiddenPositions) and its plan (planKeyOf)
	}
	if d := f.Delete; d != nil {
		switch {
		case d.Format != "parquet":
			s.snap = snap // a Puffin vector is read at the snapshot (puffinDeletes)
		case !r.existing[d.Path]:
			return fileState{}, false // not looked up yet: deleteFilePositions does, and names it
		default:
			// A partial deletion file's positions deleted by the snapshot
			// (parquetDeletes): as the snapshot grows they only gain
			// positions, so the number of its distinct snapshots at or
			// before it names them.
			at, ok := r.deleteSnaps(ctx, d)
			if !ok {
				return fileState{}, false
			}
			s.cut = sort.Search(len(at), func(i int) bool { return at[i] > snap })
		}
	}
	if s.inlined, ok = r.inlinedCut(ctx, t, f.ID, snap); !ok {
		return fileState{}, false
	}
	return s, true
}

// inlinedCut is how many of data file id's inlined deletions (table t's
// ducklake_inlined_delete table; 0 without one) begin at or before snap,
// false when they cannot be read.
func (r *Reader) inlinedCut(ctx context.Context, t Table, id, snap int64) (int, bool) {
	inl, has := r.inlinedDeleteTable(t)
	if !has {
		return 0, true
	}
	begins, err := r.inlinedDeleteBegins(ctx, inl)
	if err != nil {
		return 0, false
	}
	b := begins[id]
	return sort.Search(len(b), func(i int) bool { return b[i] > snap }), true
}

// deleteSnaps returns the sorted distinct snapshots of a Parquet delete
// file's rows that its format's reader reads as a partial deletion file
// (none for any other; kept per reader and file: a few per file); ok is
// false when the file cannot be read as its reader reads it.
func (r *Reader) deleteSnaps(ctx context.Context, d *DeleteFile) (_ []int64, ok bool) {
	if at, ok := r.deleteSnapsOf[d.Path]; ok {
		return at, true
	}
	raw, partial, err := r.parquetDeleteContent(ctx, d)
	if err != nil {
		return nil, false
	}
	var at []int64
	if partial {
		at = raw.at // computed once per file read (rawDeletes.withAt), shared
	}
	if r.deleteSnapsOf == nil {
		r.deleteSnapsOf = map[string][]int64{}
	}
	r.deleteSnapsOf[d.Path] = at
	return at, true
}

// inlinedDeleteBegins returns, by data file id, the sorted begin snapshots
// of an inlined deletion table's rows (read once per reader and table):
// deletedPositions reads a file's rows with begin_snapshot <= snap, so
// their number at a snapshot names the set.
func (r *Reader) inlinedDeleteBegins(ctx context.Context, table string) (map[int64][]int64, error) {
	if b, ok := r.inlinedDelBegins[table]; ok {
		return b, nil
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT file_id, begin_snapshot FROM cat.%s WHERE file_id IS NOT NULL AND begin_snapshot IS NOT NULL`, ident(table)))
	if err != nil {
		return nil, fmt.Errorf("read inlined deletions of %s in %s: %w", table, oneline.Name(r.path), err)
	}
	defer rows.Close()
	out := map[int64][]int64{}
	for rows.Next() {
		var id, begin int64
		if err := rows.Scan(&id, &begin); err != nil {
			return nil, fmt.Errorf("read inlined deletions of %s in %s: %w", table, oneline.Name(r.path), err)
		}
		out[id] = append(out[id], begin)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read inlined deletions of %s in %s: %w", table, oneline.Name(r.path), err)
	}
	for _, b := range out {
		slices.Sort(b)
	}
	if r.inlinedDelBegins == nil {
		r.inlinedDelBegins = map[string]map[int64][]int64{}
	}
	r.inlinedDelBegins[table] = out
	return out, nil
}

// planState keys a file's plan: its state, the table's columns (by epoch)
// and the scan options.
type planState struct {
	fileState
	columns int64
	opts    ScanOptions
}

// fileDescribed is what fileEntries says of a data file in a state: its
// entries' keys and texts ("data file", "deletes of": none when its text
// is "") and its deleted and hidden positions (by key, nil: none).
type fileDescribed struct {
	key, dataKey, data, deletesKey, deletes string
	pos                                     []int64
}

// stateWindow keeps values by file state for the snapshot a walk is at and
// the one it came from: a file unchanged since the last snapshot is found
// there, and what older snapshots built is dropped, so that what is kept is
// bounded by the files of two snapshots, not by the history.
type stateWindow[K comparable, V any] struct {
	snap      int64
	cur, prev map[K]V
}

func (w *stateWindow[K, V]) at(snap int64) {
	switch {
	case w.cur == nil:
		w.cur, w.prev, w.snap = map[K]V{}, map[K]V{}, snap
	case snap != w.snap:
		// The older map is emptied and reused: a walk turns the window
		// at every snapshot of every table.
		clear(w.prev)
		w.prev, w.cur, w.snap = w.cur, w.prev, snap
	}
}

func (w *stateWindow[K, V]) get(snap int64, k K) (V, bool) {
	w.at(snap)
	if v, ok := w.cur[k]; ok {
		return v, true
	}
	if v, ok := w.prev[k]; ok {
		w.cur[k] = v
		return v, true
	}
	var zero V
	return zero, false
}

func (w *stateWindow[K, V]) put(snap int64, k K, v V) {
	w.at(snap)
	w.cur[k] = v
}
