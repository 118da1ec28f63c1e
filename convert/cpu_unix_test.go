//go:build unix

package convert

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time (user and system) the process has used, on
// all its threads (DuckDB's included).
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
