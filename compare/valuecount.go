package compare

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// valueCountText matches the value_count of an entry's text
// (addStatsEntry: value_count=NULL or value_count="n").
var valueCountText = regexp.MustCompile(`(^| )value_count=(NULL|"[^"]*")`)

// valueCountZero applies formats.QuirkValueCountZeroPruned to the
// comparison of the file column statistics (label; na and nb are the
// table's names in A and B). Where B's readers skip a data file whose value_count for a column
// is 0 (1.0 as DuckDB 1.5.3+ read it, 1.1) and A's do not (0.1-0.4), a NULL
// value_count of B equals A's 0: every reader keeps the file (convert
// writes it so). And B must not be read with fewer files than A: a row of
// B with value_count 0 for a top-level column of a data file that may hold
// values (formats.ValueCountZeroWithValuesSQL) is a `stats` difference
// naming the catalog, table, column and data file, where A's readers keep
// the file: A's format lacks the behaviour, or A's value_count is not 0
// (NULL, or more); not where another row of B's for the file and column
// is not 0 (B's readers keep the file by it). The other way (a native 1.0
// A whose writer wrote 0 for TIMETZ files, converted to 0.4) is not a
// difference: B then keeps more files. A row that only B has is left to
// the row comparison. none says which side is known to hold no row with
// value_count 0: then nothing is queried.
func (c *comparison) valueCountZero(label, na, nb string, ea, eb entries, none statsNone) error {
	q := formats.QuirkValueCountZeroPruned
	quirkA, quirkB := c.a.readsWith(q), c.b.readsWith(q)
	if !quirkB {
		return nil
	}
	if !quirkA && !none.zeroA {
		for k, tb := range eb {
			ta, ok := ea[k]
			if !ok || strings.Contains(ta, " | ") || strings.Contains(tb, " | ") {
				continue
			}
			if valueCountOf(ta) == `"0"` && valueCountOf(tb) == "NULL" {
				eb[k] = valueCountText.ReplaceAllString(tb, `${1}value_count="0"`)
			}
		}
	}
	if none.zeroB || c.b.empty(nb) {
		return nil
	}
	zs, err := c.b.valueCountZeroRows(c.ctx, nb)
	if err != nil {
		// A read of B alone: both catalogs' when A's same read fails
		// too (A's table of file column statistics, na).
		return bThenA(err, func() error {
			if c.a.empty(na) {
				return nil
			}
			_, err := c.a.valueCountZeroRows(c.ctx, na)
			return err
		})
	}
	var names map[int64]string
	for _, z := range zs {
		key := c.fileKeyB(label, z.file, z.column)
		ta, inA := ea[key]
		if !inA {
			continue // not A's row: the row comparison says so
		}
		if !allValueCountsZero(eb[key]) {
			continue // another row of B's for the column keeps the file
		}
		if quirkA && allValueCountsZero(ta) {
			continue // A's readers skip the file too
		}
		if names == nil {
			if names, err = c.bTableNames(); err != nil {
				return err
			}
		}
		table := names[z.table]
		if table == "" {
			table = "table id " + strconv.FormatInt(z.table, 10)
		}
		why := "format " + c.rep.A.Format + " readers keep it"
		if quirkA {
			why = "A's value_count is not 0, so format " + c.rep.A.Format + " readers keep it"
		}
		var snap *int64
		if z.snap.Valid {
			snap = &z.snap.Int64
		}
		c.add(Difference{Kind: "stats", Snapshot: snap, Table: table, Item: key,
			A: "value_count=" + strings.Join(valueCountsOf(ta), ","), B: fmt.Sprintf("value_count=\"0\" null_count=%s (record_count %s)", optInt(nullInt(z.nulls)), optInt(nullInt(z.records))),
			Reason: fmt.Sprintf("format %s readers skip a data file whose value_count for a column is 0 under every filter comparing the column's min or max (%s): in catalog B (%s), data file %s (data_file_id %d) has value_count 0 for column %s (id %d) of %s in %s while it may hold values of it (null_count below its record_count, or unknown; DuckLake 1.5's writers store 0 for every TIMETZ and INTERVAL file), so such a query returns fewer rows; %s (convert writes value_count NULL)",
				c.rep.B.Format, q.Info().Name, oneline.Name(c.b.path), oneline.Name(z.path.String), z.file, oneline.Name(z.name.String), z.column, oneline.Name(table), label, why)})
	}
	return nil
}

// valueCountOf is the value_count of a single-row entry's text as the text
// shows it (NULL or "n"; "" where it has none).
func valueCountOf(text string) string {
	m := valueCountText.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[2]
}

// valueCountsOf lists the value_count of each row of an entry's text.
func valueCountsOf(text string) []string {
	var out []string
	for _, row := range strings.Split(text, " | ") {
		out = append(out, valueCountOf(row))
	}
	return out
}

// allValueCountsZero reports whether every row of an entry has value_count
// 0: a reader with formats.QuirkValueCountZeroPruned keeps the file when
// one of its rows for the column passes.
func allValueCountsZero(text string) bool {
	for _, v := range valueCountsOf(text) {
		if v != `"0"` {
			return false
		}
	}
	return true
}

// zeroRow is a file column statistics row with value_count 0 of a data
// file that may hold values of the column (valueCountZeroRows).
type zeroRow struct {
	file, table, column  int64
	nulls, records, snap sql.NullInt64
	path, name           sql.NullString
}

// valueCountZeroRows reads the rows of stats, the catalog's file column
// statistics table, with value_count 0 for a top-level column of a data
// file that may hold values (formats.ValueCountZeroWithValuesSQL), by
// table, data file and column.
func (r *Reader) valueCountZeroRows(ctx context.Context, stats string) ([]zeroRow, error) {
	rows, err := r.conn.QueryContext(ctx, `SELECT s.data_file_id, s.table_id, s.column_id, s.null_count, f.record_count, f.path, f.begin_snapshot,
	(SELECT arg_max(col.column_name, col.begin_snapshot) FROM cat.ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id)
FROM cat.`+ident(stats)+` s LEFT JOIN cat.ducklake_data_file f ON f.data_file_id = s.data_file_id
WHERE `+formats.ValueCountZeroWithValuesSQL("cat.")+`
ORDER BY s.table_id, s.data_file_id, s.column_id`)
	if err != nil {
		return nil, fmt.Errorf("read value_count 0 rows of %s in %s: %w", stats, oneline.Name(r.path), err)
	}
	defer rows.Close()
	var zs []zeroRow
	for rows.Next() {
		var z zeroRow
		if err := rows.Scan(&z.file, &z.table, &z.column, &z.nulls, &z.records, &z.path, &z.snap, &z.name); err != nil {
			return nil, fmt.Errorf("read value_count 0 rows of %s in %s: %w", stats, oneline.Name(r.path), err)
		}
		zs = append(zs, z)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read value_count 0 rows of %s in %s: %w", stats, oneline.Name(r.path), err)
	}
	return zs, nil
}
