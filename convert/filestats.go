package convert

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/fdl-formats/fdl-formats/formats"
)

// fileStatsTable is the name of the file column statistics table in the
// working copy's layout (renamed in 0.3).
func (r *run) fileStatsTable() (string, error) {
	for _, n := range formats.FileStatsTables() {
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
	drop := !add && source.ReadsAsSourceWith(q) // the source as its newest reader reads it (readerChecks)
	if !add && !drop {
		return nil
	}
	stats, err := r.fileStatsTable()
	if err != nil || stats == "" {
		return err
	}
	which := formats.PairsWithoutStats
	if drop {
		which = formats.PairsMaybeReadAlike
	}
	pairs, err := formats.FileColumnPairsWhere(r.ctx, r.w.conn, "", stats, which)
	if err != nil {
		return fmt.Errorf("read data files and columns: %w", err)
	}
	info := q.Info()
	if drop {
		var files, tables, columns []int64
		for _, p := range pairs {
			if p.HasReadAlikeRow() {
				files, tables, columns = append(files, p.DataFileID), append(tables, p.TableID), append(columns, p.ColumnID)
			}
		}
		// The keys go in as three list parameters: a statement with
		// thousands of VALUES rows costs DuckDB ~30 us a row to parse and
		// bind (a wide catalog's conversion took 3x a COPY FROM DATABASE).
		if len(files) > 0 {
			if err := r.w.exec(r.ctx, `DELETE FROM `+stats+` WHERE column_size_bytes IS NULL AND EXISTS (
				SELECT 1 FROM (SELECT unnest($1::BIGINT[]) AS f, unnest($2::BIGINT[]) AS t, unnest($3::BIGINT[]) AS c) v
				WHERE v.f = data_file_id AND v.t = table_id AND v.c = column_id)`, files, tables, columns); err != nil {
				return err
			}
		}
		if n := len(files); n > 0 {
			r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: stats, Detail: fmt.Sprintf("%d rows", n),
				Reason: "statistics rows written for format " + source.Name + " readers (" + info.Name + ": data files without statistics for a column added after them) dropped: format " + target.Name + " readers keep such files without them, and its writers never write them"})
		}
		return nil
	}
	if len(pairs) == 0 {
		return nil
	}
	extra, err := r.w.hasColumn(r.ctx, stats, "extra_stats")
	if err != nil {
		return err
	}
	var rows statsRows
	for _, p := range pairs { // PairsWithoutStats: none has a row
		rows.add(p.DataFileID, p.TableID, p.ColumnID, formats.StatsReadAlike(p.MissingColumnStats))
	}
	if err := rows.insert(r, stats, extra); err != nil {
		return err
	}
	detail := summarizeEach(len(pairs), func(i int) string {
		p := pairs[i]
		what := "initial default"
		if p.InFile {
			what = "unknown, kept under every filter"
		}
		return fmt.Sprintf("table %d data_file_id %d column %s (id %d): %s", p.TableID, p.DataFileID, p.ColumnName, p.ColumnID, what)
	})
	r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: stats, Detail: detail,
		Reason: fmt.Sprintf("format %s readers skip a data file without statistics for a filtered column (%s); a row was written for each data file and column visible together without one, as the specification reads the file (value and null counts from its record_count and the column's initial default; min and max the default where its statistics text compares as its value), so that filters on these columns return the rows the specification reads, as readers without this behaviour do", target.Name, info.Source)})
	return nil
}

// statsRows are ducklake_file_column_stats rows to insert in one statement
// with few parameters, each column one text of comma-separated values (an
// empty value for NULL): the integers in decimal, contains_nan as
// true/false, min_value and max_value as "x" and their bytes in hex.
// DuckDB's Go driver binds a list parameter element by element (~1 us
// each; 13 lists of a wide catalog's 2,600 rows cost more than the query
// that found them), a VALUES list of thousands of rows costs ~30 us a row
// to parse and bind, and indexing a list parameter costs DuckDB a copy of
// it a row; DuckDB splits, casts and decodes the texts in vectors.
type statsRows struct {
	n    int
	cols [8][]byte // data_file_id, table_id, column_id, value_count, null_count, min_value, max_value, contains_nan
}

func (s *statsRows) add(file, table, column int64, row formats.ColumnStatsRow) {
	for i := range s.cols {
		if s.n > 0 {
			s.cols[i] = append(s.cols[i], ',')
		}
	}
	for i, v := range []*int64{&file, &table, &column, row.ValueCount, row.NullCount} {
		if v != nil {
			s.cols[i] = strconv.AppendInt(s.cols[i], *v, 10)
		}
	}
	for i, v := range []*string{row.MinValue, row.MaxValue} {
		if v != nil {
			s.cols[5+i] = hex.AppendEncode(append(s.cols[5+i], 'x'), []byte(*v))
		}
	}
	if row.ContainsNaN != nil {
		s.cols[7] = strconv.AppendBool(s.cols[7], *row.ContainsNaN)
	}
	s.n++
}

// insert writes the rows into stats (column_size_bytes and extra_stats
// NULL).
func (s *statsRows) insert(r *run, stats string, extra bool) error {
	cols := "data_file_id, table_id, column_id, column_size_bytes, value_count, null_count, min_value, max_value, contains_nan"
	vals := `f::BIGINT, t::BIGINT, c::BIGINT, NULL, nullif(vc, '')::BIGINT, nullif(nc, '')::BIGINT,
		CASE WHEN mn <> '' THEN decode(unhex(substr(mn, 2))) END, CASE WHEN mx <> '' THEN decode(unhex(substr(mx, 2))) END, nullif(nan, '')::BOOLEAN`
	if extra {
		cols += ", extra_stats"
		vals += ", NULL"
	}
	args := make([]any, len(s.cols))
	for i, b := range s.cols {
		args[i] = string(b)
	}
	return r.w.exec(r.ctx, `INSERT INTO `+stats+` (`+cols+`) SELECT `+vals+` FROM (SELECT
		unnest(string_split($1, ',')) AS f, unnest(string_split($2, ',')) AS t, unnest(string_split($3, ',')) AS c,
		unnest(string_split($4, ',')) AS vc, unnest(string_split($5, ',')) AS nc,
		unnest(string_split($6, ',')) AS mn, unnest(string_split($7, ',')) AS mx, unnest(string_split($8, ',')) AS nan)`, args...)
}
