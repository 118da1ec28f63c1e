package lakegen

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/google/uuid"
)

// copyResult is what COPY ... (RETURN_STATS true) reports for one file.
type copyResult struct {
	count, size, footer int64
	stats               map[string]map[string]string // leaf path -> stat -> value
}

// copyParquet writes a query to one Parquet file and returns DuckDB's own
// statistics of it, which are what DuckLake records in the catalog.
func (g *gen) copyParquet(ctx context.Context, query, fieldIDs, path string) (*copyResult, error) {
	q := fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, FIELD_IDS {%s}, RETURN_STATS true)", query, quoteString(path), fieldIDs)
	rows, err := g.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	defer rows.Close()
	var out []copyResult
	for rows.Next() {
		var (
			name                string
			r                   copyResult
			colStats, partition any
		)
		if err := rows.Scan(&name, &r.count, &r.size, &r.footer, &colStats, &partition); err != nil {
			return nil, fmt.Errorf("write %s: read stats: %w", path, err)
		}
		r.stats = map[string]map[string]string{}
		if m, ok := colStats.(duckdb.OrderedMap); ok {
			keys, vals := m.Keys(), m.Values()
			for i, k := range keys {
				inner := map[string]string{}
				if im, ok := vals[i].(duckdb.OrderedMap); ok {
					ik, iv := im.Keys(), im.Values()
					for j := range ik {
						inner[fmt.Sprint(ik[j])] = fmt.Sprint(iv[j])
					}
				}
				r.stats[fmt.Sprint(k)] = inner
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if len(out) != 1 {
		return nil, fmt.Errorf("write %s: COPY reported %d files", path, len(out))
	}
	return &out[0], nil
}

func (op Insert) apply(ctx context.Context, g *gen) error {
	t, err := g.live(op.Table)
	if err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	if err := g.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE stage AS SELECT * FROM (%s)", op.Select)); err != nil {
		return fmt.Errorf("insert into %s: %w", t.name, err)
	}
	defer g.exec(ctx, "DROP TABLE IF EXISTS temp.stage") //nolint:errcheck // best-effort cleanup
	names, err := g.columnNames(ctx, "SELECT * FROM temp.stage LIMIT 0")
	if err != nil {
		return err
	}
	if len(names) != len(t.cols) {
		return fmt.Errorf("insert into %s: select has %d columns, table has %d", t.name, len(names), len(t.cols))
	}
	var n int64
	if err := g.conn.QueryRowContext(ctx, "SELECT count(*) FROM temp.stage").Scan(&n); err != nil {
		return fmt.Errorf("insert into %s: %w", t.name, err)
	}
	if n == 0 {
		return nil
	}
	// Assign every row its data file, position and row id. Row ids are
	// consecutive within a file, so file position = row id - row_id_start.
	var fileIdx, pos, rowID string
	var nFiles int64
	if len(t.partCols) == 0 {
		nFiles = int64(max(op.Files, 1))
		nFiles = min(nFiles, n)
		fileIdx = fmt.Sprintf("(_ord * %d) // %d", nFiles, n)
		pos = fmt.Sprintf("_ord - ((%s) * %d + %d) // %d", fileIdx, n, nFiles-1, nFiles)
		rowID = fmt.Sprintf("%d + _ord", t.nextRowID)
	} else {
		keys := make([]string, len(t.partCols))
		for i, c := range t.partCols {
			keys[i] = quoteName(names[t.colIndex(c)])
		}
		k := strings.Join(keys, ", ")
		if err := g.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM (SELECT DISTINCT %s FROM temp.stage)", k)).Scan(&nFiles); err != nil {
			return fmt.Errorf("insert into %s: %w", t.name, err)
		}
		fileIdx = fmt.Sprintf("dense_rank() OVER (ORDER BY %s) - 1", k)
		pos = fmt.Sprintf("row_number() OVER (PARTITION BY %s ORDER BY _ord) - 1", k)
		rowID = fmt.Sprintf("%d + row_number() OVER (ORDER BY %s, _ord) - 1", t.nextRowID, k)
	}
	firstFile := g.nextFileID
	g.nextFileID += nFiles
	cols := []string{"_row_id", "_begin", "_end", "_file", "_pos"}
	vals := []string{rowID, strconv.FormatInt(g.snap, 10), "NULL", fmt.Sprintf("%d + (%s)", firstFile, fileIdx), pos}
	for i, c := range t.cols {
		cols = append(cols, fmt.Sprintf("c%d", c.id))
		vals = append(vals, fmt.Sprintf("CAST(%s AS %s)", quoteName(names[i]), c.sqlType()))
	}
	if err := g.exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM (SELECT row_number() OVER () - 1 AS _ord, * FROM temp.stage)",
		t.truth(), strings.Join(cols, ", "), strings.Join(vals, ", "))); err != nil {
		return fmt.Errorf("insert into %s: %w", t.name, err)
	}
	for fid := firstFile; fid < firstFile+nFiles; fid++ {
		if err := g.writeDataFile(ctx, t, fid); err != nil {
			return fmt.Errorf("insert into %s: %w", t.name, err)
		}
	}
	g.touch(t)
	g.change(rankInserted, fmt.Sprintf("inserted_into_table:%d", t.id))
	return nil
}

func (t *table) colIndex(c *col) int {
	for i, x := range t.cols {
		if x == c {
			return i
		}
	}
	return -1
}

func (g *gen) columnNames(ctx context.Context, query string) ([]string, error) {
	rows, err := g.conn.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oneline.Brief(query, 120), err)
	}
	defer rows.Close()
	return rows.Columns()
}

// selectList projects truth columns under the table's current names.
func (t *table) selectList() string {
	parts := make([]string, len(t.cols))
	for i, c := range t.cols {
		parts[i] = fmt.Sprintf("c%d AS %s", c.id, quoteName(c.name))
	}
	return strings.Join(parts, ", ")
}

// writeDataFile writes the truth rows assigned to one data file and records
// it in the catalog with its statistics.
func (g *gen) writeDataFile(ctx context.Context, t *table, fid int64) error {
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	rel := "ducklake-" + id.String() + ".parquet"
	var partValues []*string
	if len(t.partCols) > 0 {
		// Hive folders key=value, as DuckLake writes partitioned files.
		exprs := make([]string, len(t.partCols))
		for i, c := range t.partCols {
			exprs[i] = fmt.Sprintf("CAST(c%d AS VARCHAR)", c.id)
		}
		vals := make([]sql.NullString, len(exprs))
		ptrs := make([]any, len(exprs))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		q := fmt.Sprintf("SELECT %s FROM %s WHERE _file = ? LIMIT 1", strings.Join(exprs, ", "), t.truth())
		if err := g.conn.QueryRowContext(ctx, q, fid).Scan(ptrs...); err != nil {
			return fmt.Errorf("read partition values: %w", err)
		}
		var dirs []string
		for i, v := range vals {
			seg := "__HIVE_DEFAULT_PARTITION__"
			if v.Valid {
				s := v.String
				partValues = append(partValues, &s)
				seg = v.String
			} else {
				partValues = append(partValues, nil)
			}
			dirs = append(dirs, t.partCols[i].name+"="+seg)
		}
		rel = strings.Join(dirs, "/") + "/" + rel
	}
	local := filepath.Join(g.dataDir, schemaPath, t.path, filepath.FromSlash(rel))
	if err := mkdirFor(local); err != nil {
		return err
	}
	ids := make([]string, len(t.cols))
	for i, c := range t.cols {
		ids[i] = quoteName(c.name) + ": " + c.fieldIDs()
	}
	query := fmt.Sprintf("SELECT %s FROM %s WHERE _file = %d ORDER BY _pos", t.selectList(), t.truth(), fid)
	res, err := g.copyParquet(ctx, query, strings.Join(ids, ", "), local)
	if err != nil {
		return err
	}
	f := &dataFile{id: fid, path: rel, rowIDStart: t.nextRowID, count: res.count, begin: g.snap}
	var partID any
	if t.partID != 0 {
		partID = t.partID
	}
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_data_file VALUES (?, ?, ?, NULL, NULL, ?, true, 'parquet', ?, ?, ?, ?, ?, NULL, NULL, NULL)",
		f.id, t.id, g.snap, f.path, f.count, res.size, res.footer, f.rowIDStart, partID); err != nil {
		return err
	}
	for i, v := range partValues {
		if err := g.exec(ctx, "INSERT INTO cat.ducklake_file_partition_value VALUES (?, ?, ?, ?)", f.id, t.id, i, v); err != nil {
			return err
		}
	}
	first := !t.hasStats
	for _, c := range t.cols {
		for _, l := range c.leaves("") {
			st, ok := res.stats[l.path]
			if !ok {
				return fmt.Errorf("write %s: no statistics for column %s", local, l.path)
			}
			fs, err := fileStat(l, st)
			if err != nil {
				return fmt.Errorf("write %s: column %s: %w", local, l.path, err)
			}
			if err := g.exec(ctx, "INSERT INTO cat.ducklake_file_column_stats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
				f.id, t.id, l.c.id, fs.size, fs.values, fs.nulls, fs.min, fs.max, fs.nan); err != nil {
				return err
			}
			t.mergeStats(l, fs, first)
		}
	}
	t.hasStats = true
	t.records += f.count
	t.sizeBytes += res.size
	t.nextRowID += f.count
	t.files = append(t.files, f)
	return nil
}

type fileStats struct {
	size, values, nulls int64
	min, max            *string
	nan                 *bool
}

func fileStat(l leaf, st map[string]string) (fileStats, error) {
	var fs fileStats
	var err error
	num := func(key string) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = strconv.ParseInt(st[key], 10, 64)
		return v
	}
	fs.size = num("column_size_bytes")
	numValues := num("num_values")
	fs.nulls = num("null_count")
	if err != nil {
		return fs, err
	}
	fs.values = numValues - fs.nulls
	if v, ok := st["min"]; ok {
		fs.min = &v
	}
	if v, ok := st["max"]; ok {
		fs.max = &v
	}
	if isFloat(l.dl) {
		// DuckLake records contains_nan only for floating point columns.
		nan := st["has_nan"] == "true"
		fs.nan = &nan
	}
	return fs, nil
}

func isFloat(dl string) bool { return dl == "float32" || dl == "float64" }

// mergeStats folds a file's statistics into table_column_stats. DuckLake
// creates those rows at a table's first insert and later only updates them,
// so columns added afterwards get none (seen in real 1.0 catalogs).
func (t *table) mergeStats(l leaf, fs fileStats, first bool) {
	var cs *colStat
	for _, x := range t.colStats {
		if x.id == l.c.id {
			cs = x
		}
	}
	if cs == nil {
		if !first {
			return
		}
		cs = &colStat{id: l.c.id, dl: l.dl, min: fs.min, max: fs.max}
		if isFloat(l.dl) {
			f := false
			cs.containsNaN = &f
		}
		t.colStats = append(t.colStats, cs)
	} else {
		cs.min = pick(cs.dl, cs.min, fs.min, true)
		cs.max = pick(cs.dl, cs.max, fs.max, false)
	}
	cs.containsNull = cs.containsNull || fs.nulls > 0
	if cs.containsNaN != nil && fs.nan != nil && *fs.nan {
		t := true
		cs.containsNaN = &t
	}
}

// pick returns the smaller (or larger) of two statistics strings, compared
// as numbers for numeric columns and as text otherwise (ISO dates and
// timestamps sort as text).
func pick(dl string, a, b *string, smaller bool) *string {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	var less bool
	fa, errA := strconv.ParseFloat(*a, 64)
	fb, errB := strconv.ParseFloat(*b, 64)
	if numeric(dl) && errA == nil && errB == nil {
		less = fb < fa
	} else {
		less = *b < *a
	}
	if less == smaller {
		return b
	}
	return a
}

func numeric(dl string) bool {
	return strings.HasPrefix(dl, "int") || strings.HasPrefix(dl, "uint") || isFloat(dl) || strings.HasPrefix(dl, "decimal")
}

// writeTableStats rewrites ducklake_table_stats and
// ducklake_table_column_stats from the tables' running totals, in table
// order; it runs once per version, before the catalog is frozen.
func (g *gen) writeTableStats(ctx context.Context) error {
	if err := g.exec(ctx, "DELETE FROM cat.ducklake_table_stats"); err != nil {
		return err
	}
	if err := g.exec(ctx, "DELETE FROM cat.ducklake_table_column_stats"); err != nil {
		return err
	}
	for _, t := range g.tables {
		if !t.hasStats {
			continue
		}
		if err := g.exec(ctx, "INSERT INTO cat.ducklake_table_stats VALUES (?, ?, ?, ?)", t.id, t.records, t.nextRowID, t.sizeBytes); err != nil {
			return err
		}
		for _, cs := range t.colStats {
			if err := g.exec(ctx, "INSERT INTO cat.ducklake_table_column_stats VALUES (?, ?, ?, ?, ?, ?, NULL)",
				t.id, cs.id, cs.containsNull, cs.containsNaN, cs.min, cs.max); err != nil {
				return err
			}
		}
	}
	return nil
}

func (op Delete) apply(ctx context.Context, g *gen) error {
	t, err := g.live(op.Table)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	q := fmt.Sprintf("CREATE OR REPLACE TEMP TABLE gone AS SELECT _row_id, _file FROM (SELECT _row_id, _file, %s FROM %s WHERE _end IS NULL) WHERE %s",
		t.selectList(), t.truth(), op.Where)
	if err := g.exec(ctx, q); err != nil {
		return fmt.Errorf("delete from %s: %w", t.name, err)
	}
	defer g.exec(ctx, "DROP TABLE IF EXISTS temp.gone") //nolint:errcheck // best-effort cleanup
	if err := g.exec(ctx, fmt.Sprintf("UPDATE %s SET _end = %d WHERE _row_id IN (SELECT _row_id FROM temp.gone)", t.truth(), g.snap)); err != nil {
		return fmt.Errorf("delete from %s: %w", t.name, err)
	}
	rows, err := g.conn.QueryContext(ctx, "SELECT DISTINCT _file FROM temp.gone ORDER BY 1")
	if err != nil {
		return fmt.Errorf("delete from %s: %w", t.name, err)
	}
	var touched []int64
	for rows.Next() {
		var fid int64
		if err := rows.Scan(&fid); err != nil {
			rows.Close()
			return err
		}
		touched = append(touched, fid)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(touched) == 0 {
		return nil
	}
	for _, fid := range touched {
		var f *dataFile
		for _, x := range t.files {
			if x.id == fid {
				f = x
			}
		}
		if f == nil {
			return fmt.Errorf("delete from %s: unknown data file %d", t.name, fid)
		}
		if err := g.writeDeleteFile(ctx, t, f); err != nil {
			return fmt.Errorf("delete from %s: %w", t.name, err)
		}
	}
	g.touch(t)
	g.change(rankDeleted, fmt.Sprintf("deleted_from_table:%d", t.id))
	return nil
}

// writeDeleteFile records the deletions of one data file. First deletes get
// a two-column delete file; later ones a partial deletion file holding every
// deleted position with the snapshot that deleted it, replacing the previous
// delete file's row (which is removed and scheduled for deletion).
func (g *gen) writeDeleteFile(ctx context.Context, t *table, f *dataFile) error {
	var live int64
	if err := g.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE _file = ? AND _end IS NULL", t.truth()), f.id).Scan(&live); err != nil {
		return err
	}
	if live == 0 {
		// Every row gone: DuckLake ends the data file instead.
		f.end = g.snap
		if err := g.exec(ctx, "UPDATE cat.ducklake_data_file SET end_snapshot = ? WHERE data_file_id = ?", g.snap, f.id); err != nil {
			return err
		}
		if f.del != nil {
			return g.exec(ctx, "UPDATE cat.ducklake_delete_file SET end_snapshot = ? WHERE delete_file_id = ?", g.snap, f.del.id)
		}
		return nil
	}
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	d := &deleteFile{id: g.nextFileID, path: "ducklake-" + id.String() + "-delete.parquet", begin: g.snap}
	g.nextFileID++
	local := filepath.Join(g.dataDir, schemaPath, t.path, d.path)
	target := g.dataPath + schemaPath + t.path + f.path
	partial := f.del != nil
	cols := fmt.Sprintf("%s AS file_path, _pos AS pos", quoteString(target))
	ids := fmt.Sprintf("file_path: %d, pos: %d", formats.DeleteFilePathFieldID, formats.DeletePosFieldID)
	if partial {
		cols += ", _end AS _ducklake_internal_snapshot_id"
		ids += fmt.Sprintf(", _ducklake_internal_snapshot_id: %d", formats.PartialDeleteSnapshotFieldID)
	}
	query := fmt.Sprintf("SELECT %s FROM %s WHERE _file = %d AND _end IS NOT NULL ORDER BY _pos", cols, t.truth(), f.id)
	res, err := g.copyParquet(ctx, query, ids, local)
	if err != nil {
		return err
	}
	var partialMax any
	if partial {
		if err := g.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT min(_end) FROM %s WHERE _file = ? AND _end IS NOT NULL", t.truth()), f.id).Scan(&d.begin); err != nil {
			return err
		}
		partialMax = g.snap
		old := f.del
		if err := g.exec(ctx, "DELETE FROM cat.ducklake_delete_file WHERE delete_file_id = ?", old.id); err != nil {
			return err
		}
		if err := g.exec(ctx, "INSERT INTO cat.ducklake_files_scheduled_for_deletion VALUES (?, ?, true, ?)",
			old.id, schemaPath+t.path+old.path, g.snapTime); err != nil {
			return err
		}
	}
	if err := g.exec(ctx, "INSERT INTO cat.ducklake_delete_file VALUES (?, ?, ?, NULL, ?, ?, true, 'parquet', ?, ?, ?, NULL, ?)",
		d.id, t.id, d.begin, f.id, d.path, res.count, res.size, res.footer, partialMax); err != nil {
		return err
	}
	f.del = d
	return nil
}
