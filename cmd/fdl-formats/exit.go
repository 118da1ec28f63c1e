package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/repo"
)

// Exit codes, documented in the README. Only main calls os.Exit.
const (
	exitOK           = 0   // success
	exitFailure      = 1   // runtime failure (I/O, DuckDB, storage)
	exitUsage        = 2   // bad flags or arguments
	exitDifferent    = 3   // compare/check proved a difference
	exitIncomparable = 4   // could not compare: unreadable or missing file, unsupported feature
	exitMissing      = 5   // check: declared work is missing
	exitInvalid      = 6   // invalid input: not a catalog, bad fdl.json/version.json, unknown format
	exitRefused      = 7   // convert: the target format cannot express the catalog
	exitNoCatalog    = 8   // resolve: no catalog of the version opens in that DuckDB
	exitInterrupted  = 130 // SIGINT/SIGTERM
)

// usageError marks errors in the command line itself.
type usageError struct {
	err     error
	command string // the command whose help explains the usage ("fdl-formats convert")
	hint    string // what to do instead, where the help does not say it
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// Hint points to the help of the command concerned instead of printing it.
func (e usageError) Hint() string {
	if e.hint != "" {
		return e.hint
	}
	if e.command == "" {
		return "fdl-formats --help"
	}
	return e.command + " --help"
}

// exitClassifiers map package errors to exit codes; each subcommand file
// adds the sentinels of the package it drives.
var exitClassifiers = []func(error) (int, bool){
	classifyRepo,    // first: a backfill's or check's verdict wins over its cells' causes
	classifyCompare, // before convert: a catalog compare cannot read is "could not compare"
	classifyConvert,
	classifyResolve,
	classifyStore,
}

func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, new(usageError)):
		return exitUsage
	case errors.As(err, new(cli.ExitCoder)):
		// Only the CLI library's own errors ("help nosuch") are ExitCoders.
		return exitUsage
	}
	for _, classify := range exitClassifiers {
		if code, ok := classify(err); ok {
			return code
		}
	}
	return exitFailure
}

// hintedError gives an error of another package the hint the CLI knows
// for it (the package's own error says what is wrong, not which command
// line to try).
type hintedError struct {
	err  error
	hint string
}

func (e hintedError) Error() string { return e.err.Error() }
func (e hintedError) Unwrap() error { return e.err }
func (e hintedError) Hint() string  { return e.hint }

// explain gives a command's error what the user needs to act on it: an
// interrupted run says so, a --formats, --versions or --version that names
// nothing in the repository is a bad argument like any other (exit 2,
// pointing to the command's help; it said nothing after the error), and a
// REPO that is no FDL repository says what REPO must be.
func explain(ctx context.Context, err error, cmd *cli.Command) error {
	// A hint giving a command line to run names this run's repository
	// where it said REPO (`fdl-formats backfill REPO`): a cron job or CI
	// log of several repositories' checks left the reader to find which.
	// It repeats the run's flags that the same run needs (tryLine).
	if h := errorHint(err); cmd != nil && cmd.ArgsUsage == "REPO" && cmd.Args().Len() > 0 && strings.Contains(h, " REPO`") {
		return hintedError{err: err, hint: tryLine(h, cmd)}
	}
	switch {
	case err == nil, errors.As(err, new(usageError)), errorHint(err) != "":
		return err
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// Ctrl-C or SIGTERM: it said "Error: context canceled".
		return interruptedError{err: err, command: cmd.Name}
	case errors.Is(err, repo.ErrBadFilter):
		// Named by its flag: it said "filter names nothing in the
		// repository: ...", which left the user to find which one.
		var fe *repo.FilterError
		if errors.As(err, &fe) && fe.Option != "" {
			err = fmt.Errorf("--%s: %s", fe.Option, fe.Detail)
		}
		return usageError{err: err, command: helpOf(cmd)}
	case errors.Is(err, repo.ErrNotRepository):
		return hintedError{err: err, hint: "give the folder that holds fdl.json (or s3://BUCKET/PREFIX, https://HOST/PREFIX where it is); see docs/repository.md"}
	}
	return err
}

// interruptedError is a run a signal stopped (exit 130).
type interruptedError struct {
	err     error
	command string
}

func (e interruptedError) Error() string {
	return "interrupted (SIGINT or SIGTERM): " + e.command + " stopped before it finished; nothing was written half-way"
}
func (e interruptedError) Unwrap() error { return e.err }

// hinted is implemented by errors that know what the user should try next.
type hinted interface{ Hint() string }

// renderError is a failed run's "Error: …" line, then its "Try: …" line.
// The error names files, tables and columns of the repository: its text is
// escaped, so that it stays on its lines (oneline.Message: a list of
// reasons keeps one line each).
func renderError(err error) string {
	msg := "Error: " + oneline.Message(err)
	if hint := errorHint(err); hint != "" {
		msg += "\nTry: " + oneline.Escape(hint)
	}
	return msg
}

// errorHint is what the user should try next ("" when nothing is known).
func errorHint(err error) string {
	var h hinted
	switch {
	case errors.As(err, &h) && h.Hint() != "":
		return h.Hint()
	case errors.As(err, new(cli.ExitCoder)):
		return "fdl-formats --help"
	}
	return ""
}

// shellWord is s as one word of a POSIX shell command line: as it is when
// it holds only characters no shell treats specially, else in single
// quotes.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
