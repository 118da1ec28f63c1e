package compare

import (
	"cmp"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// oneSidedRow is a ducklake_table_column_stats row of a numeric or
// temporal column with only one of min_value and max_value.
type oneSidedRow struct {
	table, column    int64
	minValue, maxVal *string
	// misread: some reader of the catalog's format reads it as bounds,
	// the bound at its type's extreme (formats.OneSidedMisreadSQL: by
	// column type, contains_nan and the bound); other one-sided rows give
	// no statistics.
	misread bool
}

// oneSidedRows reads, by entry key, the rows of stats (this catalog's name
// of ducklake_table_column_stats) whose column is of a type
// formats.OneSidedStatsTypes names and that have one bound only.
func (r *Reader) oneSidedRows(c *comparison, label, stats string) (map[string]oneSidedRow, error) {
	if r.empty(stats) {
		return nil, nil
	}
	rows, err := r.conn.QueryContext(c.ctx, `SELECT s.table_id, s.column_id, CAST(s.min_value AS VARCHAR), CAST(s.max_value AS VARCHAR),
	EXISTS (SELECT 1 FROM cat.ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id AND `+formats.OneSidedMisreadSQL(r.format, "col.column_type", "s.contains_nan", "s.min_value", "s.max_value")+`)
FROM cat.`+ident(stats)+` s
WHERE (s.min_value IS NULL) <> (s.max_value IS NULL) AND EXISTS (SELECT 1 FROM cat.ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id AND `+formats.OneSidedStatsTypeSQL("col.column_type")+`)`)
	if err != nil {
		return nil, fmt.Errorf("read one-sided statistics in %s of %s: %w", stats, oneline.Name(r.path), err)
	}
	defer rows.Close()
	out := map[string]oneSidedRow{}
	for rows.Next() {
		var o oneSidedRow
		if err := rows.Scan(&o.table, &o.column, &o.minValue, &o.maxVal, &o.misread); err != nil {
			return nil, err
		}
		id := func(n int64) sql.NullString { return sql.NullString{String: strconv.FormatInt(n, 10), Valid: true} }
		out[statsEntryKey(label, []string{"table_id", "column_id"}, []sql.NullString{id(o.table), id(o.column)})] = o
	}
	return out, rows.Err()
}

// oneSidedTableStats applies formats.OneSidedStatsEmpty to the comparison
// of ducklake_table_column_stats (na, nb its names in A and B): for a B
// whose readers read a numeric or temporal row with one bound only
// (0.4, 1.0, 1.1), B's row with neither bound stands for A's with one
// (convert writes that: every reader keeps every row, and none folds
// min/max without both), and B's row with one bound that some reader of B
// misreads (formats.OneSidedMisreadSQL: the bound at its type's extreme in
// its direction, so DuckDB's NumericStats::HasMinMax holds for the range
// CreateNumericStats makes, [v, v]; by column type and contains_nan) is a
// `stats` difference unless A's row has one bound too and a reader of A
// misreads it (B's readers fold a filter on the column where A's scan). A
// one-sided row not at its type's extreme reads as [v, type minimum] or
// [type maximum, v], min > max, which DuckDB reads as no bounds: every row
// kept, as A's readers keep them; so is a row of a type B's readers give no
// statistics for (BOOLEAN, TINYINT, DECIMAL, UUID for 0.4; FLOAT and
// DOUBLE with NaN or contains_nan unknown). A side known to have no row
// with one bound only (none) is not queried. B's row stands for A's
// compared column by column (boundsNulled; cols: the columns the entries
// hold), not as text, and a key with two rows on either side never does.
func (c *comparison) oneSidedTableStats(label, na, nb string, cols []string, ea, eb entries, none statsNone) error {
	if label != "ducklake_table_column_stats" || !formats.OneSidedStatsEmpty(c.b.format) {
		return nil
	}
	var ra, rb map[string]oneSidedRow
	var err error
	// A side whose rows read for the comparison have no row with one
	// bound only has no such row of any type (none.oneA, none.oneB).
	if !none.oneA {
		if ra, err = c.a.oneSidedRows(c, label, na); err != nil {
			return markA(err)
		}
	}
	if !none.oneB {
		if rb, err = c.b.oneSidedRows(c, label, nb); err != nil {
			return markB(err)
		}
	}
	for k, o := range ra {
		ta, okA := ea[k]
		tb, okB := eb[k]
		if !okA || !okB {
			continue
		}
		if boundsNulled(ta, tb, cols, o.minValue, o.maxVal) {
			ea[k] = tb
		}
	}
	// In (table_id, column_id) order: a map's order would change the
	// report, and the first difference its error names, from run to run.
	keys := slices.SortedFunc(maps.Keys(rb), func(x, y string) int {
		return cmp.Or(cmp.Compare(rb[x].table, rb[y].table), cmp.Compare(rb[x].column, rb[y].column), strings.Compare(x, y))
	})
	for _, k := range keys {
		o := rb[k]
		if !o.misread || ra[k].misread {
			continue // B's readers read no bounds, or readers of A misread it too
		}
		c.add(Difference{Kind: "stats", Table: "table id " + strconv.FormatInt(o.table, 10), Item: k,
			A: "no statistics for its readers", B: "min_value=" + statsText(o.minValue) + " max_value=" + statsText(o.maxVal),
			Reason: fmt.Sprintf("format %s readers read a table column statistics row with only one bound at or beyond its type's extreme as the range from that bound to the extreme, one value where the bound is the extreme (DuckLake 1.5's CreateNumericStats starts from NumericStats::CreateEmpty, [type maximum, type minimum], and sets the bound present, so min <= max and NumericStats::HasMinMax holds), so a filter on column id %d of table id %d folds by that range, where format %s readers read the rows (no statistics for a row with one bound, or one not at its type's extreme, or for the column's type, or the row has both bounds); convert writes both bounds NULL", c.rep.B.Format, o.column, o.table, c.rep.A.Format)})
	}
	return nil
}
