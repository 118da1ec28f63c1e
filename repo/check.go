package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// Kind classifies a finding of Check; it decides the exit code.
type Kind string

const (
	// KindDifference: a published catalog is not equivalent to its source,
	// holds another format than its name, or cannot be read while its
	// source can; a file does not match version.json or its catalog; a
	// frozen catalog breaks version.json's claims (ducklake.format,
	// ducklake.snapshot_id and snapshots, catalog.storage, changes); a frozen or
	// published catalog is not a DuckLake catalog (an object named like a
	// DuckLake table is not a base table) or holds inlined rows or rows
	// naming a snapshot after its last; or a rule is broken (catalogs/ entries, write-ahead
	// logs, unnamed dataset.json/files.json, until, a parent that is not in
	// the repository, a catalog left in a version with expired.json).
	KindDifference Kind = "difference"
	// KindInvalid: a version's files are missing or invalid, or its
	// version.json breaks the spec against the repository (a seq that does
	// not follow its first parent's, first parents that come back to it),
	// or its frozen catalog, the very bytes version.json hashes, does not
	// read whole (truncated, or a block DuckDB cannot read).
	KindInvalid Kind = "invalid"
	// KindUnverifiable: an input the operator can restore is missing or
	// unreadable (a data file, a catalog this DuckDB cannot open).
	KindUnverifiable Kind = "unverifiable"
	// KindMissing: a declared format that can be written is missing.
	KindMissing Kind = "missing"
	// KindWarning: reported, does not fail the check (repository rules that
	// only the writer can fix).
	KindWarning Kind = "warning"
)

// Finding is one thing Check found.
type Finding struct {
	Kind    Kind   `json:"kind"`
	Version string `json:"version,omitempty"`
	Format  string `json:"format,omitempty"`
	Key     string `json:"key,omitempty"`
	Detail  string `json:"detail"`
	// frozenDiffers: a difference of the version's frozen catalog itself
	// (selfRead), which no backfill can mend.
	frozenDiffers bool
	// noRanges: a declared format's readers fail every read of this web
	// server, which ignores Range requests (noRangesFinding).
	noRanges bool
	// cause is the error Detail says, where one is known: its type tells
	// a server at fault from a file to restore (serverHint).
	cause error
	// alike marks a plan's warning that repeats per version
	// (GroupFindings).
	alike alike
}

// Proof is the verification of one published catalog.
type Proof struct {
	Version string `json:"version"`
	Format  string `json:"format"`
	Key     string `json:"key"`
	OK      bool   `json:"ok"`
	// Cached is set when a proof kept in the digest cache for the very
	// bytes of both catalogs and of the data files stood for this one
	// (nothing was compared again).
	Cached bool   `json:"cached,omitempty"`
	Error  string `json:"error,omitempty"`
	// DeleteFiles counts the Parquet delete files the proof read, and
	// those an earlier proof of the run had read (the run shares them);
	// nil for a proof kept in the digest cache or one that did not compare.
	DeleteFiles *compare.DeleteFileStats `json:"delete_files,omitempty"`
	// CarriedSnapshots counts the snapshots the proof did not walk again:
	// an earlier version's kept proof covered them (compare.Options.Carry).
	CarriedSnapshots int     `json:"carried_snapshots,omitempty"`
	Seconds          float64 `json:"duration_seconds"`

	frozenDiffers bool  // failed for the frozen catalog's own fault (frozenAtFault)
	cause         error // the error Error says (serverHint)
}

// CheckReport is what Check found.
type CheckReport struct {
	FormatVersion int      `json:"format_version"`
	OK            bool     `json:"ok"`
	Plan          *Matrix  `json:"plan"`
	Proofs        []*Proof `json:"proofs"`
	// SelfReads are the frozen catalogs read alone, for the versions no
	// proof of the run reads (selfRead), in version order.
	SelfReads []*SelfRead  `json:"self_reads"`
	Findings  []Finding    `json:"findings"`
	Counts    map[Kind]int `json:"counts"`
	// Readers is the matrix from the reader's side: per declared DuckDB
	// range, the versions it can and cannot read.
	Readers []*ReaderRange `json:"readers"`
	// Transfer is what the run downloaded (remote stores only).
	Transfer *Transfer `json:"transfer,omitempty"`
	// Error and ExitCode are set by the command when the run failed (exit
	// code not 0): the error it printed, and its exit code. A check that
	// stopped on a runtime failure (a TLS error, a server's 500, a
	// download failing: exit 1) writes a report with them alone, so that
	// a CI job's check.json says why (it was empty).
	Error    string `json:"error,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	// Hint is what the command's Try: line said to do (set with Error).
	Hint string `json:"hint,omitempty"`
	// Stopped is set when a request that failed for the whole store
	// (credentials expired, the bucket or endpoint gone) stopped the run
	// part-way: the findings and proofs are those made before the stop.
	Stopped *StoppedCheck `json:"stopped,omitempty"`
}

// StoppedCheck is what a check that a whole-store failure stopped part-way
// did not check: both lists empty when it stopped after every content pass
// and proof, at the reader matrix, which a stopped check never evaluates.
// Whatever it found before, its exit code is the stop's
// (docs/repository.md, "Exit codes of a stopped check").
type StoppedCheck struct {
	// Reason is the store's error that stopped the run.
	Reason string `json:"reason"`
	// VersionsNotChecked are the versions whose content pass (their
	// frozen catalog, files.json, dataset.json, data and delete files)
	// did not finish before the stop.
	VersionsNotChecked []string `json:"versions_not_checked"`
	// CatalogsNotProved are the published catalogs whose proof did not
	// finish before the stop.
	CatalogsNotProved []string `json:"catalogs_not_proved"`
}

// CheckError is returned by Check when it found anything but warnings. It
// matches ErrDifferences, ErrInvalidVersion, ErrUnverifiable or
// ErrWorkMissing: the most serious kind found, in that order.
type CheckError struct {
	Counts map[Kind]int
	First  Finding
	// Denied are the objects the store refused to the run's credentials
	// (store.ErrAccessDenied: S3's AccessDenied, a web server's 401 or
	// 403), in the order the run met them: files that may well be there
	// and whole, so the hint does not say to restore them.
	Denied []string

	site bool // the repository is a web site (Denied: files it does not serve)
	// remove names a key where the user removes it and backfill the
	// command that writes it again (removable, backfillAgain of the
	// run's store); nil: by its key, `fdl-formats backfill REPO`.
	remove   func(key string) string
	backfill string
}

// removable is removable(key) of the run's store.
func (e *CheckError) removable(key string) string {
	if e.remove == nil {
		return key
	}
	return e.remove(key)
}

// backfillAgain is backfillAgain of the run's store.
func (e *CheckError) backfillAgain() string {
	if e.backfill == "" {
		return "`fdl-formats backfill REPO`"
	}
	return e.backfill
}

func (e *CheckError) sentinel() error {
	switch {
	case e.Counts[KindDifference] > 0:
		return ErrDifferences
	case e.Counts[KindInvalid] > 0:
		return ErrInvalidVersion
	case e.Counts[KindUnverifiable] > 0:
		return ErrUnverifiable
	default:
		return ErrWorkMissing
	}
}

func (e *CheckError) Error() string {
	var parts []string
	for _, k := range []Kind{KindDifference, KindInvalid, KindUnverifiable, KindMissing} {
		if n := e.Counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	// A finding about a whole version has no format: "invalid <id> : ..."
	// read as a typo.
	where := strings.Join(slices.DeleteFunc([]string{string(e.First.Kind), e.First.Version, e.First.Format}, func(s string) bool { return s == "" }), " ")
	return fmt.Sprintf("check: %s (first: %s: %s)", strings.Join(parts, ", "), where, e.First.Detail)
}

// Is matches the sentinel of the most serious kind found.
func (e *CheckError) Is(target error) bool { return target == e.sentinel() }

// storageTooNewHint is what to do about a frozen catalog saved at a DuckDB
// storage the linked DuckDB cannot open (convert.ErrStorageTooNew), most
// likely by DuckDB 2.0 at its default storage.
var storageTooNewHint = fmt.Sprintf("the first finding's catalog is saved at a DuckDB storage the DuckDB that fdl-formats links cannot open (DuckDB %[1]s saves at its own storage, %[2]s, unless told otherwise), so nothing of that version can be converted or proved here: its writer saves the frozen catalog at STORAGE_VERSION '%[3]s' (ATTACH the catalog file with (STORAGE_VERSION '%[3]s') when it is created, or COPY FROM DATABASE into a file so attached) and publishes it as a new version; see the report (--json) for every finding",
	duckfile.NewerStorages[0].DefaultOf, duckfile.NewerStorages[0].Name, duckfile.Storages[len(duckfile.Storages)-1].Name)

// Hint tells the user what to do next.
func (e *CheckError) Hint() string {
	if e.First.Key == VersionsDir && e.First.Kind == KindUnverifiable {
		return "check the repository's location (and, on a web server, that " + VersionsDir + " is listed); a repository with no version yet passes with --allow-empty"
	}
	if e.First.frozenDiffers {
		return "a version's frozen catalog is itself at fault (it disagrees with its data files, or its format's readers cannot read a table of it): `fdl-formats backfill` cannot help; restore the data files if they were changed, else withdraw the version and publish its data again; see the report (--json)"
	}
	switch e.sentinel() {
	case ErrUnverifiable:
		if hint := e.serverHint(); hint != "" {
			return hint
		}
		if len(e.Denied) > 0 {
			return e.deniedHint()
		}
		if errors.Is(e.First.cause, convert.ErrStorageTooNew) {
			return storageTooNewHint
		}
		var parent *parentRowError
		if errors.As(e.First.cause, &parent) && parent.shard && parent.here {
			// The bytes were verified: this machine failed to read them
			// (TestShardParentReadFailsHere).
			return "the first finding's history could not be compared with its first parent's, which another shard of this --shard split checks: the parent's frozen catalog matched its version.json, but reading it failed on this machine (the finding's error says why: a full disk, permissions, memory, DuckDB itself): fix that and run this shard again (`fdl-formats check REPO`); see the report (--json) for every finding"
		}
		if errors.As(e.First.cause, &parent) && parent.shard {
			// The parent's shard may have been answered the recorded
			// bytes (TestShardParentAnsweredOtherwise).
			return "the first finding's history could not be compared with its first parent's, which another shard of this --shard split checks: run this shard again (`fdl-formats check REPO`); where it fails again while the parent's shard passes, the store answers the parent's frozen catalog otherwise to different requests (a CDN edge or replica serving an older copy, a proxy's cache): fix it, or check the parent (`fdl-formats check --versions " + parent.parent + " REPO`); see the report (--json) for every finding"
		}
		if errors.As(e.First.cause, &parent) {
			// The fault, if any, is the parent's, which the run left out.
			return "the first finding's history could not be compared with its first parent's, a version this run does not check (--versions, --shard): check it (`fdl-formats check --versions " + parent.parent + " REPO`), which names what is wrong with its frozen catalog; see the report (--json) for every finding"
		}
		return fmt.Sprintf("restore the file the first finding names if it is missing or damaged (a data file missing from the data folder, most often: check data_dir in fdl.json); a catalog saved at a storage the DuckDB that fdl-formats links cannot open (DuckDB %s's default, %s) its writer saves again at STORAGE_VERSION '%s'; see the report (--json) for every finding",
			duckfile.NewerStorages[0].DefaultOf, duckfile.NewerStorages[0].Name, duckfile.Storages[len(duckfile.Storages)-1].Name)
	case ErrInvalidVersion:
		return "fix the file the first finding names (a published version's files do not change: restore one that was edited, or withdraw the version); see the report (--json) for every finding"
	case ErrWorkMissing:
		if e.site {
			// backfill refuses a site (TestWebDryRun).
			return "run `fdl-formats backfill` on the folder or s3:// bucket the site serves, to write the missing catalogs there (`fdl-formats backfill --dry-run REPO` lists them)"
		}
		return "run `fdl-formats backfill REPO` to write the missing catalogs"
	case ErrDifferences:
		if e.First.noRanges {
			// Nothing published differs: the server cannot serve the
			// readers of a declared format.
			return "the web server ignores Range requests, which the first finding's DuckDB releases need: serve the repository from a server that honours them (nginx, Apache, Caddy, S3), or no longer declare that format for them; see the report (--json)"
		}
		var parent *parentRowError
		if errors.As(e.First.cause, &parent) && parent.own {
			// The fault is the parent's, which the run left out.
			return "the first finding's history cannot be verified against its first parent's, a version this run does not check (--versions, --shard), whose frozen catalog contradicts its version.json: check it (`fdl-formats check --versions " + parent.parent + " REPO`), which reports the fault as its own; see the report (--json) for every finding"
		}
		if strings.HasPrefix(e.First.Detail, "rule broken: ") {
			// A stray file, a write-ahead log, a catalog of an undeclared
			// format...: nothing to restore, the finding says what to do.
			return "a file breaks a repository rule: do what the first finding says (remove it, mostly); see the report (--json) for every finding"
		}
		if e.First.Format != "" && e.First.Key == CatalogKey(e.First.Version, e.First.Format) {
			// A catalog backfill wrote: nothing to restore or withdraw
			// (the version is fine), it is written again once removed.
			// Named so that it can be acted on: versions/... was a path
			// relative to a repository the user may not be in, or a
			// bucket's (TestCheckHintNamesObject).
			const what = "a published catalog is not equivalent to its version's frozen catalog (or cannot be read, or holds another format than its name): "
			const after = "see the report (--json) for every finding"
			// Neither removed nor backfilled through a site (removable).
			return what + "remove " + e.removable(e.First.Key) + " and run " + e.backfillAgain() + ", which writes it again; " + after
		}
		return "a published file differs from what its version says; see the report (--json) and restore or withdraw it"
	}
	return "see the report (--json) for every finding"
}

// deniedHint is the hint of a check that could not read some files
// because the store refused them to its credentials: they need access,
// not restoring.
func (e *CheckError) deniedHint() string {
	n := len(slices.Compact(slices.Sorted(slices.Values(e.Denied))))
	if e.site {
		return fmt.Sprintf("the web site denies %d file(s) to a reader without credentials (401 or 403; first: %s): they may be there and whole; serve them without authentication, as every reader fetches them; %s", n, e.Denied[0], restoreOnly)
	}
	return fmt.Sprintf("%d file(s) are not readable with these credentials (AccessDenied; first: %s): they may be there and whole; use credentials allowed s3:GetObject on every object under the prefix (docs/remote.md, Permissions); %s", n, e.Denied[0], restoreOnly)
}

// Check verifies a repository; docs/repository.md says what exit 0
// guarantees. It checks, in three parts:
//
//   - rules (from the plan): every frozen catalog, dataset.json and
//     files.json matches version.json, and the frozen catalog's headers
//     need no newer storage than catalog.storage says (storageClaim); no
//     dataset.json or files.json lies unnamed beside them; catalogs/ holds
//     only regular files catalogs/<declared format>.duckdb other than the
//     source's own format, no write-ahead log lies beside any catalog, no
//     catalog was written for a version created at or after its format's
//     until, and no declared format that can be written is missing;
//   - contents: the frozen catalog reads whole (every row of every table,
//     so every block holding data passes its checksum, and the file is as
//     long as its header says; once per run and kept in the digest cache
//     under its sha256 and the build: readWhole), is a DuckLake catalog (no view or other
//     object named like a DuckLake table: formats.CheckObjects), holds the
//     format ducklake.format says (formatClaim), its last snapshot is
//     ducklake.snapshot_id, ducklake.snapshots is the range it adds after
//     its parent, it holds no inlined rows nor rows naming a later snapshot
//     (bookkeepingIssues), files.json and dataset.json agree with it, and every
//     data and delete file it references has the size and footer size it
//     records;
//   - proofs: every published catalog is a DuckLake catalog, holds the
//     format its name says, no inlined rows and no rows naming a snapshot
//     after its last (compare.Options.BBookkeeping), and is equivalent to
//     its version's frozen catalog (compare, the full proof, reading both
//     files whole), both opened from private copies.
//
// The reader matrix (Readers) is evaluated last, with the formats the
// content pass found. Repository rules only the writer can fix are
// warnings. It returns the report and, unless everything is fine, a
// *CheckError. A request to a remote store that fails for the whole store
// mid-run (credentials expired or rotated, the bucket or the endpoint
// gone: store.IsWholeStore) stops it with a *StoppedError wrapping the
// store's error; where it stopped after the plan, with the report of what
// the content passes and proofs that finished before the stop found
// (Stopped says what was not checked; never ok), else with none. A pass
// or proof the stop cut short reports nothing: what it could not read is
// no finding.
func Check(ctx context.Context, st store.Store, opts Options) (*CheckReport, error) {
	var partial *CheckReport // of a run stopped part-way
	rep, err := runWatched(ctx, "check", opts, false, func(ctx context.Context, opts Options, failures *storeFailures) (*CheckReport, error) {
		rep, err := check(ctx, st, opts)
		var ce *CheckError
		if errors.As(err, &ce) {
			ce.Denied, ce.site = failures.deniedKeys(), store.IsReadOnly(st)
			ce.remove = func(key string) string { return removable(st, key) }
			ce.backfill = backfillAgain(st)
		}
		if rep != nil && rep.Stopped != nil {
			partial = rep
		}
		return rep, err
	})
	var se *StoppedError
	if partial != nil && errors.As(err, &se) {
		se.Found, se.OnlyReaders = partial.Counts, partial.Stopped.onlyReaders()
		return partial, err
	}
	return rep, err
}

func check(ctx context.Context, st store.Store, opts Options) (*CheckReport, error) {
	r, err := load(ctx, st, &opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if err := ownDataFolder(r.paths, r.cfg, opts.DataPath); err != nil {
		return nil, err
	}
	r.keepJSON = true // the content pass compares them
	m, err := r.plan(ctx, &opts, true)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		// Stopped while planning: versions may read "in error" for the
		// stop, so no finding of the plan is reported.
		return nil, err
	}
	rep := &CheckReport{FormatVersion: 1, Plan: m, Proofs: []*Proof{}, SelfReads: []*SelfRead{}, Findings: []Finding{}, Counts: map[Kind]int{}}
	defer func() { rep.Transfer = r.transfer() }()
	rep.add(ruleFindings(m)...)
	if len(r.versions) == 0 {
		rep.add(emptyFinding(r.st, opts.AllowEmpty))
	}
	work, err := scratch.MkdirTemp(opts.workDir(), checkWorkPrefix)
	if err != nil {
		return nil, fmt.Errorf("create work folder: %w", err)
	}
	defer os.RemoveAll(work)
	r.bound(work)
	disk := compare.NewDiskCheck() // each data file is checked once per run
	done, err := r.checkAll(ctx, m, work, disk, &opts)
	stop := opts.failures.cause()
	if err != nil && stop == nil {
		return nil, err // interrupted
	}
	rep.add(done.contents...)
	rep.Proofs = append(rep.Proofs, done.proofs...)
	rep.SelfReads = append(rep.SelfReads, done.selfReads...)
	rep.add(done.findings...)
	rep.frozenBlocksBackfill()
	if r.remote != nil {
		if w := r.remote.tailWarning(); w != "" {
			rep.add(Finding{Kind: KindWarning, Detail: w})
		}
	}
	if stop == nil {
		// After the content pass, which found each frozen catalog's real
		// format. It reads each published catalog's header (from the
		// store where the run holds no copy of it: catalogHeader): a
		// whole-store failure there stops the run as anywhere else, after
		// every pass and proof finished (such a stop dropped their report).
		if err := r.addReaders(ctx, rep, &opts); err != nil {
			if stop = opts.failures.cause(); stop == nil {
				return nil, err
			}
		}
	}
	if stop != nil {
		// A whole-store failure stopped the run part-way: what the passes
		// and proofs that finished before it found stands (they read what
		// they needed), the rest was not checked, and the reader matrix,
		// which needs every version's content pass and reads the catalogs'
		// headers, is not evaluated. The report goes with the stop
		// (Check): not ok, whatever was found, also when only the reader
		// matrix was left (it finds differences of its own).
		rep.Readers = []*ReaderRange{}
		rep.Stopped = &StoppedCheck{Reason: stop.Error(), VersionsNotChecked: nonNil(done.unchecked), CatalogsNotProved: nonNil(done.unproved)}
		r.nameReport(rep)
		return rep, ctx.Err()
	}
	r.nameReport(rep)
	return rep, rep.result()
}

// onlyReaders says that a check stopped after every content pass and
// proof finished: only the reader matrix was not evaluated.
func (s *StoppedCheck) onlyReaders() bool {
	return len(s.VersionsNotChecked) == 0 && len(s.CatalogsNotProved) == 0
}

// nonNil is s, or an empty list for none: a report's lists are [], never
// null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// nameReport rewrites the run's local copies in every message of rep to
// the repository files they stand for (pathNames).
func (r *repository) nameReport(rep *CheckReport) {
	for i := range rep.Findings {
		f := &rep.Findings[i]
		f.Detail = quoteControlKey(f.Key, r.names.name(f.Detail))
	}
	for _, p := range rep.Proofs {
		p.Error = r.names.name(p.Error)
	}
	r.nameMatrix(rep.Plan)
}

// quoteControlKey quotes key (Go syntax) wherever detail names it, when
// the key holds a control character: a file named "x\ncheck: ok: ..." in a
// repository cut its finding's line short and printed a line of the
// publisher's choosing after it (a forged "check: ok").
func quoteControlKey(key, detail string) string {
	if !strings.ContainsFunc(key, unicode.IsControl) {
		return detail
	}
	return strings.ReplaceAll(detail, key, strconv.Quote(key))
}

// nameMatrix does the same for a plan's messages.
func (r *repository) nameMatrix(m *Matrix) {
	if m == nil {
		return
	}
	for _, vp := range m.Versions {
		vp.Error = r.names.name(vp.Error)
		for i := range vp.Issues {
			vp.Issues[i].Detail = r.names.name(vp.Issues[i].Detail)
		}
		for _, c := range vp.Cells {
			for i := range c.Reasons {
				c.Reasons[i] = r.names.name(c.Reasons[i])
			}
		}
	}
}

// emptyFinding is the finding of a repository with no version at all:
// nothing was checked. It fails the check (unverifiable) unless allowed:
// the FDL specification has no file that declares how many versions a
// repository has, so an empty versions/ looks the same as a wrong prefix
// or a listing that hides them, and exit 0 must not mean "proved nothing".
func emptyFinding(st store.Store, allowed bool) Finding {
	f := Finding{Kind: KindUnverifiable, Key: VersionsDir,
		Detail: "no version found under " + VersionsDir + " of " + storeName(st) + ": nothing was checked"}
	if allowed {
		f.Kind, f.Detail = KindWarning, f.Detail+" (allowed by --allow-empty)"
	}
	return f
}

// storeName names a store for a message: its location, or its type.
func storeName(st store.Store) string {
	if c, ok := st.(*store.Counter); ok {
		st = c.Unwrap()
	}
	if l, ok := st.(store.Location); ok {
		return l.Location()
	}
	if p, ok := st.(store.PathStore); ok {
		if f, err := p.Path(FDLKey); err == nil {
			return filepath.Dir(f)
		}
	}
	return "the repository"
}

func (rep *CheckReport) add(fs ...Finding) {
	for _, f := range fs {
		rep.Findings = append(rep.Findings, f)
		rep.Counts[f.Kind]++
	}
}

// result is nil when nothing but warnings was found, else a *CheckError
// naming the most serious finding.
func (rep *CheckReport) result() error {
	var first *Finding
	for i, f := range rep.Findings {
		if f.Kind != KindWarning && (first == nil || kindRank(f.Kind) < kindRank(first.Kind)) {
			first = &rep.Findings[i]
		}
	}
	if first == nil {
		rep.OK = true
		return nil
	}
	return &CheckError{Counts: rep.Counts, First: *first}
}

// frozenBlocksBackfill says, in each missing cell's finding of a version
// whose frozen catalog itself disagrees with its data files, that
// `backfill` cannot write it: every conversion carries the fault, so its
// proof fails (the cell stays missing, and exit 5's "run backfill" would
// never help).
func (rep *CheckReport) frozenBlocksBackfill() {
	bad := map[string]bool{}
	for _, f := range rep.Findings {
		if f.frozenDiffers {
			bad[f.Version] = true
		}
	}
	for i := range rep.Findings {
		if f := &rep.Findings[i]; f.Kind == KindMissing && bad[f.Version] {
			f.Detail += "; `fdl-formats backfill` cannot write it while the version's frozen catalog disagrees with its data files (see that difference): its proof fails on the frozen catalog's side"
		}
	}
}

// FailedCheckReport is the report of a check that could not start: the
// repository's fdl.json is missing or invalid (err matches
// ErrNotRepository or fdljson.ErrInvalid), or a web server gives no usable
// listing of its folders (store.ErrNoListing). It has the top-level shape
// of every report (no plan, no proof) and one finding naming the file and
// the error, of the kind whose exit code the error has (invalid: 6,
// unverifiable: 4), so that `check --json`'s output says what to fix. It
// returns nil for any other error (see RunFailedCheckReport).
func FailedCheckReport(err error) *CheckReport {
	f := Finding{Kind: KindInvalid, Key: FDLKey, Detail: err.Error()}
	var fe *fdljson.Error
	switch {
	case errors.As(err, &fe):
		f.Key = fe.File
	case errors.Is(err, ErrNotRepository), errors.Is(err, fdljson.ErrInvalid):
	case errors.Is(err, store.ErrNoListing):
		f.Kind, f.Key = KindUnverifiable, VersionsDir
	default:
		return nil
	}
	rep := emptyCheckReport()
	rep.add(f)
	return rep
}

// RunFailedCheckReport is the report of a check that stopped on a
// failure no finding describes (a TLS error, a server's 500, a download
// failing, an interrupt): the top-level shape of every report, not ok, no
// plan, no finding. The command sets Error and ExitCode.
func RunFailedCheckReport() *CheckReport { return emptyCheckReport() }

func emptyCheckReport() *CheckReport {
	return &CheckReport{FormatVersion: 1, Proofs: []*Proof{}, SelfReads: []*SelfRead{}, Findings: []Finding{}, Counts: map[Kind]int{}, Readers: []*ReaderRange{}}
}
