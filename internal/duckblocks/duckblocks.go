// Package duckblocks finds where a table's rows are in a DuckDB file, by
// DuckDB's own account of the file's layout (pragma_storage_info), so that
// tests can damage exactly a block a reader of that table loads.
package duckblocks

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
)

// headerBytes is what precedes block 0 in a DuckDB file: three 4 KiB
// headers.
const headerBytes = 3 * 4096

// PastChecksum is how far into its block an offset of Offsets lies: past
// the block's 8-byte checksum, so the checksum no longer matches.
const PastChecksum = 100

// Offsets returns, for each table of the file's main schema that keeps rows
// in a block of the file (tables: those named; none: every table), a file
// offset inside the first such block, past its checksum: a byte flipped
// there fails every reader of that table; and the file's block size.
func Offsets(path string, tables ...string) (offsets map[string]int64, blockSize int64, err error) {
	db, err := duckpool.Open()
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	if _, err := db.Exec("ATTACH '" + strings.ReplaceAll(path, "'", "''") + "' AS f (READ_ONLY)"); err != nil {
		return nil, 0, err
	}
	if err := db.QueryRow(`SELECT block_size FROM pragma_database_size() WHERE database_name = 'f'`).Scan(&blockSize); err != nil {
		return nil, 0, err
	}
	if len(tables) == 0 {
		rows, err := db.Query(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'f' AND schema_name = 'main' ORDER BY table_name`)
		if err != nil {
			return nil, 0, err
		}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return nil, 0, err
			}
			tables = append(tables, name)
		}
		rows.Close()
	}
	offsets = map[string]int64{}
	for _, table := range tables {
		var block sql.NullInt64
		q := fmt.Sprintf(`SELECT min(block_id) FROM pragma_storage_info('f.main.%s') WHERE block_id >= 0`, table)
		if err := db.QueryRow(q).Scan(&block); err != nil {
			return nil, 0, fmt.Errorf("the blocks of %s in %s: %w", table, path, err)
		}
		if block.Valid {
			offsets[table] = headerBytes + block.Int64*blockSize + PastChecksum
		}
	}
	return offsets, blockSize, nil
}

// Offset is Offsets of one table; an error when it keeps no rows in a block.
func Offset(path, table string) (int64, error) {
	offs, _, err := Offsets(path, table)
	if err != nil {
		return 0, err
	}
	off, ok := offs[table]
	if !ok {
		return 0, fmt.Errorf("%s keeps no rows of %s in a block", path, table)
	}
	return off, nil
}

// FlipByte inverts the byte at off in the file.
func FlipByte(path string, off int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		return err
	}
	return f.Close()
}
