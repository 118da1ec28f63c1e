package compare

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
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
	{names: formats.FileStatsTables(), keys: []string{"data_file_id", "column_id"}},
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
	out := make([]entries, len(todo))
	facts := make([]statsFacts, len(todo))
	for j := range out {
		out[j] = entries{}
		facts[j] = newStatsFacts(asks[todo[j]].keys, asks[todo[j]].cols)
	}
	var j int
	vals := make([]sql.NullString, width)
	ptrs := []any{&j}
	for i := range vals {
		ptrs = append(ptrs, &vals[i])
	}
	// Plain casts of whole tables: planned without the optimizer
	// (plainQuery).
	err := r.plainQuery(ctx, strings.Join(parts, " UNION ALL ")+" ORDER BY ALL", func(rows *sql.Rows) error {
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			if j < 0 || j >= len(todo) {
				return fmt.Errorf("statistics row of part %d of %d", j, len(todo))
			}
			a := asks[todo[j]]
			addStatsEntry(out[j], a.label, a.keys, a.cols, vals[:len(a.keys)+len(a.cols)])
			facts[j].add(vals[:len(a.keys)+len(a.cols)])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for j, i := range todo {
		r.meta.facts[asks[i].memoKey()] = facts[j]
	}
	return out, nil
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
		return nil, fmt.Errorf("read %s of %s: %w", table, oneline.Name(r.path), err)
	}
	defer rows.Close()
	e := entries{}
	facts := newStatsFacts(keys, cols)
	vals := make([]sql.NullString, len(all))
	ptrs := make([]any, len(all))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("read %s of %s: %w", table, oneline.Name(r.path), err)
		}
		addStatsEntry(e, label, keys, cols, vals)
		facts.add(vals)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	r.meta.facts[statsAsk{label: label, table: table, keys: keys, cols: cols}.memoKey()] = facts
	return e, nil
}

// statsFacts is what the rows of a statistics table tell, kept by the
// reader for the steps of the comparison that would otherwise query the
// table again for rows that none can match (oneSidedRows,
// stringStatsWithoutMinMax, tablesOnlyWithStringStatsWithoutMinMax) or
// for what the rows already hold (tablesWithoutColumnStats): whether some
// row has exactly one of min_value and max_value, whether some row has
// neither, and the rows' table ids. Each known flag is false when the rows
// were read without the columns it needs: nothing is then decided. A step
// skipped this way no longer meets the errors its query would have met on
// a damaged catalog (fileColumnStats' listing of A's pairs, a side's text
// statistics too): every answer on a catalog those queries can read is
// the same.
type statsFacts struct {
	known             bool // min_value and max_value read
	minCol, maxCol    int
	oneBound, noBound bool
	// idsKnown: the first key is table_id, a number in every row; ids:
	// every row's, in the order read. counted (countedKnown: record_count
	// and file_size_bytes read): those of the rows where both are set.
	idsKnown, countedKnown bool
	rcCol, sizeCol         int
	ids, counted           []int64
	nkeys                  int
	// vcCol: value_count's column (-1: not read); zeroCount: some row's
	// value_count is 0 (valueCountZero).
	vcCol     int
	zeroCount bool
}

// newStatsFacts starts the facts of rows read with the key columns keys
// and the compared columns cols.
func newStatsFacts(keys, cols []string) statsFacts {
	f := statsFacts{minCol: slices.Index(cols, "min_value"), maxCol: slices.Index(cols, "max_value"), nkeys: len(keys),
		rcCol: slices.Index(cols, "record_count"), sizeCol: slices.Index(cols, "file_size_bytes"), vcCol: slices.Index(cols, "value_count")}
	f.known = f.minCol >= 0 && f.maxCol >= 0
	f.idsKnown = len(keys) > 0 && keys[0] == "table_id"
	f.countedKnown = f.idsKnown && f.rcCol >= 0 && f.sizeCol >= 0
	return f
}

// add takes one row's values: the key columns', then the compared
// columns' (as newStatsFacts was given them).
func (f *statsFacts) add(vals []sql.NullString) {
	cols := vals[f.nkeys:]
	if f.known {
		lo, hi := cols[f.minCol].Valid, cols[f.maxCol].Valid
		f.oneBound = f.oneBound || lo != hi
		f.noBound = f.noBound || (!lo && !hi)
	}
	if f.vcCol >= 0 && cols[f.vcCol].Valid && cols[f.vcCol].String == "0" {
		f.zeroCount = true
	}
	if !f.idsKnown {
		return
	}
	id, err := strconv.ParseInt(vals[0].String, 10, 64)
	if !vals[0].Valid || err != nil {
		f.idsKnown, f.countedKnown, f.ids, f.counted = false, false, nil, nil
		return
	}
	f.ids = append(f.ids, id)
	if f.countedKnown && cols[f.rcCol].Valid && cols[f.sizeCol].Valid {
		f.counted = append(f.counted, id)
	}
}

// tablesWithoutColumnStatsFrom answers tablesWithoutColumnStats from the
// rows the statistics comparison read (ts: ducklake_table_stats, cs:
// ducklake_table_column_stats, as asked of this reader), where they hold
// what its query reads: the table ids of the table statistics rows whose
// record_count and file_size_bytes are set, in order, without those of a
// column statistics row. Otherwise (or once answered) it does nothing.
func (r *Reader) tablesWithoutColumnStatsFrom(ts, cs statsAsk) {
	if r.statsChecked || ts.table != "ducklake_table_stats" || cs.table != "ducklake_table_column_stats" || r.empty(ts.table) {
		return
	}
	if _, ok := r.layout[cs.table]; !ok {
		return
	}
	ft, ok := r.meta.facts[ts.memoKey()]
	if !ok || !ft.countedKnown {
		return
	}
	withStats := map[int64]bool{}
	if !r.empty(cs.table) {
		fc, ok := r.meta.facts[cs.memoKey()]
		if !ok || !fc.idsKnown {
			return
		}
		for _, id := range fc.ids {
			withStats[id] = true
		}
	}
	var ids []int64
	for _, id := range ft.counted {
		if !withStats[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	r.statsChecked, r.statsBadTables = true, ids
}

// noRowWith reports whether the rows of ask, as this reader last read
// them, are known to hold no row with one bound only (one true) or with
// neither bound (one false). false when the rows were not read.
func (r *Reader) noRowWith(ask statsAsk, one bool) bool {
	f, ok := r.meta.facts[ask.memoKey()]
	if !ok || !f.known {
		return false
	}
	if one {
		return !f.oneBound
	}
	return !f.noBound
}

// noZeroValueCount reports whether the rows of ask, as this reader last
// read them, are known to hold no row whose value_count is 0. false when
// the rows (or their value_count) were not read.
func (r *Reader) noZeroValueCount(ask statsAsk) bool {
	f, ok := r.meta.facts[ask.memoKey()]
	return ok && f.vcCol >= 0 && !f.zeroCount
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

// statsRows reads back an entry's text as addStatsEntry writes it: its
// rows (" | " between them), each the values of cols in that order (nil
// for NULL). false where the text is not so written (a step rewrote it
// otherwise): nothing is then decided from it.
func statsRows(text string, cols []string) ([][]*string, bool) {
	var rows [][]*string
	for {
		row := make([]*string, len(cols))
		for i, c := range cols {
			if i > 0 {
				if !strings.HasPrefix(text, " ") {
					return nil, false
				}
				text = text[1:]
			}
			if !strings.HasPrefix(text, c+"=") {
				return nil, false
			}
			text = text[len(c)+1:]
			if strings.HasPrefix(text, "NULL") {
				text = text[len("NULL"):]
				continue
			}
			q, err := strconv.QuotedPrefix(text)
			if err != nil {
				return nil, false
			}
			v, err := strconv.Unquote(q)
			if err != nil {
				return nil, false
			}
			row[i], text = &v, text[len(q):]
		}
		rows = append(rows, row)
		if text == "" {
			return rows, true
		}
		if !strings.HasPrefix(text, " | ") {
			return nil, false
		}
		text = text[len(" | "):]
	}
}

// boundsNulled says whether B's entry tb is A's entry ta with its
// min_value lo and max_value hi (nil: NULL) both NULL and every other
// column equal, compared column by column (statsRows), not as text: one
// row on each side, A's bounds lo and hi. A key with two rows on either
// side is never one row's NULLed bounds: which row would stand for which
// is not told.
func boundsNulled(ta, tb string, cols []string, lo, hi *string) bool {
	lc, hc := slices.Index(cols, "min_value"), slices.Index(cols, "max_value")
	if lc < 0 || hc < 0 {
		return false
	}
	ra, okA := statsRows(ta, cols)
	rb, okB := statsRows(tb, cols)
	if !okA || !okB || len(ra) != 1 || len(rb) != 1 {
		return false
	}
	same := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	for i := range cols {
		a, b := ra[0][i], rb[0][i]
		switch i {
		case lc:
			if !same(a, lo) || b != nil {
				return false
			}
		case hc:
			if !same(a, hi) || b != nil {
				return false
			}
		default:
			if !same(a, b) {
				return false
			}
		}
	}
	return true
}

// statsText is a statistics value as its entry shows it.
func statsText(v *string) string {
	if v == nil {
		return "NULL"
	}
	return strconv.Quote(*v)
}

// statsNone says of one statistics table which sides' rows are known
// (statsFacts) to hold no row with one of min_value and max_value only
// (oneA, oneB), no row with neither (neitherA, neitherB) and, of the file
// column statistics, no row whose value_count is 0 (zeroA, zeroB); false
// where not known.
type statsNone struct{ oneA, oneB, neitherA, neitherB, zeroA, zeroB bool }

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
		side string
		r    *Reader
		name func(*read) string
		set  func(*read, entries)
	}{
		{"A", c.a, func(rd *read) string { return rd.na }, func(rd *read, e entries) { rd.ea = e }},
		{"B", c.b, func(rd *read) string { return rd.nb }, func(rd *read, e entries) { rd.eb = e }},
	} {
		asks := make([]statsAsk, len(reads))
		for i, rd := range reads {
			asks[i] = statsAsk{label: rd.label, table: side.name(rd), keys: rd.keys, cols: rd.cols}
		}
		es, err := side.r.statsEntriesAll(c.ctx, asks)
		if err != nil {
			return c.mark(side.r, err)
		}
		for i, rd := range reads {
			side.set(rd, es[i])
		}
	}
	// B's rows keyed by data_file_id are keyed as A's rows of the same
	// data file (fileTies): the id each side's readers join them on.
	for _, rd := range reads {
		eb, err := c.tieFileStats(rd.label, rd.keys, rd.eb)
		if err != nil {
			return err
		}
		rd.eb = eb
	}
	// What the rows read tell, so that the steps below do not query for
	// rows none of them can match.
	none := map[string]statsNone{}
	for _, rd := range reads {
		askA := statsAsk{label: rd.label, table: rd.na, keys: rd.keys, cols: rd.cols}
		askB := statsAsk{label: rd.label, table: rd.nb, keys: rd.keys, cols: rd.cols}
		none[rd.label] = statsNone{
			oneA: c.a.noRowWith(askA, true), oneB: c.b.noRowWith(askB, true),
			neitherA: c.a.noRowWith(askA, false), neitherB: c.b.noRowWith(askB, false),
		}
	}
	columnStats := none["ducklake_table_column_stats"]
	var tableStatsRead, columnStatsRead *read
	for _, rd := range reads {
		switch rd.label {
		case "ducklake_table_stats":
			tableStatsRead = rd
		case "ducklake_table_column_stats":
			columnStatsRead = rd
		}
	}
	if tableStatsRead != nil && columnStatsRead != nil {
		ts, cs := tableStatsRead, columnStatsRead
		c.a.tablesWithoutColumnStatsFrom(statsAsk{label: ts.label, table: ts.na, keys: ts.keys, cols: ts.cols}, statsAsk{label: cs.label, table: cs.na, keys: cs.keys, cols: cs.cols})
		c.b.tablesWithoutColumnStatsFrom(statsAsk{label: ts.label, table: ts.nb, keys: ts.keys, cols: ts.cols}, statsAsk{label: cs.label, table: cs.nb, keys: cs.keys, cols: cs.cols})
	}
	for _, rd := range reads {
		if rd.label == "ducklake_table_stats" {
			if err := c.earlyTableStats(rd.label, rd.ea, rd.eb); err != nil {
				return err
			}
			if err := c.dropUnreadableTableStats(rd.label, rd.ea, rd.eb); err != nil {
				return err
			}
			if err := c.dropStringOnlyTableStats(rd.label, rd.ea, rd.eb, columnStats.neitherA); err != nil {
				return err
			}
		}
		if rd.label == "ducklake_file_column_stats" {
			if err := c.fileColumnStats(rd.label, rd.na, rd.nb, rd.ea, rd.eb); err != nil {
				return err
			}
		}
		if rd.label == "ducklake_table_column_stats" {
			if err := c.stringTableStats(rd.label, rd.ea, rd.eb, none[rd.label]); err != nil {
				return err
			}
		}
		if rd.label == "ducklake_file_column_stats" || rd.label == "ducklake_table_column_stats" {
			if err := c.textStats(rd.label, rd.na, rd.nb, rd.ea, rd.eb); err != nil {
				return err
			}
		}
		if rd.label == "ducklake_file_column_stats" {
			none := statsNone{
				zeroA: c.a.noZeroValueCount(statsAsk{label: rd.label, table: rd.na, keys: rd.keys, cols: rd.cols}),
				zeroB: c.b.noZeroValueCount(statsAsk{label: rd.label, table: rd.nb, keys: rd.keys, cols: rd.cols}),
			}
			if err := c.valueCountZero(rd.label, rd.na, rd.nb, rd.ea, rd.eb, none); err != nil {
				return err
			}
		}
		if err := c.oneSidedTableStats(rd.label, rd.na, rd.nb, rd.cols, rd.ea, rd.eb, none[rd.label]); err != nil {
			return err
		}
		if err := c.unfoldedStringBounds(rd.label, rd.na, rd.cols, rd.ea, rd.eb); err != nil {
			return err
		}
		c.diffEntries("stats", nil, "", rd.ea, rd.eb)
	}
	return nil
}
