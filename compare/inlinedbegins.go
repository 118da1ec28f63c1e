package compare

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
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
//
// The counts and sums are read for a batch of the catalog's snapshots at
// once (inlinedBegunAt): a long history costs a query per table per batch,
// not per snapshot.
func (r *Reader) inlinedBegins(ctx context.Context, t Table, snap int64) (visible, ended string, _ error) {
	srcs, err := r.inlinedSources(ctx, t)
	if err != nil {
		return "", "", err
	}
	prev, err := r.endedSince(ctx, t, snap)
	if err != nil {
		return "", "", err
	}
	if !slices.ContainsFunc(srcs, func(src inlinedSource) bool { return src.unreadable == nil }) {
		return "", "", nil
	}
	got, err := r.inlinedBegunAt(ctx, t, srcs, snap, prev)
	if err != nil {
		return "", "", err
	}
	if got.n > 0 {
		visible = fmt.Sprintf("rows=%d begin_snapshots=%s", got.n, got.sum)
	}
	if got.nEnded > 0 {
		ended = fmt.Sprintf("rows=%d snapshots=%s", got.nEnded, got.sumEnded)
	}
	if got.nUnseen > 0 {
		values, err := r.unseenInlinedValues(ctx, t, srcs, snap, prev)
		if err != nil {
			return "", "", err
		}
		ended += " unseen_values=" + values
	}
	return visible, ended, nil
}

// inlinedBegun is what inlinedBegins counts at a snapshot: the visible
// inlined rows and a hash of their (row id, begin_snapshot); the ended
// ones and a hash of their (row id, begin_snapshot, end_snapshot); and
// of those, the ones no snapshot saw.
type inlinedBegun struct {
	n, nEnded, nUnseen int64
	sum, sumEnded      string
}

// inlinedBegunBatch is how many of the catalog's snapshots inlinedBegunAt
// reads at once (its answers are kept per table until the next batch).
const inlinedBegunBatch = 512

// inlinedBegunAt reads inlinedBegun of table t (srcs: its inlined
// sources, some readable) at snap, whose ended rows are those ending
// after prev (endedSince). It reads it at once at snap and at the
// catalog's next snapshots (r.inl.batch in all), each with its own
// endedSince, in one query joining the inlined rows with the snapshots,
// and keeps those answers until a snapshot outside them is asked.
func (r *Reader) inlinedBegunAt(ctx context.Context, t Table, srcs []inlinedSource, snap, prev int64) (inlinedBegun, error) {
	key := [2]int64{t.ID, t.BeginSnapshot}
	if got, ok := r.inl.begun[key][snap]; ok {
		return got, nil
	}
	// endedSince has read the catalog's snapshots.
	var all []Snapshot
	if r.meta.snapshots != nil {
		all = *r.meta.snapshots
	}
	batch := []snapAfter{{snap, prev}}
	if i, ok := slices.BinarySearchFunc(all, snap, func(s Snapshot, id int64) int { return cmp.Compare(s.ID, id) }); ok && !r.inl.begunAlone[key] {
		for j := i + 1; j < len(all) && len(batch) < r.inl.batch; j++ {
			p := all[j-1].ID
			if t.BeginSnapshot > p {
				p = math.MinInt64 // as endedSince
			}
			batch = append(batch, snapAfter{all[j].ID, p})
		}
	}
	got, err := r.readInlinedBegun(ctx, srcs, batch)
	if err != nil && len(batch) > 1 && ctx.Err() == nil {
		// A row another snapshot of the batch reads may fail (a system
		// column that does not cast): snap alone fails as it would have,
		// and the table row's later snapshots are read one at a time, not
		// after a batch failing again at each.
		r.inl.begunAlone[key] = true
		got, err = r.readInlinedBegun(ctx, srcs, batch[:1])
	}
	if err != nil {
		return inlinedBegun{}, fmt.Errorf("read the inlined rows' snapshots of %s at snapshot %d in %s: %w", t.Shown(), snap, oneline.Name(r.path), err)
	}
	r.inl.begun[key] = got
	return got[snap], nil
}

// snapAfter is a snapshot and the end_snapshot after which the rows
// ending are described there (endedSince; math.MinInt64: none).
type snapAfter struct{ snap, prev int64 }

// readInlinedBegun reads inlinedBegun at each snapshot of batch (srcs: the
// table's inlined sources, some readable) in one query.
func (r *Reader) readInlinedBegun(ctx context.Context, srcs []inlinedSource, batch []snapAfter) (map[int64]inlinedBegun, error) {
	values := make([]string, len(batch))
	for i, b := range batch {
		p := "NULL"
		if b.prev != math.MinInt64 {
			p = fmt.Sprint(b.prev)
		}
		values[i] = fmt.Sprintf("(%d, %s)", b.snap, p)
	}
	// The conditions are inlinedVisible's and the ended rows' with the
	// snapshot and the one before taken from the joined list (NULL: none),
	// alike in SQL's three values.
	var parts []string
	for _, src := range srcs {
		if src.unreadable != nil {
			continue // the rows' read reports the table unreadable (inlinedSQL)
		}
		sys := src.sys
		vis := fmt.Sprintf("s.snap >= %s AND (s.snap < %s OR %s IS NULL)", sys[1], sys[2], sys[2])
		ends := fmt.Sprintf("%s <= s.snap AND (s.prev IS NULL OR %s > s.prev)", sys[2], sys[2])
		parts = append(parts, fmt.Sprintf("SELECT s.snap, s.prev, %s::BIGINT AS rid, %s::BIGINT AS b, %s::BIGINT AS e, %s AS v FROM cat.%s, s WHERE %s OR (%s)",
			sys[0], sys[1], sys[2], vis, ident(src.reg.name), vis, ends))
	}
	// Of the ended rows, those begun after prev no snapshot saw (none lies
	// in [begin, end)), nor, with prev none, any with the table.
	q := `WITH s AS (SELECT snap::BIGINT AS snap, prev::BIGINT AS prev FROM (VALUES ` + strings.Join(values, ", ") + `) AS x(snap, prev))
		SELECT snap, count(*) FILTER (WHERE v), COALESCE(sum(hash(rid, b)) FILTER (WHERE v)::VARCHAR, '0'),
		count(*) FILTER (WHERE NOT v), COALESCE(sum(hash(rid, b, e)) FILTER (WHERE NOT v)::VARCHAR, '0'),
		count(*) FILTER (WHERE NOT v AND (prev IS NULL OR b > prev))
		FROM (` + strings.Join(parts, " UNION ALL ") + ") GROUP BY snap"
	got := make(map[int64]inlinedBegun, len(batch))
	for _, b := range batch {
		got[b.snap] = inlinedBegun{sum: "0", sumEnded: "0"}
	}
	err := r.eachRow(ctx, q, func(rows *sql.Rows) error {
		var s int64
		var a inlinedBegun
		if err := rows.Scan(&s, &a.n, &a.sum, &a.nEnded, &a.sumEnded, &a.nUnseen); err != nil {
			return err
		}
		got[s] = a
		return nil
	})
	return got, err
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
