package convert

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	// DuckDB driver.
	_ "github.com/duckdb/duckdb-go/v2"
	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/datapath"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/durable"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/fileid"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
)

// LossyOptions are the per-feature options that let a conversion drop
// metadata the target cannot hold and that does not change any row.
var LossyOptions = []string{"commit-info", "expression-defaults", "extra-stats", "scoped-settings", "sort-hints", "table-stats", "view-column-comments"}

// Options tune a conversion. The zero value refuses everything lossy.
type Options struct {
	// Storage is the DuckDB storage version written (STORAGE_VERSION, e.g.
	// "v1.4.0"); empty means the target format's default (formats.Version.Storage).
	Storage string
	// AllowInlined converts a catalog that still holds inlined rows (not a
	// valid frozen FDL catalog); the inlined tables are converted too.
	AllowInlined bool
	// Lossy lists the LossyOptions to apply.
	Lossy []string
	// RewriteDeletes expresses delete files the target's readers cannot
	// read by writing, beside them in DataPath, the 2-column Parquet delete
	// files its writer would have written (the steps whose findings carry a
	// rewrite): each bare Puffin deletion vector for 0.4 and older
	// (rewriteDeletionVectors), each partial deletion file as a chain of
	// cumulative files for 0.3 and older (rewritePartialDeletes), or for 0.4
	// where its data file has inlined deletions (partialDeletesWithInlinedCheck),
	// and the merged files of a 0.1-0.3 source whose rows' snapshots
	// disagree with their split lists for 0.4 and newer
	// (rewriteMergedFiles). Nothing is written unless the conversion
	// succeeds; the names are deterministic, so a second run reuses them.
	RewriteDeletes bool
	// DataPath is the local folder the catalog's data_path stands for
	// (an FDL repository's data_dir); needed by RewriteDeletes.
	DataPath string
	// TempDir holds rewritten delete files until they are published. It
	// must be on DataPath's file system, where readers never look: outside
	// it, or its own .fdl-tmp (a repository's data folder linked onto
	// another disk, see store/local's StageDir); empty means ".fdl-tmp" beside DataPath (for a repository
	// whose data_dir is "data/", its store.TempDir). Each run uses its own
	// "convert-<owner>-*" folder there and removes it.
	TempDir string
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// NoSync leaves the written catalog and its folder to the operating
	// system instead of syncing them to disk (DuckDB's own checkpoint still
	// syncs the file's blocks), for a caller that copies the catalog
	// somewhere durable before anything relies on it: a backfill publishes
	// it through the repository's store, which syncs its own copy. Delete
	// files RewriteDeletes publishes are synced either way.
	NoSync bool
	// Engines, when set, lends the conversion a DuckDB database that an
	// earlier one left clean, and takes it back (see NewEngines); nil starts
	// one per conversion.
	Engines *Engines
	// Readers holds, by format name, the DuckDB version constraint of the
	// releases the format is served to (a repository's fdl.json range for
	// it), within the format's own (formats.Version.DuckDB): a data file
	// that only releases outside it fail on (formats.FooterQuirks) is not
	// refused for a target in that format. A format it does not name is
	// served to its whole range.
	Readers map[string]string
	// SourceFormat, when set, is the format the caller was told the source
	// is in (an FDL version.json's ducklake.format): a source detected in
	// another is refused with a *SourceFormatError as soon as its format is
	// known, before anything is converted or written.
	SourceFormat string
	// Footers, when set, gives the footer checks (field ids, footer quirks,
	// the struct-skip check's row groups) the footers of the data files the
	// data folder lacks: a remote repository's data folder is a cache that
	// holds only the copies earlier runs downloaded, and a check that
	// skipped the others gave a cold plan another verdict than a warm one.
	// Without it such files are skipped here, as missing ones are (the proof
	// reports them).
	Footers FooterSource
	// Gate, when set, is asked before a check or rewrite reads a data or
	// delete file under DataPath (ReadGate): a remote repository's copies
	// reused from a restored cache are held to the store's bytes only
	// then. A footer check takes a stand-in from Footers for a copy the
	// gate says is not ready.
	Gate ReadGate
	// MaxSpill bounds, in bytes, what each DuckDB database of the
	// conversion may spill (duckpool.Reach.MaxSpill); 0 means its Engines'
	// bound (Engines.SpillAtMost), else duckpool.MaxSpill.
	MaxSpill int64
	// faithful (tests only) skips the reader checks: the output carries
	// exactly the source's rows, even where the target's real reader reads
	// them differently (what the conformance set's expected-0.3-reader/
	// shows DuckLake 0.3 reading).
	faithful bool
}

// ScratchPrefix starts the name of a conversion's folder in Options.TempDir.
const ScratchPrefix = "convert-"

// tempDir is TempDir, or ".fdl-tmp" beside the data folder.
func (o Options) tempDir() string {
	if o.TempDir != "" {
		return o.TempDir
	}
	return filepath.Join(filepath.Dir(filepath.Clean(o.DataPath)), ".fdl-tmp")
}

// Result describes a conversion (or, from Check, what one would do).
type Result struct {
	Source   *formats.Version `json:"-"`
	Target   *formats.Version `json:"-"`
	From     string           `json:"from"`
	To       string           `json:"to"`
	Path     []string         `json:"path"` // formats walked
	Storage  string           `json:"storage"`
	Findings []Finding        `json:"findings"` // lossy and note findings (refusals come as *RefusedError)
}

// Catalog converts the catalog src into format target and writes it to dst.
// src is opened read-only and never changed. Nothing is written unless the
// whole conversion succeeds; dst is never replaced (ErrExists). Refusals
// return a *RefusedError listing every reason.
func Catalog(ctx context.Context, src, dst string, target *formats.Version, opts Options) (*Result, error) {
	out := Catalogs(ctx, src, []Output{{Target: target, Dst: dst}}, opts)[0]
	return out.Result, out.Err
}

// Output is one catalog Catalogs writes: the format, and the file. An
// Output without a file is a dry run, as Check is: converted in memory,
// nothing written (a plan checks a version's missing formats so).
type Output struct {
	Target *formats.Version
	Dst    string
	// Logger, when set, receives this output's logs in Options.Logger's
	// place (a backfill names each output's cell in its lines).
	Logger *slog.Logger
}

// Converted is what became of one Output: Catalog's result and error.
type Converted struct {
	Result *Result
	Err    error
}

// Catalogs converts the catalog src into each output's format, as Catalog
// would one at a time, in one pass (issue 9: a backfill writes each version
// in two formats): one DuckDB database, the source attached, listed, its
// format detected and its frozen checks run once for all outputs. Each
// output still gets a working copy of its own, copied in from the source
// (a conversion's steps change the working tables), its own steps,
// checks, refusals and file; one output's refusal or error leaves the
// others as they are. The answer has one Converted per output, in order.
func Catalogs(ctx context.Context, src string, outs []Output, opts Options) []Converted {
	res := make([]Converted, len(outs))
	var todo []int // outputs that can be tried
	for i, o := range outs {
		if _, err := os.Lstat(o.Dst); err == nil {
			res[i].Err = fmt.Errorf("convert %s: %w: %s", oneline.Name(src), ErrExists, o.Dst)
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return res
	}
	var dsts []string
	for _, i := range todo {
		dsts = append(dsts, outs[i].Dst)
	}
	p, closeDB, err := prepare(ctx, src, dsts, opts)
	if err != nil {
		for _, i := range todo {
			res[i].Err = err
		}
		return res
	}
	defer func() { closeDB() }()
	for n, i := range todo {
		if n > 0 && !p.reusable(ctx, res[todo[n-1]].Err) {
			// The database is not known clean after the last output (an
			// error, not a refusal, may have left a setting or a
			// transaction): the next starts over in a database of its own.
			closeDB()
			closeDB = func() {}
			if p, closeDB, err = prepare(ctx, src, dsts, opts); err != nil {
				closeDB = func() {}
				for _, j := range todo[n:] {
					res[j].Err = err
				}
				return res
			}
		}
		res[i].Result, res[i].Err = p.convert(ctx, outs[i].Dst, outs[i].Target, outs[i].Logger)
	}
	return res
}

// reusable tells whether the next output of the pass can be converted in
// the same database after the last one ended with err (nil or a refusal:
// everything it ran completed), and if so gives it a new, empty working
// database.
func (p *pass) reusable(ctx context.Context, err error) bool {
	var refused *RefusedError
	if err != nil && !errors.As(err, &refused) {
		return false
	}
	q := "USE memory; DETACH " + workDB + "; ATTACH ':memory:' AS " + workDB + "; USE " + workDB
	if _, err = p.conn.ExecContext(ctx, q); err != nil {
		return false
	}
	// What the last output's working copy and output freed goes back, as
	// when a database is given back between two conversions.
	duckpool.TrimHeap()
	return true
}

// Check runs the whole conversion in memory and reports its findings
// without writing anything.
func Check(ctx context.Context, src string, target *formats.Version, opts Options) (*Result, error) {
	p, closeDB, err := prepare(ctx, src, nil, opts)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	return p.convert(ctx, "", target, nil)
}

// pass is what the conversions of one source share (Catalogs): the
// working database's connection with the source attached, what was read
// of the source, and its frozen checks once run.
type pass struct {
	src    string
	opts   Options
	log    *slog.Logger
	conn   *sql.Conn
	schema string
	tables []table
	source *formats.Version
	// frozen holds the frozen checks' findings and error, once the first
	// conversion ran them: they read the source's rows as copied in,
	// before any step, the same for every output.
	frozen *frozenOutcome
	// srcDefaults holds the source's defaults check's findings, failures
	// and error once the first conversion ran it (sourceDefaults).
	srcDefaults *sourceDefaultsOutcome
	// before holds what the reader checks that run before any step found
	// of the working copy as copied in and of the data and delete files it
	// names, once an output asked: the same for every output of the pass.
	before beforeSteps
	// footers keeps what the pass's outputs read of data files' footers
	// for the next output: Options.Engines, or without them the pass's
	// own (footersOf).
	footers *Engines
	// stepChecks keeps what the steps' checks found for the next output
	// (stepCheckMemo).
	stepChecks stepCheckMemo
}

// footersOf is where a pass keeps what it read of data files' footers:
// engines, or without them a keeper of the pass's own, so that its
// outputs after the first read no footer the first read (a file changed
// since is read again: fileMemo).
func footersOf(engines *Engines) *Engines {
	if engines != nil {
		return engines
	}
	return &Engines{footers: newFileMemo[bool](maxKeptFooters), footerHits: newFileMemo[[]parquetfooter.Hit](maxKeptFooters),
		deletes: newFileMemo[deleteContent](maxKeptFooters), stringMinMax: newFileMemo[fileStringMinMax](maxKeptStringMinMax)}
}

// beforeSteps is what a pass's reader checks before the steps found, each
// once the first output that runs it did (nil until then).
type beforeSteps struct {
	unmapped, threeColumns, structSkip *itemsOutcome
}

// itemsOutcome is what a check's listing found: its items, or its error.
type itemsOutcome struct {
	items []string
	err   error
}

// beforeSteps returns what read found when an earlier output of the pass
// ran it, or runs it and keeps it (field picks where, in the run's
// beforeSteps; a run without one just runs read). read lists what a
// reader check finds in the working copy as copied in, before any step,
// and in the data and delete files it names: every output of a pass
// copies in the same source, so each would find the same (a backfill's
// pass writes a version in two to six formats). As the source catalog is
// attached once a pass, its files are read once a pass.
func (r *run) beforeSteps(field func(*beforeSteps) **itemsOutcome, read func() ([]string, error)) ([]string, error) {
	if r.before == nil {
		return read()
	}
	kept := field(r.before)
	if *kept == nil {
		items, err := read()
		*kept = &itemsOutcome{items: slices.Clone(items), err: err}
	}
	return slices.Clone((*kept).items), (*kept).err
}

// frozenOutcome is what frozenChecks found: its findings, or its error.
type frozenOutcome struct {
	findings []Finding
	err      error
}

// sourceDefaultsOutcome is what sourceDefaultsCheck found: its findings
// and what failed, by code, or its error.
type sourceDefaultsOutcome struct {
	findings []Finding
	failed   map[string][]string
	judged   *defaultsJudged
	err      error
}

// sourceDefaults runs sourceDefaultsCheck for r, the pass's output, once
// a pass: it reads the working copy as copied in, before any step, the
// same for every output (a backfill's pass writes a version in two to six
// formats). Later outputs get its findings and failures as the first
// did.
func (p *pass) sourceDefaults(ctx context.Context, r *run) (map[string][]string, *defaultsJudged, error) {
	if p.srcDefaults == nil {
		// A point per check run (TestSourceDefaultsOncePerPass).
		if err := faults.At(ctx, "convert/source-defaults", p.src); err != nil {
			return nil, nil, err
		}
		n := len(r.findings)
		failed, judged, err := r.sourceDefaultsCheck(p.source)
		p.srcDefaults = &sourceDefaultsOutcome{findings: slices.Clone(r.findings[n:]), failed: failed, judged: judged, err: err}
	} else {
		r.findings = append(r.findings, p.srcDefaults.findings...)
	}
	return p.srcDefaults.failed, p.srcDefaults.judged, p.srcDefaults.err
}

// prepare opens the working database, sandboxed to what the conversions
// into dsts open (reach), attaches and reads the source, and detects its
// format (refused against Options.SourceFormat). The closer gives the
// database back.
func prepare(ctx context.Context, src string, dsts []string, opts Options) (*pass, func(), error) {
	for _, o := range opts.Lossy {
		if !slices.Contains(LossyOptions, o) {
			return nil, nil, fmt.Errorf("convert %s: unknown lossy option %q (known: %s)", oneline.Name(src), o, strings.Join(LossyOptions, ", "))
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// A point per source prepared: a plan prepares each frozen catalog
	// once for all its missing formats (TestPlanPreparesSourceOnce).
	if err := faults.At(ctx, "convert/prepare", src); err != nil {
		return nil, nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	r := reach(src, dsts, opts)
	conn, closeDB, err := openWork(ctx, opts.Engines, &r)
	if err != nil {
		return nil, nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	schema, stamp, tables, err := openSource(ctx, conn, src, opts.Engines)
	if err != nil {
		closeDB()
		return nil, nil, err
	}
	// Files the source names outside its data folder are read where it
	// names them, and files linked elsewhere where the links lead: a
	// database whose reach holds them too attaches it again.
	outside, err := outsidePaths(ctx, conn, schema, tables, opts.DataPath, opts.DataPath != "" && opts.Engines.holdsLinks(opts.DataPath))
	if err != nil {
		closeDB()
		return nil, nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	if slices.ContainsFunc(outside, func(p string) bool { return !r.Holds(p) }) {
		closeDB()
		r.AddFiles(outside...)
		if conn, closeDB, err = openWork(ctx, opts.Engines, &r); err != nil {
			return nil, nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
		}
		if schema, stamp, tables, err = openSource(ctx, conn, src, opts.Engines); err != nil {
			closeDB()
			return nil, nil, err
		}
	}
	layout, _ := splitLayout(tables)
	source, err := formats.Detect(stamp, layout)
	if err != nil {
		closeDB()
		return nil, nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	if opts.SourceFormat != "" && source.Name != opts.SourceFormat {
		closeDB()
		return nil, nil, &SourceFormatError{Source: src, Detected: source.Name, Expected: opts.SourceFormat}
	}
	return &pass{src: src, opts: opts, log: log, conn: conn, schema: schema, tables: tables, source: source, footers: footersOf(opts.Engines), stepChecks: stepCheckMemo{}}, closeDB, nil
}

// convert converts the pass's source into target in the (empty) working
// database, and writes it to dst unless dst is empty (Check). Its logs go
// to log, or without one to the pass's.
func (p *pass) convert(ctx context.Context, dst string, target *formats.Version, log *slog.Logger) (*Result, error) {
	src, source, opts := p.src, p.source, p.opts
	if log == nil {
		log = p.log
	}
	path, err := Plan(source, target)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	storage := opts.Storage
	if storage == "" {
		storage = target.Storage
	}
	res := &Result{Source: source, Target: target, From: source.Name, To: target.Name, Storage: storage}
	for _, v := range path {
		res.Path = append(res.Path, v.Name)
	}
	w := &work{conn: p.conn, db: workDB, schema: p.schema}
	if err := w.copyIn(ctx, p.tables); err != nil {
		return nil, sourceReadError(src, "convert", err)
	}
	r := &run{ctx: ctx, w: w, opts: opts, log: log.With("catalog", src), dryRun: dst == "", format: source, before: &p.before, footers: p.footers, stepChecks: p.stepChecks}
	// Rewritten files not published (refusal, error) leave no trace.
	defer r.removeScratch()
	if p.frozen == nil {
		err := r.frozenChecks(source)
		p.frozen = &frozenOutcome{findings: slices.Clone(r.findings), err: err}
	} else {
		r.findings = append(r.findings, p.frozen.findings...)
	}
	if err := p.frozen.err; err != nil {
		return nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	if err := r.unmappedFilesCheck(source, target); err != nil {
		return nil, fmt.Errorf("convert %s: reader checks for %s: %w", oneline.Name(src), target, err)
	}
	if err := r.twoColumnDeletesCheck(source, target); err != nil {
		return nil, fmt.Errorf("convert %s: reader checks for %s: %w", oneline.Name(src), target, err)
	}
	if err := r.structSkipCheck(source, target); err != nil {
		return nil, fmt.Errorf("convert %s: reader checks for %s: %w", oneline.Name(src), target, err)
	}
	inlinedReads, err := r.inlinedSchemaReads(source, true)
	if err != nil {
		return nil, fmt.Errorf("convert %s: reader checks for %s: %w", oneline.Name(src), target, err)
	}
	exprRows, err := r.expressionDefaults(source, target)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	srcDefaults, srcJudged, err := p.sourceDefaults(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	for i := 1; i < len(path); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := r.apply(path[i-1], path[i]); err != nil {
			return nil, fmt.Errorf("convert %s from %s to %s: %w", oneline.Name(src), source, target, err)
		}
	}
	if err := r.checkTarget(target); err != nil {
		return nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	if err := r.defaultsCheck(target, exprRows, srcDefaults, srcJudged); err != nil {
		return nil, fmt.Errorf("convert %s: %w", oneline.Name(src), err)
	}
	if err := r.readerChecks(source, target); err != nil {
		return nil, fmt.Errorf("convert %s: reader checks for %s: %w", oneline.Name(src), target, err)
	}
	if err := r.inlinedSchemaCheck(source, target, inlinedReads); err != nil {
		return nil, fmt.Errorf("convert %s: reader checks for %s: %w", oneline.Name(src), target, err)
	}
	var refusals []Finding
	for _, f := range r.findings {
		if f.Severity == Refuse {
			refusals = append(refusals, f)
		} else {
			res.Findings = append(res.Findings, f)
		}
	}
	if len(refusals) > 0 {
		return res, &RefusedError{Source: src, From: source.Name, To: target.Name, Findings: refusals}
	}
	if dst == "" {
		return res, nil
	}
	// The catalog is written whole under a temporary name beside dst
	// first, so that a failure to write it (no such folder, no space)
	// publishes nothing; then the files it refers to, then the catalog.
	tmp, err := writeTemp(ctx, p.conn, w, opts, target, dst, storage)
	defer func() { removeTemp(tmp) }() // once linked, dst is the file
	if err != nil {
		return nil, fmt.Errorf("convert %s to %s: %w", oneline.Name(src), target, err)
	}
	recorded, err := r.publishRewritten()
	if err != nil {
		return nil, fmt.Errorf("convert %s to %s: %w", oneline.Name(src), target, err)
	}
	if recorded {
		// Another run published some of the files first, encoded
		// otherwise: the catalog records their sizes, written again.
		removeTemp(tmp)
		if tmp, err = writeTemp(ctx, p.conn, w, opts, target, dst, storage); err != nil {
			return nil, fmt.Errorf("convert %s to %s: %w", oneline.Name(src), target, err)
		}
	}
	if err := linkCatalog(tmp, dst, opts); err != nil {
		return nil, fmt.Errorf("convert %s to %s: %w", oneline.Name(src), target, err)
	}
	// DEBUG: the output is a work file of a backfill (whose own line per
	// cell says what a user needs), and convert prints its result.
	log.Debug("converted", "catalog", src, "from_version", source.Name, "to_version", target.Name, "output", dst)
	return res, nil
}

// frozenChecks applies the FDL rules for frozen catalogs (versions.en.md):
// no inlined rows, every data file relative and under the data path; and
// refuses a catalog DuckLake's readers cannot load (loadFailures).
func (r *run) frozenChecks(source *formats.Version) error {
	items, err := inlinedRows(r)
	if err != nil {
		return err
	}
	if len(items) > 0 {
		f := Finding{Severity: Refuse, Code: "inlined-rows", Step: source.Name, Table: "ducklake_inlined_data_*", Detail: summarize(items),
			Reason: "a frozen FDL catalog holds no inlined rows (all data must be in data files); flush them with ducklake_flush_inlined_data before freezing",
			Option: "--allow-inlined"}
		if r.opts.AllowInlined {
			f.Severity = Note
			f.Reason = "the catalog holds inlined rows (not a valid frozen FDL catalog); converted with them as asked"
		}
		r.add(f)
	}
	rows, err := r.readSourceRows(source)
	if err != nil {
		return fmt.Errorf("read the catalog's schemas, tables, views and macros: %w", err)
	}
	if err := r.loadFailures(source, rows); err != nil {
		return err
	}
	if err := r.nameClashes(source, rows); err != nil {
		return err
	}
	outside, err := r.filesOutsideDataPath()
	if err != nil {
		return err
	}
	if len(outside) > 0 {
		r.add(Finding{Severity: Note, Code: "files-outside-data-path", Step: source.Name, Table: "ducklake_data_file", Detail: summarize(outside),
			Reason: "a frozen FDL catalog records every data file relative to, and under, its data path; these are not (kept as they are)"})
	}
	return nil
}

// filesOutsideDataPath lists the data and delete files the catalog records
// outside its data path, each as "data_file <path>: <why>" (or
// "delete_file ..."), sorted: the rule the repository's checks apply
// (internal/datapath, as compare.StoredFile.UnderDataPath), so that a file
// under a schema or table folder recorded by absolute path or with a ".."
// part is named too. Each file is resolved against every table and schema
// folder recorded while it was visible (datapath.FolderJoins).
func (r *run) filesOutsideDataPath() ([]string, error) {
	folders, err := r.w.hasColumn(r.ctx, "ducklake_table", "path")
	if err != nil {
		return nil, err
	}
	if folders {
		if folders, err = r.w.hasColumn(r.ctx, "ducklake_schema", "path"); err != nil {
			return nil, err
		}
	}
	files, err := storedFiles(r.ctx, r.w.conn, "", folders)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		// NULL path_is_relative reads as relative, as DuckLake and
		// compare read it.
		relative := (!f.rel.Valid || f.rel.Bool) && f.foldersRelative
		if _, why := datapath.Under(relative, f.folder+f.path); why != "" {
			out = append(out, fmt.Sprintf("%s %s: %s", f.kind, oneline.Name(f.path), why))
		}
	}
	// A file visible under several table or schema rows (a rename, a
	// moved folder) comes once per row: name it once per reason.
	slices.Sort(out)
	return slices.Compact(out), nil
}

// storedFile is a data or delete file row of a catalog, with the folders
// it resolves under (storedFiles).
type storedFile struct {
	kind            string       // "data_file" or "delete_file"
	path            string       // as recorded
	rel             sql.NullBool // its path_is_relative
	folder          string       // its schema's and table's folders joined (datapath.Join)
	foldersRelative bool         // whether those folders are relative
}

// storedFiles lists the data and delete file rows of the catalog whose
// metadata tables prefix names ("" for the working copy, "src.<schema>."
// for an attached source), each resolved against every table and schema
// folder recorded while it was visible (datapath.FolderJoins) when the
// format has folders: a file visible under several such rows comes once
// per row.
func storedFiles(ctx context.Context, conn *sql.Conn, prefix string, folders bool) ([]storedFile, error) {
	var parts []string
	for _, t := range []string{"ducklake_data_file", "ducklake_delete_file"} {
		dirs := "NULL, NULL, NULL, NULL FROM " + prefix + t + " f"
		if folders {
			dirs = `s.path, s.path_is_relative, t.path, t.path_is_relative
			FROM ` + prefix + t + ` f
			` + datapath.FolderJoins(prefix)
		}
		parts = append(parts, fmt.Sprintf("SELECT '%s', f.path, f.path_is_relative, %s", strings.TrimPrefix(t, "ducklake_"), dirs))
	}
	rows, err := conn.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
	if err != nil {
		return nil, fmt.Errorf("list the data and delete files: %w", err)
	}
	defer rows.Close()
	var out []storedFile
	for rows.Next() {
		var f storedFile
		var stored sql.NullString
		var sRel, tRel sql.NullBool
		var sPath, tPath sql.NullString
		if err := rows.Scan(&f.kind, &stored, &f.rel, &sPath, &sRel, &tPath, &tRel); err != nil {
			return nil, fmt.Errorf("list the data and delete files: %w", err)
		}
		f.path = stored.String
		f.folder, f.foldersRelative = datapath.Join("", datapath.Folder{Path: sPath, Relative: sRel}, datapath.Folder{Path: tPath, Relative: tRel})
		out = append(out, f)
	}
	return out, rows.Err()
}

// outputBlockSize is the DuckDB block size of every catalog written, the
// smallest DuckDB allows. A catalog is a few dozen small tables, each in
// blocks of its own: at the default 256 KiB a small catalog takes 4.4 MB,
// at 16 KiB about 0.4 MB, and a commit writes and syncs that much less.
// Every DuckDB from 1.2 on reads the block size from the file's header
// (readers must not pass BLOCK_SIZE); TestRealOldDuckDBsReadOutputs opens
// our outputs with real DuckDB 1.3, 1.4 and 1.5 releases.
const outputBlockSize = 16384

// smallBlocksFrom is the oldest storage version written with
// outputBlockSize: a file asked for at an older one is meant for a DuckDB
// older than 1.2, which we cannot test, and keeps DuckDB's default.
const smallBlocksFrom = "v1.2.0"

// blockSize is the block size a catalog of a storage version is written with.
func blockSize(storage string) int {
	if older, known := duckfile.Older(storage, smallBlocksFrom); older || !known {
		return defaultBlockSize
	}
	return outputBlockSize
}

// defaultBlockSize is DuckDB's own block size.
const defaultBlockSize = 262144

// removeTemp removes a catalog writeTemp wrote ("" removes nothing).
func removeTemp(tmp string) {
	if tmp == "" {
		return
	}
	os.Remove(tmp)
	os.Remove(tmp + ".wal")
}

// writeTemp projects the working tables into a new DuckDB file with exactly
// the target's shapes, under a temporary name next to dst, and returns that
// name (also on failure, once chosen: the caller removes it, removeTemp).
// linkCatalog then publishes it.
func writeTemp(ctx context.Context, conn *sql.Conn, w *work, opts Options, target *formats.Version, dst, storage string) (tmp string, err error) {
	dir := filepath.Dir(dst)
	tmpf, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("create temporary file: %w", err)
	}
	tmp = tmpf.Name()
	tmpf.Close()
	os.Remove(tmp) // DuckDB must create the file itself
	return tmp, writeInto(ctx, conn, w, opts, target, tmp, storage)
}

// writeInto writes the catalog file tmp (writeTemp).
func writeInto(ctx context.Context, conn *sql.Conn, w *work, opts Options, target *formats.Version, tmp, storage string) (err error) {
	// DuckDB creates every output file itself, not a copy of an empty one
	// made earlier: a DuckDB file of storage 1.4.0 and later carries a
	// random identifier in its header, by which DuckDB refuses another
	// database's write-ahead log, and a copy would share it.
	attach := fmt.Sprintf("ATTACH %s AS dst (STORAGE_VERSION %s, BLOCK_SIZE %d)", literal(tmp), literal(storage), blockSize(storage))
	if _, err := conn.ExecContext(ctx, attach); err != nil {
		return fmt.Errorf("create %s with storage %s: %w", tmp, storage, err)
	}
	detached := false
	defer func() {
		if !detached {
			conn.ExecContext(context.WithoutCancel(ctx), "DETACH dst")
		}
	}()
	// One transaction for all tables: in autocommit mode every CREATE and
	// INSERT commits to the file on its own, appending to and syncing its
	// write-ahead log; on a catalog of a few dozen tables that was most of
	// a conversion's time (issue 9, wide catalogs). With no checkpoint
	// threshold, the commit writes the tables into the file directly
	// instead of writing them to a write-ahead log first (two syncs, then
	// a checkpoint that rewrites them and removes the log).
	defer conn.ExecContext(context.WithoutCancel(ctx), "RESET checkpoint_threshold") //nolint:errcheck // a setting of this private database
	// DuckDB 1.5.6 writes VARCHAR columns with NULLs at storage v1.3.0 as
	// dictionary-FSST segments whose dictionary covers the validity mask
	// ("Empty Validity"); DuckDB 1.3.0 and 1.3.2 read every row of those as
	// NULL (a 0.1 or 0.2 catalog's initial_default and default_value:
	// TestRealOldDuckDBsReadOutputs). Below v1.4.0 that compression stays off.
	if noDictFSST(storage) {
		defer conn.ExecContext(context.WithoutCancel(ctx), "RESET disabled_compression_methods") //nolint:errcheck // a setting of this private database
		if _, err := conn.ExecContext(ctx, "SET disabled_compression_methods = 'dict_fsst'"); err != nil {
			return fmt.Errorf("write %s: %w", tmp, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "SET checkpoint_threshold = '0b'; BEGIN TRANSACTION"); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	committed := false
	defer func() {
		if !committed {
			conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // already failing
		}
	}()
	layout, dynamic, err := w.layout(ctx)
	if err != nil {
		return err
	}
	// The working copy may hold the columns in any order: rows are inserted
	// by name below, into tables created with the registry's exact shapes.
	if diffs := columnSetDiff(layout, target); len(diffs) > 0 {
		return fmt.Errorf("%w: working tables do not have the %s shapes: %s", errInternal, target, strings.Join(diffs, "; "))
	}
	// Most tables of a catalog are empty (views, tags, macros, partitions,
	// ...): only the others are copied, a statement each.
	names := make([]string, len(target.Tables))
	for i, t := range target.Tables {
		names[i] = t.Name
	}
	filled, err := w.nonEmpty(ctx, names)
	if err != nil {
		return err
	}
	stmts := createTables("dst", w.schema, target)
	schema := "dst." + quote(w.schema)
	for _, t := range target.Tables {
		if !filled[t.Name] {
			continue
		}
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = quote(c.Name)
		}
		list := strings.Join(cols, ", ")
		stmts = append(stmts, namedStmt{"write " + t.Name, fmt.Sprintf("INSERT INTO %s.%s (%s) SELECT %s FROM %s.main.%s", schema, quote(t.Name), list, list, quote(w.db), quote(t.Name))})
	}
	for _, t := range dynamic {
		stmts = append(stmts, namedStmt{"write " + t, fmt.Sprintf("CREATE TABLE %s.%s AS SELECT * FROM %s.main.%s", schema, quote(t), quote(w.db), quote(t))})
	}
	// Plain copies, planned without the optimizer (optimizerOff): it is
	// back on before the commit and checkpoint; a failure leaves the
	// conversion, whose connection goes with it.
	stmts = withoutOptimizer(stmts)
	if err := execInTransaction(ctx, conn, stmts); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("commit %s: %w", tmp, err)
	}
	committed = true
	// Whatever the commit did, the file holds everything after this.
	if _, err := conn.ExecContext(ctx, "CHECKPOINT dst; DETACH dst"); err != nil {
		return fmt.Errorf("checkpoint and close %s: %w", tmp, err)
	}
	detached = true
	if !opts.NoSync {
		if err := durable.SyncFile(tmp); err != nil {
			return err
		}
	}
	return nil
}

// linkCatalog links the catalog writeTemp wrote into place without
// replacing anything.
func linkCatalog(tmp, dst string, opts Options) error {
	dir := filepath.Dir(dst)
	// os.Link fails if dst exists: two writers can never replace each other.
	if err := os.Link(tmp, dst); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%w: %s", ErrExists, dst)
		}
		return fmt.Errorf("publish %s: %w", dst, err)
	}
	if opts.NoSync {
		return nil
	}
	return durable.SyncDir(dir)
}

// createTables returns the statements that create the target's tables,
// empty, in schema of database db (and the schema unless it is main).
func createTables(db, schema string, target *formats.Version) []namedStmt {
	s := quote(db) + "." + quote(schema)
	var stmts []namedStmt
	if schema != "main" {
		stmts = append(stmts, namedStmt{"create schema " + schema, "CREATE SCHEMA " + s})
	}
	for _, t := range target.Tables {
		ddl := strings.Replace(t.DDL(), "CREATE TABLE "+t.Name, "CREATE TABLE "+s+"."+quote(t.Name), 1)
		stmts = append(stmts, namedStmt{"create " + t.Name, ddl})
	}
	return stmts
}

// columnSetDiff lists tables and columns of the working copy that do not
// match the target's, ignoring column order.
func columnSetDiff(layout formats.Layout, target *formats.Version) []string {
	var diffs []string
	for _, t := range target.Tables {
		got := slices.Clone(layout[t.Name])
		want := t.ColumnNames()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("%s has (%s), want (%s)", t.Name, strings.Join(got, ", "), strings.Join(want, ", ")))
		}
	}
	if len(layout) != len(target.Tables) {
		diffs = append(diffs, fmt.Sprintf("%d tables, want %d", len(layout), len(target.Tables)))
	}
	return diffs
}

// Detect opens a catalog read-only and names its format, from its version
// row and the tables and columns really present. Its DuckDB database
// spills at most maxSpill bytes (0 or less: duckpool.MaxSpill).
func Detect(ctx context.Context, path string, maxSpill int64) (*formats.Version, error) {
	conn, closeDB, err := openDuckDBWithin(ctx, duckpool.Reach{Files: []string{path}, MaxSpill: max(maxSpill, 0)})
	if err != nil {
		return nil, err
	}
	defer closeDB()
	_, stamp, tables, err := openSource(ctx, conn, path, nil)
	if err != nil {
		return nil, err
	}
	layout, _ := splitLayout(tables)
	v, err := formats.Detect(stamp, layout)
	if err != nil {
		return nil, fmt.Errorf("detect format of %s: %w", oneline.Name(path), err)
	}
	return v, nil
}

// A conversion runs DuckDB on one thread (openWork, duckpool.OneThread):
// copying the metadata tables in and out, the steps and the checks are
// about a hundred small statements, and with worker threads DuckDB spent
// about a third more CPU coordinating them than one thread takes to do the
// work (measured on the issue 9 wide catalog). Only what reads data files
// (merged-file checks, rewritten delete files) gets every thread back,
// through duckpool.AllThreads.

// openDuckDBWithin opens a private in-memory DuckDB sandboxed to reach
// (duckpool.OpenWithin) with one connection, so that ATTACH and settings
// hold for every statement of a conversion. The database never reaches
// the network (duckpool.Open's configuration).
func openDuckDBWithin(ctx context.Context, reach duckpool.Reach) (*sql.Conn, func(), error) {
	db, _, err := duckpool.OpenWithin(reach)
	if err != nil {
		return nil, nil, err
	}
	return oneConn(ctx, db)
}

// oneConn is db's one connection, and what closes both.
func oneConn(ctx context.Context, db *sql.DB) (*sql.Conn, func(), error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return conn, func() { conn.Close(); db.Close() }, nil
}

// reach is what a conversion of src into dsts may open (package
// duckpool's sandbox; docs/compare.md, "The readers' sandbox"): the
// source catalog; the folders of the outputs (each is written under a
// temporary name beside it, with DuckDB's write-ahead log); the data
// folder, whose data and delete files the checks read, and the folder of
// the rewritten delete files (Options.TempDir), when a data folder or a
// TempDir is given, and where the data folder leads when it is a symbolic
// link (prepare adds where linked files lead: outsidePaths). httpfs is loaded where installed: DuckDB writes
// encrypted Parquet only with it (rewritten delete files of an encrypted
// lake), and a sandboxed database loads no extension.
func reach(src string, dsts []string, opts Options) duckpool.Reach {
	r := duckpool.Reach{Files: []string{src}, Load: []string{"httpfs"}, MaxSpill: opts.MaxSpill}
	for _, d := range dsts {
		if d != "" { // a dry run's output names no file, nor "." for it
			r.Dirs = append(r.Dirs, filepath.Dir(d))
		}
	}
	if opts.DataPath != "" || opts.TempDir != "" {
		r.Dirs = append(r.Dirs, opts.DataPath, opts.tempDir())
	}
	// DuckDB checks where a symbolic link leads: a data folder linked
	// elsewhere (onto another disk) brings its target.
	if opts.DataPath != "" {
		if real, err := filepath.EvalSymlinks(opts.DataPath); err == nil && !r.Holds(real) {
			r.Dirs = append(r.Dirs, real)
		}
	}
	return r
}

// Engines keeps the in-memory DuckDB databases of finished conversions for
// later ones to reuse (package duckpool): a backfill converts one catalog
// per cell. A conversion works in a database of its own attached to it
// (workDB) and detaches everything before the database goes back; one that
// is not left clean is closed instead. Engines also keep what a conversion
// read of its source file, for the next conversion of the same file, and
// whether the data files it read the footers of carry a field id on every
// top-level column, and the min and max of the VARCHAR columns the
// cut-bound check read (scannedStringMinMax), for the
// next conversion naming the same files (a backfill's versions share most
// of their data files). Safe for concurrent use; a nil *Engines keeps
// nothing.
type Engines struct {
	pool    *duckpool.Pool
	sources *fileMemo[sourceInfo] // by path
	footers *fileMemo[bool]       // field ids, by local path
	// footerHits are the footer quirks' hits of the data files read, by
	// local path (parquetfooter.Read).
	footerHits *fileMemo[[]parquetfooter.Hit]
	// deletes are what the delete files read say of partial deletions,
	// by local path and encryption key (partialDeleteContentOf).
	deletes *fileMemo[deleteContent]
	// stringMinMax is the min and max of a data file's column, by local
	// path and field id (scannedStringMinMax).
	stringMinMax *fileMemo[fileStringMinMax]
	// links tells, by data folder, whether it holds a symbolic link
	// (holdsLinks).
	linksMu sync.Mutex
	links   map[string]bool
}

// deleteContent is what partialDeleteContent read of a delete file.
type deleteContent struct {
	last    sql.NullInt64
	partial bool
}

// deleteContent returns what was read of the delete file at path with
// key, if it was read of the same file (sameFile) before.
func (e *Engines) deleteContent(path, key string, file os.FileInfo) (deleteContent, bool) {
	if e == nil {
		return deleteContent{}, false
	}
	return e.deletes.get(path+"\x00"+key, file)
}

// fileStringMinMax is what scannedStringMinMax read of a data file's
// column: named, whether the file has exactly one column of the field id
// (the rest is unset where not); values, whether it holds a value; lo and
// hi, its min and max.
type fileStringMinMax struct {
	named, values bool
	lo, hi        string
}

// maxKeptStringMinMax bounds Engines' stringMinMax, and
// maxKeptStringMinMaxBytes the bytes of one's min and max together: a
// longer pair is not kept (read again), so that the memo holds at most
// some 16 MB.
const (
	maxKeptStringMinMax      = 1 << 14
	maxKeptStringMinMaxBytes = 1 << 10
)

// stringMinMaxOf returns what scannedStringMinMax read of the column of
// field id column of the data file at path, if it read the same file
// (sameFile) before.
func (e *Engines) stringMinMaxOf(path, column string, file os.FileInfo) (fileStringMinMax, bool) {
	if e == nil || e.stringMinMax == nil {
		return fileStringMinMax{}, false
	}
	return e.stringMinMax.get(path+"\x00"+column, file)
}

// keepStringMinMax keeps what scannedStringMinMax read of the column of
// field id column of the data file at path (file: its stat before the
// read), where its min and max are short enough.
func (e *Engines) keepStringMinMax(path, column string, file os.FileInfo, m fileStringMinMax) {
	if e != nil && e.stringMinMax != nil && len(m.lo)+len(m.hi) <= maxKeptStringMinMaxBytes {
		e.stringMinMax.put(path+"\x00"+column, file, m)
	}
}

// keepDeleteContent keeps what was read of the delete file at path with key.
func (e *Engines) keepDeleteContent(path, key string, file os.FileInfo, c deleteContent) {
	if e != nil {
		e.deletes.put(path+"\x00"+key, file, c)
	}
}

// NewEngines keeps at most maxIdle idle databases (a run converting jobs
// catalogs at once needs jobs).
func NewEngines(maxIdle int) *Engines {
	return &Engines{pool: duckpool.New(maxIdle), sources: newFileMemo[sourceInfo](maxKeptSources), footers: newFileMemo[bool](maxKeptFooters),
		footerHits: newFileMemo[[]parquetfooter.Hit](maxKeptFooters), deletes: newFileMemo[deleteContent](maxKeptFooters),
		stringMinMax: newFileMemo[fileStringMinMax](maxKeptStringMinMax)}
}

// fileMemo keeps what was read of files, by path, for as long as each file
// is unchanged (sameFile); at most limit of them (all dropped when full).
// Safe for concurrent use.
type fileMemo[V any] struct {
	mu    sync.Mutex
	limit int
	kept  map[string]keptFile[V]
}

// keptFile is a value with the file it was read from.
type keptFile[V any] struct {
	file os.FileInfo
	v    V
}

func newFileMemo[V any](limit int) *fileMemo[V] {
	return &fileMemo[V]{limit: limit, kept: map[string]keptFile[V]{}}
}

// get returns what was kept of the file at path, if it is the same file
// (sameFile) as file.
func (m *fileMemo[V]) get(path string, file os.FileInfo) (v V, ok bool) {
	m.mu.Lock()
	k, ok := m.kept[path]
	m.mu.Unlock()
	if !ok || !sameFile(k.file, file) {
		return v, false
	}
	return k.v, true
}

// put keeps v, read of the file at path (file: its stat).
func (m *fileMemo[V]) put(path string, file os.FileInfo, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.kept) >= m.limit {
		clear(m.kept)
	}
	m.kept[path] = keptFile[V]{file: file, v: v}
}

// maxKeptFooters bounds Engines' footers (a hundred bytes or so each).
const maxKeptFooters = 1 << 16

// sameFile tells whether two stats are of the same file, unchanged: same
// inode and device, size, modification time and change time (fileid: a
// same-size rewrite with its modification time set back is another file).
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && fileid.Inode(a) == fileid.Inode(b)
}

// footer returns whether the data file at path carries field ids, if a
// conversion read the same file (sameFile) before.
func (e *Engines) footer(path string, file os.FileInfo) (fieldIDs, ok bool) {
	if e == nil {
		return false, false
	}
	return e.footers.get(path, file)
}

// footerQuirkHits returns the footer quirks' hits of the data file at
// path, if they were read of the same file (sameFile) before.
func (e *Engines) footerQuirkHits(path string, file os.FileInfo) ([]parquetfooter.Hit, bool) {
	if e == nil {
		return nil, false
	}
	return e.footerHits.get(path, file)
}

// keepFooterQuirkHits keeps the footer quirks' hits of the data file at path.
func (e *Engines) keepFooterQuirkHits(path string, file os.FileInfo, hits []parquetfooter.Hit) {
	if e != nil {
		e.footerHits.put(path, file, hits)
	}
}

// keepFooter keeps whether the data file at path carries field ids.
func (e *Engines) keepFooter(path string, file os.FileInfo, fieldIDs bool) {
	if e != nil {
		e.footers.put(path, file, fieldIDs)
	}
}

// sourceInfo is what openSource reads of a catalog file besides attaching
// it: its metadata schema, version row and tables with their columns.
type sourceInfo struct {
	schema, stamp string
	tables        []table
}

// maxKeptSources bounds Engines' sources (a few KB each).
const maxKeptSources = 256

// source returns what openSource read of the file at path, if it read the
// same file (sameFile) before.
func (e *Engines) source(path string, file os.FileInfo) (sourceInfo, bool) {
	if e == nil {
		return sourceInfo{}, false
	}
	info, ok := e.sources.get(path, file)
	return info.clone(), ok
}

// keepSource keeps what openSource read of a file for the next conversion.
func (e *Engines) keepSource(path string, file os.FileInfo, info sourceInfo) {
	if e != nil {
		e.sources.put(path, file, info.clone())
	}
}

// clone copies the tables and their columns: a conversion may change its
// own listing.
func (s sourceInfo) clone() sourceInfo {
	s.tables = slices.Clone(s.tables)
	for i := range s.tables {
		s.tables[i].columns = slices.Clone(s.tables[i].columns)
	}
	return s
}

// dbs is the pool of databases; nil (start and close one per conversion)
// without Engines.
func (e *Engines) dbs() *duckpool.Pool {
	if e == nil {
		return nil
	}
	return e.pool
}

// Idle is the number of idle databases.
func (e *Engines) Idle() int { return e.dbs().Idle() }

// Within bounds the databases of every later conversion whose own reach
// (reach) lies in the folders dirs to dirs, so that the conversions of a
// run share them (duckpool.Pool.Within).
func (e *Engines) Within(dirs ...string) { e.dbs().Within(dirs...) }

// SpillIn makes the databases of later conversions spill in dir, each in
// a folder of its own (duckpool.Pool.SpillIn).
func (e *Engines) SpillIn(dir string) { e.dbs().SpillIn(dir) }

// SpillAtMost bounds what each database of later conversions may spill to
// n bytes; 0 or less: duckpool.MaxSpill (duckpool.Pool.SpillAtMost).
func (e *Engines) SpillAtMost(n int64) { e.dbs().SpillAtMost(n) }

// SpillBound is what each database of later conversions may spill, in
// bytes (duckpool.Pool.SpillBound).
func (e *Engines) SpillBound() int64 { return e.dbs().SpillBound() }

// Close closes the idle databases; one given back later is closed then.
func (e *Engines) Close() error { return e.dbs().Close() }

// workDB is the in-memory database a conversion attaches and works in:
// detaching it drops every table the conversion made.
const workDB = "fdl_work"

// openWork opens a connection on a database from engines (or a new one,
// configured as openDuckDB's), sandboxed to reach unless it is nil (tests),
// with workDB attached as its default database,
// on one thread (duckpool.OneThread). Its closer detaches what the
// conversion attached (the source, the output, the working database) and
// gives the database back when nothing of the conversion is left in it
// (duckpool.Release); without a pool (engines nil) it closes it.
func openWork(ctx context.Context, engines *Engines, reach *duckpool.Reach) (*sql.Conn, func(), error) {
	var db *sql.DB
	var err error
	if reach != nil {
		db, _, err = engines.dbs().GetWithin(*reach)
	} else {
		db, err = engines.dbs().Get()
	}
	if err != nil {
		return nil, nil, err
	}
	pool := engines.dbs()
	conn, err := db.Conn(ctx)
	if err != nil {
		pool.Discard(db) //nolint:errcheck // already failing
		return nil, nil, err
	}
	setup := "ATTACH ':memory:' AS " + workDB + "; USE " + workDB + "; " + duckpool.OneThread
	if _, err := conn.ExecContext(ctx, setup); err != nil {
		conn.Close()
		pool.Discard(db) //nolint:errcheck // already failing
		return nil, nil, fmt.Errorf("open working database: %w", err)
	}
	return conn, func() {
		// The conversion's result is out: the pool's errors (closing a
		// database it does not keep) change nothing for it.
		if pool == nil {
			// Nothing keeps the database: closing it drops all the
			// conversion left in it, and cleaning it first for a next
			// user (Release: detaching, then a query that counts what is
			// left) cost a one-off conversion ~4 ms of CPU (figure 4).
			conn.Close()
			pool.Put(db) //nolint:errcheck // see above
			return
		}
		// A point per database cleaned for the pool (TestReleasedOnlyForPool).
		faults.At(ctx, "convert/release", "") //nolint:errcheck // a point to count, not to fail
		if duckpool.Release(conn, "src", "dst", workDB) {
			pool.Put(db) //nolint:errcheck // see above
			return
		}
		pool.Discard(db) //nolint:errcheck // see above
	}, nil
}

// noDictFSST says whether a file of this storage version must be written
// without dictionary-FSST compression: DuckDB releases before 1.4 misread
// what DuckDB 1.5 writes with it (see write).
func noDictFSST(storage string) bool {
	older, _ := duckfile.Older(storage, duckfile.DictFSSTReadable)
	return older
}

// StorageReadBy checks that some DuckDB that reads target opens a catalog
// file saved at storage (STORAGE_VERSION, "v1.5.0"): a 0.1 catalog saved
// at v1.5.0 opens only in DuckDB 1.5, which reads no 0.1, so no reader
// could open what the conversion writes (the proof, which opens it with
// this DuckDB, cannot tell); and that the linked DuckDB writes it (not a
// newer DuckDB's storage, such as v2.0.0). The CLI refuses such a
// --storage; Catalog writes what Options.Storage says (tests make such
// files on purpose).
func StorageReadBy(storage string, target *formats.Version) error {
	min := duckfile.MinDuckDB(storage)
	if min == nil {
		return fmt.Errorf("storage %q: %w: not a DuckDB storage version (such as %s)", storage, ErrStorageUnreadable, target.Storage)
	}
	if newest := duckfile.Storages[len(duckfile.Storages)-1].Name; min.GreaterThan(duckfile.MinDuckDB(newest)) {
		return fmt.Errorf("storage %s: %w: the newest it writes is %s", storage, ErrStorageUnwritable, newest)
	}
	c, err := goversion.NewConstraint(target.DuckDB + ", >= " + min.String())
	if err != nil || target.AdmitsNone(c) {
		return fmt.Errorf("storage %s: %w: DuckDB %s and later open it, format %s is read by DuckDB %s (its default storage: %s)",
			storage, ErrStorageUnreadable, min, target.Name, target.DuckDB, target.Storage)
	}
	return nil
}
