package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// Files that share a read plan's shape are read in one read_parquet call
// over the list of their paths, told apart by its file_index column: one
// scan of many files costs about one plain scan of their rows, where a
// query per file costs two to three times that (docs/compare.md).
const (
	// filesPlaceholder stands for read_parquet's list of paths in a shape.
	filesPlaceholder = "\x00fdl files\x00"
	// startPlaceholder stands for a file's row_id_start in a shape.
	startPlaceholder = "\x00fdl row-id start\x00"
	// indexPlaceholder stands for a row's file index in a shape:
	// read_parquet's file_index column when files are read together, 0
	// for a file read alone (a data column named file_index hides the
	// virtual one, so such files are read alone).
	indexPlaceholder = "\x00fdl file index\x00"
	// fileColumn is the name of a shape's file-index column.
	fileColumn = "__fdl_file"
	// maxGroupFiles caps the files of one query (the SQL lists them all).
	maxGroupFiles = 512
	// positionBits: a kept row is named (file index << positionBits) |
	// position in a group's set of kept rows (no data file has 2^40 rows).
	positionBits = 40
)

// wholeScan reads every row of one data file under its read plan, deletes
// ignored, and keeps the row digests at some positions apart (rows deleted
// at a compared snapshot, or hinted), so that every delete state of the
// file is its all-rows digest minus a sum of kept rows.
type wholeScan struct {
	key   string // the all-rows plan key (planKey)
	group string // scans with the same group are read in one query
	shape string // the row-hash query of the plan's shape (ScanOptions.shape)
	path  string
	start *int64  // the file's row_id_start
	keep  []int64 // sorted positions whose row digests are kept
}

// wholeQueue collects whole scans, one per all-rows plan key, with the
// positions each file's rows are deleted at in the snapshots queued.
type wholeQueue struct {
	scans   []wholeScan
	deleted [][]int64 // per scan: positions deleted at any queued snapshot
	index   map[string]int
}

func newWholeQueue() *wholeQueue { return &wholeQueue{index: map[string]int{}} }

// queueWhole queues the whole scan of data file f at snap under its
// all-rows plan key (once per key), to keep the rows deleted there.
func (r *Reader) queueWhole(ctx context.Context, q *wholeQueue, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names, types []string, key string, deleted []int64) error {
	if i, ok := q.index[key]; ok {
		q.deleted[i] = mergeSorted(q.deleted[i], deleted)
		return nil
	}
	w, err := r.planWhole(ctx, t, f, cols, snap, opts, names, types, key)
	if err != nil {
		return err
	}
	q.index[key], q.scans, q.deleted = len(q.scans), append(q.scans, w), append(q.deleted, deleted)
	return nil
}

// planWhole builds the whole scan of a data file at a snapshot. Files are
// grouped only when their shapes and Parquet schemas are identical, so that
// read_parquet reads each of them as it reads the file alone.
func (r *Reader) planWhole(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names, types []string, key string) (wholeScan, error) {
	opts.deletes, opts.positions, opts.shape = deletesIgnored, true, true
	q, err := r.fileSQL(ctx, t, f, cols, snap, opts)
	if err != nil {
		return wholeScan{}, err
	}
	shape, err := hashSQL(q, names, types, positionColumn, fileColumn)
	if err != nil {
		return wholeScan{}, err
	}
	shape = r.intern(shape)
	w := wholeScan{key: key, shape: shape, path: f.Path, start: f.RowIDStart}
	var root *pnode
	if f.encryptionKey == nil {
		if root, err = r.parquetSchema(ctx, f.Path); err != nil {
			return wholeScan{}, err
		}
	}
	if readAlone(f, root) {
		w.group = "alone\x00" + f.Path + "\x00" + shape
	} else {
		w.group = r.intern(root.signature() + "\x00" + shape)
	}
	return w, nil
}

// maxInterned bounds the texts intern keeps (a repository whose files
// each have a shape of their own keeps at most these, and copies again).
const maxInterned = 256

// intern returns the reader's one copy of a scan's shape or group text:
// the scans of a comparison's prefetch (every data file of its history)
// share a few shapes, and a copy of each per file kept the queue's text
// growing with the history (docs/compare.md, "Figure 3, one cell").
func (r *Reader) intern(s string) string {
	if k, ok := r.interned[s]; ok {
		return k
	}
	if r.interned == nil || len(r.interned) >= maxInterned {
		r.interned = map[string]string{}
	}
	r.interned[s] = s
	return s
}

// readAlone reports whether a data file must be read alone, not in a list:
// an encrypted file (its schema cannot be read, root is nil), a path
// read_parquet would expand as a glob, and a file with a column named
// file_index (DuckDB then returns that column, not the file's index).
func readAlone(f DataFile, root *pnode) bool {
	if root == nil || strings.ContainsAny(f.Path, "*?[{") {
		return true
	}
	for _, c := range root.Children {
		if strings.EqualFold(c.Name, "file_index") {
			return true
		}
	}
	return false
}

// signature describes a Parquet schema's columns (names, field ids, kinds,
// types, annotations, nesting). Files are grouped only when their
// signatures are equal; what it leaves out (key-value metadata such as
// GeoParquet's) can only make a group's query fail, and its files are then
// read alone (runGroup).
func (n *pnode) signature() string {
	var b strings.Builder
	var walk func(n *pnode)
	walk = func(n *pnode) {
		fmt.Fprintf(&b, "(%q %s %q %q %t", n.Name, optInt(n.FieldID), n.Kind, n.DuckType+" "+n.annot, n.repeated)
		for _, c := range n.Children {
			walk(c)
		}
		b.WriteByte(')')
	}
	walk(n)
	return b.String()
}

// runWholes reads whole scans, the files of a group in one query (at most
// maxGroupFiles; a path listed twice is read twice, each under its own
// file_index; files that keep rows and files that keep none are never read
// in one query), and records each file's all-rows digest and kept row
// digests in the memo.
func (r *Reader) runWholes(ctx context.Context, scans []wholeScan) error {
	var order []string
	byGroup := map[string][]int{}
	for i, w := range scans {
		// Files that keep no row are read apart from those that do: the
		// kept-row test (a join with the kept positions) costs about a
		// quarter of a scan's CPU, on every row of every file of the
		// query (docs/compare.md).
		g := w.group
		if len(w.keep) > 0 {
			g += "\x00keeps rows"
		}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], i)
	}
	for _, g := range order {
		for idx := range slices.Chunk(byGroup[g], maxGroupFiles) {
			if err := r.runGroup(ctx, scans, idx); err != nil {
				return err
			}
		}
	}
	return nil
}

// runGroup reads the files of one group (scans[idx...], one shape) in one
// read_parquet call (orEachAlone).
func (r *Reader) runGroup(ctx context.Context, scans []wholeScan, idx []int) error {
	return orEachAlone(ctx, idx, func(idx []int) error { return r.readGroup(ctx, scans, idx) })
}

// orEachAlone reads the files idx in one query; when that fails, it reads
// each file alone, so that the error names the file.
func orEachAlone(ctx context.Context, idx []int, read func([]int) error) error {
	err := read(idx)
	if err == nil || len(idx) < 2 || ctx.Err() != nil {
		return err
	}
	for _, i := range idx {
		if err := read([]int{i}); err != nil {
			return err
		}
	}
	return nil
}

// readGroup runs one group query; it records nothing unless all succeeds.
func (r *Reader) readGroup(ctx context.Context, scans []wholeScan, idx []int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	paths, starts := make([]string, len(idx)), make([]*int64, len(idx))
	var keptKeys []int64
	for k, i := range idx {
		w := scans[i]
		paths[k], starts[k] = w.path, w.start
		for _, p := range w.keep {
			// A position no row has (a bad delete file) matches no row:
			// keepRows records it as an empty digest.
			if p >= 0 && p < 1<<positionBits {
				keptKeys = append(keptKeys, int64(k)<<positionBits|p)
			}
		}
	}
	if err := r.readable(ctx, paths...); err != nil {
		return err
	}
	q := fillShape(scans[idx[0]].shape, paths, starts)
	// One grouping key per row: -1 - file index for the rows not kept, and
	// (file index << positionBits) | position for a kept row. A single
	// BIGINT key groups about 10% cheaper than (file, position) pairs, and
	// | has no overflow check to pay on every row.
	g := "-1 - " + fileColumn + "::BIGINT"
	if len(keptKeys) > 0 {
		set, err := r.positionSet(ctx, keptKeys)
		if err != nil {
			return fmt.Errorf("read %s: %w", describePaths(scans, idx), err)
		}
		key := fmt.Sprintf("(%s::BIGINT << %d) | %s", fileColumn, positionBits, positionColumn)
		g = fmt.Sprintf("CASE WHEN %[1]s IN (%[2]s) THEN %[1]s ELSE %[3]s END", key, set, g)
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf("SELECT %s AS g, %s FROM (%s) GROUP BY g", g, digestColumns, q))
	if err != nil {
		return fmt.Errorf("read %s: %w", describePaths(scans, idx), err)
	}
	defer rows.Close()
	// Per file: the digest of every row, and of each kept row by position
	// (a position no row has, negative included, stays out of kept and is
	// recorded by keepRows as deleting nothing).
	all := make([]Digest, len(idx))
	kept := make([]map[int64]Digest, len(idx))
	for k := range kept {
		kept[k] = map[int64]Digest{}
	}
	for rows.Next() {
		var g int64
		var d Digest
		if err := rows.Scan(&g, &d.Rows, &d.Hi, &d.Lo); err != nil {
			return fmt.Errorf("read %s: %w", describePaths(scans, idx), err)
		}
		k := -1 - g
		if g >= 0 {
			k = g >> positionBits
		}
		if k < 0 || k >= int64(len(idx)) {
			return fmt.Errorf("read %s: file index %d of %d", describePaths(scans, idx), k, len(idx))
		}
		all[k] = all[k].Add(d)
		if g >= 0 {
			kept[k][g&(1<<positionBits-1)] = d
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", describePaths(scans, idx), err)
	}
	r.memo.countReads(len(idx), 1)
	for k, i := range idx {
		// Kept rows first: whoever finds the digest finds them too
		// (another comparison's claim reuses a digest with its rows).
		r.memo.keepRows(scans[i].key, scans[i].keep, kept[k])
		r.memo.put(scans[i].key, all[k], r.stillNamed(scans[i].path))
	}
	return nil
}

// fillShape is a shape's query (ScanOptions.shape) over the files at paths,
// with their row-id starts: read_parquet of the list, each row's start
// looked up by its file_index (a file read alone: its own start, index 0).
func fillShape(shape string, paths []string, starts []*int64) string {
	quoted, ss := make([]string, len(paths)), make([]string, len(paths))
	for k, p := range paths {
		quoted[k], ss[k] = parquetsql.Path(p), "NULL"
		if starts[k] != nil {
			ss[k] = fmt.Sprint(*starts[k])
		}
	}
	index, start := "0", ss[0]
	if len(paths) > 1 {
		index = "file_index"
		start = "([" + strings.Join(ss, ", ") + "]::BIGINT[])[file_index::BIGINT + 1]"
	}
	q := strings.ReplaceAll(shape, filesPlaceholder, "["+strings.Join(quoted, ", ")+"]")
	q = strings.ReplaceAll(q, startPlaceholder, start)
	return strings.ReplaceAll(q, indexPlaceholder, index)
}

// describePaths names the files of a group for an error message.
func describePaths(scans []wholeScan, idx []int) string {
	if len(idx) == 1 {
		return "data file " + oneline.Name(scans[idx[0]].path)
	}
	return fmt.Sprintf("%d data files (%s, ...)", len(idx), oneline.Name(scans[idx[0]].path))
}
