package convert

import (
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// booleanStats applies formats.QuirkBooleanStatsComparedAsText. To a target
// whose readers compare BOOLEAN statistics as text, every BOOLEAN min/max
// statistic that casts to a BOOLEAN is written 'false' or 'true' (DuckLake
// 1.5's writers write '0'/'1', which those readers compare with 'true' as
// text and so skip every file under = true); these readers then keep
// exactly the files the specification's reading could match, as readers
// that compare by value do. From a source with the quirk to a target
// without it, 'false'/'true' become '0'/'1' again, what the target's
// writers write for inserted rows: a catalog converted down and up again
// has its source's rows (newer readers cast both spellings to the same
// value; statistics a 1.0 writer took from a Parquet footer, spelled
// 'false'/'true', come back '0'/'1'). It runs after
// fileColumnStats, which drops read-alike rows by their 'true'/'false'.
func (r *run) booleanStats(step string, source, target *formats.Version) error {
	q := formats.QuirkBooleanStatsComparedAsText
	ordered := target.ReadsWith(q)
	if !ordered && !source.ReadsAsSourceWith(q) {
		return nil
	}
	var items, tables []string
	for _, stats := range formats.BooleanStatsTables {
		ok, err := r.w.hasTable(r.ctx, stats)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		query := formats.BooleanStatsSpellSQL("", stats, ordered)
		res, err := r.w.conn.ExecContext(r.ctx, query)
		if err != nil {
			return fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			items, tables = append(items, fmt.Sprintf("%s: %d rows", stats, n)), append(tables, stats)
		}
	}
	if len(items) == 0 {
		return nil
	}
	info := q.Info()
	reason := fmt.Sprintf("BOOLEAN min_value/max_value written 'false'/'true': format %s readers compare them as text with the filter's constant ('true'/'false'; %s), so the '0'/'1' of DuckLake 1.5's writers would skip every file under WHERE col = true; 'false'/'true' sort as the values and every reader casts them to the same values", target.Name, info.Name)
	if !ordered {
		reason = fmt.Sprintf("BOOLEAN min_value/max_value 'false'/'true' (written for readers that compare them as text, %s) written '0'/'1' again, as format %s writers write them; format %s readers cast both to the same values", info.Name, target.Name, target.Name)
	}
	r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: strings.Join(tables, ", "), Detail: strings.Join(items, "; "), Reason: reason})
	return nil
}
