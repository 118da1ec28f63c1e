module fdl-formats.test/realduckdb/probe

go 1.24
