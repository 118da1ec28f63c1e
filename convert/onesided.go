package convert

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
)

// oneSidedTableStats writes both bounds NULL in the ducklake_table_column_stats
// rows of numeric and temporal columns (formats.OneSidedStatsTypes) that
// have only one of min_value and max_value, for a target whose readers read
// such a row as an empty range (formats.OneSidedStatsEmpty: 0.4, 1.0, 1.1),
// where a filter on the column would return no rows; every reader reads
// both NULL as unknown statistics and keeps every row, and none folds
// min/max from a row without both bounds, so no answer changes but the
// wrong one. Such rows come from a 0.1-0.3 source (whose readers give no
// statistics for them) or from a hand-made catalog. A note names them.
func (r *run) oneSidedTableStats(step string, target *formats.Version) error {
	if !formats.OneSidedStatsEmpty(target) {
		return nil
	}
	if ok, err := r.w.hasTable(r.ctx, "ducklake_table_column_stats"); err != nil || !ok {
		return err
	}
	if !r.mayFind(&factTableStatsOneBound) {
		return nil
	}
	where := `(s.min_value IS NULL) <> (s.max_value IS NULL) AND EXISTS (SELECT 1 FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id AND ` + formats.OneSidedStatsTypeSQL("c.column_type") + `)`
	items, err := r.w.strings(r.ctx, `SELECT 'table ' || s.table_id || ' column ' || s.column_id || ': min_value ' || coalesce(s.min_value, 'NULL') || ', max_value ' || coalesce(s.max_value, 'NULL')
		FROM ducklake_table_column_stats s WHERE `+where+` ORDER BY s.table_id, s.column_id`)
	if err != nil || len(items) == 0 {
		return err
	}
	if err := r.w.exec(r.ctx, `UPDATE ducklake_table_column_stats s SET min_value = NULL, max_value = NULL WHERE `+where); err != nil {
		return err
	}
	r.add(Finding{Severity: Note, Code: "one-sided-table-stats", Step: step, Table: "ducklake_table_column_stats", Detail: summarize(items),
		Reason: fmt.Sprintf("table column statistics with only one bound written without either: format %s readers (DuckLake 1.5's CreateNumericStats starts from an empty range and sets only the bound present) would answer a filter on the column with no rows, where readers of 0.1-0.3 give no statistics; without bounds every reader keeps every row", target.Name)})
	return nil
}
