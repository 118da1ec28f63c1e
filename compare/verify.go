package compare

import (
	"context"
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
	// table that cannot be read.
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf(`SELECT %d AS i, count(*) AS n, bit_xor(hash(t)) AS h FROM cat.%s.%s t`, i, ident(n[0]), ident(n[1]))
	}
	counts := make(map[string]int64, len(names))
	for len(parts) > 0 {
		chunk := parts[:min(len(parts), maxTablesPerRead)]
		parts = parts[len(chunk):]
		err := func() error {
			rows, err := r.conn.QueryContext(ctx, strings.Join(chunk, " UNION ALL "))
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var i, n int64
				var h any
				if err := rows.Scan(&i, &n, &h); err != nil {
					return err
				}
				if i >= 0 && i < int64(len(names)) && names[i][0] == "main" {
					counts[names[i][1]] = n
				}
			}
			return rows.Err()
		}()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return r.readTablesOneByOne(ctx, names, err)
		}
	}
	r.rowCounts = counts
	return nil
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
