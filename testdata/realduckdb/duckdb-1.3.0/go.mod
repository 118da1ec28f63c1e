module fdl-formats.test/realduckdb/duckdb-1.3.0

go 1.24

require (
	fdl-formats.test/realduckdb/probe v0.0.0
	github.com/duckdb/duckdb-go-bindings/linux-amd64 v0.1.10
)

replace fdl-formats.test/realduckdb/probe => ../probe
