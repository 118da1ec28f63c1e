package compare

import (
	"context"
	"fmt"
	"os"
)

// fileHeaderSize is the three 4 KiB headers at the start of a DuckDB file;
// blocks follow.
const fileHeaderSize = 3 * 4096

// ReadEveryTable reads every column of every row of every table in the
// catalog file, so that DuckDB verifies the checksum of every block that
// holds table data, and checks that the file is as long as its header says
// (a file cut inside its free blocks reads, but is not the file that was
// written). The proof reads only the metadata it needs; this is what makes
// it certify every byte a reader can reach. Errors wrap ErrIncomparable and
// name the file and the table.
func (r *Reader) ReadEveryTable(ctx context.Context) error {
	var blocks, blockSize int64
	if err := r.conn.QueryRowContext(ctx, `SELECT total_blocks, block_size FROM pragma_database_size() WHERE database_name = 'cat'`).Scan(&blocks, &blockSize); err != nil {
		return fmt.Errorf("%w: read the block count of %s: %w", ErrIncomparable, r.path, err)
	}
	st, err := os.Stat(r.path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	if want := fileHeaderSize + blocks*blockSize; st.Size() < want {
		return fmt.Errorf("%w: catalog %s is truncated: %d bytes, its header lists %d blocks of %d bytes (%d bytes)", ErrIncomparable, r.path, st.Size(), blocks, blockSize, want)
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
