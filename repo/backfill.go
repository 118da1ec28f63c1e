package repo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"golang.org/x/sync/errgroup"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// Outcome is what Backfill did with one missing cell.
type Outcome string

const (
	// Written: converted, proved and published by this run.
	Written Outcome = "written"
	// AlreadyThere: another writer published the file first; this run
	// wrote nothing (files are written exactly once).
	AlreadyThere Outcome = "already-there"
	// Planned: a dry run; it would be written.
	Planned Outcome = "planned"
	// Failed: verification, conversion, proof or publication failed;
	// nothing was written.
	Failed Outcome = "failed"
	// Interrupted: the run was interrupted (Ctrl-C, SIGTERM) before or
	// while the cell ran; nothing was written and nothing of it is wrong.
	// It was "failed", so a scheduler counting failures read a cancelled
	// run as that many failed cells. A cell that failed for a reason of
	// its own while the run was being interrupted stays Failed.
	Interrupted Outcome = "interrupted"
)

// Steps of a Backfill cell, in order (CellResult.Step names the one that
// failed).
var Steps = []string{"verify", "convert", "compare", "publish"}

// CellResult is the outcome of one cell of a Backfill.
type CellResult struct {
	Version  string   `json:"version"`
	Seq      int64    `json:"seq,omitempty"`
	Format   string   `json:"format"`
	Key      string   `json:"key"`
	Outcome  Outcome  `json:"outcome"`
	Step     string   `json:"step,omitempty"` // the step that failed
	Error    string   `json:"error,omitempty"`
	Problem  Problem  `json:"problem,omitempty"`
	Bytes    int64    `json:"bytes,omitempty"`
	Seconds  float64  `json:"duration_seconds"`
	Findings []string `json:"findings,omitempty"` // lossy and note findings of the conversion
	// DeleteFiles counts the Parquet delete files the cell's proof read,
	// and those an earlier proof of the run had read (see Proof).
	DeleteFiles *compare.DeleteFileStats `json:"delete_files,omitempty"`
	// CarriedSnapshots counts the snapshots the proof did not walk again:
	// an earlier version's kept proof covered them (compare.Options.Carry).
	CarriedSnapshots int `json:"carried_snapshots,omitempty"`

	err error
	// frozenDiffers: the proof failed on the frozen catalog's own fault
	// (frozenAtFault): retrying cannot help.
	frozenDiffers bool
	// settled: the conversion found the cell refused or its source in
	// error, as the plan's check would have; the cell's state says which,
	// and it is no result of the run.
	settled bool
	// interrupted: the run was interrupted (Ctrl-C, SIGTERM) while or
	// before the cell ran; nothing of it is wrong.
	interrupted bool
}

// BackfillReport is what Backfill did.
type BackfillReport struct {
	FormatVersion int             `json:"format_version"`
	DryRun        bool            `json:"dry_run"`
	Plan          *Matrix         `json:"plan"`
	Results       []*CellResult   `json:"results"`
	Counts        map[Outcome]int `json:"counts"`
	// Removed lists the temporary files and work folders of killed runs
	// this run removed before starting.
	Removed []scratch.Removed `json:"removed_temporaries"`
	// SelfReads are the frozen catalogs the run read alone (runSelf: a
	// version whose cell proved nothing), in version order, as a check
	// reports its own.
	SelfReads []*SelfRead `json:"self_reads"`
	// Transfer is what the run downloaded and uploaded (remote stores only).
	Transfer *Transfer `json:"transfer,omitempty"`
}

// BackfillError lists the cells Backfill could not write: those that
// failed and those an interruption stopped.
type BackfillError struct {
	Failed []*CellResult
}

func (e *BackfillError) Error() string { return strings.Join(e.Lines(), "\n") }

// Lines is the message's lines: the count, then each cell with its error
// (oneline.Lines).
func (e *BackfillError) Lines() []string {
	if e.interrupted() {
		// One line: the report lists the cells, and each said "context
		// canceled" (or DuckDB's "INTERRUPT Error: Interrupted!").
		return []string{fmt.Sprintf("backfill interrupted: %d cell(s) not written (nothing half-written)", len(e.Failed))}
	}
	lines := make([]string, 0, 1+len(e.Failed))
	lines = append(lines, fmt.Sprintf("backfill: %d cell(s) not written:", len(e.Failed)))
	for _, r := range e.Failed {
		lines = append(lines, fmt.Sprintf("  - version %s format %s: %s: %s", r.Version, r.Format, r.Step, r.Error))
	}
	return lines
}

// Is makes a BackfillError match ErrBackfillIncomplete.
func (e *BackfillError) Is(target error) bool { return target == ErrBackfillIncomplete }

// Unwrap gives the cells' errors, so errors.Is finds e.g. context.Canceled.
func (e *BackfillError) Unwrap() []error {
	out := make([]error, 0, len(e.Failed))
	for _, r := range e.Failed {
		out = append(out, r.err)
	}
	return out
}

// interruption tells whether a cell's error is the run's interruption
// itself: the cancelled context, or DuckDB's query interrupted for it.
func interruption(err error) bool {
	var de *duckdb.Error
	return errors.Is(err, context.Canceled) || (errors.As(err, &de) && de.Type == duckdb.ErrorTypeInterrupt)
}

// interrupted tells whether every cell not written was stopped by an
// interruption of the run.
func (e *BackfillError) interrupted() bool {
	for _, r := range e.Failed {
		if !r.interrupted {
			return false
		}
	}
	return len(e.Failed) > 0
}

// Hint tells the user what to do next.
func (e *BackfillError) Hint() string {
	if e.interrupted() {
		return "run `fdl-formats backfill REPO` again: it writes what is still missing"
	}
	for _, r := range e.Failed {
		if r.frozenDiffers {
			return "a version's frozen catalog is itself at fault (see the error): no backfill can write a catalog of it that proves; restore the data files if they were changed, else withdraw the version and publish its data again; run `fdl-formats plan REPO` to see the other cells"
		}
	}
	return "run `fdl-formats plan REPO` to see the cells; a failed cell wrote nothing and is retried by the next backfill"
}

// Backfill writes every missing cell of the plan: for each, it verifies the
// frozen catalog against version.json (size and sha256), converts it into a
// work folder outside the repository, proves the result equivalent with
// compare, and only then publishes versions/<id>/catalogs/<format>.duckdb
// with store.Create, which never replaces a file. Cells run Options.Jobs at
// a time. A cell that fails writes nothing; Backfill then returns its report
// and a *BackfillError. A request that fails for the whole store mid-run
// (store.IsWholeStore) stops the cells still running (interrupted: nothing
// half-written) and those not started; Backfill then returns its report of
// the cells written until then and a *StoppedError wrapping the store's
// error.
func Backfill(ctx context.Context, st store.Store, opts Options) (*BackfillReport, error) {
	return runWatched(ctx, "backfill", opts, true, func(ctx context.Context, opts Options, _ *storeFailures) (*BackfillReport, error) {
		return backfill(ctx, st, opts)
	})
}

func backfill(ctx context.Context, st store.Store, opts Options) (_ *BackfillReport, err error) {
	if !opts.DryRun && store.IsReadOnly(st) {
		return nil, fmt.Errorf("backfill %s: %w: backfill writes catalogs; run it on the repository's bucket or folder (plan and check read web sites)", location(st), store.ErrReadOnly)
	}
	r, err := load(ctx, st, &opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if err := ownDataFolder(r.paths, r.cfg, opts.DataPath); err != nil {
		return nil, err
	}
	// Its logs name the repository's files, not the run's copies.
	opts.Logger = r.log
	// A run that writes leaves its missing cells unchecked: each cell's
	// conversion runs the checks convert.Check would (and refuses the same
	// way), so checking first converted every cell twice.
	m, err := r.plan(ctx, &opts, opts.DryRun)
	if err != nil {
		return nil, err
	}
	log := opts.log()
	// A warning repeated per version (an imported history's created_at)
	// is logged once, then counted.
	for _, g := range m.WarningGroups() {
		log.Warn(g.Detail)
		if len(g.More) > 0 {
			log.Warn(g.MoreAlike(), "count", len(g.More))
		}
	}
	// A version's other files that disagree with version.json (a
	// dataset.json or files.json whose sha256 differs, as plan lists them)
	// do not stop its catalogs, as in plan; check fails on them. The run
	// says so rather than publish without a word; an issue every version
	// has alike (files.json missing from each) once, then counted.
	for _, g := range m.IssueGroups() {
		log.Warn("version issue: its catalogs are written all the same; check reports it", "version", g.Version, "problem", g.Problem, "detail", g.Detail)
		if len(g.More) > 0 {
			log.Warn("version issue: "+MoreAlike(g.More), "count", len(g.More))
		}
	}
	rep := &BackfillReport{FormatVersion: 1, DryRun: opts.DryRun, Plan: m, Results: []*CellResult{}, Counts: map[Outcome]int{}, Removed: []scratch.Removed{}, SelfReads: []*SelfRead{}}
	rep.Removed = append(rep.Removed, r.sweptWork...)
	if !opts.DryRun {
		rep.Removed = append(rep.Removed, r.sweepTemp(ctx, &opts)...)
	}
	defer func() {
		rep.Transfer = r.transfer()
		if r.remote != nil {
			if w := r.remote.tailWarning(); w != "" {
				log.Warn(w)
			}
		}
	}()
	var todo []*Cell
	for _, c := range m.Cells() {
		if c.State == Missing {
			todo = append(todo, c)
		}
	}
	// A server that ignores conditional writes could let this run replace
	// another's object: find out before publishing anything.
	if p, ok := st.(store.Prober); ok && !opts.DryRun && len(todo) > 0 {
		if err := p.Probe(ctx); err != nil {
			return nil, &UnsafeStoreError{err}
		}
	}
	work, err := scratch.MkdirTemp(opts.workDir(), backfillWorkPrefix)
	if err != nil {
		return nil, fmt.Errorf("create work folder: %w", err)
	}
	defer os.RemoveAll(work)
	r.bound(work)
	var hints []string
	if !opts.DryRun {
		hints = r.hintVersions(todo)
	}
	frozen := newFrozenCopies(r, work, todo, hints...)
	r.hintDeletes(ctx, frozen, hints, log)
	contents := r.contentPasses(m, todo, &opts)
	results := make([]*CellResult, len(todo))
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.jobs())
	cells := make([]int, len(todo)) // indexes into todo
	for i := range todo {
		cells[i] = i
	}
	for _, group := range versionGroups(cells, func(i int) string { return todo[i].Version }, opts.jobs()) {
		g.Go(func() error {
			// The cells of a group share their version's frozen catalog
			// and its reader (compare.Source), one after the other; the
			// copy goes once the reader is closed.
			source := compare.NewSource()
			groupCells := make([]*Cell, len(group))
			for n, i := range group {
				groupCells[n] = todo[i]
			}
			conv := newGroupConversions(groupCells, work, opts.log())
			defer func() {
				conv.close()
				source.Close()
				for _, i := range group {
					frozen.release(todo[i].Version)
				}
			}()
			for _, i := range group {
				c := todo[i]
				var res *CellResult
				if opts.DryRun {
					res = &CellResult{Version: c.Version, Seq: c.Seq, Format: c.Format, Key: c.Key, Outcome: Planned}
				} else {
					res = r.fill(gctx, c, work, frozen, source, conv, &opts)
				}
				results[i] = res
				contents.run(gctx, c.Version, frozen, source, log)
				if !opts.DryRun && res.Outcome != Written && res.Outcome != AlreadyThere && res.Problem != ProblemNotEquivalent && !res.frozenDiffers {
					contents.runSelf(gctx, c.Version, frozen, source, log)
				}
				mu.Lock()
				done++
				if opts.Progress != nil {
					result := string(res.Outcome)
					if res.settled {
						result = string(c.State)
					}
					opts.Progress(Progress{Done: done, Total: len(todo), Cell: c, Result: result, Bytes: res.Bytes, Seconds: res.Seconds})
				}
				mu.Unlock()
				// Only an interruption stops the other cells; a failed cell
				// is reported and the rest go on.
				if errors.Is(res.err, context.Canceled) && ctx.Err() != nil {
					return ctx.Err()
				}
			}
			return nil
		})
	}
	waitErr := g.Wait()
	rep.SelfReads = append(rep.SelfReads, contents.reads(m)...)
	if !opts.DryRun {
		// A version whose frozen catalog a conversion found breaking
		// version.json's claims is in error, all its cells.
		for _, vp := range m.Versions {
			if err := frozen.falseClaim(vp.ID); err != nil {
				refuseVersion(vp, ProblemMismatch, err)
			}
		}
		r.tally(m) // cells the conversion refused, or found in error
	}
	var failed []*CellResult
	for i, res := range results {
		if res == nil { // never started: interrupted
			c := todo[i]
			res = &CellResult{Version: c.Version, Seq: c.Seq, Format: c.Format, Key: c.Key, Outcome: Interrupted, Step: "start",
				Error: "interrupted before it started", err: context.Canceled, interrupted: true}
		}
		if res.settled {
			continue // not a missing cell after all: the plan shows it
		}
		res.Error = r.names.name(res.Error)
		rep.Results = append(rep.Results, res)
		rep.Counts[res.Outcome]++
		if res.Outcome == Failed || res.Outcome == Interrupted {
			failed = append(failed, res)
		}
		if res.Outcome == Written || res.Outcome == AlreadyThere {
			todo[i].State = Present
		}
	}
	r.nameMatrix(rep.Plan)
	if len(failed) > 0 {
		return rep, &BackfillError{Failed: failed}
	}
	if waitErr != nil {
		return rep, waitErr
	}
	return rep, nil
}

// contentPasses runs, once per version a backfill writes for, the content
// pass a check runs (checkContents), while the version's frozen copy is at
// hand, so that it is kept in the digest cache and the check after the
// backfill finds it, as it finds the backfill's proofs; what the pass finds
// is the check's to report. Only where a content pass can be kept (a
// folder, a digest cache): else nil, which runs nothing.
type contentPasses struct {
	r         *repository
	disk      *compare.DiskCheck
	jsonFiles map[string]bool // version -> its files.json and dataset.json matched
	once      map[string]*sync.Once
	self      map[string]*sync.Once // version -> its self-read (runSelf)
	mu        sync.Mutex
	selfReads map[string]*SelfRead // version -> its self-read made (runSelf)
}

func (r *repository) contentPasses(m *Matrix, todo []*Cell, opts *Options) *contentPasses {
	if opts.DryRun || r.remote != nil || r.digestCache == nil {
		return nil
	}
	cp := &contentPasses{r: r, disk: compare.NewDiskCheck(), jsonFiles: map[string]bool{}, once: map[string]*sync.Once{}, self: map[string]*sync.Once{}, selfReads: map[string]*SelfRead{}}
	for _, vp := range m.Versions {
		cp.jsonFiles[vp.ID] = vp.filesTrusted
	}
	for _, c := range todo {
		if cp.once[c.Version] == nil {
			cp.once[c.Version] = new(sync.Once)
			cp.self[c.Version] = new(sync.Once)
		}
	}
	return cp
}

// run runs version id's content pass, the first time only; the caller
// holds a user of its frozen copy.
func (cp *contentPasses) run(ctx context.Context, id string, frozen *frozenCopies, source *compare.Source, log *slog.Logger) {
	if cp == nil || cp.once[id] == nil {
		return
	}
	cp.once[id].Do(func() {
		if issues := cp.r.checkContents(ctx, cp.r.find(id), frozen, source, cp.disk, cp.jsonFiles[id]); !onlyWarnings(issues) {
			log.Debug("content pass not kept; check reports it", "version", id, "first", issues[0].Detail)
		}
	})
}

// runSelf reads version id's frozen catalog alone (selfRead), the first
// time only, after a cell of it that proved nothing (refused, or failed
// before its proof read the frozen catalog), so that the check after the
// backfill finds the read kept, as it finds the content pass; a proof that
// runs later takes its reads (the digests). What it finds is logged; the
// check reports it. The caller holds a user of the frozen copy.
func (cp *contentPasses) runSelf(ctx context.Context, id string, frozen *frozenCopies, source *compare.Source, log *slog.Logger) {
	if cp == nil || cp.self[id] == nil {
		return
	}
	cp.self[id].Do(func() {
		read, fs := cp.r.selfRead(ctx, cp.r.find(id), frozen, source)
		if len(fs) > 0 {
			log.Warn("the frozen catalog, read alone, disagrees with its data files or cannot be read; check reports it", "version", id, "first", fs[0].Detail)
		}
		if read != nil {
			cp.mu.Lock()
			cp.selfReads[id] = read
			cp.mu.Unlock()
		}
	})
}

// reads is the self-reads runSelf made, in the order of m's versions.
func (cp *contentPasses) reads(m *Matrix) []*SelfRead {
	if cp == nil {
		return nil
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	var out []*SelfRead
	for _, vp := range m.Versions {
		if read := cp.selfReads[vp.ID]; read != nil {
			out = append(out, read)
		}
	}
	return out
}

// minShared is the fewest items versionGroups puts in a group split from a
// version's: each group opens, checks and reads the frozen catalog whole
// once (compare.Source), which cost more than running a few items at once
// saved. Measured with 2 jobs on check --versions NEWEST --no-cache of
// lakegen histories (20 versions of 1,000 or 500,000 rows, 10 of 100,000;
// 2 and 3 published formats; machine shared, load 5-9): a version's 3 or 4
// items in one group took 0.31-0.66 s of CPU, split 2+1 or 2+2 0.40-0.75,
// each alone 0.43-0.84, and one group's wall time was the lowest of the
// three or within 3% of it. A backfill's version of two cells (a
// conversion and a proof each) took 0.38 s of CPU in one group (one
// conversion pass), 0.52 each alone (docs/compare.md).
const minShared = 3

// versionGroups splits a run's items (a Backfill's cells, a Check's content
// passes and proofs) into the groups it works through, one item after the
// other: the items of one version together, which then copy, open and read
// its frozen catalog once (and a backfill converts the group's cells in
// one pass). Where that leaves jobs idle (fewer versions than jobs, as in
// the newest version's backfill or a check narrowed by --versions or
// --shard), the largest group of at least twice minShared items is split
// in two (its first half first), again while jobs would be idle, so that a
// version with many items still runs on several jobs. Groups come in the
// order of their versions' first items; an item is in one group only, so
// a backfill's cell (its file) has one writer. (Before the thirty-second
// session, with fewer versions than jobs every item ran alone, each
// opening and reading the frozen catalog.)
func versionGroups[T any](items []T, version func(T) string, jobs int) [][]T {
	groups := byVersion(items, version)
	for len(groups) < jobs {
		big := -1
		for i, g := range groups {
			if len(g) >= 2*minShared && (big < 0 || len(g) > len(groups[big])) {
				big = i
			}
		}
		if big < 0 {
			break
		}
		g := groups[big]
		half := (len(g) + 1) / 2
		groups = slices.Insert(groups, big+1, g[half:])
		groups[big] = g[:half:half]
	}
	return groups
}

// byVersion groups items by version, in the order of their versions' first
// items.
func byVersion[T any](items []T, version func(T) string) [][]T {
	groupOf := map[string]int{} // version -> its group
	var groups [][]T
	for _, it := range items {
		g, ok := groupOf[version(it)]
		if !ok {
			g = len(groups)
			groupOf[version(it)] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], it)
	}
	return groups
}

// fill writes one cell. It never leaves a file under versions/ unless the
// whole cell succeeded. source keeps the version's frozen catalog open for
// the proof of the version's next cell in the same group, and conv its
// conversion, made with the first's (groupConversions); the group closes
// both and releases the frozen copy.
func (r *repository) fill(ctx context.Context, c *Cell, work string, frozen *frozenCopies, source *compare.Source, conv *groupConversions, opts *Options) (res *CellResult) {
	start := time.Now()
	// Every line about the cell names its version, its format and its
	// file (the key the report names): the converter's and the proof's too.
	log := opts.log().With("version", c.Version, "to_version", c.Format, "key", c.Key)
	res = &CellResult{Version: c.Version, Seq: c.Seq, Format: c.Format, Key: c.Key}
	step := ""
	defer func() {
		res.Seconds = time.Since(start).Seconds()
		switch {
		case res.settled:
			log.Debug("cell not written", "state", c.State, "reasons", c.Reasons)
		case res.err != nil && ctx.Err() != nil && interruption(res.err):
			// The run was interrupted: a warning, not an error per cell
			// ("context canceled", "INTERRUPT Error: Interrupted!"). A
			// cell that failed for a reason of its own meanwhile (a
			// difference, a refused write) stays a failure.
			res.Outcome, res.Step, res.interrupted = Interrupted, step, true
			res.Error = "interrupted"
			if !errors.Is(res.err, context.Canceled) {
				res.Error += " (" + res.err.Error() + ")"
				// DuckDB's INTERRUPT error holds no context.Canceled, by
				// which the run's error is an interruption (exit 130):
				// the run said "backfill interrupted" and exited 1.
				res.err = fmt.Errorf("%w: %w", context.Canceled, res.err)
			}
			log.Warn("cell interrupted", "step", step, "error", res.err)
		case res.err != nil:
			res.Outcome, res.Step, res.Error = Failed, step, res.err.Error()
			log.Error("cell failed", "step", step, "error", res.err)
		default:
			log.Debug("cell done", "outcome", res.Outcome, "duration_seconds", res.Seconds)
		}
	}()
	out := "" // the converted catalog, from the compare step on
	at := func(s string) error {
		step = s
		if err := ctx.Err(); err != nil {
			return err
		}
		return faults.At(ctx, "backfill/"+s, out)
	}
	dir, err := os.MkdirTemp(work, "cell-")
	if err != nil {
		res.err = fmt.Errorf("create work folder: %w", err)
		return res
	}
	defer os.RemoveAll(dir)

	if res.err = at("verify"); res.err != nil {
		return res
	}
	// Convert and prove from a private copy of exactly the verified bytes
	// (one per version, shared by its cells).
	v := r.find(c.Version)
	// The data files are held to the store's bytes only as the conversion
	// and proofs read them (convert.ReadGate, compare.ReadGate).
	src, problem, err := frozen.getHeld(ctx, v, source)
	if err != nil {
		res.err, res.Problem = err, problem
		return res
	}

	if res.err = at("convert"); res.err != nil {
		return res
	}
	copts := opts.Convert
	// With RewriteDeletes the converter publishes new delete files into the
	// data folder (never under versions/) before it returns, from its own
	// folder in the repository's temp folder. The converted catalog itself
	// is a work file: the store syncs the copy it publishes, so the
	// converter does not sync it (NoSync).
	// (The converter names the format: to_version, each step's too.)
	copts.Logger = cellLogger(opts.log(), c)
	copts.DataPath, copts.TempDir, copts.Engines = r.dataPath, r.tempDir(), r.convEngines
	copts.NoSync = true
	// A frozen catalog in another format than version.json says stops the
	// conversion before it writes anything (rewritten delete files too).
	copts.SourceFormat = v.meta.DuckLake.Format
	copts.Readers = r.servedRanges()
	copts.Gate = r.convGate()
	if r.remote != nil && r.remote.cacheDir != "" {
		// A copy reused from a restored cache and not yet held to the
		// store's bytes: the footer checks read its footer from the store
		// (two ranged reads) rather than hashing the whole copy.
		copts.Footers = r.remote
	}
	converted, cres, err := conv.convert(ctx, c, src, dir, copts)
	if copts.RewriteDeletes {
		// It may have written delete files, even if it failed: every
		// later proof key lists the data folder again.
		r.listings.Changed()
	}
	// The conversion detected the frozen catalog's format: a version.json
	// that says another is refused before anything is proved or published.
	if d := sourceFormat(cres, err); d != "" && ctx.Err() == nil {
		if cerr := formatClaim(v.prefix()+v.meta.Catalog.Path, v, d); cerr != nil {
			frozen.refuse(v.id, cerr)
			res.err, res.Problem = cerr, ProblemMismatch
			return res
		}
	}
	if err != nil {
		res.err = err
		res.settled = settleConversion(ctx, c, src, err, copts)
		return res
	}
	applyCheck(c, cres, nil) // its findings: the plan left it unchecked
	for _, f := range cres.Findings {
		res.Findings = append(res.Findings, f.String())
	}

	out = converted
	if res.err = at("compare"); res.err != nil {
		return res
	}
	// The frozen copy's sum is version.json's, which it matched. The
	// converted catalog's files are checked to be under data_dir, and its
	// bookkeeping as a frozen catalog's, as check does, so that check
	// finds this very proof in the cache.
	// An earlier version's proof, kept, covers the snapshots this one
	// shares with it where the catalogs are its own (Carry).
	proof, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: r.dataPath, BUnderDataPath: true, BBookkeeping: true, BReaders: r.servedRanges()[c.Format], DigestCache: r.digestCache, Digests: r.digests, Deletes: r.deletes, Engines: r.engines, Source: source, Listings: r.listings, SumA: v.meta.Catalog.FileRef.SHA256,
		Carry: r.earlierPairs(v, c.Format), CarryMinWork: r.carryMin, Logger: log})
	if proof != nil {
		res.DeleteFiles = proof.DeleteFiles // nil when no comparison ran
		if proof.Carried != nil && !proof.ProofCached {
			res.CarriedSnapshots = proof.Carried.Snapshots
		}
	}
	if err != nil {
		res.err = fmt.Errorf("prove %s equivalent to %s: %w", c.Key, c.source, err)
		res.Problem = dataProblem(err)
		var bk *compare.BookkeepingError
		switch {
		case errors.Is(err, compare.ErrNotEquivalent):
			res.Problem = ProblemNotEquivalent
			// A fault of the frozen catalog itself fails every
			// conversion's proof: no later backfill can help.
			if ferr := r.frozenAtFault(ctx, v, src, source); ferr != nil {
				res.err, res.Problem, res.frozenDiffers = fmt.Errorf("%w; the proof of %s: %w", ferr, c.Key, err), ProblemMismatch, true
			}
		case errors.As(err, &bk):
			res.Problem = ProblemViolation
		}
		return res
	}

	if res.err = at("publish"); res.err != nil {
		return res
	}
	// Files --rewrite-deletes wrote go up before the catalog naming them.
	if r.remote != nil {
		if err := r.remote.uploadNew(ctx, src, out); err != nil {
			res.err = fmt.Errorf("publish the data files %s names: %w", c.Key, err)
			return res
		}
	}
	f, err := os.Open(out)
	if err != nil {
		res.err = err
		return res
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil {
		res.Bytes = info.Size()
	}
	switch err := r.st.Create(ctx, c.Key, f); {
	case errors.Is(err, store.ErrExists):
		// Only a catalog file is "already there"; check proves it.
		switch kind, kerr := r.entryKind(ctx, c.Key); {
		case kerr != nil:
			res.err = kerr
		case kind != entryFile:
			res.err = fmt.Errorf("%s exists but is a %s, not a catalog file; remove it and run backfill again", c.Key, kind)
			res.Problem = ProblemViolation
		default:
			res.Outcome, res.Bytes = AlreadyThere, 0
		}
	case err != nil:
		res.err = err
	default:
		res.Outcome = Written
		// The bytes just uploaded, proved: a later version's proof may
		// carry this one (earlierPairs) without downloading them.
		if r.remote != nil {
			r.remote.keepPublished(c.Key, out)
		}
	}
	return res
}

// groupConversions converts the cells of a group (a version's cells, run
// one after the other) in one pass (convert.Catalogs: one database, the
// frozen catalog attached, read and checked once, then one working copy
// and one file per format), the first time one of them reaches its
// conversion; each later cell takes its own outcome. Every cell is still
// converted, proved and published on its own: a cell that stops before its
// conversion (a fault, an interruption) leaves its file unused, and the
// group removes it. With RewriteDeletes the pass publishes the rewritten
// delete files of every cell of the group into the data folder when the
// first cell converts, so a later cell that stops before its own
// conversion leaves its rewritten delete files there, referenced by no
// catalog. That is harmless: their names derive from what they are made
// from (the original delete file and the snapshot, see convert's
// rewriteNamespace), so the next backfill of that cell writes the same
// names and uses them.
type groupConversions struct {
	cells []*Cell
	log   *slog.Logger // the backfill's logger, without a cell's names
	work  string       // the backfill's work folder
	dir   string       // the pass's outputs, until close
	src   string       // the frozen copy the pass converted
	done  map[*Cell]groupConverted
}

// groupConverted is a cell's conversion made by the pass: its file and
// outcome.
type groupConverted struct {
	path string
	convert.Converted
}

func newGroupConversions(cells []*Cell, work string, log *slog.Logger) *groupConversions {
	return &groupConversions{cells: cells, work: work, log: log}
}

// cellLogger is log naming cell c: its version and key.
func cellLogger(log *slog.Logger, c *Cell) *slog.Logger {
	return log.With("version", c.Version, "key", c.Key)
}

// convert returns cell c's converted catalog (a file in dir, or in the
// pass's folder) with convert.Catalog's result and error. The first call
// converts c and every later cell of the group from src in one pass.
func (g *groupConversions) convert(ctx context.Context, c *Cell, src, dir string, copts convert.Options) (string, *convert.Result, error) {
	if got, ok := g.done[c]; ok && src == g.src {
		delete(g.done, c)
		return got.path, got.Result, got.Err
	}
	later := g.after(c)
	if g.done != nil || len(later) == 0 {
		// A pass ran already (c is not in it) or c is alone: c on its own.
		path := filepath.Join(dir, c.Format+".duckdb")
		res, err := convert.Catalog(ctx, src, path, c.target, copts)
		return path, res, err
	}
	g.done, g.src = map[*Cell]groupConverted{}, src
	d, err := os.MkdirTemp(g.work, "group-")
	if err != nil {
		return "", nil, fmt.Errorf("create work folder: %w", err)
	}
	g.dir = d
	cells := append([]*Cell{c}, later...)
	outs := make([]convert.Output, len(cells))
	paths := make([]string, len(cells))
	for i, lc := range cells {
		paths[i] = filepath.Join(d, fmt.Sprintf("%d-%s.duckdb", i, lc.Format))
		outs[i] = convert.Output{Target: lc.target, Dst: paths[i]}
		if i > 0 {
			// Each output's lines name its own cell, not c.
			outs[i].Logger = cellLogger(g.log, lc)
		}
	}
	got := convert.Catalogs(ctx, src, outs, copts)
	for i, lc := range later {
		g.done[lc] = groupConverted{path: paths[i+1], Converted: got[i+1]}
	}
	return paths[0], got[0].Result, got[0].Err
}

// after lists the group's cells after c.
func (g *groupConversions) after(c *Cell) []*Cell {
	for i, gc := range g.cells {
		if gc == c {
			return g.cells[i+1:]
		}
	}
	return nil
}

// close removes the pass's folder: the files the cells published from, and
// any no cell took.
func (g *groupConversions) close() {
	if g.dir != "" {
		os.RemoveAll(g.dir)
	}
}

// settleConversion classifies a failed conversion of a cell the plan left
// unchecked, as the plan's convert.Check would have: refused, or in error
// when Check fails on the source too (then the cell is not backfill's to
// fix, as before). It reports whether it did; otherwise the cell failed.
func settleConversion(ctx context.Context, c *Cell, src string, err error, copts convert.Options) bool {
	if ctx.Err() != nil {
		return false
	}
	var refused *convert.RefusedError
	if !errors.As(err, &refused) {
		// Writing can fail where checking does not; only Check tells.
		if _, err = convert.Check(ctx, src, c.target, copts); err == nil || ctx.Err() != nil {
			return false
		}
	}
	applyCheck(c, nil, err)
	return true
}
