package convert

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
)

// oneSidedTableStats writes both bounds NULL in the ducklake_table_column_stats
// rows of numeric and temporal columns (formats.OneSidedStatsTypes) that
// have only one of min_value and max_value, for a target whose readers set
// a single bound (formats.OneSidedStatsEmpty: 0.4, 1.0, 1.1). Those readers
// (DuckLake 1.5's CreateNumericStats, from NumericStats::CreateEmpty) read
// such a row as [v, type minimum] or [type maximum, v]: no bounds for
// DuckDB (NumericStats::HasMinMax is false where min > max) unless v is at
// or beyond the type's extreme in its direction, where the column reads as
// that one value and a filter folds by it (x > 0 on a UINTEGER with
// min_value '0' answers no rows; formats.OneSidedMisreadSQL). Every such
// row is written without bounds, not only the misread ones: the others
// already read as no statistics, as both NULL does, so no answer changes
// but the wrong one, and convert needs no cast of the bound (nor the
// conservative bands for TIMESTAMP_NS and TIMESTAMPTZ). Such rows come from a
// 0.1-0.3 source (whose readers give no statistics for them) or from a
// hand-made catalog. A note names them.
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
		Reason: fmt.Sprintf("table column statistics with only one bound written without either: format %s readers (DuckLake 1.5's CreateNumericStats from NumericStats::CreateEmpty) read a bound at or beyond its type's extreme in its direction (a min_value at the type's minimum, a max_value at its maximum) as the range of that one value and fold a filter on the column by it, and any other one-sided row as no statistics (min > max, which DuckDB's NumericStats::HasMinMax reads as no bounds), as readers of 0.1-0.3 read every one-sided row; without bounds every reader reads no statistics and keeps every row", target.Name)})
	return nil
}
