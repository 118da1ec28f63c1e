package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestPeakRSSIsTheChilds: a small child of a large parent has a small peak.
// wait4's Maxrss starts at the parent's peak (what the benchmark printed
// before); the child's VmHWM does not.
func TestPeakRSSIsTheChilds(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: peakRSS falls back to Maxrss")
	}
	const parentMB = 96
	big := make([]byte, parentMB<<20)
	for i := range big {
		big[i] = 1 // resident, not just reserved
	}
	cmd := exec.Command("sleep", "0.3")
	kb, err := peakRSS(cmd)
	if err != nil {
		t.Fatal(err)
	}
	maxrss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	if kb <= 0 || kb > 32<<10 {
		t.Errorf("peak RSS of sleep: %.0f KB, want > 0 and well under the parent's %d MB", kb, parentMB)
	}
	t.Logf("child VmHWM %.0f KB, wait4 Maxrss %.0f KB", kb, maxrss)
	if maxrss < parentMB<<10 {
		t.Logf("this kernel's Maxrss (%.0f KB) does not inherit the parent's peak", maxrss)
	}
	big[len(big)-1] = 2
}
