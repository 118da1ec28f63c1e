package convert

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
)

// rowIDStartCheck applies formats.QuirkRowIDStartRequired: a target some
// of whose readers (0.1: DuckDB 1.3.0; 0.2: its first release, 1.3.1,
// formats.Version.EarlyQuirks) read every visible data file's row_id_start
// as a number fails every read of a table with a visible data file whose
// row_id_start is NULL (what DuckLake's merge of files whose row ids are
// not adjacent writes, the rows' ids then being in the file). No value
// can be written in its place that a 0.1/0.2 writer would have written (the
// merged file's row ids are not a range), so the conversion is refused,
// naming each table and data file. A file no snapshot sees (begin_snapshot
// at or past end_snapshot) is listed too: those releases' change feed
// (GetTableInsertions, GetTableDeletions) reads the row_id_start of every
// data file begun or ended in its range as a number as well.
func (r *run) rowIDStartCheck(step string, target *formats.Version) error {
	q := formats.QuirkRowIDStartRequired
	if !target.ReadsWith(q) && !target.EarlyReadsWith(q) {
		return nil
	}
	info := q.Info()
	releases := target.ReadersWith(q)
	return r.runCheck(step, check{code: info.Name, table: "ducklake_data_file",
		query: `SELECT 'table ' || d.table_id || ' ' || coalesce((SELECT any_value(t.table_name) FROM ducklake_table t WHERE t.table_id = d.table_id), '?')
				|| ' data_file_id ' || d.data_file_id || ' ' || d.path
				|| CASE WHEN d.end_snapshot <= d.begin_snapshot THEN ' (no snapshot sees it: begin_snapshot ' || d.begin_snapshot || ', end_snapshot ' || d.end_snapshot || ')'
					ELSE ' (snapshots ' || d.begin_snapshot || '..' || coalesce((d.end_snapshot - 1)::VARCHAR, '') || ')' END
			FROM ducklake_data_file d
			WHERE d.row_id_start IS NULL
			ORDER BY d.table_id, d.data_file_id`,
		reason: fmt.Sprintf("%s fail to read these tables while such a data file is visible, and their change feed over the snapshots where one begins or ends: %s (%s); no row_id_start can be written for it that a format %s writer would have written (its rows' ids are stored in the file, not as a range)",
			releases, info.Behaviour, info.Source, target.Name),
	})
}
