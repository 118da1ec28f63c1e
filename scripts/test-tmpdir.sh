#!/bin/sh
# Prints a new folder for the tests' temporary files (make test sets TMPDIR
# to it and removes it after). Every conversion, publish and DuckDB
# checkpoint the tests make syncs its files to disk: thousands of fsyncs,
# tens of milliseconds each on a busy disk, and none on a tmpfs. So the
# folder is in /dev/shm when that is a writable tmpfs that keeps user
# extended attributes (the S3 test server, versitygw, stores object metadata
# in them; tmpfs has them from Linux 6.6), else in $TMPDIR or /tmp.
set -eu
shm=/dev/shm
kernel=$(uname -r)
major=${kernel%%.*}
minor=${kernel#*.}
minor=${minor%%[!0-9]*}
if [ "$(uname -s)" = Linux ] && [ -d "$shm" ] && [ -w "$shm" ] &&
	{ [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 6 ]; }; }; then
	mktemp -d "$shm/fdl-formats-test.XXXXXX"
else
	mktemp -d "${TMPDIR:-/tmp}/fdl-formats-test.XXXXXX"
fi
