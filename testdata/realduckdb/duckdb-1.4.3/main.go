// Command probe reads DuckDB files with DuckDB 1.4.3 (duckdb-go v2.5.4); see package probe.
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
