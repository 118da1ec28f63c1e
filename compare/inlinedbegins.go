package compare

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// inlinedBegins describes the begin_snapshot of a table's inlined rows
// visible at snap: their count and a hash of every (row id, begin_snapshot)
// pair, "" without any. The snapshot_id virtual column returns an inlined
// row's begin_snapshot, so two catalogs whose rows are visible at the same
// compared snapshots but begin at other (expired) ones read differently.
// The system columns are found by name as inlinedSQL finds them.
//
// ended describes, in the same query, the inlined rows whose end_snapshot
// lies after endedSince and at or before snap:
// their count and a hash of every (row id, begin_snapshot, end_snapshot).
// DuckLake's change feed (ReadInlinedDataInsertions and
// ReadInlinedDataDeletions, every release line) selects inlined rows by
// begin_snapshot and end_snapshot alone, so a row ending at another expired
// snapshot, or one no snapshot sees, changes it while every plain read stays
// the same (see endedEntries; "" without any). Of those no snapshot sees,
// it describes their values too (unseenInlinedValues).
func (r *Reader) inlinedBegins(ctx context.Context, t Table, snap int64) (visible, ended string, _ error) {
	srcs, err := r.inlinedSources(ctx, t)
	if err != nil {
		return "", "", err
	}
	prev, err := r.endedSince(ctx, t, snap)
	if err != nil {
		return "", "", err
	}
	var parts []string
	for _, src := range srcs {
		if src.unreadable != nil {
			continue // the rows' read reports the table unreadable (inlinedSQL)
		}
		ends := fmt.Sprintf("%s <= %d", src.sys[2], snap)
		if prev != math.MinInt64 {
			ends += fmt.Sprintf(" AND %s > %d", src.sys[2], prev)
		}
		vis := inlinedVisible(src.sys, snap)
		parts = append(parts, fmt.Sprintf("SELECT %s::BIGINT AS rid, %s::BIGINT AS b, %s::BIGINT AS e, %s AS v FROM cat.%s WHERE %s OR (%s)",
			src.sys[0], src.sys[1], src.sys[2], vis, ident(src.reg.name), vis, ends))
	}
	if len(parts) == 0 {
		return "", "", nil
	}
	var n, nEnded, nUnseen int64
	var sum, sumEnded string
	// Of the ended rows, those begun after prev no snapshot saw (none lies
	// in [begin, end)), nor, with prev none, any with the table.
	unseen := "NOT v"
	if prev != math.MinInt64 {
		unseen += fmt.Sprintf(" AND b > %d", prev)
	}
	q := `SELECT count(*) FILTER (WHERE v), COALESCE(sum(hash(rid, b)) FILTER (WHERE v)::VARCHAR, '0'),
		count(*) FILTER (WHERE NOT v), COALESCE(sum(hash(rid, b, e)) FILTER (WHERE NOT v)::VARCHAR, '0'),
		count(*) FILTER (WHERE ` + unseen + `)
		FROM (` + strings.Join(parts, " UNION ALL ") + ")"
	if err := r.conn.QueryRowContext(ctx, q).Scan(&n, &sum, &nEnded, &sumEnded, &nUnseen); err != nil {
		return "", "", fmt.Errorf("read the inlined rows' snapshots of %s at snapshot %d in %s: %w", t.Shown(), snap, oneline.Name(r.path), err)
	}
	if n > 0 {
		visible = fmt.Sprintf("rows=%d begin_snapshots=%s", n, sum)
	}
	if nEnded > 0 {
		ended = fmt.Sprintf("rows=%d snapshots=%s", nEnded, sumEnded)
	}
	if nUnseen > 0 {
		values, err := r.unseenInlinedValues(ctx, t, srcs, snap, prev)
		if err != nil {
			return "", "", err
		}
		ended += " unseen_values=" + values
	}
	return visible, ended, nil
}

// unseenInlinedValues describes the values of table t's inlined rows that
// end after prev and at or before snap and that no snapshot sees (begun
// after prev; every such row with prev none): the change feed returns them
// (ducklake_table_insertions over a range holding their begin_snapshot,
// ducklake_table_deletions over one holding their end_snapshot, whether or
// not a snapshot sees them; ReadInlinedDataInsertions and
// ReadInlinedDataDeletions, every release line), where no read of a
// snapshot does. They are read as a read at snap reads its visible inlined
// rows (the table's columns at snap, each inlined table with the schema
// its reader reads it with, inlinedSQL), with their row ids: a digest, and
// "misread" where an inlined table holding such rows lacks a column of
// that schema or holds it with another type (the reader fails or misreads
// it).
func (r *Reader) unseenInlinedValues(ctx context.Context, t Table, srcs []inlinedSource, snap, prev int64) (string, error) {
	cols, names, types, err := r.rowColumns(ctx, t, snap, ScanOptions{RowIDs: true})
	if err != nil {
		return "", err
	}
	var total Digest
	misread := false
	for _, src := range srcs {
		if src.unreadable != nil {
			continue
		}
		g, sys := src.reg, src.sys
		where := fmt.Sprintf("%s <= %d", sys[2], snap)
		if prev != math.MinInt64 {
			where += fmt.Sprintf(" AND %s > %d AND %s > %d", sys[2], prev, sys[1], prev)
		}
		var n int64
		if err := r.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM cat.%s WHERE %s", ident(g.name), where)).Scan(&n); err != nil {
			return "", fmt.Errorf("count the unseen rows of %s of %s at snapshot %d in %s: %w", g.name, t.Shown(), snap, oneline.Name(r.path), err)
		}
		if n == 0 {
			continue
		}
		asOf, err := r.inlinedSchemaSnapshot(ctx, t, g.sv, snap)
		if err != nil {
			return "", err
		}
		then, c, exists, err := r.inlinedSchemaAt(ctx, t, g, asOf)
		if err != nil {
			return "", err
		}
		if !exists || c.missing != "" || c.retyped != "" {
			misread = true
			continue
		}
		sel, err := inlinedSelect(g.name, src.phys, then, cols)
		if err != nil {
			return "", err
		}
		q := fmt.Sprintf("SELECT %s, %s AS %s FROM cat.%s WHERE %s", strings.Join(sel, ", "), sys[0], RowIDColumn, ident(g.name), where)
		d, err := digestTyped(ctx, r.conn, q, names, types)
		if err != nil {
			return "", fmt.Errorf("read the unseen rows of %s of %s at snapshot %d in %s: %w", g.name, t.Shown(), snap, oneline.Name(r.path), err)
		}
		total = total.Add(d)
	}
	out := total.String()
	if misread {
		out += " misread"
	}
	return out, nil
}
