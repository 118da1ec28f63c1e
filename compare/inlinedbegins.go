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
// the same (see endedEntries; "" without any).
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
	var n, nEnded int64
	var sum, sumEnded string
	q := `SELECT count(*) FILTER (WHERE v), COALESCE(sum(hash(rid, b)) FILTER (WHERE v)::VARCHAR, '0'),
		count(*) FILTER (WHERE NOT v), COALESCE(sum(hash(rid, b, e)) FILTER (WHERE NOT v)::VARCHAR, '0')
		FROM (` + strings.Join(parts, " UNION ALL ") + ")"
	if err := r.conn.QueryRowContext(ctx, q).Scan(&n, &sum, &nEnded, &sumEnded); err != nil {
		return "", "", fmt.Errorf("read the inlined rows' snapshots of %s at snapshot %d in %s: %w", t.Shown(), snap, oneline.Name(r.path), err)
	}
	if n > 0 {
		visible = fmt.Sprintf("rows=%d begin_snapshots=%s", n, sum)
	}
	if nEnded > 0 {
		ended = fmt.Sprintf("rows=%d snapshots=%s", nEnded, sumEnded)
	}
	return visible, ended, nil
}
