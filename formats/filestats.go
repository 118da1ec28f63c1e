package formats

import (
	"context"
	"database/sql"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// MissingColumnStats describes a pair of a data file and a top-level column
// of its table that are visible together at some snapshot while the file has
// no ducklake_file_column_stats row for the column: what a reader with
// QuirkFilesWithoutColumnStatsPruned skips under any filter on the column.
type MissingColumnStats struct {
	TableID, DataFileID, ColumnID int64
	// InFile: the column existed when the file was written (its first
	// begin_snapshot is not after the file's), so whether and what the
	// file holds of it is not known from the catalog. Otherwise the file
	// cannot hold it (field ids and name mappings are never reused for
	// later columns) and every row reads the initial default.
	InFile bool
	// Types are the column's column_type values over its rows, Defaults
	// its initial_default values (nil: none); FileColumnPairs gives the
	// pairs of one column the same slices (not to be modified).
	Types    []string
	Defaults []*string
	// RecordCount is the file's record_count.
	RecordCount int64
}

// ColumnStatsRow is a ducklake_file_column_stats row's statistics (nil:
// NULL); column_size_bytes and extra_stats are always NULL in a row of
// StatsReadAlike.
type ColumnStatsRow struct {
	ValueCount, NullCount *int64
	MinValue, MaxValue    *string
	ContainsNaN           *bool
}

// StatsReadAlike is the statistics row that makes a reader with
// QuirkFilesWithoutColumnStatsPruned keep the file under a filter on the
// column whenever the specification's reading of the file could return a
// matching row, and skip it only when it cannot: exactly, where the stats
// text of the default compares as its value; otherwise the row keeps the
// file (a NULL statistic keeps it; the reader still applies the filter to
// the rows it reads, so a kept file never adds rows).
//
// The readers (ConvertFilterPushdownToSQL, GenerateConstantFilter) compare
// min_value/max_value with the constant as TRY_CAST(stat AS <column type>)
// for numerics (and, in 1.5.0/1.5.1, temporals), else as text against the
// constant's text (Value::ToString); IS NULL asks null_count > 0, IS NOT
// NULL value_count > 0, = NaN contains_nan. So, for a column added after
// the file with one initial default d over all its rows:
//
//   - d NULL: value_count 0, null_count record_count, min/max NULL;
//   - d not NULL: value_count record_count, null_count 0, and min = max =
//     d's text where that text compares as the value for every constant:
//     numerics (d as stored: the reader casts it to the column type as the
//     default is cast; contains_nan false when d is a finite number),
//     VARCHAR (d itself), BOOLEAN ('true'/'false', Value::ToString's text),
//     UUID (lower case; DuckDB orders UUIDs as their text). Other types keep
//     min/max NULL: DATE and TIMESTAMP text sorts as the value only between
//     the years 1000 and 9999 (a 0.1-0.3 reader compares x < DATE
//     '10000-01-01' as text and would skip the file), TIME, TIMETZ,
//     INTERVAL, JSON, BLOB and nested types are not compared as values.
//
// A column that existed when the file was written, or whose rows disagree
// on the default, gets an all-NULL row: the file is kept under every
// filter.
func StatsReadAlike(m MissingColumnStats) ColumnStatsRow {
	if m.InFile || len(m.Defaults) == 0 {
		return ColumnStatsRow{}
	}
	d := m.Defaults[0]
	for _, o := range m.Defaults[1:] {
		if (o == nil) != (d == nil) || (o != nil && *o != *d) {
			return ColumnStatsRow{}
		}
	}
	n, zero := m.RecordCount, int64(0)
	if d == nil {
		return ColumnStatsRow{ValueCount: &zero, NullCount: &n}
	}
	row := ColumnStatsRow{ValueCount: &n, NullCount: &zero}
	text, nan, ok := statsText(m.Types, *d)
	if ok {
		row.MinValue, row.MaxValue = &text, &text
		row.ContainsNaN = nan
	}
	return row
}

var uuidText = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// statsText is the min/max text of default d under every one of types,
// and the contains_nan value to write (nil: NULL); ok false when no text
// compares as the value for them all.
func statsText(types []string, d string) (text string, nan *bool, ok bool) {
	if len(types) == 0 {
		return "", nil, false
	}
	class := ""
	for _, t := range types {
		c := statsClass(t)
		if c == "" || (class != "" && c != class && !(isNumericClass(c) && isNumericClass(class))) {
			return "", nil, false
		}
		if class == "" || c == "float" {
			class = c
		}
	}
	switch class {
	case "integer", "decimal":
		return d, nil, true
	case "float":
		f, err := strconv.ParseFloat(strings.TrimSpace(d), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", nil, false
		}
		no := false
		return d, &no, true
	case "varchar":
		return d, nil, true
	case "boolean":
		switch strings.ToLower(d) {
		case "true", "false":
			return strings.ToLower(d), nil, true
		}
	case "uuid":
		if uuidText.MatchString(d) {
			return strings.ToLower(d), nil, true
		}
	}
	return "", nil, false
}

func isNumericClass(c string) bool { return c == "integer" || c == "decimal" || c == "float" }

// statsClass groups DuckLake type names by how a reader compares their
// statistics text ("" for types kept with NULL min/max).
func statsClass(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	switch t {
	case "int8", "int16", "int32", "int64", "int128", "uint8", "uint16", "uint32", "uint64", "uint128":
		return "integer"
	case "float32", "float64":
		return "float"
	case "varchar", "boolean", "uuid":
		return t
	}
	if strings.HasPrefix(t, "decimal(") {
		return "decimal"
	}
	return ""
}

// Which pairs FileColumnPairsWhere returns: only those without a statistics
// row (what a conversion to a format whose readers skip such files writes
// rows for), or only those with exactly one row and no column_size_bytes
// (the only rows that can be read-alike rows, which a conversion up
// drops). Reading the other pairs of a large catalog (a few thousand
// files) cost most of a conversion's time.
const (
	PairsWithoutStats   = "s.n IS NULL"
	PairsMaybeReadAlike = "s.n = 1 AND s.column_size_bytes IS NULL"
)

// fileColumnPairsSQL lists every pair of a data file and a top-level column
// of its table that are visible together at some snapshot, with what
// MissingColumnStats needs but the column's types and defaults (which
// columnHistorySQL reads once a column) and the file's statistics rows for
// the column (as a reader with QuirkFilesWithoutColumnStatsPruned selects
// them: same data_file_id, column_id and table_id). prefix qualifies the
// metadata tables ("" or "cat."), stats is the file statistics table's name
// in the catalog (ducklake_file_column_stats, or
// ducklake_file_column_statistics before 0.3). Columns: table_id,
// data_file_id, column_id, the first snapshot at which both are visible,
// in_file, record_count, the file's path, the column's newest name, and,
// unless where is PairsWithoutStats (whose pairs have none), the number of
// statistics rows and the first one's column_size_bytes, value_count,
// null_count, min_value, max_value, contains_nan (by rowid); where
// (PairsWithoutStats, PairsMaybeReadAlike) keeps only some pairs.
func fileColumnPairsSQL(prefix, stats, where string) string {
	st := `SELECT data_file_id, table_id, column_id, count(*) AS n,
		arg_min(column_size_bytes, rowid) AS column_size_bytes, arg_min(value_count, rowid) AS value_count, arg_min(null_count, rowid) AS null_count,
		arg_min(min_value, rowid) AS min_value, arg_min(max_value, rowid) AS max_value, arg_min(contains_nan, rowid) AS contains_nan
	FROM ` + prefix + stats + ` GROUP BY data_file_id, table_id, column_id`
	statsCols := `, coalesce(s.n, 0),
	s.column_size_bytes, s.value_count, s.null_count, s.min_value, s.max_value, s.contains_nan`
	if where == PairsWithoutStats {
		// Only whether a row exists matters: each pair's count and
		// statistics would be 0 and NULLs.
		st = `SELECT DISTINCT data_file_id, table_id, column_id, 1 AS n FROM ` + prefix + stats
		statsCols = ""
	}
	if where != "" {
		where = "\nWHERE " + where
	}
	return `WITH cols AS (
	SELECT table_id, column_id, min(begin_snapshot) AS first_begin, arg_max(column_name, begin_snapshot) AS column_name
	FROM ` + prefix + `ducklake_column WHERE parent_column IS NULL GROUP BY table_id, column_id),
together AS (
	SELECT f.table_id, f.data_file_id, c.column_id, greatest(any_value(f.begin_snapshot), min(c.begin_snapshot)) AS snapshot
	FROM ` + prefix + `ducklake_data_file f JOIN ` + prefix + `ducklake_column c ON c.table_id = f.table_id AND c.parent_column IS NULL
		AND (f.end_snapshot IS NULL OR c.begin_snapshot < f.end_snapshot) AND (c.end_snapshot IS NULL OR c.end_snapshot > f.begin_snapshot)
	GROUP BY f.table_id, f.data_file_id, c.column_id),
st AS (
	` + st + `)
SELECT t.table_id, t.data_file_id, t.column_id, t.snapshot, c.first_begin <= f.begin_snapshot AS in_file,
	f.record_count, f.path, c.column_name` + statsCols + `
FROM together t JOIN cols c USING (table_id, column_id) JOIN ` + prefix + `ducklake_data_file f USING (data_file_id)
LEFT JOIN st s ON s.data_file_id = t.data_file_id AND s.table_id = t.table_id AND s.column_id = t.column_id` + where + `
ORDER BY t.table_id, t.data_file_id, t.column_id`
}

// columnHistorySQL lists every top-level column row of the catalog, each
// column's rows in the order its types and defaults are listed
// (MissingColumnStats): table_id, column_id, column_type, initial_default.
// They are read flat, once a column row, rather than as two lists on each of
// its pairs: DuckDB's Go driver turns every list element of a result into a
// Go value, which cost a wide catalog's conversion (2,600 pairs) more than
// the query.
func columnHistorySQL(prefix string) string {
	return `SELECT table_id, column_id, column_type::VARCHAR, initial_default::VARCHAR FROM ` + prefix + `ducklake_column
	WHERE parent_column IS NULL ORDER BY table_id, column_id, begin_snapshot, rowid`
}

// Matches reports whether the statistics read from a row (column_size_bytes
// first) are exactly the row StatsReadAlike writes: column_size_bytes NULL
// (a writer's own rows always have it) and every statistic equal.
func (r ColumnStatsRow) Matches(sizeBytes *int64, valueCount, nullCount *int64, minValue, maxValue *string, containsNaN *bool) bool {
	return sizeBytes == nil && eqPtr(r.ValueCount, valueCount) && eqPtr(r.NullCount, nullCount) &&
		eqPtr(r.MinValue, minValue) && eqPtr(r.MaxValue, maxValue) && eqPtr(r.ContainsNaN, containsNaN)
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// FileColumnPair is one row of fileColumnPairsSQL.
type FileColumnPair struct {
	MissingColumnStats
	// Snapshot is the first snapshot at which file and column are visible
	// together.
	Snapshot   int64
	Path       string
	ColumnName string
	// Rows is the number of statistics rows of the pair; the others are
	// the first one's (by rowid).
	Rows                             int64
	SizeBytes, ValueCount, NullCount *int64
	MinValue, MaxValue               *string
	ContainsNaN                      *bool
}

// HasReadAlikeRow reports whether the pair's one statistics row is exactly
// StatsReadAlike's.
func (p FileColumnPair) HasReadAlikeRow() bool {
	return p.Rows == 1 && StatsReadAlike(p.MissingColumnStats).Matches(p.SizeBytes, p.ValueCount, p.NullCount, p.MinValue, p.MaxValue, p.ContainsNaN)
}

// FileColumnPairs runs fileColumnPairsSQL on q: every pair.
func FileColumnPairs(ctx context.Context, q Querier, prefix, stats string) ([]FileColumnPair, error) {
	return FileColumnPairsWhere(ctx, q, prefix, stats, "")
}

// FileColumnPairsWhere is FileColumnPairs of the pairs where (PairsWithoutStats,
// PairsMaybeReadAlike; "" for all) holds.
func FileColumnPairsWhere(ctx context.Context, q Querier, prefix, stats, where string) ([]FileColumnPair, error) {
	rows, err := q.QueryContext(ctx, fileColumnPairsSQL(prefix, stats, where))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FileColumnPair
	for rows.Next() {
		var p FileColumnPair
		var rc sql.NullInt64
		var path, name sql.NullString
		dest := []any{&p.TableID, &p.DataFileID, &p.ColumnID, &p.Snapshot, &p.InFile, &rc, &path, &name}
		if where != PairsWithoutStats {
			dest = append(dest, &p.Rows, &p.SizeBytes, &p.ValueCount, &p.NullCount, &p.MinValue, &p.MaxValue, &p.ContainsNaN)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		p.RecordCount, p.Path, p.ColumnName = rc.Int64, path.String, name.String
		if !rc.Valid {
			// Without a record count no counts can be written: keep the
			// file under every filter.
			p.InFile = true
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if len(out) == 0 {
		return out, nil
	}
	type columnKey struct{ table, column int64 }
	type history struct {
		types    []string
		defaults []*string
	}
	hist := map[columnKey]*history{}
	for _, p := range out {
		hist[columnKey{p.TableID, p.ColumnID}] = nil
	}
	crows, err := q.QueryContext(ctx, columnHistorySQL(prefix))
	if err != nil {
		return nil, err
	}
	defer crows.Close()
	for crows.Next() {
		var k columnKey
		var typ, def sql.NullString
		if err := crows.Scan(&k.table, &k.column, &typ, &def); err != nil {
			return nil, err
		}
		h, wanted := hist[k]
		if !wanted {
			continue
		}
		if h == nil {
			h = &history{}
			hist[k] = h
		}
		if typ.Valid {
			h.types = append(h.types, typ.String)
		}
		var d *string
		if def.Valid {
			d = &def.String
		}
		h.defaults = append(h.defaults, d)
	}
	if err := crows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if h := hist[columnKey{out[i].TableID, out[i].ColumnID}]; h != nil {
			// Pairs of one column share the histories; clipped, so that
			// an append by one caller copies instead of writing into
			// another pair's.
			out[i].Types, out[i].Defaults = slices.Clip(h.types), slices.Clip(h.defaults)
		}
	}
	return out, nil
}

// ValueCountZeroWithValuesSQL is the condition on a file column statistics
// row aliased s (tables under prefix, "" or "cat.") that readers with
// QuirkValueCountZeroPruned skip under a comparison filter while the file
// may hold non-NULL values of the column: value_count 0 for a top-level
// column (filters are pushed down on those only; the readers look up no
// row of a nested field), unless null_count is at least the data file's
// record_count, which tells a file of NULLs only (what such readers rightly
// skip, and what StatsReadAlike writes for a column added after the file
// without a default). A NULL null_count or record_count tells nothing. The
// null_count of the columns that meet it in practice (TIMETZ, INTERVAL:
// DuckDB's Parquet writer reports num_values and null_count 0) is 0 even
// where the file holds NULLs, so it says nothing about the values either.
func ValueCountZeroWithValuesSQL(prefix string) string {
	return `s.value_count = 0
		AND NOT coalesce(s.null_count >= (SELECT f.record_count FROM ` + prefix + `ducklake_data_file f WHERE f.data_file_id = s.data_file_id), false)
		AND EXISTS (SELECT 1 FROM ` + prefix + `ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id AND col.parent_column IS NULL)`
}
