#!/usr/bin/env bash
# Demo: build the demo FDL repository (3 versions, DuckLake 1.0 catalogs made
# without the ducklake extension), then plan, backfill and check the catalogs
# of the other declared formats, printing each command before running it.
#
#   scripts/demo.sh          # into a temporary folder, removed afterwards
#                            # with the proofs it cached (FDL_FORMATS_CACHE)
#   scripts/demo.sh DIR      # into DIR (absent or empty), kept; proofs in
#                            # the usual cache (~/.cache/fdl-formats)
#
# `make demo` builds bin/fdl-formats first.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${FDL_FORMATS:-bin/fdl-formats}
if [[ ! -x $BIN ]]; then
	echo "error: $BIN not found; run 'make build' (or 'make demo')" >&2
	exit 1
fi

if [[ $# -ge 1 ]]; then
	DIR=$1
else
	# The repository and the cache of its proofs, both removed at the end:
	# a throwaway run leaves nothing in the user's cache.
	TOP=$(mktemp -d "${TMPDIR:-/tmp}/fdl-demo.XXXXXX")
	trap 'rm -rf "$TOP"' EXIT
	DIR=$TOP/repo
	export FDL_FORMATS_CACHE=$TOP/cache
fi

run() {
	echo "+ $*"
	"$@"
	echo
}

run go run ./lakegen/cmd/lakegen "$DIR"
run "$BIN" plan "$DIR"
run "$BIN" backfill "$DIR"
# check prints the matrix: each version against each declared format.
run "$BIN" check "$DIR"
