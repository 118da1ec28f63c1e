package convert

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
)

// timeNSCheck refuses, between a format whose readers cannot read a data
// file's TIME_NS field (formats.QuirkTimeNSFilesUnreadable: 0.4, DuckDB
// 1.5.0 and 1.5.1) and one whose readers can, every data file that holds a
// field of a time_ns column while it is visible: a file without a name
// mapping holds the fields that exist when it is written (its
// begin_snapshot, found by field id), a name-mapped one is taken to hold
// them all (the proof reads its mapping).
func (r *run) timeNSCheck(step string, source, target *formats.Version) error {
	q := formats.QuirkTimeNSFilesUnreadable
	if formats.ReadAlike(source, target, q) || !r.mayFind(&factTimeNSColumns) {
		return nil
	}
	mapped := "false"
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", "mapping_id"); err != nil {
		return fmt.Errorf("%s: %w", q.Info().Name, err)
	} else if ok {
		mapped = "f.mapping_id IS NOT NULL"
	}
	rows, err := r.w.fields(r.ctx, `WITH first AS (SELECT table_id, column_id, min(begin_snapshot) AS begin_snapshot FROM ducklake_column GROUP BY ALL),
		names AS (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id)
		SELECT f.table_id, coalesce(n.table_name, '?'), f.data_file_id, f.path, f.begin_snapshot, arg_min(c.column_name, c.column_id), min(c.column_id), greatest(min(c.begin_snapshot), f.begin_snapshot)
		FROM ducklake_data_file f
		JOIN ducklake_column c ON c.table_id = f.table_id
		JOIN first fc ON fc.table_id = c.table_id AND fc.column_id = c.column_id
		LEFT JOIN names n ON n.table_id = f.table_id
		WHERE lower(trim(c.column_type)) = 'time_ns'
			AND c.begin_snapshot < coalesce(f.end_snapshot, 9223372036854775807) AND coalesce(c.end_snapshot, 9223372036854775807) > f.begin_snapshot
			AND (`+mapped+` OR fc.begin_snapshot <= f.begin_snapshot)
		GROUP BY f.table_id, n.table_name, f.data_file_id, f.path, f.begin_snapshot ORDER BY f.data_file_id`)
	if err != nil {
		return fmt.Errorf("%s: %w", q.Info().Name, err)
	}
	var items []string
	for _, f := range rows {
		items = append(items, fmt.Sprintf("table %s %s: data_file_id %s %s (written at snapshot %s) holds %s (column_id %s), of type time_ns at snapshot %s", f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]))
	}
	r.refuseQuirk(step, q, source, target, "ducklake_data_file", items)
	return nil
}
