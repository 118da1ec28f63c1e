// Command probe reads DuckDB files with DuckDB 2.0.0 (duckdb-go v2.20000.0); see package probe.
package main

import (
	"fmt"
	"os"

	_ "github.com/duckdb/duckdb-go/v2"

	"fdl-formats.test/realduckdb/probe"
)

func main() {
	db, err := probe.OpenDB("duckdb")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(probe.Main(db))
}
