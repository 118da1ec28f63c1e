package main

import (
	"errors"
	"strconv"
	"testing"
)

// FuzzFlagValues: the values of --cache-size style flags and of the stall
// timeout's environment variable, and the CLI library's errors for a bad
// flag: never a panic, and a size read is a positive number of bytes or -1
// (unlimited). The seeds run with the
// ordinary tests; `go test ./cmd/fdl-formats -run '^$' -fuzz
// '^FuzzFlagValues$' -fuzztime 10m` runs it for longer.
func FuzzFlagValues(f *testing.F) {
	for _, s := range []string{"500MB", "10GiB", " 1.5 kib ", "unlimited", "0", "-1", "1e400", "9223372036854775807", "NaN", "inf", "1e-9", "30s", "-5m", "", "jobs: x", "j", "stall-timeout: time: invalid duration", "json", "\"abc\" for flag -jobs"} {
		f.Add(s)
	}
	app := newApp()
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseSize(s); err == nil && n != -1 && n <= 0 {
			t.Fatalf("parseSize(%q) = %d", s, n)
		}
		badStallTimeoutEnv(s)
		// The CLI library's words for a bad flag, whatever follows them,
		// reworded or passed on, never a panic.
		for _, msg := range []string{libInvalidValue + s, libInvalidValue + strconv.Quote(s) + " for flag -" + s, libUnknownFlag + s} {
			if err := rewordFlagError(app, errors.New(msg)); err == nil || err.Error() == "" {
				t.Fatalf("rewordFlagError(%q) = %v", msg, err)
			}
		}
	})
}
