package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/duckfile"
)

// ReadEveryTable reads every column of every row of every table in the
// catalog file, so that DuckDB verifies the checksum of every block that
// holds table data, and checks that the file is as long as its header says
// (a file cut inside its free blocks reads, but is not the file that was
// written). The proof reads only the metadata it needs; this is what makes
// it certify every byte a reader can reach. Errors wrap ErrIncomparable and
// name the file and the table.
func (r *Reader) ReadEveryTable(ctx context.Context) error {
	if err := checkLength(r.path); err != nil {
		return err
	}
	rows, err := r.conn.QueryContext(ctx, `SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'cat' ORDER BY schema_name, table_name`)
	if err != nil {
		return fmt.Errorf("%w: list the tables of %s: %w", ErrIncomparable, r.path, err)
	}
	var names [][2]string
	for rows.Next() {
		var s, t string
		if err := rows.Scan(&s, &t); err != nil {
			rows.Close()
			return fmt.Errorf("%w: list the tables of %s: %w", ErrIncomparable, r.path, err)
		}
		names = append(names, [2]string{s, t})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: list the tables of %s: %w", ErrIncomparable, r.path, err)
	}
	// hash(t) hashes the whole row: every column is read and decoded. All
	// tables in one query; when it fails, one query per table names the
	// table that cannot be read. The same pass reads what Bookkeeping asks
	// of the metadata schema's tables (the largest value of each snapshot
	// column, where it is a BIGINT, as DuckLake writes them: any other
	// type is left to Bookkeeping's own query and its cast; the row counts
	// are read anyway), so that Bookkeeping runs no query of its own;
	// should that part fail, the tables are read without it.
	bk := map[string][]string{}
	width := 0
	for t, cols := range everyTableParts(r.bookkeepingParts()) {
		for _, c := range cols {
			if r.columnTypes[[2]string{t, c}] == "BIGINT" {
				bk[t] = append(bk[t], c)
			}
		}
		width = max(width, len(bk[t]))
	}
	width = max(width, 1) // one column at least, NULL where a table has none
	plain := make([]string, len(names))
	withBk := make([]string, len(names))
	for i, n := range names {
		plain[i] = fmt.Sprintf(`SELECT %d AS i, count(*) AS n, bit_xor(hash(t)) AS h FROM cat.%s.%s t`, i, ident(n[0]), ident(n[1]))
		var cols []string
		if n[0] == "main" {
			cols = bk[n[1]]
		}
		withBk[i] = fmt.Sprintf(`SELECT %d AS i, count(*) AS n, bit_xor(hash(t)) AS h, %s FROM cat.%s.%s t`, i, bookkeepingAggregates(cols, width), ident(n[0]), ident(n[1]))
	}
	counts := make(map[string]int64, len(names))
	kept := map[bookkeepingPart]sql.NullInt64{}
	for from := 0; from < len(names); from += maxTablesPerRead {
		to := min(len(names), from+maxTablesPerRead)
		err := errNoBookkeeping
		if kept != nil {
			err = r.readTables(ctx, withBk[from:to], width, names, bk, counts, kept)
		}
		if err != nil && ctx.Err() == nil {
			kept = nil
			err = r.readTables(ctx, plain[from:to], -1, names, bk, counts, nil)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return r.readTablesOneByOne(ctx, names, err)
		}
	}
	r.rowCounts = counts
	r.bookkept = kept
	return nil
}

// errNoBookkeeping: ReadEveryTable reads its remaining tables without the
// bookkeeping values, which an earlier query could not read.
var errNoBookkeeping = errors.New("tables read without their bookkeeping values")

// bookkeepingAggregates are the columns of a table's part in
// ReadEveryTable's query that Bookkeeping asks of it: the largest value of
// each of cols (BIGINT columns), then NULLs up to width.
func bookkeepingAggregates(cols []string, width int) string {
	vals := make([]string, 0, width)
	for _, c := range cols {
		vals = append(vals, "max(t."+ident(c)+")")
	}
	for len(vals) < width {
		vals = append(vals, "NULL::BIGINT")
	}
	return strings.Join(vals, ", ")
}

// readTables runs one UNION ALL of ReadEveryTable's parts, keeping the
// main schema's row counts in counts and, when width >= 0, the bookkeeping
// values of bk's columns (bookkeepingAggregates) in kept.
func (r *Reader) readTables(ctx context.Context, parts []string, width int, names [][2]string, bk map[string][]string, counts map[string]int64, kept map[bookkeepingPart]sql.NullInt64) error {
	rows, err := r.conn.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]sql.NullInt64, max(width, 0))
	for rows.Next() {
		var i, n int64
		var h any
		dest := []any{&i, &n, &h}
		if width >= 0 {
			for j := range vals {
				dest = append(dest, &vals[j])
			}
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if i < 0 || i >= int64(len(names)) || names[i][0] != "main" {
			continue
		}
		t := names[i][1]
		counts[t] = n
		if width < 0 {
			continue
		}
		kept[bookkeepingPart{t, ""}] = sql.NullInt64{Int64: n, Valid: true}
		for j, c := range bk[t] {
			kept[bookkeepingPart{t, c}] = vals[j]
		}
	}
	return rows.Err()
}

// maxTablesPerRead caps the tables ReadEveryTable reads in one query.
const maxTablesPerRead = 128

// readTablesOneByOne reads each table alone, to name the one that cannot
// be read (err: why all of them at once could not).
func (r *Reader) readTablesOneByOne(ctx context.Context, names [][2]string, err error) error {
	for _, n := range names {
		t := ident(n[0]) + "." + ident(n[1])
		var count int64
		var h any
		if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*), bit_xor(hash(t)) FROM cat.%s t`, t)).Scan(&count, &h); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w: catalog %s: read table %s: %w", ErrIncomparable, r.path, t, err)
		}
	}
	return fmt.Errorf("%w: catalog %s: read its tables: %w", ErrIncomparable, r.path, err)
}

// checkLength fails when a DuckDB file is shorter than its current header
// says (the headers, then block count times block size).
func checkLength(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	defer f.Close()
	h, err := duckfile.Read(f)
	if err != nil {
		return fmt.Errorf("%w: catalog %s: %w", ErrIncomparable, path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	if want := h.Length(); st.Size() < want {
		return fmt.Errorf("%w: catalog %s is truncated: %d bytes, its header says %d", ErrIncomparable, path, st.Size(), want)
	}
	return nil
}
