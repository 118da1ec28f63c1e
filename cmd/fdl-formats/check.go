package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/repo"
	"github.com/fdl-formats/fdl-formats/store"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "verify every published catalog of an FDL repository and its rules (the CI command)",
		Description: "Exit codes: 0 all good; 1 a runtime failure (I/O, DuckDB, storage: credentials, a server\n" +
			"that cannot be reached); 2 bad flags or arguments; 3 differences found (a published catalog\n" +
			"not equivalent to its source, in another format than its name or unreadable while its source\n" +
			"reads; a file not matching version.json or its catalog; a broken rule: an entry catalogs/\n" +
			"may not hold, a .wal beside a catalog, a catalog written after its format's until);\n" +
			"4 a missing or unreadable input to restore (a data file, a catalog this DuckDB cannot open);\n" +
			"5 work missing (run backfill); 6 invalid input; 130 interrupted. A repository with no version\n" +
			"at all, or a web server whose folders give no usable listing, exits 4: nothing could be\n" +
			"checked. A run that a failure of the whole store stops (credentials expired, the bucket\n" +
			"gone) exits as that failure does (1; a bucket gone 6), and reports what it found before the\n" +
			"stop and what it did not check. See docs/repository.md for what exit 0 guarantees,\n" +
			"docs/remote.md for web servers.",
		ArgsUsage: "REPO",
		Flags: append(repoFlags(), &cli.BoolFlag{Name: "allow-empty",
			Usage: "pass a repository with no version at all (a warning); without it that exits 4, since nothing was checked"}),
		Action: runCheck,
	}
}

func runCheck(ctx context.Context, cmd *cli.Command) error {
	reported := false
	err := runRepoJob(ctx, cmd, "check", func(ctx context.Context, st store.Store, opts repo.Options) (*repo.CheckReport, error) {
		opts.AllowEmpty = cmd.Bool("allow-empty")
		rep, err := repo.Check(ctx, st, opts)
		if rep != nil {
			reported = true
			logTransfer(opts.Logger, "check", rep.Transfer)
			setRunError(rep, explain(ctx, err, cmd))
		}
		return rep, err
	}, printCheck, checkSummary)
	// A check that could not start (fdl.json missing or invalid, no
	// listing of versions/: a finding naming the file) or that stopped on
	// a runtime failure (a TLS error, a 500, a download failing, an
	// interrupt: no finding) still writes a JSON report with the error and
	// the exit code: CI keeps check.json and points the operator to it.
	// Before, a runtime failure left it empty. The exit code stays the
	// error's. A usage error (exit 2) writes none: nothing ran.
	if err != nil && !reported && cmd.Bool("json") && exitCode(err) != exitUsage {
		rep := repo.FailedCheckReport(err)
		if rep == nil {
			rep = repo.RunFailedCheckReport()
		}
		// The error as stderr says it: an interrupted run's said
		// "context canceled" where stderr said it was interrupted.
		setRunError(rep, explain(ctx, err, cmd))
		if jerr := writeJSON(cmd.Root().Writer, rep); jerr != nil {
			return jerr
		}
	}
	return err
}

// checkSummary is the run's line in a log: its verdict, what it proved and
// its findings per kind.
func checkSummary(rep *repo.CheckReport) []any {
	cached := 0
	for _, p := range rep.Proofs {
		if p.Cached {
			cached++
		}
	}
	versions := 0
	if rep.Plan != nil {
		versions = len(rep.Plan.Versions)
	}
	attrs := append([]any{"ok", rep.OK, "versions", versions}, shardAttrs(rep.Plan)...)
	attrs = append(attrs, "proofs", len(rep.Proofs), "proofs_cached", cached)
	for _, k := range []repo.Kind{repo.KindDifference, repo.KindInvalid, repo.KindUnverifiable, repo.KindMissing, repo.KindWarning} {
		attrs = append(attrs, string(k), rep.Counts[k])
	}
	if s := rep.Stopped; s != nil {
		attrs = append(attrs, "stopped", true, "versions_not_checked", len(s.VersionsNotChecked), "catalogs_not_proved", len(s.CatalogsNotProved))
	}
	return attrs
}

// setRunError records a failed run's error, exit code and hint (its
// Try: line) in its report.
func setRunError(rep *repo.CheckReport, err error) {
	if code := exitCode(err); err != nil && code != exitOK {
		rep.Error, rep.ExitCode, rep.Hint = err.Error(), code, errorHint(err)
	}
}

// printCheck prints the matrix, the proofs and every finding. The plan's
// warnings are findings of the check too: printed once, among them.
func printCheck(out io.Writer, root string, rep *repo.CheckReport) {
	plan := rep.Plan
	if plan != nil && len(plan.Warnings) > 0 {
		noWarnings := *plan
		noWarnings.Warnings = nil
		plan = &noWarnings
	}
	printMatrix(out, root, plan)
	ok := 0
	for _, p := range rep.Proofs {
		if p.OK {
			ok++
		}
	}
	stopped := ""
	if s := rep.Stopped; s != nil && len(s.CatalogsNotProved) > 0 {
		stopped = textf(" (%d more not proved: the run stopped)", len(s.CatalogsNotProved))
	}
	reportf(out, "\nproofs: %d of %d published catalogs equivalent to their source%s\n", ok, len(rep.Proofs), stopped)
	// A plan's warning repeated per version (an imported history's
	// created_at), or a version's issue (every files.json missing), is
	// printed once, then counted.
	for _, f := range repo.GroupFindings(rep.Findings) {
		// "VERSION FORMAT", either alone (a format's readers: it read
		// "warning       0.4: readers …").
		where := strings.TrimSpace(f.Version + " " + f.Format)
		if where == "" {
			// The repository's own (a data folder, fdl.json): it read
			// "warning      : data_dir ...".
			reportf(out, "%-12s %s\n", f.Kind, oneline.First(f.Detail))
		} else {
			reportf(out, "%-12s %s: %s\n", f.Kind, where, oneline.First(f.Detail))
		}
		if more := f.MoreAlike(); more != "" {
			reportf(out, "%-12s %s\n", f.Kind, more)
		}
	}
	switch s := rep.Stopped; {
	case s == nil:
	case len(s.VersionsNotChecked) == 0 && len(s.CatalogsNotProved) == 0:
		// At the reader matrix's reads: it said "0 version(s) not
		// checked, 0 published catalog(s) not proved".
		reportf(out, "%-12s the run stopped after every version was checked and every published catalog's proof finished (a failure of the whole store: see the error): only the readers not evaluated; the findings above are those of every version and catalog\n", "stopped")
	default:
		// The stop itself is the Error: line on stderr; this says what
		// the report covers.
		reportf(out, "%-12s the run stopped part-way (a failure of the whole store: see the error): %d version(s) not checked, %d published catalog(s) not proved, the readers not evaluated; the findings above were made before the stop\n",
			"stopped", len(s.VersionsNotChecked), len(s.CatalogsNotProved))
	}
	printReaders(out, rep.Readers)
	printTransfer(out, rep.Transfer)
	if rep.OK {
		fmt.Fprintln(out, "check: ok")
	}
}
