package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/repo"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/open"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// repoFlags are the flags plan, backfill and check share.
func repoFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		&cli.StringSliceFlag{Name: "formats", Usage: "only these declared formats (comma-separated, e.g. 0.4,1.0)"},
		&cli.StringSliceFlag{Name: "versions", Usage: "only these versions (IDs or seq numbers, comma-separated)"},
		&cli.StringFlag{Name: "now", Usage: "evaluate each format's until as of `TIME`, an RFC 3339 time or date (default: now)"},
		// DefaultText: the help printed "(default: number of CPUs) (default: 0)".
		&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: 0, DefaultText: "number of CPUs", Usage: "cells to run at once, 1 or more"},
		&cli.StringFlag{Name: "data", Usage: "local folder of the data files (default: REPO/<data_dir from fdl.json>, or for s3:// and https:// repositories the cache)"},
		endpointFlag(), virtualHostedFlag(), noSignFlag(),
		&cli.StringSliceFlag{Name: "allow-lossy", Usage: "write catalogs that drop metadata changing no row: " + strings.Join(convert.LossyOptions, ", ")},
		&cli.BoolFlag{Name: "rewrite-deletes", Usage: "write the delete files older formats read (Parquet for Puffin deletion vectors, cumulative files for partial deletion files, delete-file chains for 0.3 merged files holding rewritten rows) into the data folder"},
		&cli.StringFlag{Name: "data-cache-max", Value: fmt.Sprintf("%dGiB", repo.DefaultDataCacheMax>>30), Usage: "bound of the data cache (`SIZE`, e.g. 500MB, 10GiB, or unlimited): after a run, the least recently used s3:// and https:// repositories' data files go first (never the run's own repository); refused with --no-cache"},
		&cli.StringFlag{Name: "shard", Usage: "only shard `K/N` of the versions (those whose ID hashes to K of N), for N machines sharing the work"},
		maxSpillFlag(),
	}, cacheFlags()...)
}

// endpointFlag and virtualHostedFlag address an S3-compatible service:
// every command that opens a repository (plan, backfill, check, resolve)
// takes them.
func endpointFlag() cli.Flag {
	return &cli.StringFlag{Name: "endpoint", Usage: "S3 endpoint URL of a non-AWS service (default: $AWS_ENDPOINT_URL_S3, then $AWS_ENDPOINT_URL, then the AWS profile's endpoint_url)"}
}

// noSignFlag reads a bucket anyone may read without credentials.
func noSignFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-sign-request", Usage: "send s3:// requests unsigned, without credentials, as the AWS CLI's --no-sign-request does: for a bucket whose policy lets anyone list and read the repository (backfill, which writes, needs credentials)"}
}

func virtualHostedFlag() cli.Flag {
	return &cli.BoolFlag{Name: "virtual-hosted", Usage: "address the bucket as BUCKET.HOST at --endpoint instead of HOST/BUCKET (path style)"}
}

// s3Options are the S3 addressing flags' values. An --endpoint that is
// no http:// or https:// URL of a host and port (127.0.0.1:9000, without
// its scheme) is a usage error, named by its flag, found before any
// request: it said "not an FDL repository" (exit 6), the repository's
// fault, with the Try: line of a REPO that holds no fdl.json.
func s3Options(cmd *cli.Command) (s3.Options, error) {
	ep := cmd.String("endpoint")
	if err := s3.CheckEndpoint("--endpoint", ep); err != nil {
		hint := "" // the command's help
		if fixed := "http://" + ep; !strings.Contains(ep, "://") && !strings.Contains(ep, "@") && s3.CheckEndpoint("", fixed) == nil {
			// The scheme left out: the same run with it (tryLine).
			hint = "give --endpoint with its scheme (https:// where the server speaks TLS): `fdl-formats " + cmd.Name + " " + shellWord("--endpoint="+fixed) + " REPO`"
		}
		return s3.Options{}, usageError{err: err, command: helpOf(cmd), hint: hint}
	}
	return s3.Options{Endpoint: ep, VirtualHosted: cmd.Bool("virtual-hosted"), NoSign: cmd.Bool("no-sign-request")}, nil
}

// maxSpillFlag bounds what each DuckDB database of a command may spill.
func maxSpillFlag() cli.Flag {
	return &cli.StringFlag{Name: "max-spill", Value: fmt.Sprintf("%dGiB", repo.DefaultMaxSpill>>30), Usage: "bound of what each DuckDB database may write to disk when a statement does not fit in its memory (`SIZE`, e.g. 500MB, 20GiB): a statement that needs more fails"}
}

// maxSpill is the --max-spill flag's value in bytes.
func maxSpill(cmd *cli.Command) (int64, error) {
	n, err := parseSize(cmd.String("max-spill"))
	if err == nil && n < 0 {
		// DuckDB's own bound, 90% of the disk's free space for each
		// database, lets a command's databases together fill the disk.
		err = fmt.Errorf("size %q: want a positive number with an optional unit (500MB, 20GiB); there is no unlimited spill", cmd.String("max-spill"))
	}
	if err != nil {
		return 0, usageError{err: fmt.Errorf("--max-spill: %w", err), command: helpOf(cmd)}
	}
	return n, nil
}

func planCommand() *cli.Command {
	return &cli.Command{
		Name:  "plan",
		Usage: "show the version x declared-format matrix of an FDL repository (writes nothing)",
		// The other repository commands said their exit codes: plan's
		// help said none, though a script acts on them too.
		Description: "Exit codes: 0 the matrix shown, whatever its cells say (missing, refused, in error: check\n" +
			"fails on them); 1 a runtime failure (I/O, DuckDB, storage: credentials, a server that\n" +
			"cannot be reached); 2 bad flags or arguments; 4 a web server whose folders give no usable\n" +
			"listing; 6 REPO is no FDL repository, or fdl.json is invalid; 130 interrupted.\n" +
			"See docs/repository.md.",
		ArgsUsage: "REPO",
		Flags:     repoFlags(),
		Action:    runPlan,
	}
}

// openRepo parses REPO (a folder, s3://BUCKET/PREFIX or https://HOST/PREFIX;
// see store/open) and the shared flags.
// openError is the error of a repository argument open.Repository
// refuses: a usage error for a URL with a query string (a signed URL),
// else not a repository.
func openError(cmd *cli.Command, err error) error {
	if errors.Is(err, httpstore.ErrQuery) {
		return usageError{err: err, command: "fdl-formats " + cmd.Name}
	}
	if errors.Is(err, s3.ErrEndpoint) {
		// An endpoint from the environment or the profile that is no
		// http(s) URL of a host and port: the run's setup, refused
		// before any request, as a bad $TMPDIR is (a usage error); it
		// said "not an FDL repository".
		return usageError{err: err, command: helpOf(cmd), hint: errorHint(err)}
	}
	if errors.Is(err, s3.ErrNoRegion) {
		// The runner's environment (exit 1), as a credential is: it
		// said "not an FDL repository" (exit 6) with the hint to give
		// the folder that holds fdl.json.
		return err
	}
	return fmt.Errorf("%w: %w", repo.ErrNotRepository, err)
}

func openRepo(ctx context.Context, cmd *cli.Command) (store.Store, repo.Options, error) {
	var opts repo.Options
	if cmd.Args().Len() != 1 {
		return nil, opts, usageError{err: fmt.Errorf("%s takes exactly one repository (a folder, s3://BUCKET/PREFIX or https://HOST/PREFIX)", cmd.Name)}
	}
	so, err := storeOptions(cmd)
	if err != nil {
		return nil, opts, err
	}
	// Data files of s3:// and https:// repositories go to <cache>/objects/;
	// with --no-cache, to the run's work folder (gone after the run). Read
	// before the repository is opened: contradicting cache flags are a
	// usage error, found before any request to a server.
	if opts.Cache, err = cacheRoot(cmd); err != nil {
		return nil, opts, err
	}
	if cmd.Bool("no-cache") && cmd.IsSet("data-cache-max") {
		// There is no data cache to bound: the bound would be ignored
		// without a word, as --cache was.
		return nil, opts, usageError{err: fmt.Errorf("--data-cache-max %q and --no-cache contradict each other: with --no-cache no data file is kept between runs, so there is nothing to bound; give one", cmd.String("data-cache-max")), command: helpOf(cmd)}
	}
	if so.S3, err = s3Options(cmd); err != nil {
		return nil, opts, err
	}
	st, err := open.Repository(ctx, cmd.Args().First(), so)
	if err != nil {
		return nil, opts, openError(cmd, err)
	}
	if s := cmd.String("now"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			if d, derr := time.Parse(time.DateOnly, s); derr == nil {
				t, err = d, nil
			}
		}
		if err != nil {
			return nil, opts, usageError{err: fmt.Errorf("--now %q: want an RFC 3339 time such as 2026-06-30T00:00:00Z or date such as 2026-06-30", s)}
		}
		// NowSet: 0001-01-01T00:00:00Z is Go's zero time, which alone
		// the library reads as "now".
		opts.Now, opts.NowSet = t, true
	}
	// --jobs 0 is refused like -1 (it was taken silently as the default,
	// the number of CPUs); no value is capped, but one far above the CPUs
	// is warned of below: each job holds its own DuckDB.
	if j := cmd.Int("jobs"); j < 0 || (j == 0 && cmd.IsSet("jobs")) {
		return nil, opts, usageError{err: fmt.Errorf("--jobs %d: want %s", j, flagWants["jobs"])}
	} else {
		opts.Jobs = int(j)
	}
	opts.Formats = splitList(cmd.StringSlice("formats"))
	opts.Versions = splitList(cmd.StringSlice("versions"))
	opts.DataPath = cmd.String("data")
	opts.NoDataCache = cmd.Bool("no-cache")
	if opts.DataCacheMax, err = parseSize(cmd.String("data-cache-max")); err != nil {
		return nil, opts, usageError{err: fmt.Errorf("--data-cache-max: %w", err)}
	}
	if opts.MaxSpill, err = maxSpill(cmd); err != nil {
		return nil, opts, err
	}
	opts.Convert.Lossy = splitList(cmd.StringSlice("allow-lossy"))
	opts.Convert.RewriteDeletes = cmd.Bool("rewrite-deletes")
	if s := cmd.String("shard"); s != "" {
		if opts.Shard, err = repo.ParseShard(s); err != nil {
			// Named by its flag, as every bad value is: the library's
			// `shard "0/3": want K/N …` becomes `--shard "0/3": …`.
			return nil, opts, usageError{err: fmt.Errorf("--%w", err)}
		}
	}
	if opts.DigestCache, err = digestStore(cmd); err != nil {
		return nil, opts, err
	}
	opts.Logger = logger(cmd)
	if n := runtime.NumCPU(); opts.Jobs > jobsWarnFactor*n {
		opts.Logger.Warn("--jobs far above the number of CPUs: each running job holds its own DuckDB, so memory grows with --jobs (about 14 MB a job measured), and jobs beyond the CPUs mostly wait for them", "jobs", opts.Jobs, "cpus", n)
	}
	return st, opts, nil
}

// jobsWarnFactor: --jobs above this many times the CPUs is warned of.
const jobsWarnFactor = 4

func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func runPlan(ctx context.Context, cmd *cli.Command) error {
	st, opts, err := openRepo(ctx, cmd)
	if err != nil {
		return err
	}
	m, err := repo.Plan(ctx, st, opts)
	if err != nil {
		return err
	}
	logTransfer(opts.Logger, "plan", m.Transfer)
	if cmd.Bool("json") {
		return writeJSON(cmd.Root().Writer, m)
	}
	printMatrix(cmd.Root().Writer, cmd.Args().First(), m)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// shardAttrs are a run's --shard K/N and the versions selected before the
// split, for its summary log line ("backfill finished", "check finished"):
// none without --shard. A log gathering the shards' lines told them from
// whole runs by nothing.
func shardAttrs(m *repo.Matrix) []any {
	if m == nil || m.Shard == nil {
		return nil
	}
	return []any{"shard", textf("%d/%d", m.Shard.K, m.Shard.N), "versions_selected", m.Shard.Selected}
}

// printMatrix renders the matrix as a table, then the reasons of refused
// and error cells, the rules and the warnings.
func printMatrix(w io.Writer, root string, m *repo.Matrix) {
	reportf(w, "repository %s (data %s), as of %s\n", root, m.DataDir, m.Now.Format(time.RFC3339))
	if s := m.Shard; s != nil {
		reportf(w, "  shard %d/%d: this run looks at %d of %d versions (the other shards take the rest)\n", s.K, s.N, len(m.Versions), s.Selected)
	}
	// Declared formats first (every row has them), then undeclared formats
	// some version carries.
	var cols []string
	for _, v := range m.Versions {
		for _, c := range v.Cells {
			if !slices.Contains(cols, c.Format) {
				cols = append(cols, c.Format)
			}
		}
	}
	for _, f := range m.Formats {
		line := textf("  format %s: DuckDB %s", f.DuckLake, f.DuckDB)
		if f.Until != "" {
			state := textf("%d days left", *f.DaysLeft)
			if f.Expired {
				state = "expired"
			}
			line += textf("; until %s (%s)", f.Until, state)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// The columns are joined by tabs of the table's own: each name
	// (a catalog's file name) is escaped alone.
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = oneline.Escape(c)
	}
	fmt.Fprintf(tw, "seq\tversion\tcatalog\t%s\n", strings.Join(heads, "\t"))
	var notes []string
	issueNote := map[string]int{}   // an issue's words -> its note's index
	issueMore := map[int][]string{} // a note's index -> the versions alike after it
	for _, v := range m.Versions {
		seq := "-"
		if v.Seq > 0 {
			seq = fmt.Sprint(v.Seq)
		}
		format := v.Format
		if format == "" {
			format = "-"
		}
		cells := make([]string, len(cols))
		for i := range cols {
			cells[i] = "-"
		}
		for _, c := range v.Cells {
			for i, name := range cols {
				if name == c.Format {
					cells[i] = string(c.State)
					if c.Violation != "" {
						cells[i] += "!"
					}
				}
			}
			switch {
			case c.State == repo.Refused || (c.State == repo.Error && v.Error == ""):
				notes = append(notes, textf("seq %s %s %s: %s", seq, c.Format, c.State, strings.Join(c.Reasons, "; ")))
			case c.Violation != "":
				notes = append(notes, textf("seq %s %s present!: %s", seq, c.Format, c.Violation))
			case c.State == repo.Present && !c.Declared:
				notes = append(notes, textf("seq %s %s present: format not declared in fdl.json", seq, c.Format))
			}
		}
		if v.Error != "" {
			notes = append(notes, textf("seq %s %s: %s", seq, v.ID, v.Error))
		}
		if v.Skipped != "" {
			format = v.Skipped
		}
		for _, is := range v.Issues {
			// An issue every version has alike (files.json missing from
			// each) is noted once, then counted.
			words := repo.IssueWords(v.ID, is)
			if i, ok := issueNote[words]; ok && words != "" {
				issueMore[i] = append(issueMore[i], v.ID)
				continue
			}
			if words != "" {
				issueNote[words] = len(notes)
			}
			notes = append(notes, textf("seq %s %s: %s", seq, is.Problem, is.Detail))
		}
		for _, n := range v.Notes {
			notes = append(notes, textf("seq %s note: %s", seq, n))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", seq, oneline.Escape(v.ID), oneline.Escape(format), strings.Join(cells, "\t"))
	}
	tw.Flush()
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for i, n := range notes {
			fmt.Fprintln(w, "  "+n)
			if more := repo.MoreAlike(issueMore[i]); more != "" {
				reportf(w, "    %s\n", more)
			}
		}
	}
	// A rule judged alike for many versions (the oldest format filtered
	// out by --formats, or past its until) is printed once, then counted,
	// as the warnings below: one line per version buried the report.
	type ruleGroup struct {
		first repo.Rule
		more  []string
	}
	var rules []*ruleGroup
	byWords := map[string]*ruleGroup{}
	for _, r := range m.Rules {
		if r.Status == "ok" {
			continue
		}
		words := strings.Join([]string{r.Rule, r.Format, r.Status, r.Detail}, "\x00")
		if g, ok := byWords[words]; ok && r.Version != "" {
			g.more = append(g.more, r.Version)
			continue
		}
		g := &ruleGroup{first: r}
		byWords[words] = g
		rules = append(rules, g)
	}
	if len(rules) > 0 {
		fmt.Fprintln(w, "\nrepository rules:")
		for _, g := range rules {
			// The status, then why: "unknown format 0.4 is past its
			// until" read as a format named unknown.
			r := g.first
			line := textf("  %s version %s format %s: %s", r.Rule, r.Version, r.Format, r.Status)
			if r.Detail != "" {
				line += textf(": %s", r.Detail)
			}
			fmt.Fprintln(w, line)
			if more := repo.MoreAlike(g.more); more != "" {
				reportf(w, "    %s\n", more)
			}
		}
	}
	// A warning repeated per version (an imported history's created_at)
	// is printed once, then counted: 200 paragraphs buried the report.
	for _, g := range m.WarningGroups() {
		reportf(w, "\nwarning: %s\n", g.Detail)
		if more := g.MoreAlike(); more != "" {
			reportf(w, "  %s\n", more)
		}
	}
	var totals []string
	for _, s := range repo.States {
		if n := m.Counts[s]; n > 0 {
			totals = append(totals, textf("%d %s", n, s))
		}
	}
	reportf(w, "\n%d versions; cells: %s\n", len(m.Versions), strings.Join(totals, ", "))
	printTransfer(w, m.Transfer)
}

// printTransfer prints what a run moved to and from a remote store.
func printTransfer(w io.Writer, t *repo.Transfer) {
	if t == nil {
		return
	}
	reread := ""
	if t.Rehashed > 0 {
		// A restored or copied cache: its copies were held to the bytes
		// the store delivered before any proof read them.
		reread = fmt.Sprintf(", %d of them read again to hold them to the bytes downloaded", t.Rehashed)
	}
	footers := ""
	if t.Footers+t.FootersCached > 0 {
		// plan's conversion check: footers of files the cache lacks.
		footers = fmt.Sprintf("; %d data file footers read by ranged reads, %d from the cache", t.Footers, t.FootersCached)
	}
	fmt.Fprintf(w, "transfer: %d bytes downloaded in %.1fs (%d data files, %d reused from the cache%s; %d frozen catalogs from the cache%s), %d bytes uploaded\n",
		t.Downloaded, t.DownloadSeconds, t.DataFiles, t.Cached, reread, t.CatalogsCached, footers, t.Uploaded)
}

// logTransfer logs the same for schedules and CI.
func logTransfer(log *slog.Logger, verb string, t *repo.Transfer) {
	if t == nil {
		return
	}
	log.Info(verb+" transfer", "store", t.Store, "bytes_downloaded", t.Downloaded, "bytes_uploaded", t.Uploaded,
		// In milliseconds, as every other duration the logs give: it
		// printed a sum of float seconds, download_seconds=0.5704661259999999.
		"download_seconds", math.Round(t.DownloadSeconds*1000)/1000, "data_files_downloaded", t.DataFiles, "data_files_cached", t.Cached,
		"data_files_rehashed", t.Rehashed, "frozen_catalogs_cached", t.CatalogsCached,
		"footers_read", t.Footers, "footers_cached", t.FootersCached)
}

// classifyStore gives a store the run's setup cannot reach its exit code:
// a bucket that does not exist is a REPO that names no repository, as a
// folder that does not exist is (exit 6: fix the argument); credentials,
// a region or an endpoint the server refuses or that no connection
// reaches are the runner's setup failing, as any I/O (exit 1: fix the
// job's secrets or network, not the repository). A web site's setup
// errors (httpstore.SetupError: unreachable, a refused certificate, 401
// or 403, a redirect loop) are 1 for the same reason; its missing or
// HTML-page fdl.json is repo.ErrNotRepository (6).
func classifyStore(err error) (int, bool) {
	var ce *s3.ConfigError
	if errors.As(err, &ce) && ce.Problem == s3.NoBucket {
		return exitInvalid, true
	}
	return 0, false
}

// classifyRepo maps repository errors to exit codes. It runs before the
// other classifiers: a backfill that failed is a failure (1) whatever its
// cells' causes, and check's own verdict decides its code.
func classifyRepo(err error) (int, bool) {
	var ce *repo.CheckError
	switch {
	case errors.As(err, &ce):
		switch {
		case errors.Is(err, repo.ErrDifferences):
			return exitDifferent, true
		case errors.Is(err, repo.ErrInvalidVersion):
			return exitInvalid, true
		case errors.Is(err, repo.ErrUnverifiable):
			return exitIncomparable, true
		default:
			return exitMissing, true
		}
	case errors.Is(err, repo.ErrBackfillIncomplete):
		if errors.Is(err, context.Canceled) {
			return exitInterrupted, true
		}
		return exitFailure, true
	case errors.Is(err, repo.ErrBadFilter):
		return exitUsage, true
	case errors.Is(err, repo.ErrNotRepository), errors.Is(err, fdljson.ErrInvalid):
		return exitInvalid, true
	case errors.Is(err, store.ErrNoListing):
		// A web server that lists no folder: nothing could be checked.
		return exitIncomparable, true
	}
	return 0, false
}
