// Command probe reads DuckDB files with DuckDB 1.3.0 (the raw
// duckdb-go-bindings/linux-amd64 v0.1.10: no database/sql driver builds
// against it); see package probe.
package main

import (
	"errors"
	"fmt"
	"os"

	b "github.com/duckdb/duckdb-go-bindings/linux-amd64"

	"fdl-formats.test/realduckdb/probe"
)

func main() {
	var db b.Database
	var conn b.Connection
	if b.Open("", &db) != b.StateSuccess || b.Connect(db, &conn) != b.StateSuccess {
		fmt.Fprintln(os.Stderr, "open an in-memory DuckDB: failed")
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "probe-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	run := func(stmt string) error {
		var res b.Result
		defer b.DestroyResult(&res)
		if b.Query(conn, stmt, &res) != b.StateSuccess {
			return errors.New(b.ResultError(&res))
		}
		return nil
	}
	code := probe.Main(probe.CSV{Run: run, Dir: dir})
	os.RemoveAll(dir)
	b.Disconnect(&conn)
	b.Close(&db)
	os.Exit(code)
}
