#!/usr/bin/env bash
# Benchmark of compare's DuckLake reader against a plain read_parquet scan of
# the same Parquet files, in the same run, on a generated lake (lakegen.Large)
# of FDL_BENCH_ROWS rows (default 10 million) in FDL_BENCH_FILES files
# (default 8). The lake is generated once under FDL_BENCH_DIR (default the
# temp folder) and reused. Prints rows/s, MB/s and the time ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
export FDL_BENCH_ROWS="${FDL_BENCH_ROWS:-10000000}"
export FDL_BENCH_FILES="${FDL_BENCH_FILES:-8}"
echo "DuckDB $(go list -m -f '{{.Version}}' github.com/duckdb/duckdb-go/v2) via duckdb-go; $(nproc) cores; ${FDL_BENCH_ROWS} rows in ${FDL_BENCH_FILES} files"
go test ./compare -run '^$' -bench "${BENCH:-Reader|Digest}" -benchtime "${BENCHTIME:-3x}" -timeout 60m 2>&1 |
	grep -E '^(generated|reader:|digest|Benchmark|ok|FAIL|---|[[:space:]]+[0-9])' || true
