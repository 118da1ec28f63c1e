package convert

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// timeNSCheck refuses, between a format whose readers cannot read a data
// file's Parquet TIME field of a time_ns column
// (formats.QuirkTimeNSFilesUnreadable: 0.4, DuckDB 1.5.0 and 1.5.1; and
// 1.0's first releases, DuckDB 1.5.2-1.5.5, as a target) and one whose
// readers can, every data file that holds such a field while it is
// visible. Which files hold a field of the column is taken from the
// catalog (a file without a name mapping holds the fields that exist when
// it is written, its begin_snapshot, found by field id; a name-mapped one
// any), and whether the field is a Parquet TIME from the file's footer
// where it is under the local data folder and not encrypted: a field
// stored as text (what DuckDB wrote for TIME_NS before its Parquet writer
// knew the type) reads in every release. A file whose footer is not read
// is refused for a target that reads with the quirk (no catalog rather
// than one no reader reads) and left to the proof for a source that does.
func (r *run) timeNSCheck(step string, source, target *formats.Version) error {
	q := formats.QuirkTimeNSFilesUnreadable
	// The target's first releases count (1.0: DuckDB 1.5.2-1.5.5,
	// EarlyQuirks): a catalog this tool writes must read in every release
	// of its format.
	targetFails := target.ReadsWith(q) || target.EarlyReadsWith(q)
	if (!targetFails && !source.ReadsAsSourceWith(q)) || (targetFails && source.ReadsAsSourceWith(q) && target.ReadsWith(q)) || !r.mayFind(&factTimeNSColumns) {
		return nil
	}
	mapped, encrypted := "false", "false"
	for col, cond := range map[string]*string{"mapping_id": &mapped, "encryption_key": &encrypted} {
		ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", col)
		if err != nil {
			return fmt.Errorf("%s: %w", q.Info().Name, err)
		}
		if ok {
			*cond = "f." + col + " IS NOT NULL"
		}
	}
	rows, err := r.w.fields(r.ctx, `WITH first AS (SELECT table_id, column_id, min(begin_snapshot) AS begin_snapshot FROM ducklake_column GROUP BY ALL),
		names AS (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id)
		SELECT f.table_id, coalesce(n.table_name, '?'), f.data_file_id, f.path, f.begin_snapshot, c.column_id, any_value(c.column_name), greatest(min(c.begin_snapshot), f.begin_snapshot),
			`+mapped+`, `+encrypted+`
		FROM ducklake_data_file f
		JOIN ducklake_column c ON c.table_id = f.table_id
		JOIN first fc ON fc.table_id = c.table_id AND fc.column_id = c.column_id
		LEFT JOIN names n ON n.table_id = f.table_id
		WHERE lower(trim(c.column_type)) = 'time_ns'
			AND c.begin_snapshot < coalesce(f.end_snapshot, 9223372036854775807) AND coalesce(c.end_snapshot, 9223372036854775807) > f.begin_snapshot
			AND (`+mapped+` OR fc.begin_snapshot <= f.begin_snapshot)
		GROUP BY f.table_id, n.table_name, f.data_file_id, f.path, f.begin_snapshot, c.column_id, `+mapped+`, `+encrypted+`
		ORDER BY f.data_file_id, c.column_id`)
	if err != nil {
		return fmt.Errorf("%s: %w", q.Info().Name, err)
	}
	if len(rows) == 0 {
		return nil
	}
	var ids []string
	for _, f := range rows {
		ids = append(ids, f[2])
	}
	locals, err := r.localDataFiles("f.data_file_id IN (" + strings.Join(slices.Compact(ids), ", ") + ")")
	if err != nil {
		return fmt.Errorf("%s: %w", q.Info().Name, err)
	}
	local := map[string]string{}
	for _, l := range locals {
		local[l.id] = l.local
	}
	var items []string
	for _, f := range rows {
		id, col, isMapped := f[2], f[5], f[8] == "true"
		known, holds := false, false
		if p := local[id]; p != "" && f[9] != "true" {
			match := "field_id = " + col
			if isMapped {
				match = "true" // the mapping names the field: any TIME counts
			}
			got, err := r.w.fields(r.ctx, `SELECT count(*) FILTER (WHERE duckdb_type IN ('TIME', 'TIME_NS') AND `+match+`) FROM parquet_schema(`+literal(p)+`)`)
			if err == nil && len(got) == 1 {
				known, holds = true, got[0][0] != "0"
			}
		}
		if (known && !holds) || (!known && !targetFails) {
			continue
		}
		how := "as a Parquet TIME"
		if !known {
			how = "(its footer not read)"
		}
		items = append(items, fmt.Sprintf("table %s %s: data_file_id %s %s (written at snapshot %s) holds %s (column_id %s), of type time_ns at snapshot %s, %s", f[0], f[1], id, f[3], f[4], f[6], col, f[7], how))
	}
	r.refuseQuirk(step, q, source, target, "ducklake_data_file", items)
	return nil
}
