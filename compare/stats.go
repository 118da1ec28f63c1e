package compare

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// statsTable is a metadata table of statistics that readers use to skip
// files and row groups (min/max, null and NaN flags, counts). Its rows are
// not versioned by snapshot: they are compared once, keyed by the key
// columns, on every other column both formats have.
type statsTable struct {
	names []string // the table's name in each format, newest first
	keys  []string
}

// statsTables is every statistics table of every format.
var statsTables = []statsTable{
	{names: []string{"ducklake_table_stats"}, keys: []string{"table_id"}},
	{names: []string{"ducklake_table_column_stats"}, keys: []string{"table_id", "column_id"}},
	// 0.3 renamed ducklake_file_column_statistics.
	{names: []string{"ducklake_file_column_stats", "ducklake_file_column_statistics"}, keys: []string{"data_file_id", "column_id"}},
	{names: []string{"ducklake_file_variant_stats"}, keys: []string{"data_file_id", "column_id", "variant_path"}},
}

// statsName is the name a stats table has in this catalog ("" if absent).
func (r *Reader) statsName(t statsTable) string {
	for _, n := range t.names {
		if _, ok := r.layout[n]; ok {
			return n
		}
	}
	return ""
}

// statsEntries describes the rows of one stats table, on the given
// columns, keyed by label (the table's newest name) and the key columns.
// A Source's reader, which serves the proofs of several formats, keeps the
// entries by table and columns (keepStats); any other reader reads them
// once anyway, and keeping them would hold them through the data scans
// (files x columns entries: about 2 MB per reader on a 300-table catalog).
func (r *Reader) statsEntries(ctx context.Context, label, table string, keys, cols []string) (entries, error) {
	if r.empty(table) {
		return entries{}, nil
	}
	if !r.keepStats {
		return r.readStatsEntries(ctx, label, table, keys, cols)
	}
	memo := statsAsk{label: label, table: table, keys: keys, cols: cols}.memoKey()
	if e, ok := r.meta.stats[memo]; ok {
		return maps.Clone(e), nil
	}
	e, err := r.readStatsEntries(ctx, label, table, keys, cols)
	if err != nil {
		return nil, err
	}
	r.meta.stats[memo] = e
	return maps.Clone(e), nil
}

// statsAsk is one statsEntries call: a table's label, name, key columns
// and compared columns.
type statsAsk struct {
	label, table string
	keys, cols   []string
}

// memoKey names an ask in the kept entries of a Source's reader.
func (a statsAsk) memoKey() string {
	return strings.Join(append([]string{a.label, a.table, strconv.Itoa(len(a.keys))}, append(slices.Clone(a.keys), a.cols...)...), "\x00")
}

// statsEntriesAll answers several statsEntries calls with one query: every
// table's rows in one UNION ALL, each table's columns padded with NULLs to
// the widest, sorted as each table alone is (its number first, then ORDER
// BY ALL). When that query fails, each table is read alone (the first
// failure names its table, as statsEntries does).
func (r *Reader) statsEntriesAll(ctx context.Context, asks []statsAsk) ([]entries, error) {
	out := make([]entries, len(asks))
	var todo []int
	for i, a := range asks {
		switch {
		case r.empty(a.table):
			out[i] = entries{}
		case r.keepStats && r.meta.stats[a.memoKey()] != nil:
			out[i] = maps.Clone(r.meta.stats[a.memoKey()])
		default:
			todo = append(todo, i)
		}
	}
	if len(todo) > 1 {
		if es, err := r.readStatsTogether(ctx, asks, todo); err == nil {
			for j, i := range todo {
				out[i] = es[j]
				if r.keepStats {
					r.meta.stats[asks[i].memoKey()] = maps.Clone(es[j])
				}
			}
			return out, nil
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	for _, i := range todo {
		a := asks[i]
		e, err := r.statsEntries(ctx, a.label, a.table, a.keys, a.cols)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// readStatsTogether reads the asks todo names in one query (statsEntriesAll).
func (r *Reader) readStatsTogether(ctx context.Context, asks []statsAsk, todo []int) ([]entries, error) {
	width := 0
	for _, i := range todo {
		width = max(width, len(asks[i].keys)+len(asks[i].cols))
	}
	parts := make([]string, len(todo))
	for j, i := range todo {
		a := asks[i]
		sel := []string{strconv.Itoa(j)}
		for _, c := range append(slices.Clone(a.keys), a.cols...) {
			sel = append(sel, "CAST("+ident(c)+" AS VARCHAR)")
		}
		for len(sel) < width+1 {
			sel = append(sel, "NULL::VARCHAR")
		}
		parts[j] = fmt.Sprintf("SELECT %s FROM cat.%s", strings.Join(sel, ", "), ident(a.table))
	}
	rows, err := r.conn.QueryContext(ctx, strings.Join(parts, " UNION ALL ")+" ORDER BY ALL")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]entries, len(todo))
	for j := range out {
		out[j] = entries{}
	}
	var j int
	vals := make([]sql.NullString, width)
	ptrs := []any{&j}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if j < 0 || j >= len(todo) {
			return nil, fmt.Errorf("statistics row of part %d of %d", j, len(todo))
		}
		a := asks[todo[j]]
		addStatsEntry(out[j], a.label, a.keys, a.cols, vals[:len(a.keys)+len(a.cols)])
	}
	return out, rows.Err()
}

func (r *Reader) readStatsEntries(ctx context.Context, label, table string, keys, cols []string) (entries, error) {
	all := append(slices.Clone(keys), cols...)
	sel := make([]string, len(all))
	for i, c := range all {
		sel[i] = "CAST(" + ident(c) + " AS VARCHAR)"
	}
	q := fmt.Sprintf("SELECT %s FROM cat.%s ORDER BY ALL", strings.Join(sel, ", "), ident(table))
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read %s of %s: %w", table, r.path, err)
	}
	defer rows.Close()
	e := entries{}
	vals := make([]sql.NullString, len(all))
	ptrs := make([]any, len(all))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read %s of %s: %w", table, r.path, err)
		}
		addStatsEntry(e, label, keys, cols, vals)
	}
	return e, rows.Err()
}

// addStatsEntry adds one statistics row (vals: the key columns', then the
// compared columns' values as text) to e: keyed by statsEntryKey; a second
// row of the same key is appended after " | ".
func addStatsEntry(e entries, label string, keys, cols []string, vals []sql.NullString) {
	k := statsEntryKey(label, keys, vals)
	val := make([]string, 0, len(vals)-len(keys))
	for i, v := range vals[len(keys):] {
		val = append(val, cols[i]+"="+statsText(nullString(v)))
	}
	if prev, ok := e[k]; ok {
		e[k] = prev + " | " + strings.Join(val, " ")
	} else {
		e[k] = strings.Join(val, " ")
	}
}

// statsEntryKey is the key of a statistics row: its label and its key
// columns' values (the first len(keys) of vals).
func statsEntryKey(label string, keys []string, vals []sql.NullString) string {
	key := make([]string, len(keys))
	for i, k := range keys {
		key[i] = k + "=" + statsText(nullString(vals[i]))
	}
	return label + " " + strings.Join(key, " ")
}

// statsText is a statistics value as its entry shows it.
func statsText(v *string) string {
	if v == nil {
		return "NULL"
	}
	return strconv.Quote(*v)
}

// stats compares the statistics both catalogs hold. What one format cannot
// hold is not compared, and the report says so per table and column.
func (c *comparison) stats() error {
	type read struct {
		label, na, nb string
		keys, cols    []string
		ea, eb        entries
	}
	var reads []*read
	for _, t := range statsTables {
		na, nb := c.a.statsName(t), c.b.statsName(t)
		label := t.names[0]
		switch {
		case na == "" && nb == "":
			continue
		case na == "" || nb == "":
			missing := c.rep.A.Format
			if nb == "" {
				missing = c.rep.B.Format
			}
			c.rep.NotCompared = append(c.rep.NotCompared, fmt.Sprintf("%s: format %s has no such table", label, missing))
			continue
		}
		var cols []string
		for _, col := range c.a.layout[na] {
			switch {
			case slices.Contains(t.keys, col):
			case c.b.has(nb, col):
				cols = append(cols, col)
			default:
				c.rep.NotCompared = append(c.rep.NotCompared, fmt.Sprintf("%s.%s: format %s has no such column", label, col, c.rep.B.Format))
			}
		}
		for _, col := range c.b.layout[nb] {
			if !slices.Contains(t.keys, col) && !c.a.has(na, col) {
				c.rep.NotCompared = append(c.rep.NotCompared, fmt.Sprintf("%s.%s: format %s has no such column", label, col, c.rep.A.Format))
			}
		}
		reads = append(reads, &read{label: label, na: na, nb: nb, keys: t.keys, cols: cols})
	}
	for _, side := range []struct {
		r    *Reader
		name func(*read) string
		set  func(*read, entries)
	}{
		{c.a, func(rd *read) string { return rd.na }, func(rd *read, e entries) { rd.ea = e }},
		{c.b, func(rd *read) string { return rd.nb }, func(rd *read, e entries) { rd.eb = e }},
	} {
		asks := make([]statsAsk, len(reads))
		for i, rd := range reads {
			asks[i] = statsAsk{label: rd.label, table: side.name(rd), keys: rd.keys, cols: rd.cols}
		}
		es, err := side.r.statsEntriesAll(c.ctx, asks)
		if err != nil {
			return err
		}
		for i, rd := range reads {
			side.set(rd, es[i])
		}
	}
	for _, rd := range reads {
		if rd.label == "ducklake_table_stats" {
			if err := c.earlyTableStats(rd.label, rd.ea, rd.eb); err != nil {
				return err
			}
			if err := c.dropUnreadableTableStats(rd.label, rd.ea, rd.eb); err != nil {
				return err
			}
			if err := c.dropStringOnlyTableStats(rd.label, rd.ea, rd.eb); err != nil {
				return err
			}
		}
		if rd.label == "ducklake_file_column_stats" {
			if err := c.fileColumnStats(rd.label, rd.na, rd.nb, rd.ea, rd.eb); err != nil {
				return err
			}
		}
		if rd.label == "ducklake_table_column_stats" {
			if err := c.stringTableStats(rd.label, rd.ea, rd.eb); err != nil {
				return err
			}
		}
		if rd.label == "ducklake_file_column_stats" || rd.label == "ducklake_table_column_stats" {
			if err := c.textStats(rd.label, rd.na, rd.nb, rd.ea, rd.eb); err != nil {
				return err
			}
		}
		if err := c.oneSidedTableStats(rd.label, rd.na, rd.nb, rd.ea, rd.eb); err != nil {
			return err
		}
		c.diffEntries("stats", nil, "", rd.ea, rd.eb)
	}
	return nil
}
