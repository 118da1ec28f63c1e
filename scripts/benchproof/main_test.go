package main

import (
	"context"
	"database/sql"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
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

// TestCopyDatabaseAsProcess runs the COPY FROM DATABASE side of figure 4 as
// the benchmark does, a child process of this program, and checks that the
// copy holds the source's rows and that the child's CPU time is counted.
func TestCopyDatabaseAsProcess(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.duckdb"), filepath.Join(dir, "dst.duckdb")
	db, err := sql.Open("duckdb", src)
	if err != nil {
		t.Fatal(err)
	}
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
			db, err := sql.Open("duckdb", dst)
			if err != nil {
				t.Fatal(err)
			}
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
