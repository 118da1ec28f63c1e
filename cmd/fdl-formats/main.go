// Command fdl-formats keeps every version of a Frozen DuckLake repository
// readable by every DuckDB its publisher supports: it converts frozen catalogs
// between DuckLake formats, proves the result equivalent, and backfills and
// checks whole repositories.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"
)

// interruptGrace is how long a run may take to return after the first
// SIGINT or SIGTERM canceled it, before watchSignals ends the process.
const interruptGrace = 10 * time.Second

func main() {
	os.Exit(runMain(newApp(), os.Args, os.Stderr, interruptGrace))
}

// runMain runs app with args as the process's command line and returns
// its exit code, the error printed on stderr (reportError); SIGINT and
// SIGTERM stop it (watchSignals), a run that has not returned grace after
// the first signal included (main's is interruptGrace; a test that waits
// for it passes a shorter one).
func runMain(app *cli.Command, args []string, stderr io.Writer, grace time.Duration) int {
	stopProfile, err := startCPUProfile(os.Getenv)
	if err != nil {
		reportError(stderr, false, usageError{err: err}, exitUsage)
		return exitUsage
	}
	defer func() {
		if err := stopProfile(); err != nil {
			fmt.Fprintln(stderr, "Warning:", err)
		}
	}()
	jsonLogs := new(atomic.Bool)
	setLogFormatSink(app, jsonLogs)
	// A control character that a report line did not escape goes to
	// stdout escaped all the same (controlEscaper).
	if app.Writer == nil {
		app.Writer = os.Stdout
	}
	app.Writer = controlEscaper{w: app.Writer}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go watchSignals(sigs, cancel, grace, stderr, jsonLogs.Load, os.Exit)
	err = app.Run(ctx, args)
	code := exitCode(err)
	if err != nil && code != exitOK {
		if !jsonLogs.Load() {
			// A run that failed before any command ran (a bad flag):
			// the root's own --log-format, if valid.
			_, format, ferr := logSettings(app)
			jsonLogs.Store(ferr == nil && format == "json")
		}
		reportError(stderr, jsonLogs.Load(), err, code)
	}
	return code
}

// reportError prints a failed run's error on w: as the lines "Error: …"
// and "Try: …" (renderError), or with --log-format=json as one JSON log
// record at level ERROR, msg "failed", with the error, the hint (if any)
// and the exit code, so that a JSON log holds nothing but JSON records.
func reportError(w io.Writer, jsonLogs bool, err error, code int) {
	if !jsonLogs {
		fmt.Fprintln(w, renderError(err))
		return
	}
	attrs := []any{"error", err.Error()}
	if hint := errorHint(err); hint != "" {
		attrs = append(attrs, "hint", hint)
	}
	attrs = append(attrs, "exit_code", code)
	slog.New(slog.NewJSONHandler(controlEscaper{w: w}, nil)).Error("failed", attrs...)
}

// watchSignals cancels the run's context at the first signal: every step
// stops at its next check of the context and the run returns (exit 130).
// A step blocked in a system call that no context reaches (open(2) of a
// FIFO or of a file on a hung network mount, a read from such a mount, a
// DuckDB query inside such a read) never returns, and the process used to
// ignore SIGTERM, so that only SIGKILL stopped it. So if the run has not
// returned grace after the first signal, or at a second signal, it prints
// one line saying so and exits 130 at once.
//
// Exiting there is safe: nothing a run publishes is ever half written.
// A catalog is written to a temporary file under .fdl-tmp/ (or the work
// folder in $TMPDIR) and hard-linked to its final name, which fails if
// the name exists; an object store's is one conditional PutObject
// (If-None-Match: *) that either creates the whole object or nothing
// (docs/repository.md, docs/remote.md). What an exit leaves behind is the
// run's temporary files, named after its process, which the next run
// removes once the process is gone, as after a SIGKILL, a crash or a power
// loss (tested before with kill -9 mid-run: the next backfill removed
// them and wrote what was missing).
// With jsonLogs true (--log-format=json), the line is a JSON log record
// at level ERROR.
func watchSignals(sigs <-chan os.Signal, cancel context.CancelFunc, grace time.Duration, w io.Writer, jsonLogs func() bool, exit func(int)) {
	first := <-sigs
	cancel()
	why := fmt.Sprintf("still running %v after %v", grace, signalName(first))
	select {
	case s := <-sigs:
		why = fmt.Sprintf("%v again", signalName(s))
	case <-time.After(grace):
	}
	msg := fmt.Sprintf("interrupted, %s: stopping without waiting for blocked I/O (a file or mount that does not answer)", why)
	if jsonLogs() {
		slog.New(slog.NewJSONHandler(w, nil)).Error(msg, "exit_code", exitInterrupted)
	} else {
		fmt.Fprintln(w, "fdl-formats: "+msg)
	}
	exit(exitInterrupted)
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
