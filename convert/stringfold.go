package convert

import (
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
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

// foldedStringCutCheck refuses a conversion from a source whose readers
// all fold VARCHAR min/max from exact table statistics to a target some of
// whose readers scan (formats.StringBoundsFoldedOnlyBySource: 1.1 to 1.0
// and 0.1-0.4), for a table one of whose folded bounds is cut
// (cutStringBounds): a bound a Parquet writer cut, which the source's
// DuckDB 2.0 answers and the target's scanning readers never do.
func (r *run) foldedStringCutCheck(step string, source, target *formats.Version) error {
	if !formats.StringBoundsFoldedOnlyBySource(source, target) {
		return nil
	}
	cuts, err := r.cutStringBounds()
	if err != nil || len(cuts) == 0 {
		return err
	}
	items := make([]string, len(cuts))
	for i, c := range cuts {
		items[i] = c.String()
	}
	st := source.ReadsTableStats()
	r.add(Finding{Severity: Refuse, Code: "string-minmax-folded-cut", Step: step, Table: "ducklake_table_column_stats", Detail: summarize(items),
		Reason: fmt.Sprintf("%s, every format %s reader, answers SELECT min(s), max(s) of these VARCHAR columns from their exact table statistics, whose bounds are not the rows' min and max (DuckDB's Parquet writer cuts a string past 256 bytes, the max with its last byte incremented), while format %s readers scan the rows (DuckDB 1.5, or 2.0 without exact statistics): no statistics written for them make a scan answer the cut value. Convert from a version whose readers scan these columns (1.0 or 0.1-0.4), or rewrite the strings past 256 bytes", st.FoldStringMinMax, source.Name, target.Name)})
	return nil
}

// unfoldCutStringBounds writes both bounds NULL in the table statistics
// rows that cutStringBounds finds, for a conversion from a source some of
// whose readers scan VARCHAR min/max (1.0's DuckDB 1.5) to one whose every
// reader folds it (formats.StringBoundsCutUnfolded: 1.0 to 1.1). Kept,
// DuckDB 2.0, the target's only reader, would answer the cut bound, a
// value no row holds, where the source's DuckDB 1.5 answers the rows' min
// and max; without bounds DuckDB 2.0 scans and answers those. Bounds that
// are the rows' min and max stay, and so does every row of a table this
// check cannot read (or of every table without --data). A note names the
// tables and columns.
func (r *run) unfoldCutStringBounds(step string, source, target *formats.Version) error {
	if !formats.StringBoundsCutUnfolded(source, target) {
		return nil
	}
	cuts, err := r.cutStringBounds()
	if err != nil || len(cuts) == 0 {
		return err
	}
	items := make([]string, len(cuts))
	for i, c := range cuts {
		if err := r.w.exec(r.ctx, `UPDATE ducklake_table_column_stats SET min_value = NULL, max_value = NULL WHERE table_id = `+c.table+` AND column_id = `+c.column); err != nil {
			return fmt.Errorf("table %s (id %s) column %s (id %s): %w", c.tname, c.table, c.cname, c.column, err)
		}
		items[i] = c.String()
	}
	st := target.ReadsTableStats()
	r.add(Finding{Severity: Note, Code: "string-table-stats-cut-unfolded", Step: step, Table: "ducklake_table_column_stats", Detail: summarize(items),
		Reason: fmt.Sprintf("table column statistics of VARCHAR columns written without min_value and max_value: their bounds are not the rows' min and max (DuckDB's Parquet writer cuts a string past 256 bytes, the max with its last byte incremented); %s, every format %s reader, would answer SELECT min(s), max(s) with them where format %s's scanning readers answer the rows' values. Without bounds it scans too; pruning the whole table by them is lost", st.FoldStringMinMax, target.Name, source.Name)})
	return nil
}

// cutBound is a folded VARCHAR table statistics row (bounds lo, hi) whose
// table's rows hold min smin and max smax, not both the bounds; ids and
// names as text.
type cutBound struct {
	table, column, tname, cname string
	lo, hi, smin, smax          string
}

func (c cutBound) String() string {
	return fmt.Sprintf("table %s (id %s) column %s (id %s): statistics min %s, max %s, rows min %s, max %s", c.tname, c.table, c.cname, c.column, shortText(c.lo), shortText(c.hi), shortText(c.smin), shortText(c.smax))
}

// sqlNoLiveDeleteFile is the condition that the table of the statistics
// row s has no live delete file: cutStringBounds lists only such tables'
// rows, and factPlainStringBounds asks whether one exists.
const sqlNoLiveDeleteFile = `NOT EXISTS (SELECT 1 FROM ducklake_delete_file d WHERE d.table_id = s.table_id AND d.end_snapshot IS NULL)`

// cutStringBounds lists the working catalog's table statistics rows that
// the readers of formats.TableStatsReading.FoldStringMinMax fold
// (formats.FoldedStringBoundsSQL), of a table whose statistics are exact,
// whose bounds are not the min and max its rows hold. The rows' min and
// max are read from the table's data files in the local data folder
// (--data); a table this check cannot read simply (delete files, inlined
// rows or deletions, partial, encrypted or name-mapped files, a file
// outside the data folder or without the column's field id, statistics not
// exact: record_count is not the files' rows) is not listed, nor is any
// without a data folder.
func (r *run) cutStringBounds() ([]cutBound, error) {
	if r.opts.DataPath == "" {
		return nil, nil
	}
	for _, t := range []string{"ducklake_table_column_stats", "ducklake_table_stats", "ducklake_data_file"} {
		if ok, err := r.w.hasTable(r.ctx, t); err != nil || !ok {
			return nil, err
		}
	}
	// No row with both bounds of a table without deletions: the listing
	// below (some 4 ms of DuckDB's planning) would find none.
	if !r.mayFind(&factPlainStringBounds) {
		return nil, nil
	}
	// Tables whose every visible row is in plain data files.
	plain := sqlNoLiveDeleteFile + `
		AND NOT EXISTS (SELECT 1 FROM ducklake_data_file f WHERE f.table_id = s.table_id AND f.end_snapshot IS NULL AND f.encryption_key IS NOT NULL)`
	inlined, err := r.w.hasTable(r.ctx, "ducklake_inlined_data_tables")
	if err != nil {
		return nil, err
	}
	for _, col := range []string{"partial_max", "mapping_id"} {
		if ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", col); err != nil {
			return nil, err
		} else if ok {
			plain += ` AND NOT EXISTS (SELECT 1 FROM ducklake_data_file f WHERE f.table_id = s.table_id AND f.end_snapshot IS NULL AND f.` + col + ` IS NOT NULL)`
		}
	}
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", "partial_file_info"); err != nil {
		return nil, err
	} else if ok {
		plain += ` AND NOT EXISTS (SELECT 1 FROM ducklake_data_file f WHERE f.table_id = s.table_id AND f.end_snapshot IS NULL AND f.partial_file_info IS NOT NULL)`
	}
	rows, err := r.w.fields(r.ctx, `SELECT s.table_id, s.column_id, s.min_value, s.max_value,
			coalesce((SELECT any_value(t.table_name ORDER BY t.begin_snapshot DESC) FROM ducklake_table t WHERE t.table_id = s.table_id), '?'),
			coalesce((SELECT arg_max(c.column_name, c.begin_snapshot) FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id), '?')
		FROM ducklake_table_column_stats s
		WHERE `+formats.FoldedStringBoundsSQL("")+` AND `+plain+`
			AND EXISTS (SELECT 1 FROM ducklake_table_stats ts WHERE ts.table_id = s.table_id AND ts.file_size_bytes IS NOT NULL
				AND ts.record_count = (SELECT sum(f.record_count) FROM ducklake_data_file f WHERE f.table_id = s.table_id AND f.end_snapshot IS NULL))
		ORDER BY s.table_id, s.column_id`)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	// A table's rows are read once for all its columns' rows: whether it
	// holds inlined rows or deletions, and its live data files (those of
	// every table listed, in one statement, once one is needed).
	skipped := map[string]bool{}
	var filesOf map[string][]localDataFile
	var cuts []cutBound
	for _, row := range rows {
		table, column, lo, hi, tname, cname := row[0], row[1], row[2], row[3], row[4], row[5]
		if hi < lo {
			lo, hi = hi, lo // DuckDB 2.0 merges both as constants
		}
		skip, known := skipped[table]
		if !known {
			del, err := r.inlinedDeletes(table)
			if err != nil {
				return nil, fmt.Errorf("inlined deletes of table %s (id %s): %w", tname, table, err)
			}
			skip = del
			if !skip && inlined {
				if skip, err = r.inlinedRowsAtLatest(table); err != nil {
					return nil, fmt.Errorf("inlined rows of table %s (id %s): %w", tname, table, err)
				}
			}
			skipped[table] = skip
		}
		if skip {
			continue
		}
		if filesOf == nil {
			var ids []string
			for _, row := range rows {
				ids = append(ids, row[0])
			}
			slices.Sort(ids)
			all, err := r.localDataFiles("f.table_id IN (" + strings.Join(slices.Compact(ids), ", ") + ") AND f.end_snapshot IS NULL")
			if err != nil {
				return nil, err
			}
			filesOf = map[string][]localDataFile{}
			for _, f := range all {
				filesOf[f.table] = append(filesOf[f.table], f)
			}
		}
		files := filesOf[table]
		smin, smax, ok, err := r.scannedStringMinMax(files, column)
		if err != nil {
			return nil, fmt.Errorf("min/max of table %s (id %s) column %s (id %s): %w", tname, table, cname, column, err)
		}
		if !ok || (smin == lo && smax == hi) {
			continue
		}
		cuts = append(cuts, cutBound{table: table, column: column, tname: tname, cname: cname, lo: lo, hi: hi, smin: smin, smax: smax})
	}
	return cuts, nil
}

// inlinedRowsAtLatest reports whether an inlined data table of the table
// (by its table_id's text) holds a row visible at the latest snapshot, or
// may (one without an end_snapshot column, or not there).
func (r *run) inlinedRowsAtLatest(table string) (bool, error) {
	names, err := r.w.strings(r.ctx, `SELECT table_name FROM ducklake_inlined_data_tables WHERE table_id = `+table+` ORDER BY table_name`)
	if err != nil {
		return false, err
	}
	for _, name := range names {
		if ok, err := r.w.hasColumn(r.ctx, name, "end_snapshot"); err != nil || !ok {
			return true, err
		}
		n, err := r.w.count(r.ctx, `SELECT count(*) FROM `+quote(name)+` WHERE end_snapshot IS NULL`)
		if err != nil || n > 0 {
			return true, err
		}
	}
	return false, nil
}

// inlinedDeletes reports whether an inlined deletion table of the table
// (ducklake_inlined_delete_<table_id>, in any letter case) holds a row.
func (r *run) inlinedDeletes(table string) (bool, error) {
	tables, err := r.w.workingTables(r.ctx)
	if err != nil {
		return false, err
	}
	for _, t := range tables {
		if strings.EqualFold(t.name, "ducklake_inlined_delete_"+table) {
			n, err := r.w.count(r.ctx, `SELECT count(*) FROM `+quote(t.name))
			if err != nil || n > 0 {
				return true, err
			}
		}
	}
	return false, nil
}

// scannedStringMinMax is the min and max of the column whose field id is
// column over the rows of files, read with DuckDB as the readers read it:
// mapped by field id to the table's VARCHAR (read_parquet's schema
// parameter, as the proof reads a file), and compared as VARCHAR (byte
// order). A column stored as plain BINARY (no UTF8/STRING logical type),
// which DuckDB reads as BLOB, is so cast to its text (bytes past ASCII,
// and a backslash or quote, as \xHH) before min and max are taken: taken
// of the BLOB, they were the bytes' (é after zz, where its text
// \xC3\xA9 sorts before). ok is false where a file is not in the data
// folder or not on this machine, holds no column of that field id, or no
// file holds a value.
func (r *run) scannedStringMinMax(files []localDataFile, column string) (lo, hi string, ok bool, err error) {
	if len(files) == 0 {
		return "", "", false, nil
	}
	seen := false
	for _, f := range files {
		if f.local == "" {
			return "", "", false, nil
		}
		// A file not here (a web or bucket repository's plan, which
		// fetches no data file) is left to the proof, as a file outside
		// the data folder is; one that is, the gate makes readable first.
		st, err := os.Stat(f.local)
		if err != nil || !st.Mode().IsRegular() {
			return "", "", false, nil
		}
		// A file an earlier conversion of the run read, unchanged, is not
		// read again (Engines: a backfill's versions share most files).
		m, ok := r.footers.stringMinMaxOf(f.local, column, st)
		if !ok {
			if m, err = r.fileStringMinMax(f, column); err != nil {
				return "", "", false, err
			}
			r.footers.keepStringMinMax(f.local, column, st, m)
		}
		if !m.named {
			return "", "", false, nil
		}
		if !m.values {
			continue
		}
		if !seen || m.lo < lo {
			lo = m.lo
		}
		if !seen || m.hi > hi {
			hi = m.hi
		}
		seen = true
	}
	return lo, hi, seen, nil
}

// fileStringMinMax reads the min and max of the column whose field id is
// column in data file f, through the gate.
func (r *run) fileStringMinMax(f localDataFile, column string) (fileStringMinMax, error) {
	if err := r.readable(f.local); err != nil {
		return fileStringMinMax{}, fmt.Errorf("data file %s: %w", f.stored, err)
	}
	var n int
	if err := r.w.conn.QueryRowContext(r.ctx, `SELECT count(*) FROM parquet_schema(`+parquetsql.Path(f.local)+`) WHERE field_id = `+column).Scan(&n); err != nil {
		return fileStringMinMax{}, fmt.Errorf("read the schema of data file %s: %w", f.stored, err)
	}
	if n != 1 {
		return fileStringMinMax{}, nil
	}
	// Read as the readers read it (scannedStringMinMax): by field id as
	// the table's VARCHAR, min and max of those VARCHARs.
	var fmin, fmax sql.NullString
	q := `SELECT min(v), max(v) FROM read_parquet(` + parquetsql.Path(f.local) + `, schema = MAP {` + column + `: {name: 'v', type: 'VARCHAR', default_value: NULL}}, hive_partitioning = false)`
	if err := r.w.conn.QueryRowContext(r.ctx, q).Scan(&fmin, &fmax); err != nil {
		return fileStringMinMax{}, fmt.Errorf("read data file %s: %w", f.stored, err)
	}
	m := fileStringMinMax{named: true, values: fmin.Valid && fmax.Valid}
	if m.values {
		m.lo, m.hi = fmin.String, fmax.String
	}
	return m, nil
}

// shortText quotes s for a finding, cut to its first 40 bytes with its
// length when longer.
func shortText(s string) string {
	if len(s) <= 40 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:40]), len(s))
}
