//go:build !unix

package convert

import (
	"testing"
	"time"
)

// processCPU is not measured here (cpu-ms/op reads 0).
func processCPU(*testing.B) time.Duration { return 0 }
