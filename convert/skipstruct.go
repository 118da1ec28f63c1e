package convert

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// structSkipCheck refuses, between formats whose readers differ in
// formats.QuirkStructNullsAfterSkippedVector (0.1-0.3, and 0.4 as DuckDB
// 1.5.0 reads it, against 1.0+ and 0.4 as a source), the data files whose
// deletes make a reader with the quirk read STRUCT values NULL: at some
// snapshot, vectors of a row group all of whose rows are deleted, holding
// a NULL struct, are followed by a read vector of that row group holding a
// non-NULL one (formats.SkippedVectorReads, StructSkipColumns,
// StructSkipSQL). Each item names the table, column, data file, delete
// file and first such snapshot. It runs before the steps, on the source's
// own delete files (which hold the positions every snapshot deletes, as
// the target must: the steps' rewrites of them are not written in a dry
// run), read from the local data folder; without one nothing is checked
// here, and the proof reports them. The rows a merged file hides by its
// own rule (partial_max: each row from its stored snapshot on) are
// skipped in the scan as deleted ones are (the proof's hiddenPositions),
// so they count with them; a split list (0.1-0.3) hides a suffix of the
// file, which no read vector follows.
func (r *run) structSkipCheck(source, target *formats.Version) error {
	q := formats.QuirkStructNullsAfterSkippedVector
	if r.opts.faithful || formats.ReadAlike(source, target, q) || r.opts.DataPath == "" {
		return nil
	}
	step := "reader " + target.Name
	items, err := r.beforeSteps(func(b *beforeSteps) **itemsOutcome { return &b.structSkip }, func() ([]string, error) { return structSkipFiles(r) })
	if err != nil {
		return fmt.Errorf("%s: %w", q.Info().Name, err)
	}
	r.refuseQuirk(step, q, source, target, "ducklake_delete_file", items)
	return nil
}

// skipDataFile is a data file of a table with a top-level STRUCT column
// that has deletes or hides rows by partial_max.
type skipDataFile struct {
	id, table, records, begin, end int64
	name, path, local              string
	key                            sql.NullString
	// footer is the file its footer is read from: local, or a stand-in
	// holding only the footer (Options.Footers) while absent.
	footer string
	// absent: the data folder lacks the file (local is where it goes);
	// a check that reads its rows fetches it first (wholeFile).
	absent bool
	// partialMax is the file's partial_max (the column, or 0.3's
	// partial_file_info 'partial_max:N'): rows whose stored snapshot is
	// later than the snapshot read are hidden while it is later too.
	partialMax sql.NullInt64
}

// skipHidden is what a merged file hides by its partial_max rule: each
// position hidden at f.begin, with the first snapshot it is read at (it is
// hidden at every earlier one).
type skipHidden struct {
	pos, from []int64
}

// skipDeletes is a delete file of a skipDataFile: its positions, each with
// the snapshot it is deleted from (its begin_snapshot, or the row's
// _ducklake_internal_snapshot_id in a partial deletion file).
type skipDeletes struct {
	id, begin, end int64 // end: forever when current
	path           string
	pos, snap      []int64
}

// structSkipFiles lists the data files the quirk misreads (see
// structSkipCheck).
func structSkipFiles(r *run) ([]string, error) {
	if !r.mayFind(&factStructColumns) {
		return nil, nil
	}
	files, err := skipDataFiles(r)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	_, dynamic, err := r.w.layout(r.ctx)
	if err != nil {
		return nil, err
	}
	partial, err := r.w.hasColumn(r.ctx, "ducklake_delete_file", "partial_max")
	if err != nil {
		return nil, err
	}
	dirs, err := r.tableDirs()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		dels, err := skipDeleteFiles(r, f, dirs, partial)
		if err != nil {
			return nil, err
		}
		// Inlined deletions of the file (0.4+ layouts), as a delete "file"
		// always visible, each position from its own snapshot.
		if slices.Contains(dynamic, fmt.Sprintf("ducklake_inlined_delete_%d", f.table)) {
			rows, err := r.w.strings(r.ctx, fmt.Sprintf(`SELECT row_id || ',' || begin_snapshot FROM %s WHERE file_id = %d ORDER BY row_id`, quote(fmt.Sprintf("ducklake_inlined_delete_%d", f.table)), f.id))
			if err != nil {
				return nil, fmt.Errorf("read inlined deletions of data file %d: %w", f.id, err)
			}
			if len(rows) > 0 {
				inl := skipDeletes{id: -1, end: forever, path: "inlined deletions"}
				for _, row := range rows {
					p, s, _ := strings.Cut(row, ",")
					pi, err1 := strconv.ParseInt(p, 10, 64)
					si, err2 := strconv.ParseInt(s, 10, 64)
					if err1 != nil || err2 != nil {
						continue
					}
					inl.pos, inl.snap = append(inl.pos, pi), append(inl.snap, si)
				}
				dels = append(dels, inl)
			}
		}
		if f.partialMax.Valid && f.partialMax.Int64 > f.begin {
			if err := r.wholeFile(&f); err != nil {
				return nil, err
			}
		}
		hidden, err := skipHiddenRows(r, f)
		if err != nil {
			return nil, fmt.Errorf("table %d %s, data file %d (%s): %w", f.table, f.name, f.id, oneline.Name(f.path), err)
		}
		if len(dels) == 0 && len(hidden.pos) == 0 {
			continue
		}
		item, err := structSkipItem(r, f, dels, hidden)
		if err != nil {
			return nil, fmt.Errorf("table %d %s, data file %d (%s): %w", f.table, f.name, f.id, oneline.Name(f.path), err)
		}
		if item != "" {
			out = append(out, item)
		}
	}
	return out, nil
}

// tableDirs is the query of each table's directory and the catalog's
// data_path (table_id, data_path, dir) in the working copy's layout (0.1
// has no table paths: files are relative to data_path itself).
func (r *run) tableDirs() (string, error) {
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_table", "path"); err != nil || ok {
		return sqlTableDirs, err
	}
	return `SELECT t.table_id, dp.value AS data_path, dp.value AS dir FROM (SELECT DISTINCT table_id FROM ducklake_table) t,
		(SELECT value FROM ducklake_metadata WHERE key = 'data_path'` + r.globalScope() + `) dp`, nil
}

// localFile is where a catalog file lies on this machine: under the data
// folder (rel: its path relative to data_path), or its absolute path;
// "" when it is not there (the proof reports it).
func (r *run) localFile(where string) string {
	local := r.filePath(where)
	if local == "" {
		return ""
	}
	if _, err := os.Stat(local); err != nil {
		return ""
	}
	return local
}

// filePath is where a catalog file goes on this machine (see localFile),
// whether or not it is there.
func (r *run) filePath(where string) string {
	if rel, ok := strings.CutPrefix(where, "rel:"); ok {
		return filepath.Join(r.opts.DataPath, filepath.FromSlash(rel))
	}
	return where
}

// wholeFile makes a data file the data folder lacks present before its
// rows are read (Options.Footers' Fetch); nothing for one present.
func (r *run) wholeFile(f *skipDataFile) error {
	if !f.absent {
		return nil
	}
	if err := r.opts.Footers.Fetch(r.ctx, f.local); err != nil {
		return fmt.Errorf("table %d %s, data file %d (%s): %w", f.table, f.name, f.id, oneline.Name(f.path), err)
	}
	f.absent, f.footer = false, f.local
	return nil
}

// sqlLocalPath is a file's location for localFile, from a row of
// ducklake_data_file or ducklake_delete_file (alias x) joined with
// tableDirs (alias td).
const sqlLocalPath = `coalesce(CASE WHEN NOT x.path_is_relative THEN x.path WHEN starts_with(td.dir, td.data_path) THEN 'rel:' || substr(td.dir, length(td.data_path) + 1) || x.path ELSE '' END, '')`

// skipDataFiles lists the data files with deletes of the tables with a
// top-level STRUCT column.
func skipDataFiles(r *run) ([]skipDataFile, error) {
	dirs, err := r.tableDirs()
	if err != nil {
		return nil, err
	}
	_, dynamic, err := r.w.layout(r.ctx)
	if err != nil {
		return nil, err
	}
	inlined := "false"
	for _, t := range dynamic {
		if id, ok := strings.CutPrefix(t, "ducklake_inlined_delete_"); ok {
			if _, err := strconv.ParseInt(id, 10, 64); err == nil {
				inlined += fmt.Sprintf(" OR (x.table_id = %s AND EXISTS (SELECT 1 FROM %s i WHERE i.file_id = x.data_file_id))", id, quote(t))
			}
		}
	}
	// A merged file's partial_max, where the layout has one.
	partialMax, merged := "NULL::BIGINT", "false"
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", "partial_max"); err != nil {
		return nil, err
	} else if ok {
		partialMax, merged = "x.partial_max", "x.partial_max IS NOT NULL"
	}
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", "partial_file_info"); err != nil {
		return nil, err
	} else if ok {
		info := `TRY_CAST(regexp_extract(x.partial_file_info, '^partial_max:([0-9]+)$', 1) AS BIGINT)`
		partialMax, merged = "coalesce("+info+", "+partialMax+")", merged+" OR "+info+" IS NOT NULL"
	}
	rows, err := r.w.conn.QueryContext(r.ctx, `SELECT x.data_file_id, x.table_id, coalesce(t.table_name, '?'), x.path, coalesce(x.record_count, 0), x.encryption_key,
			x.begin_snapshot, coalesce(x.end_snapshot, `+strconv.FormatInt(forever, 10)+`), `+partialMax+`, `+sqlLocalPath+`
		FROM ducklake_data_file x LEFT JOIN (`+dirs+`) td USING (table_id)
		LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t USING (table_id)
		WHERE x.begin_snapshot IS NOT NULL
			AND x.table_id IN (SELECT table_id FROM ducklake_column WHERE parent_column IS NULL AND lower(trim(column_type)) = 'struct')
			AND (EXISTS (SELECT 1 FROM ducklake_delete_file d WHERE d.data_file_id = x.data_file_id) OR `+inlined+` OR `+merged+`)
		ORDER BY x.data_file_id`)
	if err != nil {
		return nil, fmt.Errorf("read data files with deletes: %w", err)
	}
	defer rows.Close()
	var all []skipDataFile
	var plain []string // the unencrypted files' paths, whose footers are read
	for rows.Next() {
		var f skipDataFile
		var where string
		if err := rows.Scan(&f.id, &f.table, &f.name, &f.path, &f.records, &f.key, &f.begin, &f.end, &f.partialMax, &where); err != nil {
			return nil, err
		}
		if f.local = r.filePath(where); f.local != "" {
			all = append(all, f)
			if !f.key.Valid {
				plain = append(plain, f.local)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Where the data folder lacks a file, its footer is read from a
	// stand-in (Options.Footers); an encrypted file's footer is not read.
	paths, err := r.footerPaths(plain)
	if err != nil {
		return nil, fmt.Errorf("read the footers of data files with deletes: %w", err)
	}
	var out []skipDataFile
	for _, f := range all {
		_, statErr := os.Stat(f.local)
		switch p, ok := paths[f.local]; {
		case statErr == nil:
			f.footer = f.local
			if ok {
				f.footer = p // a stand-in for a copy the gate holds back (footerPaths)
			}
		case ok:
			f.footer, f.absent = p, true
		case f.key.Valid && r.opts.Footers != nil && errors.Is(statErr, fs.ErrNotExist):
			f.absent = true
		default:
			continue // missing: the proof reports it
		}
		out = append(out, f)
	}
	return out, nil
}

// skipDeleteFiles reads the Parquet delete files of a data file.
func skipDeleteFiles(r *run, f skipDataFile, dirs string, partial bool) ([]skipDeletes, error) {
	isPartial := "false"
	if partial {
		isPartial = "x.partial_max IS NOT NULL"
	}
	rows, err := r.w.conn.QueryContext(r.ctx, `SELECT x.delete_file_id, x.begin_snapshot, coalesce(x.end_snapshot, `+strconv.FormatInt(forever, 10)+`), x.path, x.encryption_key, `+isPartial+`,
			`+r.format.DeleteFileFormatSQL("x.format")+`, `+sqlLocalPath+`
		FROM ducklake_delete_file x LEFT JOIN (`+dirs+`) td USING (table_id)
		WHERE x.data_file_id = ? AND x.begin_snapshot IS NOT NULL
		ORDER BY x.delete_file_id`, f.id)
	if err != nil {
		return nil, fmt.Errorf("read delete files: %w", err)
	}
	type row struct {
		d       skipDeletes
		key     sql.NullString
		partial bool
		format  string // as the source's readers open it (formats.Version.DeleteFileFormat)
		where   string
	}
	var list []row
	for rows.Next() {
		var x row
		if err := rows.Scan(&x.d.id, &x.d.begin, &x.d.end, &x.d.path, &x.key, &x.partial, &x.format, &x.where); err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, x)
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, err
	}
	var out []skipDeletes
	for _, x := range list {
		if x.format != formats.DeleteFormatParquet && x.format != formats.DeleteFormatPuffin {
			continue // a value the source's readers do not know: every read of the file fails, and the proof reports it
		}
		local := r.localFile(x.where)
		if p := r.filePath(x.where); local == "" && p != "" && r.opts.Footers != nil && strings.HasPrefix(x.where, "rel:") {
			// Under the data folder, which lacks it (a remote
			// repository's cache fetches a delete file where its rows
			// are read).
			err := r.present(p)
			if errors.Is(err, fs.ErrNotExist) && r.ctx.Err() == nil {
				// Absent from the store: left to the proof, as a local
				// plan leaves a delete file its data folder lacks.
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("delete file %s of data file %d: %w", oneline.Name(p), f.id, err)
			}
			local = p
		}
		if local == "" {
			continue // the proof reports a missing delete file
		}
		if err := r.readable(local); err != nil {
			return nil, err
		}
		if x.format == formats.DeleteFormatPuffin {
			// A bare deletion vector (1.0+): every position from the file's
			// first snapshot.
			pos, err := readDeletionVector(local, r.vectorBound(f.id))
			if err != nil {
				return nil, fmt.Errorf("read deletion vector %d (%s): %w", x.d.id, oneline.Name(x.d.path), err)
			}
			x.d.pos = pos
			for range pos {
				x.d.snap = append(x.d.snap, x.d.begin)
			}
			out = append(out, x.d)
			continue
		}
		snap := strconv.FormatInt(x.d.begin, 10)
		if x.partial {
			snap = `"_ducklake_internal_snapshot_id"`
		}
		res, err := r.w.conn.QueryContext(r.ctx, `SELECT DISTINCT pos::BIGINT, `+snap+`::BIGINT FROM `+parquetRows(local, x.key.String)+` ORDER BY 1`)
		if err != nil {
			return nil, fmt.Errorf("read delete file %d (%s): %w", x.d.id, oneline.Name(x.d.path), err)
		}
		for res.Next() {
			var p, s int64
			if err := res.Scan(&p, &s); err != nil {
				res.Close()
				return nil, err
			}
			x.d.pos, x.d.snap = append(x.d.pos, p), append(x.d.snap, max(s, x.d.begin))
		}
		err = res.Err()
		res.Close()
		if err != nil {
			return nil, fmt.Errorf("read delete file %d (%s): %w", x.d.id, oneline.Name(x.d.path), err)
		}
		out = append(out, x.d)
	}
	return out, nil
}

// structSkipItem finds the first snapshot at which the quirk misreads a
// data file: at each snapshot where its skipped positions change while it
// is visible, the positions of the delete file visible then (and of its
// inlined deletions) and those it hides by partial_max, as a reader
// filters them ("" when none).
func structSkipItem(r *run, f skipDataFile, dels []skipDeletes, hidden skipHidden) (string, error) {
	var events []int64
	for _, d := range dels {
		for _, s := range append([]int64{d.begin}, d.snap...) {
			if s >= f.begin && s < f.end && s >= d.begin && s < d.end {
				events = append(events, s)
			}
		}
	}
	if len(hidden.pos) > 0 {
		events = append(events, f.begin)
		for _, s := range hidden.from {
			if s < f.end {
				events = append(events, s)
			}
		}
	}
	slices.Sort(events)
	events = slices.Compact(events)
	var groups []int64
	var cols []formats.StructSkipColumn
	read := false
	memo := map[formats.SkippedVectorRead]string{} // window -> column misread ("" none)
	for _, s := range events {
		var pos []int64
		var from []string
		for _, d := range dels {
			if s < d.begin || s >= d.end {
				continue
			}
			n := len(pos)
			for i, p := range d.pos {
				if d.snap[i] <= s {
					pos = append(pos, p)
				}
			}
			if len(pos) > n {
				if d.id < 0 {
					from = append(from, d.path)
				} else {
					from = append(from, fmt.Sprintf("delete file %d (%s)", d.id, oneline.Name(d.path)))
				}
			}
		}
		n := len(pos)
		for i, p := range hidden.pos {
			if s < hidden.from[i] {
				pos = append(pos, p)
			}
		}
		if len(pos) > n {
			from = append(from, fmt.Sprintf("the rows it hides by partial_max %d", f.partialMax.Int64))
		}
		slices.Sort(pos)
		pos = slices.Compact(pos)
		if !read {
			read = true
			var err error
			if groups, cols, err = skipFooter(r, f); err != nil {
				return "", err
			}
		}
		windows := formats.SkippedVectorReads(groups, pos, f.records)
		if len(windows) == 0 {
			continue
		}
		if f.key.Valid {
			w := windows[0]
			return fmt.Sprintf("table %d %s: data file %d (%s), encrypted, with %s at snapshot %d: positions %d-%d deleted before kept ones, and the table has a STRUCT column",
				f.table, f.name, f.id, oneline.Name(f.path), strings.Join(from, " and "), s, w.SkipStart, w.ReadStart-1), nil
		}
		if len(cols) == 0 {
			return "", nil // no column the quirk reaches: no snapshot differs
		}
		var ask []formats.SkippedVectorRead
		for _, w := range windows {
			if _, ok := memo[w]; !ok {
				ask = append(ask, w)
			}
		}
		if len(ask) > 0 {
			if err := r.wholeFile(&f); err != nil {
				return "", err
			}
			if err := structSkipRows(r, f, cols, ask, memo); err != nil {
				return "", err
			}
		}
		for _, w := range windows {
			if c := memo[w]; c != "" {
				return fmt.Sprintf("table %d %s: column %s: data file %d (%s) with %s at snapshot %d: positions %d-%d, whole vectors of a row group, are deleted and hold a NULL struct, and the next vector (positions %d-%d) a non-NULL one, which the reader can read NULL",
					f.table, f.name, c, f.id, oneline.Name(f.path), strings.Join(from, " and "), s, w.SkipStart, w.ReadStart-1, w.ReadStart, w.ReadEnd-1), nil
			}
		}
	}
	return "", nil
}

// skipHiddenRows reads the rows a merged file hides at its first snapshot
// by partial_max, as the proof's hiddenPositions does: at snapshot S <
// partial_max a reader keeps the rows whose stored
// _ducklake_internal_snapshot_id is <= S, so a row is hidden until
// min(its snapshot, partial_max), and one without a stored snapshot until
// partial_max.
func skipHiddenRows(r *run, f skipDataFile) (skipHidden, error) {
	var h skipHidden
	if !f.partialMax.Valid || f.partialMax.Int64 <= f.begin {
		return h, nil
	}
	pm := f.partialMax.Int64
	if err := r.readable(f.local); err != nil {
		return h, err
	}
	res, err := r.w.conn.QueryContext(r.ctx, fmt.Sprintf(`SELECT file_row_number, least(coalesce("_ducklake_internal_snapshot_id", %d), %d)::BIGINT FROM %s WHERE NOT coalesce("_ducklake_internal_snapshot_id" <= %d, false) ORDER BY 1`,
		pm, pm, parquetRows(f.local, f.key.String), f.begin))
	if err != nil {
		return h, fmt.Errorf("read the stored snapshots of merged data file %d (%s): %w", f.id, oneline.Name(f.path), err)
	}
	defer res.Close()
	for res.Next() {
		var p, s int64
		if err := res.Scan(&p, &s); err != nil {
			return h, err
		}
		h.pos, h.from = append(h.pos, p), append(h.from, s)
	}
	return h, res.Err()
}

// skipFooter reads a data file's row groups and the columns the quirk can
// misread from its footer (nil, nil for an encrypted file, whose footer is
// not read). The row groups are read in Go (parquetfooter.RowGroupRows):
// DuckDB's parquet_metadata fails on a footer with a TIMESTAMP_NS bound
// before 1677-09-22.
func skipFooter(r *run, f skipDataFile) ([]int64, []formats.StructSkipColumn, error) {
	if f.key.Valid {
		return nil, nil, nil
	}
	groups, err := parquetfooter.RowGroupRows(r.ctx, f.footer)
	if err != nil {
		return nil, nil, fmt.Errorf("read row groups: %w", err)
	}
	p := parquetsql.Path(f.footer)
	res, err := r.w.conn.QueryContext(r.ctx, `SELECT name, coalesce(num_children, 0), coalesce(repetition_type, ''), concat_ws(' ', converted_type, logical_type::VARCHAR) FROM parquet_schema(`+p+`)`)
	if err != nil {
		return nil, nil, fmt.Errorf("read parquet schema: %w", err)
	}
	defer res.Close()
	var schema []formats.ParquetSchemaRow
	for res.Next() {
		var s formats.ParquetSchemaRow
		if err := res.Scan(&s.Name, &s.Children, &s.Repetition, &s.Annotation); err != nil {
			return nil, nil, err
		}
		schema = append(schema, s)
	}
	if err := res.Err(); err != nil {
		return nil, nil, err
	}
	cols, err := formats.StructSkipColumns(schema)
	return groups, cols, err
}

// structSkipRows reads the file's rows in the windows and records, for
// each, the first column the quirk misreads there ("" none).
func structSkipRows(r *run, f skipDataFile, cols []formats.StructSkipColumn, windows []formats.SkippedVectorRead, memo map[formats.SkippedVectorRead]string) error {
	for _, w := range windows {
		memo[w] = ""
	}
	if err := r.readable(f.local); err != nil {
		return err
	}
	res, err := r.w.conn.QueryContext(r.ctx, formats.StructSkipSQL(parquetRows(f.local, ""), cols, windows))
	if err != nil {
		return fmt.Errorf("read rows: %w", err)
	}
	defer res.Close()
	for res.Next() {
		var i int
		hit := make([]bool, len(cols))
		dst := []any{&i}
		for j := range hit {
			dst = append(dst, &hit[j])
		}
		if err := res.Scan(dst...); err != nil {
			return err
		}
		for j, h := range hit {
			if h && i < len(windows) {
				memo[windows[i]] = cols[j].Column
				break
			}
		}
	}
	return res.Err()
}
