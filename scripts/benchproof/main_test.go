package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
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
	// The anonymous part is the child's too, and within its peak.
	p, err := peakMemory(exec.Command("sleep", "0.3"))
	if err != nil {
		t.Fatal(err)
	}
	if p.anon <= 0 || p.anon > p.hwm || p.hwm > 32<<10 {
		t.Errorf("peak of sleep: RSS %.0f KB, anonymous %.0f KB; want 0 < anonymous <= RSS, well under the parent's %d MB", p.hwm, p.anon, parentMB)
	}
	if maxrss < parentMB<<10 {
		t.Logf("this kernel's Maxrss (%.0f KB) does not inherit the parent's peak", maxrss)
	}
	big[len(big)-1] = 2
}

// TestCopyDatabaseAsProcess runs the COPY FROM DATABASE side of figure 4 as
// the benchmark does, a child process of this program, and checks that the
// copy holds the source's rows and that the child's CPU time is counted.
func TestCopyDatabaseAsProcess(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.duckdb"), filepath.Join(dir, "dst.duckdb")
	db := testduck.Open(t, src)
	for _, q := range []string{
		"CREATE TABLE ducklake_snapshot AS SELECT range AS snapshot_id, 'v' || range AS note FROM range(1000)",
		"CREATE TABLE ducklake_metadata (key VARCHAR, value VARCHAR)",
		"INSERT INTO ducklake_metadata VALUES ('version', '1.0')",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	cases := []struct {
		name string
		run  func() float64
	}{
		{"in this process", func() float64 {
			if err := copyDatabase(ctx, src, dst); err != nil {
				t.Fatal(err)
			}
			return 0
		}},
		{"as a child process", func() float64 {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCopyDatabaseHelper$", "--", src, dst)
			cmd.Env = append(os.Environ(), "BENCHPROOF_COPY_HELPER=1")
			_, cpu := processTime(cmd)
			return cpu
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(dst)
			cpu := tc.run()
			if tc.name == "as a child process" && cpu <= 0 {
				t.Errorf("child CPU time %v, want > 0", cpu)
			}
			db := testduck.Open(t, dst)
			defer db.Close()
			var n, sum int64
			var version string
			if err := db.QueryRowContext(ctx, "SELECT count(*), sum(snapshot_id), (SELECT value FROM ducklake_metadata) FROM ducklake_snapshot").Scan(&n, &sum, &version); err != nil {
				t.Fatal(err)
			}
			if n != 1000 || sum != 999*1000/2 || version != "1.0" {
				t.Errorf("copy has %d rows, sum %d, version %q; want 1000, %d, 1.0", n, sum, version, 999*1000/2)
			}
		})
	}
}

// TestCopyDatabaseHelper is the child of TestCopyDatabaseAsProcess.
func TestCopyDatabaseHelper(t *testing.T) {
	if os.Getenv("BENCHPROOF_COPY_HELPER") != "1" {
		t.Skip("run by TestCopyDatabaseAsProcess")
	}
	args := flag.Args()
	if len(args) != 2 {
		t.Fatalf("args %v, want SRC DST", args)
	}
	if err := copyDatabase(context.Background(), args[0], args[1]); err != nil {
		t.Fatal(err)
	}
}

// TestProofOrderAlternates: with -against, the binary that runs first
// changes every round, and the list given is not changed.
func TestProofOrderAlternates(t *testing.T) {
	bins := []string{"new", "old"}
	for i, want := range [][]string{{"new", "old"}, {"old", "new"}, {"new", "old"}, {"old", "new"}} {
		if got := proofOrder(i, bins); !slices.Equal(got, want) {
			t.Errorf("round %d: %v, want %v", i, got, want)
		}
	}
	if !slices.Equal(bins, []string{"new", "old"}) {
		t.Errorf("proofOrder changed its argument: %v", bins)
	}
	if got := proofOrder(1, []string{"only"}); !slices.Equal(got, []string{"only"}) {
		t.Errorf("one binary: %v", got)
	}
}

// TestRunBinCountsChildCPU: a proof's CPU time is the child's (user +
// system), and this process's own CPU time grows with its own work, as an
// in-process scan's does.
func TestRunBinCountsChildCPU(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "busy")
	// Ignores its arguments (run passes --log-level error first).
	script := "#!/bin/sh\ni=0\nwhile [ $i -lt 200000 ]; do i=$((i+1)); done\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c0 := selfCPU()
	wall, _, cpu := runBin(bin, "compare")
	if own := selfCPU() - c0; own >= cpu {
		t.Errorf("this process spent %.3f s of CPU running a child that spent %.3f s: the child's time is not its own", own, cpu)
	}
	if cpu <= 0.01 || cpu > wall*2.5 {
		t.Errorf("child CPU %.3f s for %.3f s of wall time, want a busy child's", cpu, wall)
	}
	c0 = selfCPU()
	x := 0
	for i := 0; i < 200_000_000; i++ {
		x += i & 3
	}
	if own := selfCPU() - c0; own <= 0 || x == 0 {
		t.Errorf("selfCPU grew by %.3f s over a busy loop", own)
	}
}
