package compare

import (
	"context"
	"fmt"
	"os"

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
	schemas, err := r.strings(ctx, `SELECT schema_name FROM duckdb_tables() WHERE database_name = 'cat' ORDER BY schema_name, table_name`)
	if err != nil {
		return fmt.Errorf("%w: list the tables of %s: %w", ErrIncomparable, r.path, err)
	}
	names, err := r.strings(ctx, `SELECT table_name FROM duckdb_tables() WHERE database_name = 'cat' ORDER BY schema_name, table_name`)
	if err != nil || len(names) != len(schemas) {
		return fmt.Errorf("%w: list the tables of %s: %v", ErrIncomparable, r.path, err)
	}
	for i, name := range names {
		t := ident(schemas[i]) + "." + ident(name)
		// hash(t) hashes the whole row: every column is read and decoded.
		var n int64
		var h any
		if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*), bit_xor(hash(t)) FROM cat.%s t`, t)).Scan(&n, &h); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w: catalog %s: read table %s: %w", ErrIncomparable, r.path, t, err)
		}
	}
	return nil
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
