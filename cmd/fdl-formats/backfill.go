package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/repo"
	"github.com/fdl-formats/fdl-formats/store"
)

func backfillCommand() *cli.Command {
	return &cli.Command{
		Name:  "backfill",
		Usage: "write every missing catalog of an FDL repository: verify, convert, prove, publish",
		// A scheduler acts on the exit code: say what each means here,
		// as check's help does (backfill's said nothing).
		Description: "Exit codes: 0 every missing catalog written (or nothing to do); cells refused, past their\n" +
			"format's until or in error are listed but are no failure (check reports what they mean);\n" +
			"1 a cell failed (the report says where and why) or a runtime failure; 2 bad flags or\n" +
			"arguments; 6 REPO is no FDL repository, or fdl.json is invalid; 130 interrupted (nothing\n" +
			"half-written). Run check after it. See docs/repository.md.",
		ArgsUsage: "REPO",
		Flags: append(repoFlags(),
			&cli.BoolFlag{Name: "dry-run", Usage: "plan and list what would be written, write nothing"},
		),
		Action: runBackfill,
	}
}

func runBackfill(ctx context.Context, cmd *cli.Command) error {
	dryRun := cmd.Bool("dry-run")
	if cmd.Bool("no-sign-request") && !dryRun {
		// Refused before any request: its conditional-write probe, then
		// every upload, would be denied one by one.
		return usageError{err: errors.New("backfill --no-sign-request: backfill writes catalogs, which unsigned requests may not"),
			hint: "run backfill with credentials allowed s3:PutObject (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE); --no-sign-request reads only: plan, check, resolve and backfill --dry-run"}
	}
	readOnly := false
	return runRepoJob(ctx, cmd, "backfill", func(ctx context.Context, st store.Store, opts repo.Options) (*repo.BackfillReport, error) {
		// A dry run writes nothing, so a web site's plan is shown; a
		// real run is refused before it starts (it refused both).
		if store.IsReadOnly(st) && !dryRun {
			return nil, usageError{err: fmt.Errorf("backfill %s: %w: backfill writes catalogs, so it takes a folder or an s3:// bucket; a web site is read by plan, check, resolve and backfill --dry-run only", cmd.Args().First(), store.ErrReadOnly),
				hint: tryLine("run backfill on the folder or s3:// bucket the site serves, then `fdl-formats check REPO` to verify what the site serves", cmd)}
		}
		opts.DryRun, readOnly = dryRun, store.IsReadOnly(st)
		rep, err := repo.Backfill(ctx, st, opts)
		if rep != nil {
			logTransfer(opts.Logger, "backfill", rep.Transfer)
		}
		return rep, err
	}, func(out io.Writer, repoArg string, rep *repo.BackfillReport) {
		printBackfill(out, repoArg, rep)
		if rep.DryRun && readOnly {
			reportf(out, "note: %s is a web site, which is read-only: a real backfill runs on the folder or s3:// bucket the site serves\n", repoArg)
		}
	}, backfillSummary)
}

// backfillSummary is the run's line in a log: the counts of its report's
// last line.
func backfillSummary(rep *repo.BackfillReport) []any {
	refused, errored := 0, 0
	for _, c := range notTried(rep) {
		if c.State == repo.Refused {
			refused++
		} else {
			errored++
		}
	}
	return append([]any{"written", rep.Counts[repo.Written], "already_there", rep.Counts[repo.AlreadyThere],
		"planned", rep.Counts[repo.Planned], "failed", rep.Counts[repo.Failed], "interrupted", rep.Counts[repo.Interrupted],
		"refused", refused, "in_error", errored, "present", rep.Plan.Counts[repo.Present], "expired", rep.Plan.Counts[repo.Expired],
		"versions", len(rep.Plan.Versions)}, shardAttrs(rep.Plan)...)
}

// notTried is the plan's refused cells and cells in error that the run
// did not try, in the plan's order. A cell it tried is counted by its
// outcome alone: a failed one whose version the run found in error (its
// frozen catalog breaking version.json's claims) is failed, not also in
// error.
func notTried(rep *repo.BackfillReport) []*repo.Cell {
	tried := map[[2]string]bool{}
	for _, r := range rep.Results {
		tried[[2]string{r.Version, r.Format}] = true
	}
	var out []*repo.Cell
	for _, c := range rep.Plan.Cells() {
		if !tried[[2]string{c.Version, c.Format}] && (c.State == repo.Refused || c.State == repo.Error) {
			out = append(out, c)
		}
	}
	return out
}

// runRepoJob is the skeleton shared by backfill and check: open the
// repository from the flags, run the job with progress on stderr, then print
// its report as JSON (--json) or as text. The job's error decides the exit
// code either way. Off a terminal, where each cell is logged, the run ends
// with one INFO record "<verb> finished" holding summary's counts and the
// time: a scheduled run's log showed its cells only, so a night with
// nothing to do left no line at all, and a run's outcome was in its
// report on stdout, which a cron job sends elsewhere.
func runRepoJob[R any](ctx context.Context, cmd *cli.Command, verb string,
	job func(context.Context, store.Store, repo.Options) (*R, error), printText func(io.Writer, string, *R),
	summary func(*R) []any) error {
	st, opts, err := openRepo(ctx, cmd)
	if err != nil {
		return err
	}
	if err := ownDataFolder(ctx, st, opts.DataPath); err != nil {
		return err
	}
	start := time.Now()
	stop := progress(cmd, verb, &opts)
	rep, err := job(ctx, st, opts)
	stop()
	if rep == nil {
		return err
	}
	if !isTerminal(errWriter(cmd)) {
		attrs := append(summary(rep), "duration_seconds", math.Round(time.Since(start).Seconds()*1000)/1000)
		opts.Logger.Info(verb+" finished", attrs...)
	}
	out := cmd.Root().Writer
	if cmd.Bool("json") {
		if jerr := writeJSON(out, rep); jerr != nil {
			return jerr
		}
		return err
	}
	printText(out, cmd.Args().First(), rep)
	return err
}

// printBackfill lists each cell's outcome, then the refused and unusable cells.
func printBackfill(out io.Writer, _ string, rep *repo.BackfillReport) {
	for _, g := range rep.Plan.WarningGroups() {
		reportf(out, "warning: %s\n", g.Detail)
		if more := g.MoreAlike(); more != "" {
			reportf(out, "  %s\n", more)
		}
	}
	for _, rm := range rep.Removed {
		reportf(out, "removed stale temporary %s\n", rm)
	}
	if s := rep.Plan.Shard; s != nil {
		reportf(out, "shard %d/%d: this run looks at %d of %d versions (the other shards take the rest)\n", s.K, s.N, len(rep.Plan.Versions), s.Selected)
	}
	for _, r := range rep.Results {
		line := textf("%-13s %s", r.Outcome, r.Key)
		switch r.Outcome {
		case repo.Written:
			line += textf(" (%d bytes, %.1fs", r.Bytes, r.Seconds)
			if r.CarriedSnapshots > 0 {
				line += textf(", %d snapshots carried from an earlier version's proof", r.CarriedSnapshots)
			}
			line += ")"
		case repo.AlreadyThere:
			line += " (written by another run)"
		case repo.Failed:
			line += textf(" (at %s: %s)", r.Step, oneline.First(r.Error))
		case repo.Interrupted:
			// The step it was stopped at (DuckDB's own word, where it
			// gave one, is in the --json report's error and the log).
			if r.Step == "start" {
				line += " (before it started)"
			} else {
				line += textf(" (at %s)", r.Step)
			}
		}
		fmt.Fprintln(out, line)
	}
	refused, errored := 0, 0
	for _, c := range notTried(rep) {
		if c.State == repo.Refused {
			refused++
			reportf(out, "refused       %s %s: %s\n", c.Version, c.Format, strings.Join(c.Reasons, "; "))
			continue
		}
		// Not backfill's to fix; check reports them with its exit code.
		errored++
		reportf(out, "error         %s %s: %s\n", c.Version, c.Format, oneline.First(strings.Join(c.Reasons, "; ")))
	}
	// A version's issues (a dataset.json or files.json that disagrees with
	// version.json, its parents) stop none of its catalogs, as in plan;
	// check fails on them. An issue every version has alike (files.json
	// missing from each) is printed once, then counted.
	issues := 0
	for _, g := range rep.Plan.IssueGroups() {
		issues += 1 + len(g.More)
		reportf(out, "issue         %s %s: %s\n", g.Version, g.Problem, oneline.First(g.Detail))
		if more := repo.MoreAlike(g.More); more != "" {
			reportf(out, "issue         %s\n", more)
		}
	}
	if issues > 0 {
		reportf(out, "%d issue(s) with versions' other files: their catalogs are written all the same (as plan plans them); check reports the issues\n", issues)
	}
	// Interrupted cells have a count of their own: a cancelled run is no
	// run with failed cells (they were counted as failed). Cells past
	// their format's until are never tried: named, a run asked for one
	// (--formats, --versions) said "0 written" and nothing else.
	// The catalogs published before the run are counted too: a second
	// run said "0 written, 0 already there, ..." and nothing else, which
	// read as if it had found none ("already there" is a cell another run
	// published during this one).
	if len(rep.Results) == 0 {
		reportf(out, "nothing to do: no catalog missing\n")
	}
	tail := ""
	if n := rep.Plan.Counts[repo.Present]; n > 0 {
		tail = textf(", %d present (published before this run)", n)
	}
	if n := rep.Plan.Counts[repo.Expired]; n > 0 {
		tail += textf(", %d expired (past their format's until: not written)", n)
	}
	reportf(out, "%d written, %d already there, %d planned, %d failed, %d interrupted, %d refused, %d in error%s\n",
		rep.Counts[repo.Written], rep.Counts[repo.AlreadyThere], rep.Counts[repo.Planned], rep.Counts[repo.Failed], rep.Counts[repo.Interrupted], refused, errored, tail)
	printTransfer(out, rep.Transfer)
}

// progress shows a progress line on a terminal, or logs each finished cell
// otherwise (structured logs for schedules and CI). The returned function
// ends the line.
func progress(cmd *cli.Command, verb string, opts *repo.Options) func() {
	w := errWriter(cmd)
	log := opts.Logger
	if !isTerminal(w) {
		opts.Progress = func(p repo.Progress) {
			// The one line per cell at INFO: the cell, its result, the
			// catalog's size and the time (the converter's own line, with
			// the run's private paths, is at DEBUG).
			attrs := []any{"version", p.Cell.Version, "to_version", p.Cell.Format, "key", p.Cell.Key, "result", p.Result}
			if p.Bytes > 0 {
				attrs = append(attrs, "bytes", p.Bytes)
			}
			attrs = append(attrs, "duration_seconds", math.Round(p.Seconds*1000)/1000, "done", p.Done, "total", p.Total)
			log.Info(verb+" cell finished", attrs...)
		}
		return func() {}
	}
	bar := &progressBar{w: w, verb: verb, start: time.Now()}
	// Log lines (a cell's "converted", a warning) went to the same
	// terminal, in the middle of the bar's line, which the next cell drew
	// again after them: each now clears the line and the bar is drawn
	// again below it.
	opts.Logger = loggerTo(cmd, bar)
	opts.Progress = bar.progress
	opts.OnDownload = bar.download
	return bar.end
}

// errWriter is where logs and the progress line go: stderr, unless the
// app is given another writer (tests).
func errWriter(cmd *cli.Command) io.Writer {
	if w := cmd.Root().ErrWriter; w != nil {
		return w
	}
	return os.Stderr
}

// progressBar is the progress line of a run on a terminal, redrawn in
// place; log records written through it go above it.
type progressBar struct {
	mu         sync.Mutex
	w          io.Writer
	verb       string
	start      time.Time
	last       repo.Progress
	downloaded int64
	drawn      bool // the line is on the screen
	ended      bool
}

// clearLine is a carriage return and ANSI "erase to the end of the line".
const clearLine = "\r\x1b[K"

func (b *progressBar) draw() {
	const width = 30
	filled := width * b.last.Done / max(b.last.Total, 1)
	line := fmt.Sprintf("\r%s [%s%s] %d/%d cells", b.verb, strings.Repeat("#", filled), strings.Repeat(".", width-filled), b.last.Done, b.last.Total)
	if b.downloaded > 0 {
		line += fmt.Sprintf(", %.1f MB downloaded", float64(b.downloaded)/1e6)
	}
	fmt.Fprintf(b.w, "%s, %s  ", line, time.Since(b.start).Round(time.Second))
	b.drawn = true
}

func (b *progressBar) progress(p repo.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = p
	if !b.ended {
		b.draw()
	}
}

func (b *progressBar) download(d repo.DownloadProgress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.downloaded = d.Downloaded
	if !b.ended {
		b.draw()
	}
}

// Write writes a log record: on a line of its own, the bar drawn again
// below it.
func (b *progressBar) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn && !b.ended {
		fmt.Fprint(b.w, clearLine)
	}
	n, err := b.w.Write(p)
	if b.drawn && !b.ended {
		b.draw()
	}
	return n, err
}

// end ends the bar's line; what is logged after goes below it.
func (b *progressBar) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn && !b.ended {
		fmt.Fprintln(b.w)
	}
	b.ended = true
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ownDataFolder refuses, for a repository in a local folder, a --data
// folder other than the repository's own data_dir, before the run starts
// (repo.OwnDataFolder; repo.Check and repo.Backfill refuse it the same
// way): its readers open REPO/<data_dir>, so a check of another folder
// would certify files they never read (and pass with the repository's own
// data gone), and a backfill would write delete files where they never
// look. (A bucket or web site with --data is checked against the store's
// own files.) An fdl.json that cannot be read is left to the job, which
// reports it.
func ownDataFolder(ctx context.Context, st store.Store, dataPath string) error {
	var e *repo.NotOwnDataFolderError
	if err := repo.OwnDataFolder(ctx, st, dataPath); !errors.As(err, &e) {
		return err
	}
	return usageError{err: fmt.Errorf("--data %s: the repository is a local folder, whose readers open its own data folder %s (data_dir in fdl.json), not this one; omit --data", e.DataPath, e.Own)}
}
