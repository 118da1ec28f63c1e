package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// ReadEveryTable reads every column of every row of every table in the
// catalog file, so that DuckDB verifies the checksum of every block that
// holds table data, and checks that the file is not cut short of its
// header (a file cut inside its free blocks reads, but is not the file that
// was written; duckfile.Header.Cut allows the end DuckDB's own truncation
// of free blocks leaves). The proof reads only the metadata it needs; this is what makes
// it certify every byte a reader can reach. Errors wrap ErrIncomparable and
// name the file and the table.
func (r *Reader) ReadEveryTable(ctx context.Context) error {
	if err := faults.At(ctx, "compare/read-whole", r.path); err != nil {
		return err
	}
	if err := checkLength(r.path); err != nil {
		return err
	}
	// Every table of the catalog file, as the listing read them when the
	// reader opened it (a read-only catalog's tables do not change).
	names := r.listedTables
	if len(names) == 0 {
		// Every open lists them, ducklake_metadata among them.
		return fmt.Errorf("%w: list the tables of %s: none listed", ErrIncomparable, oneline.Name(r.path))
	}
	// hash(t) hashes the whole row: every column is read and decoded. All
	// tables in one query; when it fails, one query per table names the
	// table that cannot be read. The same pass reads, beside each table of
	// the metadata schema, what two later checks would each read in a
	// query of their own (everyTableExtras): Bookkeeping and
	// allPathsRelative then answer from it. Should that part fail, the
	// tables are read without it and those checks run their own queries.
	extras := r.everyTableExtras()
	width := 1 // one snapshot column at least, NULL where a table has none
	for _, x := range extras {
		width = max(width, len(x.snapshotColumns))
	}
	plain := make([]string, len(names))
	withExtras := make([]string, len(names))
	for i, n := range names {
		plain[i] = fmt.Sprintf(`SELECT %d AS i, count(*) AS n, bit_xor(hash(t)) AS h FROM cat.%s.%s t`, i, ident(n[0]), ident(n[1]))
		var x tableExtras
		if n[0] == "main" {
			x = extras[n[1]]
		}
		withExtras[i] = fmt.Sprintf(`SELECT %d AS i, count(*) AS n, bit_xor(%s) AS h, %s FROM cat.%s.%s t`, i, r.rowHashSQL(n), x.sql(width), ident(n[0]), ident(n[1]))
	}
	counts := make(map[string]int64, len(names))
	kept := &everyTableKept{bookkeeping: map[bookkeepingPart]sql.NullInt64{}, notRelative: map[string]int64{}}
	for from := 0; from < len(names); from += maxTablesPerRead {
		to := min(len(names), from+maxTablesPerRead)
		err := errNoExtras
		if kept != nil {
			err = r.readTables(ctx, withExtras[from:to], width, names, extras, counts, kept)
		}
		if err != nil && ctx.Err() == nil {
			kept = nil
			err = r.readTables(ctx, plain[from:to], -1, names, extras, counts, nil)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return r.readTablesOneByOne(ctx, names, err)
		}
	}
	r.rowCounts = counts
	if kept != nil {
		r.bookkept, r.notRelative = kept.bookkeeping, kept.notRelative
	}
	return nil
}

// rowHashSQL hashes a row of table n (schema, name) of the catalog: every
// column by name where the metadata schema's layout lists them (about a
// tenth cheaper than packing the row into a struct first, and it decodes
// the same values), else the row t itself.
func (r *Reader) rowHashSQL(n [2]string) string {
	var cols []string
	if n[0] == "main" {
		cols = r.layout[n[1]]
		if cols == nil {
			cols = r.dynamic[n[1]]
		}
	}
	if len(cols) == 0 {
		return "hash(t)"
	}
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = "t." + ident(c)
	}
	return "hash(" + strings.Join(q, ", ") + ")"
}

// errNoExtras: ReadEveryTable reads its remaining tables without their
// extra values, which an earlier query could not read.
var errNoExtras = errors.New("tables read without their extra values")

// tableExtras are the values ReadEveryTable reads of a table of the
// metadata schema beside its row count and hash, for later checks:
//   - for Bookkeeping, the largest value of each snapshot column it asks
//     of the table, where the column is a BIGINT as DuckLake writes them
//     (any other type is left to Bookkeeping's own query and its cast);
//   - for allPathsRelative, the rows whose path_is_relative is false,
//     where the table is one it asks and the column a BOOLEAN.
type tableExtras struct {
	snapshotColumns []string
	relative        bool
}

// everyTableExtras are the extra values of the metadata schema's tables,
// by table name.
func (r *Reader) everyTableExtras() map[string]tableExtras {
	out := map[string]tableExtras{}
	for t, cols := range everyTableParts(r.bookkeepingParts()) {
		x := out[t]
		for _, c := range cols {
			if r.columnTypes[[2]string{t, c}] == "BIGINT" {
				x.snapshotColumns = append(x.snapshotColumns, c)
			}
		}
		out[t] = x
	}
	for _, t := range relativeTables {
		if r.columnTypes[[2]string{t, "path_is_relative"}] == "BOOLEAN" {
			x := out[t]
			x.relative = true
			out[t] = x
		}
	}
	return out
}

// sql is a table's extra columns in ReadEveryTable's query: the largest
// value of each snapshot column, NULLs up to width, then the count of rows
// not relative (NULL for a table that has none to count).
func (x tableExtras) sql(width int) string {
	vals := make([]string, 0, width+1)
	for _, c := range x.snapshotColumns {
		vals = append(vals, "max(t."+ident(c)+")")
	}
	for len(vals) < width {
		vals = append(vals, "NULL::BIGINT")
	}
	if x.relative {
		vals = append(vals, "count(*) FILTER (WHERE t.path_is_relative = false)")
	} else {
		vals = append(vals, "NULL::BIGINT")
	}
	return strings.Join(vals, ", ")
}

// everyTableKept is what ReadEveryTable read for later checks: the
// answers to Bookkeeping's parts and the rows not relative per table.
type everyTableKept struct {
	bookkeeping map[bookkeepingPart]sql.NullInt64
	notRelative map[string]int64
}

// readTables runs one UNION ALL of ReadEveryTable's parts, keeping the
// main schema's row counts in counts and, when width >= 0, the tables'
// extra values (tableExtras.sql) in kept.
func (r *Reader) readTables(ctx context.Context, parts []string, width int, names [][2]string, extras map[string]tableExtras, counts map[string]int64, kept *everyTableKept) error {
	return r.plainQuery(ctx, strings.Join(parts, " UNION ALL "), func(rows *sql.Rows) error {
		return r.scanTables(rows, width, names, extras, counts, kept)
	})
}

// Statements that read whole metadata tables and nothing else (scans,
// casts, aggregates over each table, one UNION ALL, no join and no filter)
// are planned without DuckDB's optimizer: it finds nothing to improve in
// them, and costs about as much as the rest of their planning. The
// setting belongs to the reader's connection, and plainQuery turns the
// optimizer on again before it returns, also when the query fails: every
// other statement is planned with it. On the history repository of issue
// 9, ReadEveryTable's query cost 7.4 ms of CPU a reader with the
// optimizer and 5.7 ms without (docs/compare.md).
const (
	optimizerOff = "PRAGMA disable_optimizer"
	optimizerOn  = "PRAGMA enable_optimizer"
)

// plainQuery runs query, a plain read of whole tables (above), planned
// without the optimizer, and hands its rows to scan; the rows are closed
// and the optimizer on again when it returns.
func (r *Reader) plainQuery(ctx context.Context, query string, scan func(*sql.Rows) error) (err error) {
	defer func() {
		if _, errOn := r.conn.ExecContext(context.WithoutCancel(ctx), optimizerOn); errOn != nil {
			err = errors.Join(err, fmt.Errorf("plan with the optimizer again: %w", errOn))
		}
	}()
	rows, err := r.conn.QueryContext(ctx, optimizerOff+"; "+query)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := scan(rows); err != nil {
		return err
	}
	return rows.Err()
}

// scanTables keeps readTables' rows (see there).
func (r *Reader) scanTables(rows *sql.Rows, width int, names [][2]string, extras map[string]tableExtras, counts map[string]int64, kept *everyTableKept) error {
	vals := make([]sql.NullInt64, max(width, 0))
	var notRelative sql.NullInt64
	for rows.Next() {
		var i, n int64
		var h any
		dest := []any{&i, &n, &h}
		if width >= 0 {
			for j := range vals {
				dest = append(dest, &vals[j])
			}
			dest = append(dest, &notRelative)
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
		kept.bookkeeping[bookkeepingPart{t, ""}] = sql.NullInt64{Int64: n, Valid: true}
		x := extras[t]
		for j, c := range x.snapshotColumns {
			kept.bookkeeping[bookkeepingPart{t, c}] = vals[j]
		}
		if x.relative && notRelative.Valid {
			kept.notRelative[t] = notRelative.Int64
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
			return damaged(r.path, fmt.Errorf("%w: catalog %s: read table %s: %w", ErrIncomparable, oneline.Name(r.path), t, err))
		}
	}
	return fmt.Errorf("%w: catalog %s: read its tables: %w", ErrIncomparable, oneline.Name(r.path), err)
}

// checkLength fails when a DuckDB file was cut short: shorter than its
// current header says (the headers, then block count times block size),
// other than where DuckDB's own truncation of free blocks ends a file
// (duckfile.Header.Cut); whether the blocks a reader needs are there,
// reading every table then tells.
func checkLength(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	defer f.Close()
	h, err := duckfile.Read(f)
	if errors.Is(err, duckfile.ErrTruncated) {
		return damagedError{fmt.Errorf("%w: catalog %s: %w", ErrIncomparable, path, err)}
	}
	if err != nil {
		return fmt.Errorf("%w: catalog %s: %w", ErrIncomparable, path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	if want := h.Length(); h.Cut(st.Size()) {
		return damagedError{fmt.Errorf("%w: catalog %s is truncated: %d bytes, its header says %d", ErrIncomparable, path, st.Size(), want)}
	}
	return nil
}
