package convert

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// fileStatsTable is the name of the file column statistics table in the
// working copy's layout (renamed in 0.3).
func (r *run) fileStatsTable() (string, error) {
	for _, n := range []string{"ducklake_file_column_stats", "ducklake_file_column_statistics"} {
		ok, err := r.w.hasTable(r.ctx, n)
		if err != nil {
			return "", err
		}
		if ok {
			return n, nil
		}
	}
	return "", nil
}

// fileColumnStats applies formats.QuirkFilesWithoutColumnStatsPruned. To a
// target whose readers skip a data file without a statistics row for a
// filtered column, it writes for every data file and top-level column
// visible together without such a row the row formats.StatsReadAlike gives
// (the file is kept exactly when the specification's reading could match,
// or under every filter where that cannot be told from the catalog). From a
// source with the quirk to a target without it, it drops the rows that are
// exactly such rows (no writer writes column_size_bytes NULL), so that a
// catalog converted down and back up has its source's rows; they would
// change no answer of the newer readers.
func (r *run) fileColumnStats(step string, source, target *formats.Version) error {
	q := formats.QuirkFilesWithoutColumnStatsPruned
	add := target.ReadsWith(q)
	drop := !add && source.ReadsWith(q)
	if !add && !drop {
		return nil
	}
	stats, err := r.fileStatsTable()
	if err != nil || stats == "" {
		return err
	}
	pairs, err := formats.FileColumnPairs(r.ctx, r.w.conn, "", stats)
	if err != nil {
		return fmt.Errorf("read data files and columns: %w", err)
	}
	info := q.Info()
	if drop {
		var keys []string
		for _, p := range pairs {
			if p.HasReadAlikeRow() {
				keys = append(keys, "("+itoa(p.DataFileID)+", "+itoa(p.TableID)+", "+itoa(p.ColumnID)+")")
			}
		}
		const chunk = 1000
		for i := 0; i < len(keys); i += chunk {
			end := min(i+chunk, len(keys))
			if err := r.w.exec(r.ctx, `DELETE FROM `+stats+` WHERE column_size_bytes IS NULL AND EXISTS (SELECT 1 FROM (VALUES `+strings.Join(keys[i:end], ", ")+`) v(f, t, c)
				WHERE v.f = data_file_id AND v.t = table_id AND v.c = column_id)`); err != nil {
				return err
			}
		}
		if n := len(keys); n > 0 {
			r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: stats, Detail: fmt.Sprintf("%d rows", n),
				Reason: "statistics rows written for format " + source.Name + " readers (" + info.Name + ": data files without statistics for a column added after them) dropped: format " + target.Name + " readers keep such files without them, and its writers never write them"})
		}
		return nil
	}
	extra, err := r.w.hasColumn(r.ctx, stats, "extra_stats")
	if err != nil {
		return err
	}
	var values, items []string
	for _, p := range pairs {
		if p.Rows > 0 {
			continue
		}
		row := formats.StatsReadAlike(p.MissingColumnStats)
		v := []string{itoa(p.DataFileID), itoa(p.TableID), itoa(p.ColumnID), "NULL", sqlInt(row.ValueCount), sqlInt(row.NullCount),
			sqlText(row.MinValue), sqlText(row.MaxValue), sqlBool(row.ContainsNaN)}
		if extra {
			v = append(v, "NULL")
		}
		values = append(values, "("+strings.Join(v, ", ")+")")
		what := "initial default"
		if p.InFile {
			what = "unknown, kept under every filter"
		}
		items = append(items, fmt.Sprintf("table %d data_file_id %d column %s (id %d): %s", p.TableID, p.DataFileID, p.ColumnName, p.ColumnID, what))
	}
	if len(values) == 0 {
		return nil
	}
	cols := "data_file_id, table_id, column_id, column_size_bytes, value_count, null_count, min_value, max_value, contains_nan"
	if extra {
		cols += ", extra_stats"
	}
	const chunk = 1000
	for i := 0; i < len(values); i += chunk {
		end := min(i+chunk, len(values))
		if err := r.w.exec(r.ctx, "INSERT INTO "+stats+" ("+cols+") VALUES "+strings.Join(values[i:end], ", ")); err != nil {
			return err
		}
	}
	r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: stats, Detail: summarize(items),
		Reason: fmt.Sprintf("format %s readers skip a data file without statistics for a filtered column (%s); a row was written for each data file and column visible together without one, as the specification reads the file (value and null counts from its record_count and the column's initial default; min and max the default where its statistics text compares as its value), so that filters on these columns return the rows the specification reads, as readers without this behaviour do", target.Name, info.Source)})
	return nil
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func sqlInt(v *int64) string {
	if v == nil {
		return "NULL"
	}
	return itoa(*v)
}

func sqlText(v *string) string {
	if v == nil {
		return "NULL"
	}
	return literal(*v)
}

func sqlBool(v *bool) string {
	if v == nil {
		return "NULL"
	}
	return strconv.FormatBool(*v)
}
