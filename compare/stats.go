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
	memo := strings.Join(append([]string{label, table, strconv.Itoa(len(keys))}, append(slices.Clone(keys), cols...)...), "\x00")
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
		var key, val []string
		for i, v := range vals {
			s := "NULL"
			if v.Valid {
				s = strconv.Quote(v.String)
			}
			if i < len(keys) {
				key = append(key, all[i]+"="+s)
			} else {
				val = append(val, all[i]+"="+s)
			}
		}
		k := label + " " + strings.Join(key, " ")
		if prev, ok := e[k]; ok {
			e[k] = prev + " | " + strings.Join(val, " ")
		} else {
			e[k] = strings.Join(val, " ")
		}
	}
	return e, rows.Err()
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
	var errA, errB error
	for _, rd := range reads {
		if rd.ea, errA = c.a.statsEntries(c.ctx, rd.label, rd.na, rd.keys, rd.cols); errA != nil {
			break
		}
	}
	for _, rd := range reads {
		if errA != nil {
			break
		}
		if rd.eb, errB = c.b.statsEntries(c.ctx, rd.label, rd.nb, rd.keys, rd.cols); errB != nil {
			break
		}
	}
	if errA != nil {
		return errA
	}
	if errB != nil {
		return errB
	}
	for _, rd := range reads {
		if rd.label == "ducklake_table_stats" {
			if err := c.dropUnreadableTableStats(rd.label, rd.ea, rd.eb); err != nil {
				return err
			}
		}
		c.diffEntries("stats", nil, "", rd.ea, rd.eb)
	}
	return nil
}
