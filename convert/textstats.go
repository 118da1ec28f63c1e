package convert

import (
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
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
	for _, k := range formats.AllTextStats {
		if err := r.textStatsKind(step, k, source, target); err != nil {
			return fmt.Errorf("%s: %w", k.Quirk.Info().Name, err)
		}
	}
	return nil
}

func (r *run) textStatsKind(step string, k *formats.TextStats, source, target *formats.Version) error {
	ordered := target.ReadsWith(k.Quirk)
	if !ordered && !source.ReadsAsSourceWith(k.Quirk) {
		return nil
	}
	if ordered && source.ReadsAsSourceWith(k.Quirk) && k != formats.BooleanTextStats {
		// Read alike, as text, by both: kept (BOOLEAN is respelled
		// anyway, which changes no reader's files).
		return nil
	}
	var items, tables []string
	for _, stats := range k.Tables {
		ok, err := r.w.hasTable(r.ctx, stats)
		if err != nil {
			return err
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
		cols, err := r.w.strings(r.ctx, `SELECT coalesce((SELECT any_value(t.table_name) FROM ducklake_table t WHERE t.table_id = s.table_id), '?')
			|| '.' || coalesce((SELECT arg_max(c.column_name, c.begin_snapshot) FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id), '?')
			|| ' (table ' || s.table_id || ', column ' || s.column_id || ')' || `+count+`
			FROM `+stats+` s WHERE `+k.RespellSQL("", ordered)+` GROUP BY s.table_id, s.column_id ORDER BY s.table_id, s.column_id`)
		if err != nil {
			return fmt.Errorf("list the %s statistics %s rewrites: %w", k.Kind, stats, err)
		}
		res, err := r.w.conn.ExecContext(r.ctx, query)
		if err != nil {
			return fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			items, tables = append(items, fmt.Sprintf("%s: %s", stats, strings.Join(cols, ", "))), append(tables, stats)
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
