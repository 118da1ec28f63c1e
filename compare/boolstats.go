package compare

import (
	"database/sql"
	"fmt"
	"regexp"
	"strconv"

	"github.com/fdl-formats/fdl-formats/formats"
)

// boolStatsRow is a statistics row of a BOOLEAN column: its entry key, its
// min and max (nil: NULL), and for a file statistics row the data file.
type boolStatsRow struct {
	key              string
	table, column    int64
	file             *int64
	path             string
	snapshot         *int64
	minValue, maxVal *string
}

// booleanStatsRows reads the rows of stats (the table's name in this
// catalog; label its newest name, one of formats.BooleanStatsTables) that
// hold statistics of a BOOLEAN column.
func (r *Reader) booleanStatsRows(c *comparison, label, stats string) ([]boolStatsRow, error) {
	if r.empty(stats) {
		return nil, nil
	}
	file := label == "ducklake_file_column_stats"
	sel := "NULL::BIGINT, NULL::VARCHAR, NULL::BIGINT"
	from := "cat." + ident(stats) + " s"
	if file {
		sel = "s.data_file_id, f.path, f.begin_snapshot"
		from += " LEFT JOIN cat.ducklake_data_file f ON f.data_file_id = s.data_file_id"
	}
	q := `SELECT s.table_id, s.column_id, ` + sel + `, CAST(s.min_value AS VARCHAR), CAST(s.max_value AS VARCHAR) FROM ` + from + `
WHERE EXISTS (SELECT 1 FROM cat.ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id AND lower(col.column_type) = 'boolean')
ORDER BY ALL`
	rows, err := r.conn.QueryContext(c.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read BOOLEAN statistics in %s of %s: %w", stats, r.path, err)
	}
	defer rows.Close()
	var out []boolStatsRow
	for rows.Next() {
		var b boolStatsRow
		var path sql.NullString
		if err := rows.Scan(&b.table, &b.column, &b.file, &path, &b.snapshot, &b.minValue, &b.maxVal); err != nil {
			return nil, fmt.Errorf("read BOOLEAN statistics in %s of %s: %w", stats, r.path, err)
		}
		b.path = path.String
		id := func(n int64) sql.NullString { return sql.NullString{String: strconv.FormatInt(n, 10), Valid: true} }
		if file {
			b.key = fileStatsKey(label, *b.file, b.column)
		} else {
			b.key = statsEntryKey(label, []string{"table_id", "column_id"}, []sql.NullString{id(b.table), id(b.column)})
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// boolStatText matches a min_value or max_value in an entry's text
// (addStatsEntry: name="quoted value").
var boolStatText = regexp.MustCompile(`(^| )(min_value|max_value)="([^"\\]*)"`)

// canonBoolStats rewrites the min_value and max_value of a BOOLEAN
// column's entry as the values they cast to ("false"/"true"), so that
// '0'/'1' and 'false'/'true' compare equal.
func canonBoolStats(text string) string {
	return boolStatText.ReplaceAllStringFunc(text, func(m string) string {
		s := boolStatText.FindStringSubmatch(m)
		v, ok := formats.BooleanStatsValue(s[3])
		if !ok {
			return m
		}
		return s[1] + s[2] + "=" + strconv.Quote(strconv.FormatBool(v))
	})
}

// booleanStats applies formats.QuirkBooleanStatsComparedAsText to the
// statistics comparison of label (ducklake_file_column_stats or
// ducklake_table_column_stats; na and nb its names in A and B). BOOLEAN
// statistics are compared by value ('0' and 'false' are equal: every
// reader without the quirk casts them, and convert writes 'false'/'true'
// for readers with it). And B must not be read with fewer files than A: a
// BOOLEAN statistic of B that is not 'false', 'true' or NULL, where B's
// readers compare them as text (and so skip the file under = true), while
// A's readers compare them by value or A's row is so spelled, is a `stats`
// difference naming the catalog, table, column and data file (file
// statistics only: the table column statistics of a BOOLEAN column prune
// nothing). The other way (a
// native 0.4 A whose 1.5.0/1.5.1 writer wrote '0'/'1', converted to 1.0)
// is not a difference: B then keeps more files, as the specification does.
func (c *comparison) booleanStats(label, na, nb string, ea, eb entries) error {
	q := formats.QuirkBooleanStatsComparedAsText
	if !c.a.readsWith(q) && !c.b.readsWith(q) {
		return nil // 1.0 and 1.1: written alike ('0'/'1'), compared as they are
	}
	ra, err := c.a.booleanStatsRows(c, label, na)
	if err != nil {
		return err
	}
	rb, err := c.b.booleanStatsRows(c, label, nb)
	if err != nil {
		return err
	}
	for _, side := range []struct {
		rows []boolStatsRow
		e    entries
	}{{ra, ea}, {rb, eb}} {
		for _, row := range side.rows {
			if t, ok := side.e[row.key]; ok {
				side.e[row.key] = canonBoolStats(t)
			}
		}
	}
	if !c.b.readsWith(q) || label != "ducklake_file_column_stats" {
		// Table column statistics of BOOLEAN columns prune nothing (the
		// readers give the planner none: DuckLakeColumnStats::ToStats).
		return nil
	}
	quirkA := c.a.readsWith(q)
	orderedA := map[string]bool{}
	for _, row := range ra {
		o, seen := orderedA[row.key]
		orderedA[row.key] = (o || !seen) && formats.BooleanStatsOrdered(row.minValue) && formats.BooleanStatsOrdered(row.maxVal)
	}
	var names map[int64]string
	var columns map[boolColumn]string
	for _, row := range rb {
		if formats.BooleanStatsOrdered(row.minValue) && formats.BooleanStatsOrdered(row.maxVal) {
			continue
		}
		okA, inA := orderedA[row.key]
		if !inA || (quirkA && !okA) {
			continue // not A's row (other differences say so), or A's readers skip alike
		}
		if names == nil {
			if names, err = c.b.tableNames(c.ctx); err != nil {
				return err
			}
			if columns, err = c.b.booleanColumnNames(c); err != nil {
				return err
			}
		}
		table := names[row.table]
		if table == "" {
			table = "table id " + strconv.FormatInt(row.table, 10)
		}
		why := "format " + c.rep.A.Format + " readers compare them as values"
		if quirkA {
			why = "A spells them 'false'/'true', so format " + c.rep.A.Format + " readers keep the files that hold matching rows"
		}
		what := fmt.Sprintf("data file %s (data_file_id %d)", row.path, *row.file)
		c.add(Difference{Kind: "stats", Snapshot: row.snapshot, Table: table, Item: row.key,
			A: "BOOLEAN statistics by value", B: "min_value=" + statsText(row.minValue) + " max_value=" + statsText(row.maxVal),
			Reason: fmt.Sprintf("format %s readers compare BOOLEAN statistics as text with 'true'/'false' (%s): in catalog B (%s), %s has min_value %s and max_value %s for column %s (id %d) of %s in %s, so under WHERE %s = true (or = false, IN, >=) they skip it and return fewer rows; %s (convert writes them 'false'/'true')",
				c.rep.B.Format, q.Info().Name, c.b.path, what, statsText(row.minValue), statsText(row.maxVal), columns[boolColumn{row.table, row.column}], row.column, table, label, columns[boolColumn{row.table, row.column}], why)})
	}
	return nil
}

// boolColumn is a column by table_id and column_id.
type boolColumn struct{ table, column int64 }

// booleanColumnNames maps the BOOLEAN columns of the catalog to their
// newest names.
func (r *Reader) booleanColumnNames(c *comparison) (map[boolColumn]string, error) {
	rows, err := r.conn.QueryContext(c.ctx, `SELECT table_id, column_id, arg_max(column_name, begin_snapshot) FROM cat.ducklake_column
WHERE lower(column_type) = 'boolean' GROUP BY table_id, column_id`)
	if err != nil {
		return nil, fmt.Errorf("read BOOLEAN columns of %s: %w", r.path, err)
	}
	defer rows.Close()
	out := map[boolColumn]string{}
	for rows.Next() {
		var t, col int64
		var name sql.NullString
		if err := rows.Scan(&t, &col, &name); err != nil {
			return nil, fmt.Errorf("read BOOLEAN columns of %s: %w", r.path, err)
		}
		out[boolColumn{t, col}] = name.String
	}
	return out, rows.Err()
}
