package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// unfoldedStringBounds applies formats.StringBoundsUnfolded to the
// comparison of ducklake_table_column_stats (na its name in A): where some
// reader of B folds min/max of a top-level VARCHAR column from both of its
// table statistics bounds (DuckDB 2.0 reading 1.0 and 1.1) and no reader
// of A does (0.1-0.4), B's row with both bounds NULL stands for A's row
// that such a reader would fold (formats.FoldedStringBoundsSQL), the rest
// of the row equal: convert writes that, since a bound DuckDB's Parquet
// writer cut is a value the table may not hold, and without bounds B's
// readers scan, as A's do. The same holds where some reader of A scans
// and some folds and every reader of B folds (formats.StringBoundsCutUnfolded:
// 1.0 to 1.1), where convert writes NULL only the bounds that are not the
// rows' min and max: B's DuckDB 2.0 then scans, as A's DuckDB 1.5 does.
// The proof accepts B's NULL bounds there whatever the rows hold, without
// reading them: where A's bounds are the rows' min and max, B's scan
// answers what both of A's readers answer, so no answer of B is one A's
// readers never give (the minmax check holds B's answers to A's either
// way); only B's pruning by them is lost. Any other change of such a row
// (one bound NULL, a bound changed, another column changed: compared
// column by column, boundsNulled), a key with two rows on either side, a
// NULL row where B has a scanning reader and A's readers fold too (1.0 to
// 1.0), or of another column type, stays a `stats` difference. cols are
// the columns the entries hold, in order.
func (c *comparison) unfoldedStringBounds(label, na string, cols []string, ea, eb entries) error {
	if label != "ducklake_table_column_stats" || c.a.empty(na) ||
		!formats.StringBoundsUnfolded(c.a.format, c.b.format) && !formats.StringBoundsCutUnfolded(c.a.format, c.b.format) {
		return nil
	}
	// Only a row B holds otherwise than A can be one with both bounds
	// NULL: where there is none (a conversion that kept every bound, as
	// 1.0 -> 1.1 of bounds its rows hold), A's rows are not read.
	differs := false
	for k, ta := range ea {
		if tb, ok := eb[k]; ok && tb != ta {
			differs = true
			break
		}
	}
	if !differs {
		return nil
	}
	rows, err := c.a.conn.QueryContext(c.ctx, `SELECT s.table_id, s.column_id, CAST(s.min_value AS VARCHAR), CAST(s.max_value AS VARCHAR)
FROM cat.`+ident(na)+` s WHERE `+formats.FoldedStringBoundsSQL("cat."))
	if err != nil {
		return markA(fmt.Errorf("read VARCHAR table column statistics in %s of %s: %w", na, oneline.Name(c.a.path), err))
	}
	defer rows.Close()
	for rows.Next() {
		var table, column int64
		var lo, hi string
		if err := rows.Scan(&table, &column, &lo, &hi); err != nil {
			return markA(fmt.Errorf("read VARCHAR table column statistics in %s of %s: %w", na, oneline.Name(c.a.path), err))
		}
		id := func(n int64) sql.NullString { return sql.NullString{String: strconv.FormatInt(n, 10), Valid: true} }
		k := statsEntryKey(label, []string{"table_id", "column_id"}, []sql.NullString{id(table), id(column)})
		ta, okA := ea[k]
		tb, okB := eb[k]
		if !okA || !okB {
			continue
		}
		if boundsNulled(ta, tb, cols, &lo, &hi) {
			ea[k] = tb
		}
	}
	if err := rows.Err(); err != nil {
		return markA(fmt.Errorf("read VARCHAR table column statistics in %s of %s: %w", na, oneline.Name(c.a.path), err))
	}
	return nil
}

// CutStringBounds names the top-level VARCHAR columns ("table.column
// (table id, column id): statistics ..., rows ...") at the catalog's latest
// snapshot whose exact table statistics the readers of
// formats.TableStatsReading.FoldStringMinMax (DuckDB 2.0 reading 1.0 and
// 1.1) answer SELECT min(c), max(c) from, where those bounds are not the
// min and max the rows hold (DuckDB's Parquet writer cuts a string past
// 256 bytes, the max with its last byte incremented); nil for a format no
// reader of which folds them. The rows are scanned as a proof scans them.
// A table with an inlined data table is left out (its count(*) answer,
// which decides whether the statistics are exact, is not read here). check
// warns of them in a frozen catalog, which this tool did not write.
func (r *Reader) CutStringBounds(ctx context.Context) ([]string, error) {
	if r.format == nil || r.format.ReadsTableStats().FoldStringMinMax == "" {
		return nil, nil
	}
	snaps, err := r.Snapshots(ctx)
	if err != nil || len(snaps) == 0 {
		return nil, err
	}
	s := snaps[len(snaps)-1].ID
	tables, err := r.Tables(ctx, s)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range tables {
		if inl, err := r.inlinedTables(ctx, t.ID); err != nil {
			return nil, err
		} else if len(inl) > 0 {
			continue
		}
		net, _, err := r.countAnswer(ctx, t, s, Digest{}, nil)
		if err != nil {
			return nil, err
		}
		folded, strs, err := r.foldedMinMax(ctx, t, s, net)
		if err != nil || len(strs) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		cols, err := r.Columns(ctx, t.ID, s)
		if err != nil {
			return nil, err
		}
		var need []*Column
		for _, col := range cols {
			if strs[col.ID] && len(col.Children) == 0 {
				need = append(need, col)
			}
		}
		if len(need) == 0 {
			continue
		}
		scanned, err := r.scannedMinMax(ctx, t, s, need)
		if err != nil {
			return nil, err
		}
		for _, col := range need {
			if f, sc := folded[col.ID], scanned[col.ID]; f != sc {
				out = append(out, fmt.Sprintf("%s.%s (table id %d, column id %d): statistics %s, rows %s", t.FullName(), col.Name, t.ID, col.ID, shortMinMax(f), shortMinMax(sc)))
			}
		}
	}
	return out, nil
}

// shortMinMax is m's text with each value cut to its first 40 bytes and
// its length where longer.
func shortMinMax(m minMax) string {
	if m.err != "" {
		return m.String()
	}
	cut := func(v string) string {
		if len(v) <= 40 {
			return strconv.Quote(v)
		}
		return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(v[:40]), len(v))
	}
	return "min " + cut(m.min) + ", max " + cut(m.max)
}
