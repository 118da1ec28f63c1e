package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// stringStatsRow is a ducklake_table_column_stats row of a VARCHAR column
// with NULL min_value and max_value (formats.StringTableStatsWithoutMinMaxSQL).
type stringStatsRow struct {
	key           string
	table, column int64
	tableName     string
	columnName    string
}

// stringStatsWithoutMinMax reads the catalog's ducklake_table_column_stats
// rows of VARCHAR columns with NULL min_value and max_value; mayHold keeps
// only those whose column may hold a value (formats.ColumnMayHoldValuesSQL).
func (r *Reader) stringStatsWithoutMinMax(ctx context.Context, label string, mayHold bool) ([]stringStatsRow, error) {
	if r.empty("ducklake_table_column_stats") {
		return nil, nil
	}
	where := formats.StringTableStatsWithoutMinMaxSQL("cat.")
	if mayHold {
		stats := r.statsName(statsTables[2])
		if stats == "" {
			return nil, nil
		}
		where += " AND " + formats.ColumnMayHoldValuesSQL("cat.", stats)
	}
	rows, err := r.conn.QueryContext(ctx, `SELECT s.table_id, s.column_id,
	(SELECT any_value(t.table_name) FROM cat.ducklake_table t WHERE t.table_id = s.table_id),
	(SELECT arg_max(col.column_name, col.begin_snapshot) FROM cat.ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id)
FROM cat.ducklake_table_column_stats s WHERE `+where+` ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("read VARCHAR table column statistics of %s: %w", oneline.Name(r.path), err)
	}
	defer rows.Close()
	var out []stringStatsRow
	for rows.Next() {
		var s stringStatsRow
		var table, column sql.NullString
		if err := rows.Scan(&s.table, &s.column, &table, &column); err != nil {
			return nil, fmt.Errorf("read VARCHAR table column statistics of %s: %w", oneline.Name(r.path), err)
		}
		s.tableName, s.columnName = table.String, column.String
		id := func(n int64) sql.NullString { return sql.NullString{String: strconv.FormatInt(n, 10), Valid: true} }
		s.key = statsEntryKey(label, []string{"table_id", "column_id"}, []sql.NullString{id(s.table), id(s.column)})
		out = append(out, s)
	}
	return out, rows.Err()
}

// EmptyStringStats lists the catalog's ducklake_table_column_stats rows
// that readers with formats.QuirkStringTableStatsEmpty read as an empty
// column though the column may hold values (VARCHAR, top-level or a
// nested child, NULL min_value and max_value:
// formats.StringTableStatsWithoutMinMaxSQL and ColumnMayHoldValuesSQL),
// as "table.column (table id T, column id C)". Only for a format some of
// whose readers have the quirk (else none).
func (r *Reader) EmptyStringStats(ctx context.Context) ([]string, error) {
	if r.format == nil || !r.format.ReadsWith(formats.QuirkStringTableStatsEmpty) {
		return nil, nil
	}
	rows, err := r.stringStatsWithoutMinMax(ctx, "ducklake_table_column_stats", true)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, s := range rows {
		out[i] = fmt.Sprintf("%s.%s (table id %d, column id %d)", s.tableName, s.columnName, s.table, s.column)
	}
	return out, nil
}

// stringTableStats applies formats.QuirkStringTableStatsEmpty to the
// comparison of ducklake_table_column_stats (label; ea and eb its entries)
// where B's readers have it (0.4: DuckDB 1.5.0). A row of B of a VARCHAR
// column with NULL min_value and max_value whose column may hold values is
// a `stats` difference naming the catalog, table and column (those readers
// return no rows for WHERE col = 'x'), unless A, read with the same
// behaviour, holds the same row. Such a row of A that B lacks (convert to
// 0.4 drops them; without it no reader has statistics for the column, as
// DuckDB 1.5.1 reads the row) is reported as not compared. The rows are
// then left out of the plain comparison. A side known to have no row
// without min and max (none) is not queried.
func (c *comparison) stringTableStats(label string, ea, eb entries, none statsNone) error {
	q := formats.QuirkStringTableStatsEmpty
	if !c.b.readsWith(q) {
		return nil
	}
	var rb, ra []stringStatsRow
	var err error
	// A side known to have no row without min and max (none) has none
	// of a VARCHAR column either.
	if !none.neitherB {
		if rb, err = c.b.stringStatsWithoutMinMax(c.ctx, label, true); err != nil {
			// B's rows are read first: the failure is both catalogs'
			// when A's same read fails too.
			return bThenA(err, func() error {
				_, err := c.a.stringStatsWithoutMinMax(c.ctx, label, true)
				return err
			})
		}
	}
	for _, row := range rb {
		av, inA := ea[row.key]
		if c.a.readsWith(q) && inA && av == eb[row.key] {
			continue // read alike: both empty
		}
		table := row.tableName
		if table == "" {
			table = "table id " + strconv.FormatInt(row.table, 10)
		}
		why := "format " + c.rep.A.Format + " readers read it as no statistics"
		switch {
		case !inA:
			av, why = "no row", "A has no such row, so its readers have no statistics for the column"
		case c.a.readsWith(q):
			why = "A's row differs"
		}
		c.add(Difference{Kind: "stats", Table: table, Item: row.key, A: av, B: eb[row.key],
			Reason: fmt.Sprintf("format %s readers (DuckDB 1.5.0) read a VARCHAR column's table statistics with NULL min_value and max_value as a column holding no string (%s): in catalog B (%s), %s of %s (table id %d) has such a row for column %s (id %d), which may hold values, so WHERE %s = 'x' returns no rows; %s (convert to %s drops such rows)",
				c.rep.B.Format, q.Info().Name, c.b.path, label, oneline.Name(table), row.table, oneline.Name(row.columnName), row.column, oneline.Name(row.columnName), why, c.rep.B.Format)})
		delete(ea, row.key)
		delete(eb, row.key)
	}
	if !none.neitherA {
		if ra, err = c.a.stringStatsWithoutMinMax(c.ctx, label, false); err != nil {
			return markA(err)
		}
	}
	for _, row := range ra {
		if _, inB := eb[row.key]; inB {
			continue
		}
		if _, ok := ea[row.key]; ok {
			delete(ea, row.key)
			c.rep.NotCompared = append(c.rep.NotCompared, fmt.Sprintf("%s of table %d column %d: absent from B, whose format's readers (DuckDB 1.5.0) read it as a column holding no string (%s)",
				label, row.table, row.column, q.Info().Name))
		}
	}
	return nil
}

// tablesOnlyWithStringStatsWithoutMinMax lists the tables whose
// ducklake_table_stats row readers read (record_count and file_size_bytes
// set) and whose every ducklake_table_column_stats row is one convert to
// 0.4 drops (formats.QuirkStringTableStatsEmpty): such a table is left
// without column statistics in 0.4.
func (r *Reader) tablesOnlyWithStringStatsWithoutMinMax(c *comparison) ([]int64, error) {
	stats := r.statsName(statsTables[2])
	if stats == "" || r.empty("ducklake_table_stats") || r.empty("ducklake_table_column_stats") {
		return nil, nil
	}
	dropped := formats.StringTableStatsWithoutMinMaxSQL("cat.") + " AND " + formats.ColumnMayHoldValuesSQL("cat.", stats)
	ids, err := r.int64s(c.ctx, `SELECT ts.table_id FROM cat.ducklake_table_stats ts
WHERE ts.record_count IS NOT NULL AND ts.file_size_bytes IS NOT NULL
	AND EXISTS (SELECT 1 FROM cat.ducklake_table_column_stats s WHERE s.table_id = ts.table_id)
	AND NOT EXISTS (SELECT 1 FROM cat.ducklake_table_column_stats s WHERE s.table_id = ts.table_id AND NOT (`+dropped+`))
ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("read table statistics of %s: %w", oneline.Name(r.path), err)
	}
	return ids, nil
}

// dropStringOnlyTableStats removes from the comparison of
// ducklake_table_stats (label; ea and eb its entries) the row of a table of
// A that a 0.4 B lacks because its only column statistics rows were
// VARCHAR rows without min and max (convert to 0.4 drops them,
// formats.QuirkStringTableStatsEmpty) and 0.4's readers fail on table
// statistics without column statistics (formats.QuirkTableStatsNeedColumnStats;
// convert --allow-lossy table-stats drops it). It is reported as not
// compared; no answer depends on it (dropUnreadableTableStats). noneA:
// A's column statistics are known to have no row without min and max.
func (c *comparison) dropStringOnlyTableStats(label string, ea, eb entries, noneA bool) error {
	if !c.b.format.ReadsWith(formats.QuirkStringTableStatsEmpty) || !c.b.format.ReadsWith(formats.QuirkTableStatsNeedColumnStats) {
		return nil
	}
	if noneA {
		// A's ducklake_table_column_stats has no row without min and
		// max (statsFacts): no table has only such rows.
		return nil
	}
	ids, err := c.a.tablesOnlyWithStringStatsWithoutMinMax(c)
	if err != nil {
		return markA(err)
	}
	for _, id := range ids {
		k := tableStatsKey(label, id)
		if _, inB := eb[k]; inB {
			continue
		}
		if _, ok := ea[k]; ok {
			delete(ea, k)
			c.rep.NotCompared = append(c.rep.NotCompared, fmt.Sprintf("%s of table %d: absent from B, whose format's readers fail on it once the table's VARCHAR column statistics without min and max are dropped (%s, %s)",
				label, id, formats.QuirkStringTableStatsEmpty.Info().Name, formats.QuirkTableStatsNeedColumnStats.Info().Name))
		}
	}
	return nil
}
