package convert

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
)

// unfoldStringBounds writes both bounds NULL in the ducklake_table_column_stats
// rows of top-level VARCHAR columns that a target's readers fold min/max
// from (formats.FoldedStringBoundsSQL) where no reader of the source folds
// them (formats.StringBoundsUnfolded: 0.1-0.4 to 1.0 and 1.1). DuckDB 2.0
// answers SELECT min(s), max(s) from such a row when the statistics are
// exact, and DuckDB's Parquet writer (so every DuckLake writer) stores a
// string past 256 bytes cut, the max with its last byte incremented: a
// value the table does not hold, where the source's readers scan the
// rows. No text of a bound tells whether it was cut (a cut max may be of
// any length up to 256, and ducklake_add_data_files keeps other writers'
// cuts), so every such row is written without bounds: DuckDB 2.0 then
// scans, as the source's readers and 1.0's DuckDB 1.5 readers do, and no
// answer changes but the wrong one. Pruning a whole table by these bounds
// is lost. A note names the tables and columns.
func (r *run) unfoldStringBounds(step string, source, target *formats.Version) error {
	if !formats.StringBoundsUnfolded(source, target) {
		return nil
	}
	if ok, err := r.w.hasTable(r.ctx, "ducklake_table_column_stats"); err != nil || !ok {
		return err
	}
	where := formats.FoldedStringBoundsSQL("")
	items, err := r.w.strings(r.ctx, `SELECT 'table ' || coalesce((SELECT any_value(t.table_name ORDER BY t.begin_snapshot DESC) FROM ducklake_table t WHERE t.table_id = s.table_id), '?') || ' (id ' || s.table_id || ')'
			|| ' column ' || coalesce((SELECT arg_max(c.column_name, c.begin_snapshot) FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id), '?') || ' (id ' || s.column_id || ')'
		FROM ducklake_table_column_stats s WHERE `+where+` ORDER BY s.table_id, s.column_id`)
	if err != nil || len(items) == 0 {
		return err
	}
	if err := r.w.exec(r.ctx, `UPDATE ducklake_table_column_stats s SET min_value = NULL, max_value = NULL WHERE `+where); err != nil {
		return err
	}
	st := target.ReadsTableStats()
	r.add(Finding{Severity: Note, Code: "string-table-stats-unfolded", Step: step, Table: "ducklake_table_column_stats", Detail: summarize(items),
		Reason: fmt.Sprintf("table column statistics of VARCHAR columns written without min_value and max_value: %s, a format %s reader, answers SELECT min(s), max(s) from both bounds when the statistics are exact, and DuckDB's Parquet writer stores a string past 256 bytes cut (the max with its last byte incremented), a value the table may not hold, where format %s readers scan the rows; no text of a bound tells whether it was cut. Without bounds every reader scans (DuckLake reads them as no statistics); pruning the whole table by them is lost", st.FoldStringMinMax, target.Name, source.Name)})
	return nil
}
