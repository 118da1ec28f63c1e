package convert

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// textStats applies each formats.TextStats kind (the statistics some
// readers compare as text: formats.QuirkBooleanStatsComparedAsText,
// formats.QuirkTemporalStatsComparedAsText). To a target whose readers
// compare the kind's statistics as text, every statistic is written in the
// kind's ordered spelling, whose text order is its value order for every
// constant (BOOLEAN: 'false'/'true', where DuckLake 1.5's writers write
// '0'/'1', which those readers compare with 'true' as text and so skip
// every file under = true; temporal: NULL, as no text orders dates of the
// year 10000 or BC, or TIMETZ offsets, as their values); these readers
// then keep every file the specification's reading could match, as readers
// that compare by value do. From a source with the quirk to a target
// without it, the kind's plain spelling is written again where it has one
// (BOOLEAN '0'/'1', what the target's writers write for inserted rows: a
// catalog converted down and up again has its source's rows; newer readers
// cast both spellings to the same value); NULLed temporal statistics stay
// NULL (the file is kept under every filter). It runs after
// fileColumnStats, which drops read-alike rows by their 'true'/'false'.
func (r *run) textStats(step string, source, target *formats.Version) error {
	var parts []textStatsPart
	for _, k := range formats.AllTextStats {
		ps, err := r.textStatsParts(k, source, target)
		if err != nil {
			return fmt.Errorf("%s: %w", k.Quirk.Info().Name, err)
		}
		parts = append(parts, ps...)
	}
	if len(parts) == 0 {
		return nil
	}
	r.withoutUntypedKinds(parts)
	r.listTextStats(parts)
	for _, k := range formats.AllTextStats {
		if err := r.textStatsKind(step, k, source, target, parts); err != nil {
			return fmt.Errorf("%s: %w", k.Quirk.Info().Name, err)
		}
	}
	return nil
}

// textStatsPart is one statistics table whose statistics of a kind a
// conversion respells: the table, the listing of what it rewrites (by
// table and column, and how many files) and the rewrite (SpellSQL).
type textStatsPart struct {
	k             *formats.TextStats
	stats         string
	list, rewrite string
	hits          string   // list's rows by table_id t, column_id c, count n and whether files are counted, for listTextStats
	listed        bool     // cols is known (listTextStats)
	cols          []string // the listing's rows
}

// textStatsParts lists the statistics tables of the working copy whose
// statistics of kind k a conversion from source to target respells (none
// when both read them alike).
func (r *run) textStatsParts(k *formats.TextStats, source, target *formats.Version) ([]textStatsPart, error) {
	ordered := target.ReadsWith(k.Quirk)
	if !ordered && !source.ReadsAsSourceWith(k.Quirk) {
		return nil, nil
	}
	if ordered && source.ReadsAsSourceWith(k.Quirk) && k != formats.BooleanTextStats {
		// Read alike, as text, by both: kept (BOOLEAN is respelled
		// anyway, which changes no reader's files).
		return nil, nil
	}
	var parts []textStatsPart
	for _, stats := range k.Tables {
		ok, err := r.w.hasTable(r.ctx, stats)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		query := k.SpellSQL("", stats, ordered)
		if query == "" {
			continue
		}
		// What is rewritten, by table and column (and how many files),
		// before it is.
		count := `''`
		if k.PrunesFiles(stats) {
			count = `': ' || count(*) || CASE WHEN count(*) = 1 THEN ' file' ELSE ' files' END`
		}
		list := `SELECT coalesce((SELECT any_value(t.table_name) FROM ducklake_table t WHERE t.table_id = s.table_id), '?')
			|| '.' || coalesce((SELECT arg_max(c.column_name, c.begin_snapshot) FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id), '?')
			|| ' (table ' || s.table_id || ', column ' || s.column_id || ')' || ` + count + `
			FROM ` + stats + ` s WHERE ` + k.RespellSQL("", ordered) + ` GROUP BY s.table_id, s.column_id ORDER BY s.table_id, s.column_id`
		hits := fmt.Sprintf(`SELECT s.table_id AS t, s.column_id AS c, count(*) AS n, %t AS files FROM %s s WHERE %s GROUP BY s.table_id, s.column_id`,
			k.PrunesFiles(stats), stats, k.RespellSQL("", ordered))
		parts = append(parts, textStatsPart{k: k, stats: stats, list: list, hits: hits, rewrite: query})
	}
	return parts, nil
}

// withoutUntypedKinds marks listed, with nothing to rewrite, the parts of
// the kinds no column of the working copy is of, in one statement over
// ducklake_column: their listings and rewrites select only statistics of
// a column of the kind (RespellSQL), so they would find and change no row.
// Most catalogs have no BOOLEAN column, and none of the temporal types;
// their conversions then plan no listing at all. When the statement fails
// the parts are left to be listed.
func (r *run) withoutUntypedKinds(parts []textStatsPart) {
	var kinds []*formats.TextStats
	for _, p := range parts {
		if !slices.Contains(kinds, p.k) {
			kinds = append(kinds, p.k)
		}
	}
	typed := make([]string, len(kinds))
	for i, k := range kinds {
		typed[i] = "coalesce(bool_or(" + k.TypeSQL("c") + "), false)"
	}
	has := make([]bool, len(kinds))
	ptrs := make([]any, len(kinds))
	for i := range has {
		ptrs[i] = &has[i]
	}
	if err := r.w.conn.QueryRowContext(r.ctx, "SELECT "+strings.Join(typed, ", ")+" FROM ducklake_column c").Scan(ptrs...); err != nil {
		return
	}
	for i := range parts {
		if !has[slices.Index(kinds, parts[i].k)] {
			parts[i].cols, parts[i].listed = nil, true
		}
	}
}

// listTextStats runs the listings of parts in one statement, before any
// rewrite. Each listing is what it would be alone just before its own
// rewrite: it reads its own table (no other part's rewrite changes it)
// and ducklake_table and ducklake_column (no rewrite changes them), except
// the temporal kind's listing of a file statistics table the BOOLEAN kind
// rewrote first; that one selects rows by whether min_value or max_value
// is NULL, which the BOOLEAN spellings never change (NULL stays NULL, a
// text stays a text). Most conversions rewrite nothing, and then run this
// one statement instead of a listing and an UPDATE per table. When it
// fails, textStatsKind lists each part alone, and its error names the
// table.
func (r *run) listTextStats(parts []textStatsPart) {
	var selects []string
	for i, p := range parts {
		if !p.listed {
			selects = append(selects, fmt.Sprintf("SELECT %d AS part, * FROM (%s)", i, p.hits))
		}
	}
	if len(selects) == 0 {
		return
	}
	// Each part's list, its names looked up once for all parts' rows.
	rows, err := r.w.conn.QueryContext(r.ctx, `SELECT h.part, coalesce((SELECT any_value(t.table_name) FROM ducklake_table t WHERE t.table_id = h.t), '?')
			|| '.' || coalesce((SELECT arg_max(c.column_name, c.begin_snapshot) FROM ducklake_column c WHERE c.table_id = h.t AND c.column_id = h.c), '?')
			|| ' (table ' || h.t || ', column ' || h.c || ')'
			|| CASE WHEN h.files THEN ': ' || h.n || CASE WHEN h.n = 1 THEN ' file' ELSE ' files' END ELSE '' END
		FROM (`+strings.Join(selects, "\nUNION ALL\n")+`) h ORDER BY h.part, h.t, h.c`)
	if err != nil {
		return
	}
	defer rows.Close()
	cols := make([][]string, len(parts))
	for rows.Next() {
		var i int
		var item sql.NullString
		if err := rows.Scan(&i, &item); err != nil {
			return
		}
		cols[i] = append(cols[i], item.String)
	}
	if rows.Err() != nil {
		return
	}
	for i := range parts {
		if !parts[i].listed {
			parts[i].cols, parts[i].listed = cols[i], true
		}
	}
}

// textStatsKind rewrites the statistics of kind k of parts (listed first
// when listTextStats could not) and notes what it rewrote.
func (r *run) textStatsKind(step string, k *formats.TextStats, source, target *formats.Version, parts []textStatsPart) error {
	ordered := target.ReadsWith(k.Quirk)
	var items, tables []string
	for _, p := range parts {
		if p.k != k {
			continue
		}
		cols := p.cols
		if !p.listed {
			var err error
			if cols, err = r.w.strings(r.ctx, p.list); err != nil {
				return fmt.Errorf("list the %s statistics %s rewrites: %w", k.Kind, p.stats, err)
			}
		}
		if len(cols) == 0 {
			continue // the rewrite's condition is the listing's: it would change no row
		}
		if n, err := r.w.execCount(r.ctx, p.rewrite); err != nil {
			return err
		} else if n > 0 {
			items, tables = append(items, fmt.Sprintf("%s: %s", p.stats, strings.Join(cols, ", "))), append(tables, p.stats)
		}
	}
	if len(items) == 0 {
		return nil
	}
	info := k.Quirk.Info()
	var reason string
	switch {
	case k == formats.BooleanTextStats && ordered:
		reason = fmt.Sprintf("BOOLEAN min_value/max_value written 'false'/'true': format %s readers compare them as text with the filter's constant ('true'/'false'; %s), so the '0'/'1' of DuckLake 1.5's writers would skip every file under WHERE col = true; 'false'/'true' sort as the values and every reader casts them to the same values", target.Name, info.Name)
	case k == formats.BooleanTextStats:
		reason = fmt.Sprintf("BOOLEAN min_value/max_value 'false'/'true' (written for readers that compare them as text, %s) written '0'/'1' again, as format %s writers write them; format %s readers cast both to the same values", info.Name, target.Name, target.Name)
	default:
		reason = fmt.Sprintf("%s min_value/max_value of data files written NULL: format %s readers compare them as text with the filter's constant (%s), and no text sorts as the values for every constant (years 10000 and later, BC dates, TIMETZ offsets), so they would skip files that hold matching rows; with NULL statistics they keep the files and filter their rows (rows unchanged; only file pruning on these columns is lost)", k.Kind, target.Name, info.Name)
	}
	r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: strings.Join(tables, ", "), Detail: strings.Join(items, "; "), Reason: reason})
	return nil
}
