package repo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// State is what a cell of the matrix holds or needs.
type State string

const (
	// Source: the frozen catalog is already in that format.
	Source State = "source"
	// Present: catalogs/<format>.duckdb exists.
	Present State = "present"
	// Missing: the catalog can be written and is not there yet.
	Missing State = "missing"
	// Refused: the version uses what the format cannot express.
	Refused State = "refused"
	// Expired: the format's until has passed, or the version was created at
	// or after it; the format is no longer written.
	Expired State = "expired"
	// Skipped: the version is expired or withdrawn (expired.json).
	Skipped State = "skipped"
	// Error: a file is unreadable or does not match version.json.
	Error State = "error"
)

// States lists every state in the order reports show them.
var States = []State{Source, Present, Missing, Refused, Expired, Skipped, Error}

// Cell is one version x format of the matrix.
type Cell struct {
	Version  string `json:"version"`
	Seq      int64  `json:"seq,omitempty"`
	Format   string `json:"format"`
	Declared bool   `json:"declared"`
	State    State  `json:"state"`
	// Key is the catalog file: present, or to be written.
	Key      string            `json:"key,omitempty"`
	Reasons  []string          `json:"reasons,omitempty"`
	Problem  Problem           `json:"problem,omitempty"`
	Findings []convert.Finding `json:"findings,omitempty"`
	// Violation says why a present catalog breaks a rule (written for a
	// version created at or after the format's until, or in a format
	// fdl.json does not declare).
	Violation string `json:"violation,omitempty"`

	source string // key of the frozen catalog
	target *formats.Version
	cause  error // the error Reasons say, if any (serverHint)
}

// VersionPlan is one row of the matrix.
type VersionPlan struct {
	ID        string    `json:"id"`
	Seq       int64     `json:"seq,omitempty"`
	Parent    string    `json:"parent,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	// Format is the frozen catalog's DuckLake format.
	Format  string `json:"format,omitempty"`
	Catalog string `json:"catalog,omitempty"`
	// Skipped is expired.json's reason ("expired", "withdrawn").
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
	// Issues are the version's problems other than its catalogs: with
	// dataset.json or files.json, its parents, seq and history, or a
	// listing or probe of the folder that failed. They do not stop the
	// catalogs from being written.
	Issues []Issue `json:"issues,omitempty"`
	// Notes say what could not be checked and fails nothing (a seq whose
	// parent's version.json a withdrawal deleted).
	Notes []string `json:"notes,omitempty"`
	// Violations are entries of the version folder that break the rules
	// (see Violation); catalogs of undeclared formats are cells instead.
	Violations []Violation `json:"violations,omitempty"`
	Cells      []*Cell     `json:"cells"`

	v     *version
	cause error // the error Error says, if any (serverHint)
	// filesTrusted: dataset.json and files.json match version.json and
	// parse, and catalogs/ was listed; the content pass then compares them
	// with the catalog.
	filesTrusted bool
}

// FormatPlan is one declared format as of the plan's time.
type FormatPlan struct {
	DuckLake string `json:"ducklake"`
	DuckDB   string `json:"duckdb"`
	Until    string `json:"until,omitempty"`
	// Expired: until has passed as of now.
	Expired bool `json:"expired"`
	// DaysLeft is the number of whole days until it expires (nil: never).
	DaysLeft *int `json:"days_left,omitempty"`
}

// Rule is the result of a repository-level rule for one version.
type Rule struct {
	Rule    string `json:"rule"`
	Version string `json:"version,omitempty"`
	Format  string `json:"format,omitempty"`
	Status  string `json:"status"` // "ok", "violated", "unknown"
	Detail  string `json:"detail,omitempty"`
}

// RuleOldestFormat is "data files must be readable by the oldest declared format".
const RuleOldestFormat = "data-files-readable-by-oldest-format"

// ShardSelection is a run's --shard K/N and the versions selected
// (--versions, else all) before the split.
type ShardSelection struct {
	K        int `json:"k"`
	N        int `json:"n"`
	Selected int `json:"selected"`
}

// Matrix is the version x declared-format matrix of a repository (what
// Plan returns).
type Matrix struct {
	FormatVersion int            `json:"format_version"`
	Now           time.Time      `json:"now"`
	DataDir       string         `json:"data_dir"`
	Formats       []FormatPlan   `json:"formats"`
	Versions      []*VersionPlan `json:"versions"`
	Rules         []Rule         `json:"rules"`
	Warnings      []string       `json:"warnings"`
	Counts        map[State]int  `json:"counts"`
	// Violations are entries of the repository's root that break the
	// rules (rootViolations: a Versions/ beside versions/).
	Violations []Violation `json:"violations,omitempty"`
	// Transfer is what Plan downloaded (remote stores only; Backfill and
	// Check report theirs beside the plan).
	Transfer *Transfer `json:"transfer,omitempty"`
	// Shard is the run's --shard K/N (N > 1), with the number of versions
	// selected before the split: Versions are this shard's. A shard's
	// report said nothing of it, its "reads all 6 versions" and "check:
	// ok" reading like the whole repository's.
	Shard *ShardSelection `json:"shard,omitempty"`

	repo     *repository
	declared []fdljson.Format
	// otherShards are the versions the run selects (--versions) that
	// another shard of its --shard holds: that shard's run checks them.
	otherShards map[string]bool
	// warningKeys are the keys the Warnings at those indexes name (check
	// gives them to its findings).
	warningKeys map[int]string
	// warningAlike marks the Warnings at those indexes that repeat per
	// version (check gives it to its findings).
	warningAlike map[int]alike
}

// warn adds a warning about the file or folder key, for plan, backfill
// and check alike (check's findings keep the key).
func (p *Matrix) warn(key, detail string) {
	if p.warningKeys == nil {
		p.warningKeys = map[int]string{}
	}
	p.warningKeys[len(p.Warnings)] = key
	p.Warnings = append(p.Warnings, detail)
}

// warnVersion adds a warning about version id that other versions may get
// in the same words but their id and times: those of one group are
// printed once, and counted, in text output (WarningGroups).
func (p *Matrix) warnVersion(key, detail, group, id string) {
	p.warnAlike(key, detail, alike{group: group, version: id})
}

// warnAlike adds a warning about key that others may get in the same
// words but what a names (WarningGroups).
func (p *Matrix) warnAlike(key, detail string, a alike) {
	if p.warningAlike == nil {
		p.warningAlike = map[int]alike{}
	}
	p.warningAlike[len(p.Warnings)] = a
	p.warn(key, detail)
}

// ExpiryWarning is how long before a format's until Plan starts warning.
const ExpiryWarning = 30 * 24 * time.Hour

// Cells lists every cell, row by row.
func (p *Matrix) Cells() []*Cell {
	var out []*Cell
	for _, v := range p.Versions {
		out = append(out, v.Cells...)
	}
	return out
}

// Cell finds a cell by version ID and format, or nil.
func (p *Matrix) Cell(id, format string) *Cell {
	for _, v := range p.Versions {
		if v.ID != id {
			continue
		}
		for _, c := range v.Cells {
			if c.Format == format {
				return c
			}
		}
	}
	return nil
}

// Plan reads a repository and builds its matrix. Nothing is written. It
// returns an error only when the repository itself cannot be read (no or an
// invalid fdl.json, a bad filter), or when a request to a remote store
// fails for the whole store mid-run (a *StoppedError: credentials expired,
// the bucket or endpoint gone; every version read "in error" for it);
// problems of single versions are cells in state Error.
func Plan(ctx context.Context, st store.Store, opts Options) (*Matrix, error) {
	return runWatched(ctx, "plan", opts, false, func(ctx context.Context, opts Options, _ *storeFailures) (*Matrix, error) {
		return plan(ctx, st, opts)
	})
}

func plan(ctx context.Context, st store.Store, opts Options) (*Matrix, error) {
	r, err := load(ctx, st, &opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	m, err := r.plan(ctx, &opts, true)
	if err != nil {
		return nil, err
	}
	r.nameMatrix(m)
	m.Transfer = r.transfer()
	return m, nil
}

// plan builds the matrix. With check, every missing cell is checked with
// convert.Check (refused, or in error when its source cannot be converted);
// without, missing cells stay unchecked, for a Backfill that converts them
// anyway and classifies each conversion the same way (settleConversion),
// then counts the matrix again (tally).
func (r *repository) plan(ctx context.Context, opts *Options, check bool) (*Matrix, error) {
	now := opts.now()
	log := opts.log()
	declared, err := selectFormats(r.cfg, opts.Formats)
	if err != nil {
		return nil, err
	}
	versions, err := selectVersions(r.versions, opts.Versions)
	if err != nil {
		return nil, err
	}
	selected := len(versions)
	otherShards := map[string]bool{}
	for _, v := range versions {
		if opts.Shard.N > 1 && !opts.Shard.holds(v.id) {
			otherShards[v.id] = true
		}
	}
	versions = selectShard(versions, opts.Shard)
	p := &Matrix{FormatVersion: 1, Now: now, DataDir: r.cfg.DataDir, Versions: []*VersionPlan{}, Warnings: []string{}, Rules: []Rule{}, Counts: map[State]int{}, repo: r, declared: declared, otherShards: otherShards}
	if opts.Shard.N > 1 {
		p.Shard = &ShardSelection{K: opts.Shard.K, N: opts.Shard.N, Selected: selected}
	}
	if len(versions) == 0 && selected > 0 {
		// An empty shard is fine in a matrix (the other shards take the
		// versions), but its "0 versions" and "check: ok" read like a
		// repository or filter without versions.
		p.Warnings = append(p.Warnings, fmt.Sprintf("shard %d/%d holds none of the selected versions (%d): this run looks at no version (the other shards do)", opts.Shard.K, opts.Shard.N, selected))
	}
	for _, f := range r.cfg.Sorted() {
		fp := FormatPlan{DuckLake: f.DuckLake, DuckDB: f.DuckDB, Until: f.Until, Expired: f.ExpiredAt(now)}
		if f.HasUntil() {
			days := wholeDays(now, f.UntilTime)
			fp.DaysLeft = &days
			if !fp.Expired && f.UntilTime.Sub(now) <= ExpiryWarning {
				w := fmt.Sprintf("format %s expires on %s (%s): no catalog in it will be written after that, for any version (a version still without one stays without)", f.DuckLake, f.Until, inDays(days))
				p.Warnings = append(p.Warnings, w)
				log.Warn("format expires soon", "format", f.DuckLake, "until", f.Until, "days_left", days)
			}
		}
		p.Formats = append(p.Formats, fp)
	}
	work, err := scratch.MkdirTemp(opts.workDir(), planWorkPrefix)
	if err != nil {
		return nil, fmt.Errorf("create work folder: %w", err)
	}
	defer os.RemoveAll(work)
	r.bound(work)

	// Empty version folders are no version, but a publisher hears of them
	// from every command, not from check alone (before, plan and backfill
	// dropped them without a word).
	partial := store.ListsPartially(r.st)
	// Printed once per kind, then counted: 40 folders of uploads never
	// finished gave 40 paragraphs alike.
	for _, id := range r.emptyFolders {
		key, detail := emptyFolderWarning(id, partial)
		group := alikeEmptyFolder
		if !fdljson.IsVersionID(id) {
			group = alikeEmptyOtherFolder
		}
		p.warnAlike(key, detail, alike{group: group, version: id, folder: true})
	}
	for _, name := range r.hiddenFolders {
		key, detail := hiddenFolderWarning(name)
		p.warnAlike(key, detail, alike{group: alikeHiddenFolder, version: name, folder: true})
	}
	if r.cfg.FDL != fdljson.SpecVersion {
		p.warn(FDLKey, fmt.Sprintf("fdl.json is written for FDL %s; this tool checks FDL %s's rules only", r.cfg.FDL, fdljson.SpecVersion))
	}
	p.Violations = r.rootViolations()
	var checks []*Cell
	for _, vp := range r.planVersions(ctx, versions, declared, now) {
		p.Versions = append(p.Versions, vp)
		for _, c := range vp.Cells {
			if c.State == Missing {
				checks = append(checks, c)
			}
		}
	}
	// After the versions were planned: whether any names a data file is
	// known from the files.json each read (needsNoData).
	if w := r.missingDataWarning(ctx, opts); w != "" {
		p.warn(strings.TrimSuffix(r.cfg.DataDir, "/"), w)
	}
	if w := r.dataFolderWarning(); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	for _, l := range r.layoutLinks(versions) {
		if l.version == "" {
			p.warn(l.key, r.layoutLinkWarning(l))
		} else {
			p.warnVersion(l.key, r.layoutLinkWarning(l), alikeLinkedOut, l.version)
		}
	}
	if w := r.hiveFolderWarning(declared); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	for _, v := range versions {
		if v.meta != nil && v.meta.FDL != fdljson.SpecVersion {
			p.warnVersion(v.prefix()+"version.json", fmt.Sprintf("version %s: version.json is written for FDL %s; this tool checks FDL %s's rules only", v.id, v.meta.FDL, fdljson.SpecVersion), alikeVersionFDL+v.meta.FDL, v.id)
		}
		if v.meta != nil && v.expired == nil {
			if w, group := createdGapWarning(v); w != "" {
				p.warnVersion(v.prefix()+"version.json", w, group, v.id)
			}
		}
	}
	// A missing cell is refused if the converter cannot express the catalog
	// in its format; find out without writing anything.
	if check {
		detected, err := r.checkCells(ctx, checks, work, opts)
		if err != nil {
			return nil, err
		}
		// A version whose frozen catalog is not in the format version.json
		// says gets no cell planned from that claim.
		for _, vp := range p.Versions {
			if d, ok := detected[vp.ID]; ok {
				vp.v.detected = d
				if err := formatClaim(vp.v.prefix()+vp.v.meta.Catalog.Path, vp.v, d); err != nil {
					refuseVersion(vp, ProblemMismatch, err)
				}
			}
		}
	}
	r.tally(p)
	return p, nil
}

// tally counts the matrix's cells by state and evaluates the rules that
// depend on them (again, after a Backfill settled its unchecked cells).
func (r *repository) tally(p *Matrix) {
	p.Counts, p.Rules = map[State]int{}, []Rule{}
	for _, vp := range p.Versions {
		for _, c := range vp.Cells {
			p.Counts[c.State]++
		}
		p.Rules = append(p.Rules, r.oldestFormatRule(vp, p.declared)...)
	}
}

// planVersions plans each version, probeJobs at a time: one at a time, a
// web site's or bucket's repository cost about seven round trips per
// version (200 versions 20 ms away: about a minute). Each plan reads and
// sets its own version only; the other versions' version.json, which the
// parents and seq checks read, were all read before (read). The plans come
// back in the versions' order, so the matrix, its notes and warnings read
// the same whichever answer came first. A run stopped mid-way (a
// whole-store failure cancels ctx, storeFailures) still plans every
// version, each failing at once, as one at a time did: runWatched replaces
// the matrix with the stop.
func (r *repository) planVersions(ctx context.Context, versions []*version, declared []fdljson.Format, now time.Time) []*VersionPlan {
	plans := make([]*VersionPlan, len(versions))
	var g errgroup.Group
	g.SetLimit(probeJobs)
	for i, v := range versions {
		g.Go(func() error {
			plans[i] = r.planVersion(ctx, v, declared, now)
			return nil
		})
	}
	_ = g.Wait() // no plan returns an error: each version's is in its plan
	return plans
}

func (r *repository) planVersion(ctx context.Context, v *version, declared []fdljson.Format, now time.Time) *VersionPlan {
	vp := &VersionPlan{ID: v.id, Cells: []*Cell{}, v: v}
	// The reads of the frozen catalog, dataset.json and files.json go out
	// now, beside the probes below, not each after the other.
	looked := r.lookAhead(ctx, v)
	defer looked()
	if v.meta != nil {
		vp.Seq, vp.Parent, vp.CreatedAt = v.meta.Seq, v.meta.Parent(), v.meta.CreatedAt
		vp.Format, vp.Catalog = v.meta.DuckLake.Format, v.prefix()+v.meta.Catalog.Path
	}
	entries, err := r.catalogEntries(v)
	var catalogsFile []Violation
	switch {
	case errors.Is(err, errCatalogsFile):
		catalogsFile = []Violation{{v.prefix() + "catalogs", err.Error()}}
	case err != nil:
		vp.Issues = append(vp.Issues, Issue{Problem: ProblemUnreadable, Detail: err.Error(), cause: err})
	}
	v.hidden = r.findHidden(ctx, v, entries)
	hidden, infos, hiddenErr := r.hiddenCatalogs(ctx, v, declared)
	entries, hidden, vp.Notes = r.adoptHidden(v, entries, hidden, infos, declared)
	var walIssues []Issue
	vp.Violations, walIssues = r.folderViolations(ctx, v, entries)
	vp.Violations = append(vp.Violations, catalogsFile...)
	vp.Issues = append(vp.Issues, walIssues...)
	vp.Notes = append(vp.Notes, litterNotes(v, entries)...)
	names, notes := r.versionFolderFindings(v, r.versionEntries(v), v.hidden, vp.Violations)
	vp.Violations, vp.Notes = append(vp.Violations, names...), append(vp.Notes, notes...)
	if v.meta != nil && v.meta.Catalog.Path != fallbackCatalog {
		// FDL 0.1 (Versions, "Catalogs in other formats"): a reader that
		// opens none of catalogs/ falls back to ducklake.duckdb by name.
		vp.Notes = append(vp.Notes, fmt.Sprintf("version.json's catalog.path is %s, not %s: readers that open none of catalogs/ fall back to %s by name (FDL 0.1, Versions) and find no catalog", v.meta.Catalog.Path, fallbackCatalog, fallbackCatalog))
	}
	if v.expired != nil {
		// Every catalog left is one violation, which the folder's rules
		// (a .wal, a stray DuckDB file) would name again.
		left := r.leftCatalogs(v, entries, hidden, declared)
		vp.Violations = append(left, slices.DeleteFunc(vp.Violations, func(x Violation) bool {
			return slices.ContainsFunc(left, func(l Violation) bool { return l.Key == x.Key })
		})...)
	} else {
		vp.Violations = append(vp.Violations, hiddenViolations(v, hidden)...)
	}
	byName := map[string]catalogEntry{}
	// Catalogs of undeclared formats are shown too (each a violation).
	formatsShown := slices.Clone(declared)
	for _, e := range entries {
		byName[e.name] = e
		name, ok := strings.CutSuffix(e.name, ".duckdb")
		if _, read := v.hidden["catalogs/"+e.name]; read {
			continue // no format's name starts with a dot (folderViolations)
		}
		if _, declared := r.cfg.Format(name); ok && !declared && e.kind == entryFile {
			formatsShown = append(formatsShown, fdljson.Format{DuckLake: name})
		}
	}
	problem, verr := v.problem, v.err
	if v.expired != nil {
		vp.Skipped = v.expired.Reason
	} else if verr == nil {
		looked()
		problem, verr = r.verifyRef(ctx, v, v.meta.Catalog.FileRef)
		if verr == nil {
			problem, verr = storageClaim(v)
		}
		fileIssues := r.versionIssues(ctx, v)
		vp.filesTrusted = len(vp.Issues) == 0 && len(fileIssues) == 0
		vp.Issues = append(vp.Issues, fileIssues...)
	}
	if hiddenErr != nil {
		vp.Issues = append(vp.Issues, Issue{Problem: ProblemUnreadable, Detail: hiddenErr.Error(), cause: hiddenErr})
	}
	vp.Issues = append(vp.Issues, v.probeIssues()...)
	if v.expired == nil && v.err == nil {
		parents, notes := r.parentIssues(ctx, v)
		vp.Issues, vp.Notes = append(vp.Issues, parents...), append(vp.Notes, notes...)
	}
	if verr != nil {
		vp.Error, vp.cause = verr.Error(), verr
	}
	for _, f := range formatsShown {
		c := &Cell{Version: v.id, Seq: vp.Seq, Format: f.DuckLake, Declared: f.Version != nil, target: f.Version}
		if v.meta != nil {
			c.source = vp.Catalog
		}
		key := CatalogKey(v.id, f.DuckLake)
		entry, exists := byName[f.DuckLake+".duckdb"]
		present := exists && entry.kind == entryFile
		switch {
		case v.expired != nil:
			c.State = Skipped
			c.Reasons = []string{fmt.Sprintf("version %s (expired.json)", v.expired.Reason)}
		case verr != nil:
			c.State, c.Problem, c.Reasons, c.cause = Error, problem, []string{verr.Error()}, verr
		case f.DuckLake == v.meta.DuckLake.Format:
			c.State, c.Key = Source, vp.Catalog
		case exists && !present:
			// Not "already there": nothing a reader can open is, and
			// backfill cannot replace it.
			c.State, c.Key, c.Problem = Error, key, ProblemViolation
			c.Reasons = []string{fmt.Sprintf("%s is a %s, not a catalog file; remove %s (backfill then writes the catalog)", key, entry.kind, removable(r.st, key))}
		case present:
			c.State, c.Key = Present, key
			if !c.Declared {
				c.Reasons = []string{"format not declared in fdl.json"}
				c.Violation = fmt.Sprintf("format %s is not declared in fdl.json, yet its readers would open %s; remove %s or declare the format", f.DuckLake, key, removable(r.st, key))
			}
			if c.Declared && createdPast(f, v.meta) {
				// Say what mends it: the finding alone left the
				// operator to guess which of the two was wrong.
				c.Violation = fmt.Sprintf("written for a version created %s, at or after the format's until %s (a format past its until is not written for newer versions): remove %s, or, if until is too early, set it after %s in fdl.json", createdText(v.meta), f.Until, removable(r.st, key), v.meta.Created().Format(time.RFC3339Nano))
			}
		case f.ExpiredFor(v.meta.Created(), now):
			c.State = Expired
			if createdPast(f, v.meta) {
				c.Reasons = []string{fmt.Sprintf("version created %s, at or after until %s", createdText(v.meta), f.Until)}
			} else {
				c.Reasons = []string{fmt.Sprintf("until %s has passed (as of %s)", f.Until, now.Format(time.RFC3339))}
			}
		default:
			c.State, c.Key = Missing, key
		}
		vp.Cells = append(vp.Cells, c)
	}
	return vp
}

// CreatedAtTolerance is how far a version.json's created_at may lie from
// the time its UUIDv7 id carries before plan, backfill and check warn. The
// two are made by different steps, and often tools (the id when the
// version's folder is made, created_at when version.json is written, after
// a freeze and upload that may take hours), on clocks that may be some
// minutes off or set to a local zone by mistake (up to 14 hours); a day is
// beyond all of these, and still catches a created_at that is the data's
// date or a clock years off. Whatever the gap, the until rule takes the
// later of the two (createdPast).
const CreatedAtTolerance = 24 * time.Hour

// createdPast reports whether a version was created at or after a format's
// until: by the later of its created_at and its id's time
// (fdljson.Version.Created), so that a created_at set back cannot get a
// catalog past until written or certified. It is the one test of the until
// rule against a version's creation: the expired cells, the catalogs
// present past until (a violation) and the oldest-format rule read it.
func createdPast(f fdljson.Format, meta *fdljson.Version) bool {
	return f.HasUntil() && !meta.Created().Before(f.UntilTime)
}

// createdText says when a version was created, for a finding about until:
// the time the rule took (Created), so the finding and its advice ("set it
// after ...") name the same time: created_at, or the time its id carries
// when that is later, naming created_at beside it.
func createdText(meta *fdljson.Version) string {
	if meta.IDTime.After(meta.CreatedAt) {
		return fmt.Sprintf("%s (the time in its id; its created_at says %s)", meta.IDTime.Format(time.RFC3339Nano), meta.CreatedAt.Format(time.RFC3339Nano))
	}
	return meta.CreatedAt.Format(time.RFC3339Nano)
}

// createdGapWarning warns of a version whose created_at and id's time are
// more than CreatedAtTolerance apart, naming both times and the gap ("" when
// they agree), and its group of warnings alike (which of the two is later).
func createdGapWarning(v *version) (warning, group string) {
	m := v.meta
	earlier, later := m.CreatedAt, m.IDTime
	side := "before"
	if later.Before(earlier) {
		earlier, later, side = later, earlier, "after"
	}
	gap := later.Sub(earlier)
	if gap <= CreatedAtTolerance {
		return "", ""
	}
	span := fmt.Sprintf("%d days", wholeDays(earlier, later))
	if gap < 2*24*time.Hour {
		span = gap.Round(time.Second).String()
	}
	w := fmt.Sprintf("version %s: version.json's created_at %s is %s %s the time its id carries, %s (more than %d hours apart)", v.id, m.CreatedAt.Format(time.RFC3339Nano), span, side, m.IDTime.Format(time.RFC3339Nano), int(CreatedAtTolerance.Hours()))
	if side == "before" {
		return w + ": fdl.json's until rule takes the later, the id's; created_at should say when the version was made (not its data's date), as the id does", alikeCreatedBefore
	}
	return w + ": fdl.json's until rule takes the later, created_at; the id's time is set when the version is made (ids sort by creation time), so one of the two clocks was off", alikeCreatedAfter
}

// Issue is a problem with a file of a version other than its catalogs.
type Issue struct {
	Problem Problem `json:"problem"`
	Detail  string  `json:"detail"`

	cause error // the error Detail says, if any: its type gives check's hint (serverHint)
}

// versionIssues checks dataset.json and files.json against version.json.
func (r *repository) versionIssues(ctx context.Context, v *version) []Issue {
	var issues []Issue
	for _, ref := range []*fdljson.FileRef{v.meta.Dataset, v.meta.Files} {
		if ref == nil {
			continue
		}
		// Read once: the bytes hashed are the bytes parsed (and those
		// check's content pass compares, held).
		data, problem, err := r.readVerified(ctx, v, *ref)
		if err != nil {
			issues = append(issues, Issue{Problem: problem, Detail: err.Error(), cause: err})
			continue
		}
		if ref == v.meta.Dataset {
			_, err = fdljson.ParseDataset(v.prefix()+ref.Path, data)
		} else {
			var files *fdljson.Files
			files, err = fdljson.ParseFiles(v.prefix()+ref.Path, data)
			v.indexesNoData = err == nil && !listsDataFiles(files)
			if err == nil {
				v.indexed = r.indexedKeys(files)
			}
		}
		if err != nil {
			issues = append(issues, Issue{Problem: ProblemInvalid, Detail: err.Error(), cause: err})
		}
	}
	return issues
}

// listsDataFiles reports whether a files.json lists any data file.
func listsDataFiles(f *fdljson.Files) bool {
	for _, t := range f.Tables {
		if t != nil && len(t.Files) > 0 {
			return true
		}
	}
	return false
}

// checkCells runs convert.Check for each missing cell and turns refusals
// into Refused cells and unreadable sources into Error cells. A version's
// cells are checked in one pass over its frozen catalog (convert.Catalogs,
// every output a dry run), as a backfill converts them: the source is
// copied, listed, attached and its frozen checks run once for all its
// formats, not once per format (a plan of the conformance lakes, two or
// three missing formats a version, spent a quarter of its CPU preparing
// the same source again). Versions are checked jobs at a time. It returns
// the format each checked version's frozen catalog was detected in, by
// version ID.
func (r *repository) checkCells(ctx context.Context, cells []*Cell, work string, opts *Options) (map[string]string, error) {
	if r.remote != nil && r.remote.cacheDir != "" {
		// Each cell revalidates its version's cached data files and reads
		// the others' footers (a ranged read of each one's end) as its
		// check reaches them: read ahead, in the cells' order.
		sure, later := r.indexedFiles(cells)
		stop := r.remote.readAhead(ctx, sure, later)
		defer stop()
		for _, v := range r.versions {
			v.indexed = nil // taken
		}
	}
	// The cells by frozen catalog, in the order of each one's first cell.
	var groups [][]*Cell
	bySource := map[string]int{}
	for _, c := range cells {
		i, ok := bySource[c.source]
		if !ok {
			i = len(groups)
			bySource[c.source] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.jobs())
	var mu sync.Mutex
	detected := map[string]string{}
	for _, group := range groups {
		g.Go(func() error {
			first := group[0]
			src, problem, err := r.copyFrozen(gctx, r.find(first.Version), work)
			if err == nil {
				// The converter reads delete files to tell containers,
				// and merged data files' rows to split their snapshots.
				if err = r.ensureConversionData(gctx, src, first.source); err != nil {
					problem = dataProblem(err)
				}
			}
			if err != nil {
				if ctxErr := gctx.Err(); ctxErr != nil {
					return ctxErr
				}
				for _, c := range group {
					c.State, c.Key, c.Problem, c.Reasons, c.cause = Error, "", problem, []string{err.Error()}, err
				}
				return nil
			}
			copts := opts.Convert
			copts.Logger, copts.DataPath, copts.Engines = opts.log(), r.dataPath, r.convEngines
			copts.SourceFormat = r.find(first.Version).meta.DuckLake.Format
			copts.Readers = r.servedRanges()
			if r.remote != nil && r.remote.cacheDir != "" {
				// The mirror holds only some data files: the footer checks
				// read the others' footers by ranged reads.
				copts.Footers = r.remote
			}
			copts.Gate = r.convGate()
			outs := make([]convert.Output, len(group))
			for i, c := range group {
				outs[i] = convert.Output{Target: c.target} // no file: a dry run
			}
			got := convert.Catalogs(gctx, src, outs, copts)
			if err := gctx.Err(); err != nil {
				return err
			}
			for i, c := range group {
				if d := sourceFormat(got[i].Result, got[i].Err); d != "" {
					mu.Lock()
					detected[c.Version] = d
					mu.Unlock()
				}
				applyCheck(c, got[i].Result, got[i].Err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return detected, nil
}

// applyCheck records what convert.Check (or a conversion, which runs the
// same checks) said about a missing cell: refused with its reasons, in
// error when the source cannot be converted, else missing with its
// findings.
func applyCheck(c *Cell, res *convert.Result, err error) {
	var refused *convert.RefusedError
	switch {
	case errors.As(err, &refused):
		c.State, c.Key = Refused, ""
		c.Findings = refused.Findings
		for _, f := range refused.Findings {
			c.Reasons = append(c.Reasons, f.String())
		}
	case err != nil:
		c.State, c.Key, c.Problem = Error, "", ProblemUnreadable
		if errors.Is(err, convert.ErrNotCatalog) {
			c.Problem = ProblemInvalid
		}
		c.Reasons, c.cause = []string{err.Error()}, err
	default:
		c.Findings = res.Findings
	}
}

// dataFileCodes are the refusal codes that concern the data and delete
// files themselves (not only the catalog's bookkeeping): a format refused
// for one of these cannot read the version's files.
var dataFileCodes = []string{"deletion-vectors", "deletion-vector-containers", "partial-delete-files", "geometry", "name-mapped-files"}

// oldestFormatRule checks "data files must be written so that the oldest
// format declared in fdl.json can read them" for one version, against the
// oldest declared format that was not expired when the version was created.
func (r *repository) oldestFormatRule(vp *VersionPlan, declared []fdljson.Format) []Rule {
	if vp.v.meta == nil || vp.Skipped != "" || vp.Error != "" {
		return nil
	}
	oldest, ok := r.cfg.Oldest(func(f fdljson.Format) bool { return !createdPast(f, vp.v.meta) })
	if !ok {
		return nil
	}
	rule := Rule{Rule: RuleOldestFormat, Version: vp.ID, Format: oldest.DuckLake}
	var cell *Cell
	for _, c := range vp.Cells {
		if c.Format == oldest.DuckLake {
			cell = c
		}
	}
	switch {
	case cell == nil:
		rule.Status, rule.Detail = "unknown", "format filtered out"
	case cell.State == Refused:
		var codes []string
		for _, f := range cell.Findings {
			if slices.Contains(dataFileCodes, f.Code) && !slices.Contains(codes, f.Code) {
				codes = append(codes, f.Code)
			}
		}
		if len(codes) > 0 {
			rule.Status = "violated"
			rule.Detail = fmt.Sprintf("format %s cannot read this version's data files (%s)", oldest.DuckLake, strings.Join(codes, ", "))
		} else {
			rule.Status = "ok"
			rule.Detail = "the catalog is refused, but not because of its data files"
		}
	case cell.State == Expired:
		// The rule is judged against the format as it was when the version
		// was created; past its until the cell is no longer analysed.
		rule.Status, rule.Detail = "unknown", fmt.Sprintf("format %s is past its until (%s), so this version's cell in it is no longer analysed", oldest.DuckLake, oldest.Until)
	case cell.State == Error:
		rule.Status, rule.Detail = "unknown", fmt.Sprintf("cell is %s", cell.State)
	default:
		rule.Status = "ok"
	}
	return []Rule{rule}
}

// wholeDays is the number of whole days from from to to, truncated toward
// zero. time.Sub saturates about 292 years apart (a --now of year 1 said
// 106751 days left to 2026); past that, whole seconds tell the days.
// inDays says when something wholeDays ahead happens: "in 3 days", "in 1
// day", "in less than a day".
func inDays(days int) string {
	switch days {
	case 0:
		return "in less than a day"
	case 1:
		return "in 1 day"
	}
	return fmt.Sprintf("in %d days", days)
}

func wholeDays(from, to time.Time) int {
	if d := to.Sub(from); d > math.MinInt64 && d < math.MaxInt64 {
		return int(d / (24 * time.Hour))
	}
	return int((to.Unix() - from.Unix()) / (24 * 60 * 60))
}
