package convert

import (
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/deletionvector"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/google/uuid"
)

// Merged files of formats 0.1-0.3 say which rows each snapshot sees with a
// split list in partial_file_info, 's1:n1|s2:n2|...': at snapshot S a reader
// takes the first max{ni : si <= S} rows of the file (DuckLake 0.3's
// max_row_count). Format 0.4 dropped the list: a reader of a file with
// partial_max > S keeps the rows whose stored _ducklake_internal_snapshot_id
// is <= S. The two agree only when every row's stored snapshot is the one
// the split list gives it. Rows that come from a rewritten file
// (ducklake_rewrite_data_files) keep the snapshot of their first insert,
// while the split list shows them from the rewrite's begin snapshot: 0.4+
// would show them, next to the pre-rewrite file they replace, too early.
//
// Such files are expressed in 0.4+ without the per-row filter (partial_max
// stays NULL) and with a chain of 2-column delete files, one per stretch of
// snapshots, each hiding the positions past the split list's limit together
// with the positions the file's own 0.3 delete file hid then.

// mergedFile is a data file with a split list, and where it lies.
type mergedFile struct {
	id, table, begin, records int64
	end                       sql.NullInt64
	path, info                string
	key                       sql.NullString
	// tableDir is the table's directory as the catalog resolves it (for the
	// file_path column of delete files); relDir is it relative to data_path;
	// local says the file lies under data_path.
	tableDir, relDir string
	local            bool
	splits           []split
}

type split struct{ snapshot, rows int64 }

// forever stands for "no end" among snapshots.
const forever = math.MaxInt64

// parseSplits reads a split list 's1:n1|s2:n2|...'.
func parseSplits(info string) ([]split, error) {
	var out []split
	for _, part := range strings.Split(info, "|") {
		s, n, ok := strings.Cut(part, ":")
		si, err1 := strconv.ParseInt(s, 10, 64)
		ni, err2 := strconv.ParseInt(n, 10, 64)
		if !ok || err1 != nil || err2 != nil || si < 0 || ni < 0 {
			// The reader parses to 2^64-1 (std::stoull); no catalog holds
			// a snapshot id or row count past int64 (BIGINT): named.
			for _, v := range []string{s, n} {
				if u, err := strconv.ParseUint(v, 10, 64); ok && err == nil && u > math.MaxInt64 {
					return nil, fmt.Errorf("bad split list %q: %s is past int64's maximum", info, v)
				}
			}
			return nil, fmt.Errorf("bad split list %q", info)
		}
		out = append(out, split{si, ni})
	}
	return out, nil
}

// limitAt is the number of leading rows DuckLake 0.3 reads at a snapshot.
func (m mergedFile) limitAt(snap int64) int64 {
	var limit int64
	for _, s := range m.splits {
		if s.snapshot <= snap && s.rows > limit {
			limit = s.rows
		}
	}
	return limit
}

func (m mergedFile) partialMax() int64 {
	var pm int64
	for _, s := range m.splits {
		pm = max(pm, s.snapshot)
	}
	return pm
}

// localPath is the file under the data folder.
func (m mergedFile) localPath(dataPath string) string {
	return filepath.Join(dataPath, filepath.FromSlash(m.relDir+m.path))
}

// mergedFiles lists the data files with a split list.
func mergedFiles(r *run) ([]mergedFile, error) {
	if has, err := r.w.hasColumn(r.ctx, "ducklake_data_file", "partial_file_info"); err != nil || !has {
		return nil, err
	}
	rows, err := r.w.conn.QueryContext(r.ctx, `SELECT f.data_file_id, f.table_id, f.begin_snapshot, f.end_snapshot, f.record_count, f.path, f.partial_file_info, f.encryption_key,
			coalesce(td.dir, ''), coalesce(substr(td.dir, length(td.data_path) + 1), ''), coalesce(f.path_is_relative AND starts_with(td.dir, td.data_path), false)
		FROM ducklake_data_file f LEFT JOIN (`+sqlTableDirs+`) td USING (table_id)
		WHERE f.partial_file_info IS NOT NULL AND f.partial_file_info NOT LIKE 'partial_max:%'
		ORDER BY f.data_file_id`)
	if err != nil {
		return nil, fmt.Errorf("read merged data files: %w", err)
	}
	defer rows.Close()
	var out []mergedFile
	for rows.Next() {
		var m mergedFile
		if err := rows.Scan(&m.id, &m.table, &m.begin, &m.end, &m.records, &m.path, &m.info, &m.key, &m.tableDir, &m.relDir, &m.local); err != nil {
			return nil, err
		}
		if m.splits, err = parseSplits(m.info); err != nil {
			return nil, fmt.Errorf("data file %d (%s): %w", m.id, oneline.Name(m.path), err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// parquetRows reads a Parquet file with its row positions.
func parquetRows(path, key string) string {
	if key == "" {
		return fmt.Sprintf("read_parquet(%s, file_row_number = true, hive_partitioning = false)", parquetsql.Path(path))
	}
	return fmt.Sprintf("read_parquet(%s, file_row_number = true, hive_partitioning = false, encryption_config = {footer_key_value: from_base64(%s)})", parquetsql.Path(path), literal(key))
}

// disagreement is where a merged file's stored snapshots and its split
// list disagree: the rows concerned, and the first one's two snapshots.
type disagreement struct {
	rows, first, last int64
	split, stored     sql.NullInt64 // first row: from the split list (NULL: never), per-row filter
}

// disagreement compares, row by row, the snapshots from which DuckLake 0.3
// (split list) and 0.4+ (partial_max = max si and the stored snapshot ids)
// show each row while the file is visible. A row without a stored snapshot
// is hidden by 0.4+ until partial_max.
func (m mergedFile) disagreement(r *run) (disagreement, error) {
	var d disagreement
	if err := r.readable(m.localPath(r.opts.DataPath)); err != nil {
		return d, err
	}
	src := parquetRows(m.localPath(r.opts.DataPath), m.key.String)
	cols, err := r.w.strings(r.ctx, "SELECT column_name FROM (DESCRIBE SELECT * FROM "+src+")")
	if err != nil {
		return d, fmt.Errorf("read data file %d (%s): %w", m.id, oneline.Name(m.localPath(r.opts.DataPath)), err)
	}
	stored := "NULL::BIGINT"
	if slices.Contains(cols, "_ducklake_internal_snapshot_id") {
		stored = `"_ducklake_internal_snapshot_id"`
	}
	values := make([]string, len(m.splits))
	for i, s := range m.splits {
		values[i] = fmt.Sprintf("(%d, %d)", s.snapshot, s.rows)
	}
	end := int64(forever)
	if m.end.Valid {
		end = m.end.Int64
	}
	q := fmt.Sprintf(`WITH splits(s, n) AS (VALUES %[1]s),
		rows AS (SELECT file_row_number AS p, %[2]s AS r FROM %[3]s),
		v AS (SELECT p, (SELECT min(s) FROM splits WHERE n > p) AS s03, least(%[4]d, coalesce(r, %[4]d)) AS s10 FROM rows)
		SELECT count(*), coalesce(min(p), 0), coalesce(max(p), 0), arg_min(s03, p), arg_min(s10, p) FROM v
		WHERE least(greatest(coalesce(s03, %[5]d), %[6]d), %[7]d) <> least(greatest(s10, %[6]d), %[7]d)`,
		strings.Join(values, ", "), stored, src, m.partialMax(), int64(forever), m.begin, end)
	if err := r.dataThreads(); err != nil {
		return d, err
	}
	if err := r.w.conn.QueryRowContext(r.ctx, q).Scan(&d.rows, &d.first, &d.last, &d.split, &d.stored); err != nil {
		return d, fmt.Errorf("compare snapshots of data file %d (%s): %w", m.id, oneline.Name(m.path), err)
	}
	return d, nil
}

func (m mergedFile) String() string {
	return fmt.Sprintf("data_file_id %d %s (split list %s)", m.id, oneline.Name(m.path), m.info)
}

// mergedFilesUnchecked lists the merged files when the data folder, where
// their rows' stored snapshots are read, is not at hand.
func mergedFilesUnchecked(r *run) ([]string, error) {
	if r.opts.DataPath != "" {
		return nil, nil
	}
	files, err := mergedFiles(r)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(files))
	for i, m := range files {
		out[i] = m.String()
	}
	return out, nil
}

// mergedFileSnapshots lists the merged files that 0.4+ would read
// otherwise than 0.3 does (mergedFilesUnchecked covers a missing data
// folder).
func mergedFileSnapshots(r *run) ([]string, error) {
	if r.opts.DataPath == "" {
		return nil, nil
	}
	files, err := mergedFiles(r)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range files {
		if !m.local {
			out = append(out, m.String()+": not checked, the file is not under the data path")
			continue
		}
		d, err := m.disagreement(r)
		if err != nil {
			return nil, err
		}
		if d.rows == 0 {
			continue
		}
		split := "never"
		if d.split.Valid {
			split = "from snapshot " + strconv.FormatInt(max(d.split.Int64, m.begin), 10)
		}
		out = append(out, fmt.Sprintf("%s: %d rows at positions %d-%d; 0.3 shows position %d %s, 0.4+ would from snapshot %d",
			m, d.rows, d.first, d.last, d.first, split, max(d.stored.Int64, m.begin)))
	}
	return out, nil
}

// span is a stretch of snapshots [from, to) (to invalid: open) over which a
// merged file shows the same rows in 0.3: the first limit rows, less the
// positions of del (nil: none).
type span struct {
	from  int64
	to    sql.NullInt64
	limit int64
	del   *deleteFile
}

// spans cuts the merged file's life at every split snapshot and every
// begin or end of one of its delete files, and joins neighbours that show
// the same rows.
func (m mergedFile) spans(dels []deleteFile) []span {
	inLife := func(s int64) bool { return s > m.begin && (!m.end.Valid || s < m.end.Int64) }
	cuts := []int64{m.begin}
	for _, s := range m.splits {
		if inLife(s.snapshot) {
			cuts = append(cuts, s.snapshot)
		}
	}
	for _, d := range dels {
		if inLife(d.begin) {
			cuts = append(cuts, d.begin)
		}
		if d.end.Valid && inLife(d.end.Int64) {
			cuts = append(cuts, d.end.Int64)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []span
	for i, from := range cuts {
		sp := span{from: from, to: m.end, limit: min(m.limitAt(from), m.records)}
		if i+1 < len(cuts) {
			sp.to = sql.NullInt64{Int64: cuts[i+1], Valid: true}
		}
		for k := range dels {
			d := &dels[k]
			if d.begin <= from && (!d.end.Valid || from < d.end.Int64) {
				sp.del = d
			}
		}
		if n := len(out); n > 0 && out[n-1].limit == sp.limit && out[n-1].del == sp.del {
			out[n-1].to = sp.to
			continue
		}
		out = append(out, sp)
	}
	return out
}

// rewriteMergedFiles expresses each disagreeing merged file with delete
// files: the split list is dropped (no per-row filter in 0.4+) and every
// span whose rows are not all visible gets a delete file of the positions
// 0.3 did not show then. A delete file of the file that already covers
// exactly one span with no split limit is kept as it is.
func rewriteMergedFiles(r *run) error {
	if r.opts.DataPath == "" {
		return fmt.Errorf("rewriting merged files needs the local data folder (Options.DataPath, --data DIR)")
	}
	files, err := mergedFiles(r)
	if err != nil {
		return err
	}
	nextID, err := r.w.count(r.ctx, `SELECT greatest((SELECT max(next_file_id) FROM ducklake_snapshot),
		(SELECT coalesce(max(data_file_id), -1) + 1 FROM ducklake_data_file), (SELECT coalesce(max(delete_file_id), -1) + 1 FROM ducklake_delete_file))`)
	if err != nil {
		return err
	}
	for _, m := range files {
		if !m.local {
			return cannotRewrite{fmt.Sprintf("data file %d (%s) is not under the data path", m.id, oneline.Name(m.path))}
		}
		d, err := m.disagreement(r)
		if err != nil {
			return err
		}
		if d.rows == 0 {
			continue
		}
		// The spans' delete files list the positions from the split
		// list's limit up to record_count (writeSpanDeletes), which a
		// tampered catalog sets at will (2^40 wrote without end): past
		// deletionvector.SmallCount rows it is held to the file's.
		if m.records > deletionvector.SmallCount {
			var rows int64
			if err := r.readable(m.localPath(r.opts.DataPath)); err != nil {
				return err
			}
			if err := r.w.conn.QueryRowContext(r.ctx, "SELECT count(*) FROM "+readParquetSQL(m.localPath(r.opts.DataPath), m.key.String)).Scan(&rows); err != nil {
				return fmt.Errorf("count the rows of data file %d (%s): %w", m.id, oneline.Name(m.localPath(r.opts.DataPath)), err)
			}
			if m.records > rows {
				return cannotRewrite{fmt.Sprintf("data file %d (%s) has record_count %d, more than its %d rows", m.id, oneline.Name(m.localPath(r.opts.DataPath)), m.records, rows)}
			}
		}
		if m.key.Valid {
			if err := r.w.exec(r.ctx, "LOAD httpfs"); err != nil {
				return cannotRewrite{fmt.Sprintf("data file %d (%s) is encrypted and writing encrypted Parquet needs DuckDB's httpfs extension, which this DuckDB cannot load", m.id, oneline.Name(m.path))}
			}
		}
		dels, err := deleteFiles(r, fmt.Sprintf("d.data_file_id = %d", m.id))
		if err != nil {
			return fmt.Errorf("read delete files of data file %d: %w", m.id, err)
		}
		keep := map[int64]bool{}
		// last: the positions (SQL) of the chain's file begun last.
		var last string
		for _, sp := range m.spans(dels) {
			if sp.limit >= m.records && sp.del == nil {
				continue
			}
			if sp.limit >= m.records && sp.del.begin == sp.from && sp.del.end == sp.to {
				keep[sp.del.id] = true
				if last, err = r.deletePositions(*sp.del); err != nil {
					return err
				}
				continue
			}
			if last, err = r.writeSpanDeletes(m, sp, nextID); err != nil {
				return err
			}
			nextID++
		}
		if wrote, err := r.writeEndDeletes(m, dels, last, nextID); err != nil {
			return err
		} else if wrote {
			nextID++
		}
		for _, del := range dels {
			if !keep[del.id] {
				if err := r.w.exec(r.ctx, `DELETE FROM ducklake_delete_file WHERE delete_file_id = ?`, del.id); err != nil {
					return err
				}
			}
		}
		if err := r.w.exec(r.ctx, `UPDATE ducklake_data_file SET partial_file_info = NULL WHERE data_file_id = ?`, m.id); err != nil {
			return err
		}
	}
	return r.w.exec(r.ctx, `UPDATE ducklake_snapshot SET next_file_id = greatest(next_file_id, ?) WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)`, nextID)
}

// deletePositions is a query of the positions of a delete file of the
// source (column pos).
func (r *run) deletePositions(d deleteFile) (string, error) {
	if !d.local {
		return "", cannotRewrite{fmt.Sprintf("delete file %d (%s) is not under the data path", d.id, oneline.Name(d.path))}
	}
	local := filepath.Join(r.opts.DataPath, filepath.FromSlash(d.relDir+d.path))
	if err := r.presentOrMissing(local); err != nil {
		return "", fmt.Errorf("delete file %d (%s) of table %d: %w", d.id, oneline.Name(d.path), d.table, err)
	}
	return "SELECT pos::BIGINT AS pos FROM " + readParquetSQL(local, d.key.String), nil
}

// writeSpanDeletes writes and records the delete file of one span, and
// returns a query of its positions.
func (r *run) writeSpanDeletes(m mergedFile, sp span, id int64) (string, error) {
	positions := fmt.Sprintf("SELECT range AS pos FROM range(%d, %d)", sp.limit, m.records)
	if sp.del != nil {
		own, err := r.deletePositions(*sp.del)
		if err != nil {
			return "", err
		}
		positions += " UNION " + own
	}
	rows := fmt.Sprintf("SELECT %s AS file_path, pos FROM (%s)", literal(m.tableDir+m.path), positions)
	// The chain lies in the table's folder, where DuckLake writes every
	// delete file, never in the data file's own (Hive partition) folders:
	// readers before DuckDB 1.5.3 scan a delete file with Hive partition
	// detection on and fail on the columns its key=value folders add
	// (formats.QuirkDeleteFilesHiveColumns).
	name := fmt.Sprintf("ducklake-%s-delete.parquet", uuid.NewSHA1(rewriteNamespace, []byte(m.relDir+m.path+"|visible-from|"+strconv.FormatInt(sp.from, 10))))
	size, footer, count, err := r.writeDeleteFile(id, filepath.Join(r.opts.DataPath, filepath.FromSlash(m.relDir), name), rows, m.key.String)
	if err != nil {
		return "", fmt.Errorf("write delete file of data file %d (%s) from snapshot %d: %w", m.id, oneline.Name(m.path), sp.from, err)
	}
	var end, key any
	if sp.to.Valid {
		end = sp.to.Int64
	}
	if m.key.Valid {
		key = m.key.String
	}
	q := `INSERT INTO ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, footer_size, encryption_key)
		VALUES (?, ?, ?, ?, ?, ?, true, 'parquet', ?, ?, ?, ?)`
	return positions, r.w.exec(r.ctx, q, id, m.table, sp.from, end, m.id, name, count, size, footer, key)
}

// writeEndDeletes gives a merged file that ends the change feed's
// deletions at its end as 0.3 reports them. At the data file's
// end_snapshot E the feed of every DuckLake reports the file's rows less
// those of its delete file begun last before E, whatever that file's end
// (GetTableDeletions): in the source the file's own last delete file, in
// the target the chain's last file (last), which also holds rows the split
// list hid then. Those rows (last's positions less the source's file's)
// are written to a partial deletion file begun and ended at E (which no
// snapshot sees, as the data file ends there), each stored with snapshot
// E: 0.4+ readers' feed reports a partial deletion file's positions whose
// stored snapshot is in the range, at it, without subtracting any other
// file, so every range holding E reports them there. A range that starts
// after E subtracts it, in place of last, from the chain's files: last's
// positions less the source file's own. Nothing is written for a file
// without an end or where no row is missing. It reports whether it wrote
// a file.
func (r *run) writeEndDeletes(m mergedFile, dels []deleteFile, last string, id int64) (bool, error) {
	if !m.end.Valid || last == "" {
		return false, nil
	}
	end := m.end.Int64
	// The source's delete file begun last before the end (the last of
	// equal ones in delete_file_id order).
	var prev *deleteFile
	for i := range dels {
		if d := &dels[i]; d.begin < end && (prev == nil || d.begin >= prev.begin) {
			prev = d
		}
	}
	positions := last
	if prev != nil {
		own, err := r.deletePositions(*prev)
		if err != nil {
			return false, err
		}
		positions = fmt.Sprintf("(%s) EXCEPT (%s)", last, own)
	}
	rows := fmt.Sprintf("SELECT %s AS file_path, pos, %d::BIGINT AS %s FROM (%s)", literal(m.tableDir+m.path), end, quote(formats.PartialDeleteSnapshotColumn), positions)
	n, err := r.w.count(r.ctx, "SELECT count(*) FROM ("+rows+")")
	if err != nil {
		return false, fmt.Errorf("read the rows data file %d (%s) hides at its end: %w", m.id, oneline.Name(m.path), err)
	}
	if n == 0 {
		return false, nil
	}
	name := fmt.Sprintf("ducklake-%s-delete.parquet", uuid.NewSHA1(rewriteNamespace, []byte(m.relDir+m.path+"|ended-at|"+strconv.FormatInt(end, 10))))
	size, footer, count, err := r.writeDeleteFileOf(id, filepath.Join(r.opts.DataPath, filepath.FromSlash(m.relDir), name), rows, m.key.String, true)
	if err != nil {
		return false, fmt.Errorf("write delete file of data file %d (%s) at its end, snapshot %d: %w", m.id, oneline.Name(m.path), end, err)
	}
	var key any
	if m.key.Valid {
		key = m.key.String
	}
	q := `INSERT INTO ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, footer_size, encryption_key)
		VALUES (?, ?, ?, ?, ?, ?, true, 'parquet', ?, ?, ?, ?)`
	return true, r.w.exec(r.ctx, q, id, m.table, end, end, m.id, name, count, size, footer, key)
}

// flushedPartialFiles applies to 0.3 -> 0.2 what format 0.2 can hold of a
// file with 'partial_max:N' (flushed from inlined data, or merged by 0.4+),
// which DuckDB 1.3 cannot parse: its 0.3 reader shows, at a snapshot S < N,
// the rows whose stored _ducklake_internal_snapshot_id is <= S (a NULL one
// from N), every row from N. Where those snapshots, clamped to the file's
// life and to N, do not decrease in file order, the rows visible at each
// snapshot are a prefix of the file: exactly the split list 's1:n1|...'
// (one entry per distinct snapshot, ni the rows up to it), as DuckLake 0.3
// itself wrote for merges, which the file gets. The others (rows out of
// order, no snapshot column, a file outside the data folder or that cannot
// be read, or no data folder at all) are returned: refused.
func flushedPartialFiles(r *run) ([]string, error) {
	rows, err := r.w.conn.QueryContext(r.ctx, `SELECT f.data_file_id, f.begin_snapshot, f.end_snapshot, f.path, f.partial_file_info, f.encryption_key,
			coalesce(substr(td.dir, length(td.data_path) + 1), ''), coalesce(f.path_is_relative AND starts_with(td.dir, td.data_path), false)
		FROM ducklake_data_file f LEFT JOIN (`+sqlTableDirs+`) td USING (table_id)
		WHERE f.partial_file_info LIKE 'partial_max:%' ORDER BY f.data_file_id`)
	if err != nil {
		return nil, fmt.Errorf("read flushed data files: %w", err)
	}
	type flushed struct {
		m  mergedFile
		pm int64
	}
	var files []flushed
	for rows.Next() {
		var f flushed
		if err := rows.Scan(&f.m.id, &f.m.begin, &f.m.end, &f.m.path, &f.m.info, &f.m.key, &f.m.relDir, &f.m.local); err != nil {
			rows.Close()
			return nil, err
		}
		f.pm, err = strconv.ParseInt(strings.TrimPrefix(f.m.info, "partial_max:"), 10, 64)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("data file %d (%s): bad partial_file_info %q", f.m.id, oneline.Name(f.m.path), f.m.info)
		}
		files = append(files, f)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, err
	}
	var refused []string
	for _, f := range files {
		item := fmt.Sprintf("data_file_id %d %s (%s)", f.m.id, oneline.Name(f.m.path), f.m.info)
		if r.opts.DataPath == "" || !f.m.local {
			why := "no data folder (--data DIR) to read its rows' snapshots from"
			if r.opts.DataPath != "" {
				why = "the file is not under the data path"
			}
			refused = append(refused, item+": "+why)
			continue
		}
		list, why, err := f.m.splitListOf(r, f.pm)
		if err != nil {
			return nil, err
		}
		if why != "" {
			refused = append(refused, item+": "+why)
			continue
		}
		if err := r.w.exec(r.ctx, `UPDATE ducklake_data_file SET partial_file_info = ? WHERE data_file_id = ?`, list, f.m.id); err != nil {
			return nil, err
		}
	}
	return refused, nil
}

// splitListOf is the split list a 'partial_max:pm' file reads as, or why
// there is none.
func (m mergedFile) splitListOf(r *run, pm int64) (list, why string, err error) {
	if err := r.readable(m.localPath(r.opts.DataPath)); err != nil {
		return "", "", err
	}
	src := parquetRows(m.localPath(r.opts.DataPath), m.key.String)
	cols, err := r.w.strings(r.ctx, "SELECT column_name FROM (DESCRIBE SELECT * FROM "+src+")")
	if err != nil {
		return "", "its rows cannot be read: " + oneline.First(err.Error()), nil
	}
	if !slices.Contains(cols, formats.PartialDeleteSnapshotColumn) {
		return "", "the file has no " + formats.PartialDeleteSnapshotColumn + " column", nil
	}
	last := pm
	if m.end.Valid {
		last = min(pm, m.end.Int64)
	}
	q := fmt.Sprintf(`WITH rows AS (SELECT file_row_number AS p, least(greatest(coalesce(%[1]s, %[2]d), %[3]d), %[4]d) AS e FROM %[5]s),
		ordered AS (SELECT p, e, lag(e) OVER (ORDER BY p) AS prev FROM rows)
		SELECT (SELECT count(*) FROM ordered WHERE e < prev),
			coalesce((SELECT min(p) FROM ordered WHERE e < prev), -1),
			coalesce((SELECT string_agg(e || ':' || n, '|' ORDER BY e) FROM (SELECT e, max(p) + 1 AS n FROM rows GROUP BY e)), '')`,
		quote(formats.PartialDeleteSnapshotColumn), pm, m.begin, last, src)
	var n, first int64
	if err := r.dataThreads(); err != nil {
		return "", "", err
	}
	if err := r.w.conn.QueryRowContext(r.ctx, q).Scan(&n, &first, &list); err != nil {
		return "", "", fmt.Errorf("read snapshots of data file %d (%s): %w", m.id, oneline.Name(m.path), err)
	}
	switch {
	case n > 0:
		return "", fmt.Sprintf("its rows' snapshots are not in file order (position %d shows from an earlier snapshot than the row before it; %d such positions): no split list shows them", first, n), nil
	case list == "":
		return "", "the file has no rows", nil
	}
	return list, "", nil
}
