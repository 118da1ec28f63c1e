#!/usr/bin/env bash
# Benchmark of a backfill from an S3 bucket: lakegen writes a 20-version
# repository (FDL_BENCH_S3_ROWS rows per version, default 20000), which is
# uploaded to a bucket of a local versitygw (built by the test harness on
# first use), then backfilled by s3:// with an empty data cache. Prints the
# seconds, the bytes downloaded and uploaded, and the time spent downloading.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "$(nproc) cores; ${FDL_BENCH_S3_ROWS:-20000} rows per version"
go test ./repo -run '^$' -bench BackfillS3 -benchtime "${BENCHTIME:-1x}" -timeout 60m 2>&1 |
	grep -E '^(backfill s3|Benchmark|ok|FAIL|---|[[:space:]]+bench_s3)' || true
