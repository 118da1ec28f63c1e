package convert

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
)

// valueCountZero applies formats.QuirkValueCountZeroPruned. From a source
// whose readers keep a data file whose statistics row for a column has
// value_count 0 (0.1-0.4) to a target whose readers skip it under a
// comparison filter (1.0 as DuckDB 1.5.3+ read it, 1.1), every such row
// that may hold values of the column (formats.ValueCountZeroWithValuesSQL:
// DuckLake 1.5.0+ writers store 0 for every TIMETZ and INTERVAL file) gets
// value_count NULL: what DuckLake's own writers store where the count is
// not known, and what every reader keeps the file for, under every filter
// (value_count IS NULL OR value_count > 0; IS NOT NULL's value_count > 0 is
// preceded by the same NULL test). Not record_count - null_count: the
// null_count of those columns is 0 even where the file holds NULLs (the
// same Parquet writer), and a count made of it would be a guess; NULL says
// what is known. Other statistics are kept. A file of NULLs only
// (null_count at least record_count) keeps its 0: both readers skip it
// rightly, as no comparison matches NULL. Between formats whose readers
// both skip (1.0 and 1.1), the rows are copied as they are.
func (r *run) valueCountZero(step string, source, target *formats.Version) error {
	q := formats.QuirkValueCountZeroPruned
	if !target.ReadsWith(q) || source.ReadsAsSourceWith(q) {
		return nil
	}
	stats, err := r.fileStatsTable()
	if err != nil || stats == "" {
		return err
	}
	if ok, err := r.w.hasColumn(r.ctx, stats, "value_count"); err != nil || !ok {
		return err
	}
	if !r.mayFind(&factValueCountZero) {
		return nil
	}
	cond := formats.ValueCountZeroWithValuesSQL("")
	items, err := r.w.strings(r.ctx, `SELECT coalesce((SELECT any_value(t.table_name) FROM ducklake_table t WHERE t.table_id = s.table_id), '?')
			|| '.' || coalesce((SELECT arg_max(c.column_name, c.begin_snapshot) FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id), '?')
			|| ' (table ' || s.table_id || ', column ' || s.column_id || '): ' || count(*) || CASE WHEN count(*) = 1 THEN ' file' ELSE ' files' END
		FROM `+stats+` s WHERE `+cond+` GROUP BY s.table_id, s.column_id ORDER BY s.table_id, s.column_id`)
	if err != nil || len(items) == 0 {
		return err
	}
	if err := r.w.exec(r.ctx, `UPDATE `+stats+` s SET value_count = NULL WHERE `+cond); err != nil {
		return err
	}
	info := q.Info()
	r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: stats, Detail: summarize(items),
		Reason: fmt.Sprintf("value_count 0 of data files that may hold values of the column written NULL: format %s readers skip a file whose value_count is 0 under every filter comparing the column's min or max (%s), format %s readers keep it, and DuckLake 1.5's writers store 0 for every file of a TIMETZ or INTERVAL column (DuckDB's Parquet writer counts no values there); with NULL every reader keeps the file and filters its rows (rows unchanged)", target.Name, info.Name, source.Name)})
	return nil
}
