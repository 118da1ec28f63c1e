package compare

import (
	"context"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// This file reads many Parquet delete files in a few queries. A comparison
// reads every delete file of every snapshot; one read_parquet over N files
// costs a fraction of N queries (docs/compare.md, "Proof benchmarks").

// maxDeleteBatch caps the positions (as the catalogs record them) one
// prefetchDeletes reads ahead, well under maxRawDeletes.
const maxDeleteBatch = maxRawDeletes / 4

// prefetchDeletes reads the Parquet delete files of path's table whose
// lifetime overlaps path's, that are not encrypted and not read yet
// (path's own is not encrypted either: parquetDeleteContent),
// grouped by their columns (names and types): one parquet_schema query,
// then one read_parquet per group. It never fails: a file the batch cannot
// read is read alone when asked for (readParquetDeletes), which reports its
// error as before. before is path's identity (from deleteFiles.get).
func (r *Reader) prefetchDeletes(ctx context.Context, path string, before deleteStamp) {
	all, ok := r.meta.tableOf[path]
	if !ok {
		return
	}
	self, ok := rowAt(all.dels, path, func(f DeleteFile) string { return f.Path })
	if !ok {
		return
	}
	batch := []string{path}
	stamps := map[string]deleteStamp{path: before}
	total := self.file.DeleteCount
	for _, row := range all.dels {
		d := row.file
		if d.Path == path || d.Format != "parquet" || (d.encryptionKey != nil && *d.encryptionKey != "") || r.deleteTried[d.Path] || !lifetimesOverlap(self.file.BeginSnapshot, self.end, d.BeginSnapshot, row.end) || !r.ready(d.Path) {
			continue
		}
		if total+d.DeleteCount > maxDeleteBatch || len(batch) == maxSchemaBatch {
			break
		}
		_, stamp, ok := r.rawDeletes.get(d.Path, "")
		if ok {
			continue
		}
		batch, total = append(batch, d.Path), total+d.DeleteCount
		stamps[d.Path] = stamp
	}
	if len(batch) < 2 {
		return
	}
	for _, p := range batch {
		r.deleteTried[p] = true
	}
	got, err := r.readDeleteBatch(ctx, batch)
	if err != nil {
		return
	}
	for p, raw := range got {
		r.rawDeletes.put(p, "", stamps[p], raw)
	}
}

// rowAt returns the row of the file at path among a table's file rows.
func rowAt[F any](rows []fileRow[F], path string, pathOf func(F) string) (fileRow[F], bool) {
	for _, row := range rows {
		if pathOf(row.file) == path {
			return row, true
		}
	}
	return fileRow[F]{}, false
}

// lifetimesOverlap reports whether two rows' [begin, end) snapshot ranges
// share a snapshot (end nil: still visible).
func lifetimesOverlap(aBegin int64, aEnd *int64, bBegin int64, bEnd *int64) bool {
	return (aEnd == nil || bBegin < *aEnd) && (bEnd == nil || aBegin < *bEnd)
}

// readDeleteBatch reads several delete files as readParquetDeletes reads
// each: the second column holds the positions, a third one named
// _ducklake_internal_snapshot_id the snapshot that deleted each. Files are
// grouped by their top-level columns and each group read in one query. A
// file left out of the result (fewer than two columns, no rows, a NULL, a
// column named like read_parquet's filename column, positions that are not
// BIGINT) is read alone when asked for.
func (r *Reader) readDeleteBatch(ctx context.Context, paths []string) (map[string]rawDeletes, error) {
	trees, err := r.readParquetSchemas(ctx, paths)
	if err != nil {
		return nil, err
	}
	type group struct {
		cols  []string // position column, and the snapshot column of a partial file
		n     int      // the files' number of columns
		paths []string
	}
	groups := map[string]*group{}
	var order []string
	for _, p := range paths {
		root, ok := trees[p]
		// What every real reader refuses (deleteFileSchema) is read alone,
		// which reports it.
		if !ok || len(root.Children) < 2 || len(root.Children) > 3 || root.Children[0].DuckType != "VARCHAR" || root.Children[1].DuckType != "BIGINT" {
			continue
		}
		sig := make([]string, len(root.Children))
		clash := false
		for i, c := range root.Children {
			sig[i] = ident(c.Name) + " " + c.DuckType + " " + c.Kind
			clash = clash || strings.EqualFold(c.Name, "filename") || strings.EqualFold(c.Name, "file_row_number")
		}
		if clash {
			continue
		}
		cols := []string{root.Children[1].Name}
		names, types := make([]string, len(root.Children)), make([]string, len(root.Children))
		for i, c := range root.Children {
			names[i], types[i] = c.Name, c.DuckType
		}
		if formats.IsPartialDeleteFile(names, types) {
			cols = append(cols, root.Children[2].Name)
		}
		k := strings.Join(sig, ", ")
		g, ok := groups[k]
		if !ok {
			g = &group{cols: cols, n: len(root.Children)}
			groups[k], order = g, append(order, k)
		}
		g.paths = append(g.paths, p)
	}
	out := map[string]rawDeletes{}
	for _, k := range order {
		g := groups[k]
		if err := r.readDeleteGroup(ctx, g.paths, g.cols, g.n, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readDeleteGroup reads delete files with the same columns in one query
// into out: one row per file, its positions (and their snapshots) as lists
// built by one aggregate, so that they pair up in the same order (lists
// cost DuckDB and the driver about half of one row per position).
func (r *Reader) readDeleteGroup(ctx context.Context, paths, cols []string, ncols int, out map[string]rawDeletes) error {
	if err := r.readable(ctx, paths...); err != nil {
		return err
	}
	list := make([]string, len(paths))
	want := make(map[string]bool, len(paths))
	for i, p := range paths {
		list[i], want[p] = parquetsql.Path(p), true
	}
	partial := len(cols) == 2
	// In file order (the virtual file_row_number; no file of a group has
	// a column of that name): the order the real reader checks.
	sel := "list(" + ident(cols[0]) + " ORDER BY file_row_number)"
	if partial {
		sel += ", list(" + ident(cols[1]) + " ORDER BY file_row_number)"
	} else {
		sel += ", NULL"
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf("SELECT filename, %s FROM read_parquet([%s], filename = true, hive_partitioning = false) GROUP BY filename", sel, strings.Join(list, ", ")))
	if err != nil {
		return fmt.Errorf("read delete files: %w", err)
	}
	defer rows.Close()
	got := map[string]rawDeletes{}
	for rows.Next() {
		var file string
		var ps, ss any
		if err := rows.Scan(&file, &ps, &ss); err != nil {
			return fmt.Errorf("read delete files: %w", err)
		}
		if !want[file] {
			return fmt.Errorf("read delete files: unexpected file %s", oneline.Name(file))
		}
		pos, okP := int64s(ps)
		raw := rawDeletes{pos: pos, cols: ncols}
		okS := true
		if partial {
			raw.snaps, okS = int64s(ss)
		}
		if !okP || !okS || (partial && len(raw.snaps) != len(raw.pos)) || !increasing(raw.pos) || (len(raw.pos) > 0 && raw.pos[0] < 0) {
			continue // a NULL, unsorted positions: readParquetDeletes reports them
		}
		got[file] = raw.withAt()
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read delete files: %w", err)
	}
	for _, path := range paths {
		raw, ok := got[path]
		if !ok {
			continue // no rows, or a NULL: read alone
		}
		out[path] = raw
	}
	return nil
}

// int64s converts a scanned BIGINT list; ok=false when it is not one or
// holds a NULL.
func int64s(v any) ([]int64, bool) {
	l, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]int64, len(l))
	for i, x := range l {
		n, ok := x.(int64)
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
