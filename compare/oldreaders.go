package compare

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// DiffMisread is the Kind of a Difference that names a column the older
// DuckDB releases a catalog's storage admits read differently from DuckDB
// 1.5.6 (see misreadColumns).
const DiffMisread = "misread"

// Misread is a column of a catalog that DuckDB releases before 1.4 read as
// NULL although it holds values.
type Misread struct {
	Table  string
	Column string
	// Rows is how many rows its misread segments hold.
	Rows int64
	// Storage is the file's storage version ("v1.3.0").
	Storage string
}

// Reason says what the older releases read, for a Difference.
func (m Misread) Reason() string {
	return fmt.Sprintf("column %s.%s: DuckDB releases before 1.4 that open this file (storage %s; 1.3.0 and 1.3.2 tested) read its %d row(s) in dictionary-FSST segments with an 'Empty Validity' mask as NULL, without an error (DuckDB 1.4 and later read them right)",
		oneline.Name(m.Table), oneline.Name(m.Column), m.Storage, m.Rows)
}

// misreadColumns lists the columns of the catalog file at path, attached on
// conn as cat, that the
// DuckDB releases its storage admits before 1.4 read wrongly: DuckDB 1.5
// writing at storage v1.3.0 stores a VARCHAR column holding NULLs as
// dictionary-FSST segments whose dictionary encodes the NULLs, with an
// "Empty Validity" validity segment; DuckDB 1.3.0 and 1.3.2 read every row
// of such a segment as NULL, without an error (DICT_FSST segments with any
// other validity read correctly: TestOldStorageMisreadCriterion). A file
// of storage v1.4.0 or later opens only in releases that read it right.
func misreadColumns(ctx context.Context, conn *sql.Conn, path string) ([]Misread, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the header of %s: %w", oneline.Name(path), err)
	}
	h, err := duckfile.Read(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("read the header of %s: %w", oneline.Name(path), err)
	}
	if !h.MinDuckDB().LessThan(duckfile.MinDuckDB(duckfile.DictFSSTReadable)) {
		return nil, nil
	}
	rows, err := conn.QueryContext(ctx, `SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'cat' ORDER BY ALL`)
	if err != nil {
		return nil, fmt.Errorf("list the tables of %s: %w", oneline.Name(path), err)
	}
	var tables [][2]string
	for rows.Next() {
		var t [2]string
		if err := rows.Scan(&t[0], &t[1]); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list the tables of %s: %w", oneline.Name(path), err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the tables of %s: %w", oneline.Name(path), err)
	}
	var out []Misread
	for _, t := range tables {
		name := "cat." + ident(t[0]) + "." + ident(t[1])
		q := `SELECT column_name, sum(count)::BIGINT FROM pragma_storage_info(` + sqlString(name) + `)
			WHERE segment_type = 'VALIDITY' AND compression = 'Empty Validity' GROUP BY column_name ORDER BY column_name`
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("storage of %s in %s: %w", t[1], path, err)
		}
		for rows.Next() {
			m := Misread{Table: t[1]}
			if t[0] != "main" {
				m.Table = t[0] + "." + t[1]
			}
			if err := rows.Scan(&m.Column, &m.Rows); err != nil {
				rows.Close()
				return nil, fmt.Errorf("storage of %s in %s: %w", t[1], path, err)
			}
			out = append(out, m)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("storage of %s in %s: %w", t[1], path, err)
		}
	}
	for i := range out {
		out[i].Storage = h.String()
	}
	return out, nil
}

// MisreadColumns lists the columns of r's catalog that the DuckDB releases
// its storage admits before 1.4 read as NULL (see misreadColumns): none for
// a file of storage v1.4.0 or later.
func (r *Reader) MisreadColumns(ctx context.Context) ([]Misread, error) {
	return misreadColumns(ctx, r.conn, r.path)
}
