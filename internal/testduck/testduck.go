// Package testduck opens DuckDB databases (the DuckDB linked into this
// module) for tests, with the error handling every test repeated.
package testduck

import (
	"database/sql"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" driver
)

// Open opens the DuckDB database dsn ("" for one in memory; a path, with
// ?access_mode=read_only or the like). The driver opens the database
// itself there, so a file that does not open fails here, naming it; a
// failure ends the test. The database is closed when the test ends; a
// caller that needs it closed before (to open the file again, to let
// another process at it, or to free it inside a loop) closes it itself:
// Close on a closed database does nothing.
func Open(tb testing.TB, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open("duckdb", dsn)
	if err != nil {
		tb.Fatalf("open DuckDB %q: %v", dsn, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
