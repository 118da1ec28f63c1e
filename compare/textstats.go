package compare

import (
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// textStatsRow is a statistics row of a column of one formats.TextStats
// kind: its entry key, its min and max (nil: NULL), and for a file
// statistics row the data file.
type textStatsRow struct {
	key              string
	table, column    int64
	file             *int64
	path             string
	snapshot         *int64
	minValue, maxVal *string
}

// ordered reports whether both statistics are in the kind's ordered
// spelling.
func (row textStatsRow) ordered(k *formats.TextStats) bool {
	return k.Ordered(row.minValue) && k.Ordered(row.maxVal)
}

// textStatsRows reads the rows of stats (the table's name in this
// catalog; label its newest name: ducklake_file_column_stats or
// ducklake_table_column_stats) that hold statistics of a column of kind k.
func (r *Reader) textStatsRows(c *comparison, k *formats.TextStats, label, stats string) ([]textStatsRow, error) {
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
WHERE EXISTS (SELECT 1 FROM cat.ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id AND ` + k.TypeSQL("col") + `)
ORDER BY ALL`
	rows, err := r.conn.QueryContext(c.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read %s statistics in %s of %s: %w", k.Kind, stats, oneline.Name(r.path), err)
	}
	defer rows.Close()
	var out []textStatsRow
	for rows.Next() {
		var b textStatsRow
		var path sql.NullString
		if err := rows.Scan(&b.table, &b.column, &b.file, &path, &b.snapshot, &b.minValue, &b.maxVal); err != nil {
			return nil, fmt.Errorf("read %s statistics in %s of %s: %w", k.Kind, stats, oneline.Name(r.path), err)
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

// minMaxText matches a min_value or max_value in an entry's text
// (addStatsEntry: name=NULL or name="quoted value").
var minMaxText = regexp.MustCompile(`(^| )(min_value|max_value)=(NULL|"(?:[^"\\]|\\.)*")`)

// canonTextStats rewrites the min_value and max_value of an entry of kind
// k as the values they stand for (k.Value), so that spellings of one value
// ('0' and 'false') compare equal.
func canonTextStats(k *formats.TextStats, text string) string {
	return minMaxText.ReplaceAllStringFunc(text, func(m string) string {
		s := minMaxText.FindStringSubmatch(m)
		u, err := strconv.Unquote(s[3])
		if err != nil {
			return m
		}
		v, ok := k.Value(u)
		if !ok {
			return m
		}
		return s[1] + s[2] + "=" + strconv.Quote(v)
	})
}

// nullsFrom rewrites each min_value and max_value that is NULL in b as the
// one of a (single-row entries of one key): a NULL statistic of a reader
// that compares as text keeps the file, as the value of a reader that
// compares by value does where it matches. ok false where the entries do
// not line up.
func nullsFrom(a, b string) (string, bool) {
	if strings.Contains(a, " | ") || strings.Contains(b, " | ") {
		return b, false
	}
	av := map[string]string{}
	for _, s := range minMaxText.FindAllStringSubmatch(a, -1) {
		av[s[2]] = s[3]
	}
	return minMaxText.ReplaceAllStringFunc(b, func(m string) string {
		s := minMaxText.FindStringSubmatch(m)
		if v, ok := av[s[2]]; ok && s[3] == "NULL" {
			return s[1] + s[2] + "=" + v
		}
		return m
	}), true
}

// textStats applies each formats.TextStats kind to the statistics
// comparison of label (ducklake_file_column_stats or
// ducklake_table_column_stats; na and nb its names in A and B).
func (c *comparison) textStats(label, na, nb string, ea, eb entries) error {
	for _, k := range formats.AllTextStats {
		if err := c.textStatsKind(k, label, na, nb, ea, eb); err != nil {
			return err
		}
	}
	return nil
}

// textStatsKind applies the kind k (formats.QuirkBooleanStatsComparedAsText,
// formats.QuirkTemporalStatsComparedAsText). Its statistics are compared
// by value ('0' and 'false' are equal: every reader without the quirk
// casts them, and convert writes 'false'/'true' for readers with it), and
// a NULL file statistic of a B whose readers compare them as text, where
// A's readers compare by value, equals A's (B keeps the file; convert
// writes temporal statistics so). And B must not be read with fewer files
// than A: a file statistic of B not in the kind's ordered spelling
// (BOOLEAN: 'false', 'true' or NULL; temporal: NULL), where B's readers
// compare them as text, while A's readers compare them by value or A's row
// is so spelled, is a `stats` difference naming the catalog, table, column
// and data file (the table column statistics of these kinds prune
// nothing). The other way (a native 0.4 A whose 1.5.0/1.5.1 writer wrote
// '0'/'1', converted to 1.0; a 0.3 A converted to 0.4) is not a
// difference: B then keeps more files, as the specification does.
func (c *comparison) textStatsKind(k *formats.TextStats, label, na, nb string, ea, eb entries) error {
	q := k.Quirk
	quirkA, quirkB := c.a.readsWith(q), c.b.readsWith(q)
	if !quirkA && !quirkB {
		return nil // compared by value by both, written as their writers write them
	}
	var ra, rb []textStatsRow
	var err error
	// A catalog without a column of the kind has no statistics row of it.
	if c.a.hasLakeType(c, k.Types) {
		if ra, err = c.a.textStatsRows(c, k, label, na); err != nil {
			return markA(err)
		}
	}
	if c.b.hasLakeType(c, k.Types) {
		if rb, err = c.b.textStatsRows(c, k, label, nb); err != nil {
			return markB(err)
		}
		for i := range rb {
			if rb[i].file != nil {
				rb[i].key = c.fileKeyB(label, *rb[i].file, rb[i].column)
			}
		}
	}
	for _, side := range []struct {
		rows []textStatsRow
		e    entries
	}{{ra, ea}, {rb, eb}} {
		for _, row := range side.rows {
			if t, ok := side.e[row.key]; ok {
				side.e[row.key] = canonTextStats(k, t)
			}
		}
	}
	if !quirkB || label != "ducklake_file_column_stats" {
		// Table column statistics of these kinds prune nothing (the
		// readers give the planner none, or read them as values).
		return nil
	}
	if !quirkA {
		for _, row := range rb {
			if row.minValue != nil && row.maxVal != nil {
				continue
			}
			if ta, ok := ea[row.key]; ok {
				if tb, ok := nullsFrom(ta, eb[row.key]); ok {
					eb[row.key] = tb
				}
			}
		}
	}
	orderedA := map[string]bool{}
	for _, row := range ra {
		o, seen := orderedA[row.key]
		orderedA[row.key] = (o || !seen) && row.ordered(k)
	}
	var names map[int64]string
	var columns map[textColumn]string
	for _, row := range rb {
		if row.ordered(k) {
			continue
		}
		okA, inA := orderedA[row.key]
		if !inA || (quirkA && !okA) {
			continue // not A's row (other differences say so), or A's readers skip alike
		}
		if names == nil {
			if names, err = c.bTableNames(); err != nil {
				return err
			}
			if columns, err = c.b.textColumnNames(c, k); err != nil {
				// Read of B alone: both catalogs' when A's same read
				// fails too.
				return bThenA(err, func() error {
					_, err := c.a.textColumnNames(c, k)
					return err
				})
			}
		}
		table := names[row.table]
		if table == "" {
			table = "table id " + strconv.FormatInt(row.table, 10)
		}
		column := columns[textColumn{row.table, row.column}]
		why := "format " + c.rep.A.Format + " readers compare them as values"
		if quirkA {
			why = "A spells them in the order of their values, so format " + c.rep.A.Format + " readers keep the files that hold matching rows"
		}
		how, ordered, under := "as text with 'true'/'false'", "convert writes them 'false'/'true'", fmt.Sprintf("under WHERE %s = true (or = false, IN, >=)", column)
		if k != formats.BooleanTextStats {
			how, ordered, under = "as text with the constant's text", "convert writes them NULL", fmt.Sprintf("under a filter on %s whose constant or statistics sort otherwise as text than as values (years 10000 and later, BC dates, TIMETZ offsets)", column)
		}
		what := fmt.Sprintf("data file %s (data_file_id %d)", oneline.Name(row.path), *row.file)
		c.add(Difference{Kind: "stats", Snapshot: row.snapshot, Table: table, Item: row.key,
			A: k.Kind + " statistics by value", B: "min_value=" + statsText(row.minValue) + " max_value=" + statsText(row.maxVal),
			Reason: fmt.Sprintf("format %s readers compare %s statistics %s (%s): in catalog B (%s), %s has min_value %s and max_value %s for column %s (id %d) of %s in %s, so %s they skip it and return fewer rows; %s (%s)",
				c.rep.B.Format, k.Kind, how, q.Info().Name, c.b.path, what, statsText(row.minValue), statsText(row.maxVal), oneline.Name(column), row.column, oneline.Name(table), label, under, why, ordered)})
	}
	return nil
}

// hasLakeType reports whether some row of the catalog's ducklake_column
// may have one of types (lower case) as its lower(column_type), the
// condition textStatsRows selects by (formats.TextStats.TypeSQL): false
// only when the column types, read once per reader, hold none. Where
// they cannot be read, true: the query that needs them says why.
func (r *Reader) hasLakeType(c *comparison, types []string) bool {
	if err := r.readColumnRows(c.ctx); err != nil {
		return true
	}
	for _, t := range types {
		if r.meta.lakeTypes[t] {
			return true
		}
	}
	return false
}

// textColumn is a column by table_id and column_id.
type textColumn struct{ table, column int64 }

// textColumnNames maps the columns of kind k of the catalog to their
// newest names.
func (r *Reader) textColumnNames(c *comparison, k *formats.TextStats) (map[textColumn]string, error) {
	rows, err := r.conn.QueryContext(c.ctx, `SELECT table_id, column_id, arg_max(column_name, begin_snapshot) FROM cat.ducklake_column col
WHERE `+k.TypeSQL("col")+` GROUP BY table_id, column_id`)
	if err != nil {
		return nil, fmt.Errorf("read %s columns of %s: %w", k.Kind, oneline.Name(r.path), err)
	}
	defer rows.Close()
	out := map[textColumn]string{}
	for rows.Next() {
		var t, col int64
		var name sql.NullString
		if err := rows.Scan(&t, &col, &name); err != nil {
			return nil, fmt.Errorf("read %s columns of %s: %w", k.Kind, oneline.Name(r.path), err)
		}
		out[textColumn{t, col}] = name.String
	}
	return out, rows.Err()
}
