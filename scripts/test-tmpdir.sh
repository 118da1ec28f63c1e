#!/bin/sh
# Prints a new folder for the tests' temporary files (make test sets TMPDIR
# to it and removes it after). Every conversion, publish and DuckDB
# checkpoint the tests make syncs its files to disk: thousands of fsyncs,
# tens of milliseconds each on a busy disk, and none on a tmpfs. So the
# folder is in /dev/shm when that is a writable tmpfs that keeps user
# extended attributes (the S3 test server, versitygw, stores object metadata
# in them; tmpfs has them from Linux 6.6) with at least 4 GiB free (a
# container's /dev/shm is often 64 MiB), else in $TMPDIR or /tmp.
set -eu
shm=/dev/shm
kernel=$(uname -r)
major=${kernel%%.*}
minor=${kernel#*.}
minor=${minor%%[!0-9]*}
free_kib=0
if [ -d "$shm" ]; then
	free_kib=$(df -Pk "$shm" 2>/dev/null | awk 'NR == 2 { print $4 }')
fi
if [ "$(uname -s)" = Linux ] && [ -d "$shm" ] && [ -w "$shm" ] && [ "${free_kib:-0}" -ge 4194304 ] &&
	{ [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 6 ]; }; }; then
	mktemp -d "$shm/fdl-formats-test.XXXXXX"
else
	mktemp -d "${TMPDIR:-/tmp}/fdl-formats-test.XXXXXX"
fi
