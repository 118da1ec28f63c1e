package compare

import (
	"context"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// inlinedBegins describes the begin_snapshot of a table's inlined rows
// visible at snap: their count and a hash of every (row id, begin_snapshot)
// pair, "" without any. The snapshot_id virtual column returns an inlined
// row's begin_snapshot, so two catalogs whose rows are visible at the same
// compared snapshots but begin at other (expired) ones read differently.
// The system columns are found by name as inlinedSQL finds them.
func (r *Reader) inlinedBegins(ctx context.Context, t Table, snap int64) (string, error) {
	srcs, err := r.inlinedSources(ctx, t)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, src := range srcs {
		if src.unreadable != nil {
			continue // the rows' read reports the table unreadable (inlinedSQL)
		}
		parts = append(parts, fmt.Sprintf("SELECT %s::BIGINT AS rid, %s::BIGINT AS b FROM cat.%s WHERE %s",
			src.sys[0], src.sys[1], ident(src.reg.name), inlinedVisible(src.sys, snap)))
	}
	if len(parts) == 0 {
		return "", nil
	}
	var n int64
	var sum string
	q := "SELECT count(*), COALESCE(sum(hash(rid, b))::VARCHAR, '0') FROM (" + strings.Join(parts, " UNION ALL ") + ")"
	if err := r.conn.QueryRowContext(ctx, q).Scan(&n, &sum); err != nil {
		return "", fmt.Errorf("read the inlined rows' snapshots of %s at snapshot %d in %s: %w", t.Shown(), snap, oneline.Name(r.path), err)
	}
	if n == 0 {
		return "", nil
	}
	return fmt.Sprintf("rows=%d begin_snapshots=%s", n, sum), nil
}
