package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v3"
)

// blockEnv makes the test binary, run again as a child, act as the
// command with one more hidden command, block-open PATH, which opens PATH
// (a FIFO: open(2) blocks until a writer comes, as on a hung mount) in a
// system call no context reaches. Its value is the run's grace after the
// first signal (runMain), so that a test of the grace waits a second, not
// interruptGrace.
const blockEnv = "FDL_FORMATS_TEST_BLOCKING_MAIN"

// blockReady is the line block-open prints on stdout before it opens.
const blockReady = "block-open: opening"

func init() {
	if os.Getenv(blockEnv) == "" {
		return
	}
	grace, err := time.ParseDuration(os.Getenv(blockEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", blockEnv, err)
		os.Exit(2)
	}
	app := newApp()
	app.Commands = append(app.Commands, &cli.Command{Name: "block-open", Hidden: true, Action: func(ctx context.Context, cmd *cli.Command) error {
		// The signals are watched by now: the parent may send them. A
		// signal that comes before open(2) is entered cancels ctx, which
		// open never looks at, so the run blocks all the same.
		fmt.Println(blockReady)
		f, err := os.Open(cmd.Args().First())
		if err == nil {
			f.Close()
		}
		return ctx.Err()
	}})
	os.Exit(runMain(app, os.Args, os.Stderr, grace))
}

// readyLine sends the first line written to it on line (without its
// newline) and drops the rest.
type readyLine struct {
	buf  []byte
	sent bool
	line chan string
}

func (f *readyLine) Write(p []byte) (int, error) {
	if !f.sent {
		f.buf = append(f.buf, p...)
		if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
			f.sent = true
			f.line <- string(f.buf[:i])
		}
	}
	return len(p), nil
}

// TestBlockedRunStopsOnSignal: a run blocked in a system call (opening a
// FIFO) ignored SIGTERM (trial 2 F2.3: check on a FIFO data file, only
// SIGKILL ended it). The real process now exits 130 with one line on
// stderr: its grace after the first SIGTERM (a second here; main's is
// interruptGrace, 10 s of waiting), at once at a second signal (within
// half of interruptGrace).
func TestBlockedRunStopsOnSignal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grace   time.Duration
		signals []os.Signal
		want    string
		min     time.Duration
	}{
		{"one SIGTERM, after the grace period", time.Second, []os.Signal{syscall.SIGTERM}, "still running 1s after SIGTERM", time.Second},
		{"SIGTERM then SIGINT, at once", interruptGrace, []os.Signal{syscall.SIGTERM, os.Interrupt}, "SIGINT again", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "block-open", fifo)
			cmd.Env = append(os.Environ(), blockEnv+"="+tc.grace.String())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			// The child says when it is about to open the FIFO (before,
			// the test slept a second and hoped it was).
			stdout := &readyLine{line: make(chan string, 1)}
			cmd.Stdout = stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case line := <-stdout.line:
				if line != blockReady {
					cmd.Process.Kill()
					t.Fatalf("child's first line %q, want %q; stderr %q", line, blockReady, stderr.String())
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the child did not say it opens the FIFO within 30s; stderr %q", stderr.String())
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			start := time.Now()
			for _, s := range tc.signals {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
				time.Sleep(100 * time.Millisecond)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(tc.grace + 30*time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running %v after the signals; stderr %q", time.Since(start), stderr.String())
			}
			took := time.Since(start)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
				t.Fatalf("exit %v, want %d; stderr %q", err, exitInterrupted, stderr.String())
			}
			if took < tc.min || (tc.min == 0 && took > interruptGrace/2) {
				t.Errorf("exited after %v, want %v", took, tc.min)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.Contains(lines[0], "stopping without waiting for blocked I/O") {
				t.Errorf("stderr %q, want one line saying %q", stderr.String(), tc.want)
			}
		})
	}
}

// TestSignalReturnsNormally: a run that returns after the first signal
// canceled it is not ended by the watchdog (its own exit code and error
// stand).
func TestSignalReturnsNormally(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	var out bytes.Buffer
	go watchSignals(sigs, cancel, time.Hour, &out, func() bool { return false }, func(code int) { exited <- code })
	sigs <- syscall.SIGTERM
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first signal did not cancel the context")
	}
	select {
	case code := <-exited:
		t.Fatalf("exited %d within the grace period", code)
	case <-time.After(200 * time.Millisecond):
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out.String())
	}
}

// TestInterruptedRunSaysSo: a run a signal canceled ends with an error
// saying it was interrupted, exit 130; check, plan and convert said
// "Error: context canceled".
func TestInterruptedRunSaysSo(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "01_primitive_types")
	catalogs, err := filepath.Glob(filepath.Join(repoDir, "versions", "*", "ducklake.duckdb"))
	if err != nil || len(catalogs) == 0 {
		t.Fatalf("catalogs %v: %v", catalogs, err)
	}
	for _, args := range [][]string{
		{"check", repoDir},
		{"plan", repoDir},
		{"convert", catalogs[0], "--to", "0.4", "-o", filepath.Join(t.TempDir(), "out.duckdb")},
	} {
		t.Run(args[0], func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // as the first SIGINT does (watchSignals)
			var out, errOut bytes.Buffer
			app := newApp()
			app.Writer, app.ErrWriter = &out, &errOut
			err := app.Run(ctx, append([]string{"fdl-formats", "--log-level", "error"}, args...))
			if code := exitCode(err); code != exitInterrupted {
				t.Fatalf("exit %d, want %d (error %v)", code, exitInterrupted, err)
			}
			want := "Error: interrupted (SIGINT or SIGTERM): " + args[0] + " stopped before it finished"
			if got := renderError(err); !strings.HasPrefix(got, want) {
				t.Errorf("error %q, want it to begin %q", got, want)
			}
		})
	}
}
