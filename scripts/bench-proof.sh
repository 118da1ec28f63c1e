#!/usr/bin/env bash
# Benchmarks of issue 9, printed in one run (medians of ROUNDS, default 3):
#   1. proof of the newest version of a 20-version repository (lakegen -history 20)
#      against a plain `count(*), sum(hash(t))` scan of its data files;
#   2. backfill of every version to 0.4 and 1.1 (cold cache) against that proof,
#      and a check with the warm cache against a check with a cold one;
#   3. peak RSS of backfills of 20 and 40 versions;
#   4. conversion of a wide catalog (lakegen -wide 300) to 0.4 and 1.1 against
#      DuckDB's COPY FROM DATABASE;
#   5. a long history (lakegen -history 200 -history-rows 2000): the proof of its
#      newest version, and a backfill of its last 10 versions.
# Repositories are generated once under FDL_BENCH_DIR (default the temp folder).
# ONLY=proof,backfill,rss,wide,long picks figures. Expect tens of minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/fdl-formats ./cmd/fdl-formats
go run ./scripts/benchproof -bin bin/fdl-formats -dir "${FDL_BENCH_DIR:-${TMPDIR:-/tmp}/fdl-bench}" \
	-rounds "${ROUNDS:-3}" -only "${ONLY:-proof,backfill,rss,wide,long,scheduled}" -wide-tables "${WIDE_TABLES:-300}"
