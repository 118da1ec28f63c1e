package compare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Reader names used in reports.
const (
	ReaderOwn       = "fdl-formats reader"
	ReaderExtension = "ducklake extension"
)

// Options tune Catalogs and KeptProof, and Self and KeptSelf (Self names
// the ones it uses).
type Options struct {
	// DataPath overrides the data_path of both catalogs (a local folder).
	DataPath string
	// BUnderDataPath requires every data and delete file B names to be
	// under its data path (StoredFile.UnderDataPath): when A and B are
	// equivalent and B names one that is not, Catalogs returns an
	// *OutsideDataPathError. Equivalence pins B's data files to A's paths
	// relative to the data path, not how B records them (by absolute path)
	// nor B's delete file paths. A kept proof was made with it.
	BUnderDataPath bool
	// BBookkeeping requires B to hold bookkeeping rows up to its last
	// snapshot and none after, and no inlined rows (what the FDL
	// specification asks of a frozen catalog; Bookkeeping.Breaches): when
	// A and B are equivalent and B breaks either, Catalogs returns a
	// *BookkeepingError. Equivalence compares the rows visible at A's
	// snapshots, so it sees neither rows that name a later snapshot nor
	// inlined rows no snapshot shows. A kept proof was made with it.
	BBookkeeping bool
	// BReaders, when set, is the DuckDB version constraint of the releases
	// B's format is served to (a repository's fdl.json range for it),
	// within the format's own: a data file of B that only releases outside
	// it fail on (formats.FooterQuirks) is no difference. A kept proof was
	// made with it.
	BReaders string
	// DataPathB, when set, overrides B's data path instead of DataPath.
	DataPathB string
	// MaxRowDiffs caps the differing rows shown per side (default 5).
	MaxRowDiffs int
	// Logger receives progress at debug level (default: discard).
	Logger *slog.Logger
	// Disk checks data and delete files against the catalogs' records
	// (size, footer size); share one across the proofs of a run so that
	// each file is checked once. Nil: a new one per call.
	Disk *DiskCheck
	// DigestCache, when set, keeps the digests of data files (by file and
	// read plan) across comparisons and runs; see package digestcache.
	DigestCache DigestStore
	// Digests, when set, shares file digests and kept row hashes with other
	// comparisons (a backfill's or check's proofs; see Digests.HintFromReader).
	// Make it with NewDigests(DigestCache).
	Digests *Digests
	// SumA and SumB are the sha256 (lowercase hex) of catalog A's and B's
	// bytes when the caller hashed them as it wrote them (a private copy
	// nothing else writes), so that the proof cache's key does not read
	// them again; "" reads the file.
	SumA, SumB string
	// AReadWhole says that catalog A, the bytes SumA names, was read whole
	// (Reader.ReadEveryTable) with no error by this build, earlier in the
	// run or in one the caller kept the answer of: Catalogs does not read
	// it whole again (a check's content pass reads each frozen catalog
	// whole once, and its proofs take the answer).
	AReadWhole bool
	// Deletes, when set, keeps the Parquet delete files the comparison
	// reads for the next ones, which then read each file once per run
	// (see Deletes); share one across the proofs of a run.
	Deletes *Deletes
	// Engines, when set, lends both readers DuckDB databases to reuse
	// (see Engines); share one across the proofs of a run.
	Engines *Engines
	// Source, when set, keeps catalog A's reader for the next proof of the
	// same catalog A (see Source).
	Source *Source
	// Listings, when set, lists the data folders for the proof cache's
	// key once per run (see Listings); share one across the proofs of a
	// run. Nil: each comparison lists them.
	Listings *Listings
	// BeforeRead, when set, is called once the comparison is not found
	// kept and before it reads anything (a run's delete hints); its error
	// is returned. A comparison found kept reads no file.
	BeforeRead func(context.Context) error
	// Gate, when set, makes each data and delete file readable just
	// before the comparison reads its bytes (ReadGate): a remote
	// repository's data cache holds a copy from a restored cache to the
	// bytes the store delivered only then, and only the copies read.
	Gate ReadGate
	// Carry names earlier pairs of catalogs of the same lake, latest
	// first; the first whose proof of equivalence is kept in DigestCache
	// (under the same rules and data folders) is used: the snapshots A and
	// B share with it, where each is row for row the earlier one
	// restricted to its snapshots, are not walked again (Report.Carried;
	// docs/compare.md, "Carrying an earlier proof"). Otherwise every
	// snapshot is walked (Report.CarryNote says why).
	Carry []Carry
	// SelfCarry, for Self, names, latest first, earlier catalogs of the
	// same lake whose self-read this run found clean; called only when
	// the walk is long enough to carry one (it may wait for a read under
	// way). The first of the same format whose bytes are still the ones
	// read is used, and the snapshots it covers, where the catalog is row
	// for row the earlier one restricted to its snapshots, are not walked
	// again (Report.Carried, Report.CarryNote; compare/selfcarry.go).
	SelfCarry func(context.Context) []SelfCarry
	// CarryMinWork is the least walk (table and data file visits) worth
	// checking an earlier pair (or, for Self, an earlier self-read) for:
	// 0 is minCarryWork (minSelfCarryWork), negative always.
	CarryMinWork int64
	// everyDigest digests every data file of both sides, as before equal
	// plans cancelled (tests of the digest machinery on self-comparisons).
	everyDigest bool
}

// carried lists the earlier catalogs of one side (a: A's) of the pairs a
// proof may carry: the side's reader opens them (ReaderOptions.Also).
func carried(pairs []Carry, a bool) []string {
	var out []string
	for _, p := range pairs {
		if a {
			out = append(out, p.A)
		} else {
			out = append(out, p.B)
		}
	}
	return out
}

// Report is the result of a proof (Catalogs, or KeptProof from the cache),
// or of a self-read (Self, KeptSelf), which leaves B empty.
type Report struct {
	A          CatalogInfo `json:"a"`
	B          CatalogInfo `json:"b"`
	Equivalent bool        `json:"equivalent"`
	// Readers lists the readers whose digests decided; ReaderNotes says why
	// one was not used.
	Readers     []string     `json:"readers"`
	ReaderNotes []string     `json:"reader_notes,omitempty"`
	Snapshots   []int64      `json:"snapshots_compared"`
	Differences []Difference `json:"differences"`
	// NotCompared names what one of the two formats cannot hold, which is
	// therefore not compared: statistics (a table or column), and what
	// B's format lacks of A's (an expression default, a macro, a view
	// column comment, a snapshot's commit info).
	NotCompared []string      `json:"not_compared,omitempty"`
	Tables      []TableResult `json:"tables"`
	Timings     Timings       `json:"timings"`
	// Digests counts the data-file digests computed, reused within this
	// comparison (another snapshot, or the same read plan on both sides)
	// and found in the digest cache.
	Digests DigestStats `json:"digests"`
	// DeleteFiles counts the Parquet delete files read, and those another
	// proof of the run had read (Options.Deletes); nil, and omitted, when
	// no comparison ran: a catalog could not be read, or a kept proof
	// stood (ProofCached: nothing was read).
	DeleteFiles *DeleteFileStats `json:"delete_files,omitempty"`
	// ProofCached is set when the digest cache held a proof of these very
	// catalogs over these very data files (nothing was read again).
	ProofCached bool `json:"proof_cached,omitempty"`
	// Incomparable is set when the comparison stopped on a read error.
	Incomparable string `json:"incomparable,omitempty"`
	// Carried is set when the snapshots an earlier proof covered were not
	// walked again (Options.Carry; for Self, an earlier self-read:
	// Options.SelfCarry, B empty); CarryNote says why they were when one
	// was asked for.
	Carried   *Carried `json:"carried,omitempty"`
	CarryNote string   `json:"carry_note,omitempty"`

	// heldTo names the data folders' listing this report holds for: the
	// one its key named when it was kept or found kept (not kept in the
	// cache). A self-read that carries it is kept only while that listing
	// still holds (carriedListing).
	heldTo proofName
}

// Carried names the earlier pair of catalogs whose proof covered
// Snapshots of the snapshots compared.
type Carried struct {
	A         string `json:"a"`
	B         string `json:"b"`
	Snapshots int    `json:"snapshots"`
}

// CatalogInfo describes one side.
type CatalogInfo struct {
	Path      string `json:"path"`
	Format    string `json:"format"`
	DataPath  string `json:"data_path"`
	Snapshots int    `json:"snapshots"`
}

// Difference is one reason the catalogs differ.
type Difference struct {
	Kind     string `json:"kind"` // snapshot, schema, files, stats, rows, row_ids, count, minmax, reader, catalog, unreadable, misread, footer
	Snapshot *int64 `json:"snapshot,omitempty"`
	// Through, when set, is the last snapshot of a run of compared
	// snapshots at which the same difference holds.
	Through *int64 `json:"through_snapshot,omitempty"`
	Table   string `json:"table,omitempty"`
	Item    string `json:"item,omitempty"` // the schema entry or file
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
	Reason  string `json:"reason"`
}

// String is the difference as one line of prose, the form every message
// (an error's "first: …", check's findings, compare's DIFF lines) shows:
// the table is written as oneline.Name writes a name, the item and both
// sides (descriptions made of names and values) escaped (oneline.Escape),
// so that a name holding a line break cannot cut the line inside it. The
// fields themselves (--json) keep the names as they are; the reason is
// the tool's, its names written so where it is made.
func (d Difference) String() string {
	var b strings.Builder
	b.WriteString(d.Kind)
	switch {
	case d.Snapshot != nil && d.Through != nil:
		fmt.Fprintf(&b, " at snapshots %d-%d", *d.Snapshot, *d.Through)
	case d.Snapshot != nil:
		fmt.Fprintf(&b, " at snapshot %d", *d.Snapshot)
	}
	if d.Table != "" {
		b.WriteString(" in " + oneline.Name(d.Table))
	}
	b.WriteString(": " + d.Reason)
	if item := oneline.Escape(d.Item); item != "" && !strings.Contains(d.Reason, item) {
		b.WriteString(" [" + item + "]")
	}
	if d.A != "" || d.B != "" {
		fmt.Fprintf(&b, " (A: %s; B: %s)", oneline.Escape(orNone(d.A)), oneline.Escape(orNone(d.B)))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// TableResult is the row comparison of one table at one snapshot.
type TableResult struct {
	Snapshot int64    `json:"snapshot"`
	Table    string   `json:"table"`
	Status   string   `json:"status"` // matched, differed, only_a, only_b, unreadable
	A        *Digest  `json:"a,omitempty"`
	B        *Digest  `json:"b,omitempty"`
	Rows     *RowDiff `json:"first_differing_rows,omitempty"`
	// SamePlanFiles counts the data files both sides read under the same
	// plan: equal by construction, they are left out of A and B, which
	// are then the digests of the other parts (files whose plans differ,
	// inlined rows), and absent when no other part exists.
	SamePlanFiles int `json:"same_plan_files,omitempty"`
}

// Timings are wall-clock durations in milliseconds.
type Timings struct {
	TotalMS  int64 `json:"total_ms"`
	SchemaMS int64 `json:"schema_ms"`
	FilesMS  int64 `json:"files_ms"`
	RowsMS   int64 `json:"rows_ms"`
	// ScanMS: the data files read up front, one query per plan shape,
	// before the snapshots are walked (rows_ms then sums what is kept).
	ScanMS int64 `json:"scan_ms"`
}

// Catalogs compares two catalogs at every snapshot both hold: schema,
// files and rows, and once their statistics. Both catalog files are first
// read whole (ReadEveryTable); one that cannot be read while the other can
// is a difference. Every data and delete file is checked against each
// catalog's record of it (Options.Disk). It returns the report and nil when
// they are equivalent, an error wrapping ErrNotEquivalent when they differ
// (also when a difference was found before something could not be read:
// Report.Incomparable then says what), and one wrapping ErrIncomparable
// when something could not be read before any difference (the report then
// holds what was found so far).
func Catalogs(ctx context.Context, a, b string, opts Options) (*Report, error) {
	start := time.Now()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxRowDiffs <= 0 {
		opts.MaxRowDiffs = 5
	}
	dpB := opts.DataPath
	if opts.DataPathB != "" {
		dpB = opts.DataPathB
	}
	if opts.Disk == nil {
		opts.Disk = NewDiskCheck()
	}
	// A proof kept for these very bytes (catalogs and data files) stands:
	// both catalogs were read whole when it was made. With the data
	// folders given, it is found without opening either catalog.
	name := keptName(a, b, opts.SumA, opts.SumB, opts)
	if kept, ok := findKept(opts, name); ok {
		return keptReport(kept, a, b, start), nil
	}
	// B is opened, and below read whole, beside A: the two readers share
	// nothing until the walk, and a proof on its own (compare) spent a
	// quarter of its wall time opening and reading them one after the other.
	var rb *Reader
	var errB error
	openedB := make(chan struct{})
	go func() {
		defer close(openedB)
		rb, errB = Open(ctx, b, ReaderOptions{DataPath: dpB, Engines: opts.Engines, Listings: opts.Listings, Gate: opts.Gate, Also: carried(opts.Carry, false)})
	}()
	ra, ownA, errA := opts.Source.reader(ctx, a, ReaderOptions{DataPath: opts.DataPath, Engines: opts.Engines, AsSource: true, Listings: opts.Listings, Gate: opts.Gate, Also: carried(opts.Carry, true)})
	<-openedB
	ra.setGate(opts.Gate) // a Source's reader may have been opened without
	if ra != nil && ownA {
		defer ra.Close()
	}
	if rb != nil {
		defer rb.Close()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	relativeKey := false // key names the data folders' files: check the paths
	switch {
	case errA != nil || errB != nil || opts.DigestCache == nil:
		name = proofName{}
	case name.base == "":
		name = proofKeyName(ctx, ra, rb, opts)
		if kept, ok := findKept(opts, name); ok {
			return keptReport(kept, a, b, start), nil
		}
	default:
		relativeKey = true
	}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(ctx); err != nil {
			return nil, err
		}
	}
	readB := make(chan struct{})
	go func() {
		defer close(readB)
		if errB == nil {
			errB = rb.ReadEveryTable(ctx)
		}
	}()
	switch {
	case errA == nil && opts.AReadWhole:
	case errA == nil && ownA:
		errA = ra.ReadEveryTable(ctx)
	case errA == nil:
		errA = opts.Source.readEveryTable(ctx)
	}
	<-readB
	// Asked after ReadEveryTable, which counts the paths not relative on
	// its way (no query of its own).
	if relativeKey && errA == nil && errB == nil && (!ra.allPathsRelative(ctx) || !rb.allPathsRelative(ctx)) {
		name = proofName{} // files outside the data folders: the key does not name them
	}
	rep := &Report{
		A:           CatalogInfo{Path: a, DataPath: opts.DataPath},
		B:           CatalogInfo{Path: b, DataPath: dpB},
		Readers:     []string{ReaderOwn},
		Differences: []Difference{},
	}
	for _, side := range []struct {
		info *CatalogInfo
		r    *Reader
	}{{&rep.A, ra}, {&rep.B, rb}} {
		if side.r != nil {
			side.info.Format, side.info.DataPath = side.r.Format().Name, side.r.DataPath()
		}
	}
	switch {
	case errA != nil && errB != nil:
		return nil, incomparable(fmt.Errorf("neither catalog can be read: A: %w; B: %w", errA, errB))
	case errA != nil || errB != nil:
		// A file that cannot be read while the other one can is the
		// difference: its readers fail where the other's succeed.
		bad, good, err := "A", "B", errA
		if errB != nil {
			bad, good, err = "B", "A", errB
		}
		rep.Differences = append(rep.Differences, Difference{Kind: "catalog", Item: bad,
			Reason: fmt.Sprintf("%s cannot be read while %s can: %v", bad, good, err)})
		rep.Timings.TotalMS = time.Since(start).Milliseconds()
		return rep, fmt.Errorf("%w: %s and %s: catalog: %s cannot be read while %s can: %w", ErrNotEquivalent, a, b, bad, good, err)
	}
	// B is held to its format's declared types, without a frozen
	// catalog's stand-ins (formats.FrozenTypes).
	for _, d := range rb.strictTypeDiffs {
		rep.Differences = append(rep.Differences, Difference{Kind: "catalog", Item: "B",
			Reason: fmt.Sprintf("B's %s (DuckLake's readers compare and cast each column as the type its writers give it; a frozen catalog may hold it, a catalog under proof may not)", d)})
	}
	// B is the file under proof (a conversion's output, a published
	// catalog): readers of the older DuckDB releases its storage admits
	// must read what DuckDB 1.5.6 reads.
	misread, merr := misreadColumns(ctx, rb.conn, rb.path)
	if merr != nil {
		if what, ok := bOnlyFailure(markB(merr)); ok {
			return rep, bCannotBeRead(rep, a, b, what)
		}
		return nil, incomparable(merr)
	}
	for _, m := range misread {
		rep.Differences = append(rep.Differences, Difference{Kind: DiffMisread, Table: m.Table, Item: m.Table + "." + m.Column, Reason: m.Reason()})
	}
	// B's data files whose footers some release of its format's readers
	// fails on (formats.FooterQuirks).
	footerDiffs, ferr := footerQuirkDifferences(ctx, ra, rb, opts.BReaders, opts.Digests)
	if ferr != nil {
		if what, ok := bOnlyFailure(ferr); ok {
			rep.Differences = append(rep.Differences, footerDiffs...)
			return rep, bCannotBeRead(rep, a, b, what)
		}
		return nil, incomparable(ferr)
	}
	rep.Differences = append(rep.Differences, footerDiffs...)
	// One memo for both sides: a file read under the same plan by both
	// catalogs is digested once and counted on both sides; its Parquet
	// schema and its delete files are read once too.
	shared := opts.Digests
	if shared == nil {
		shared = NewDigests(opts.DigestCache)
	}
	ra.memo = newDigestMemo(shared)
	rb.memo = ra.memo
	rb.rawDeletes = ra.rawDeletes
	rb.schemas = ra.schemas // both catalogs name the same files on disk
	// The counts so far: A's reader may have served other proofs (Source).
	dels := ra.rawDeletes.useRun(opts.Deletes)
	c := &comparison{ctx: ctx, a: ra, b: rb, rep: rep, opts: opts, log: log}
	err := c.run()
	rep.Differences = mergeRuns(rep.Differences, rep.Snapshots)
	rep.Digests = ra.memo.snapshot()
	now := ra.rawDeletes.counts()
	rep.DeleteFiles = &DeleteFileStats{Read: now.Read - dels.Read, Shared: now.Shared - dels.Shared}
	rep.Timings.TotalMS = time.Since(start).Milliseconds()
	if err != nil && !c.self {
		// Also after differences found before it: the report then says
		// what failed in B, not that the comparison stopped.
		if what, ok := bOnlyFailure(err); ok {
			return rep, bCannotBeRead(rep, a, b, what)
		}
	}
	if err != nil {
		err = incomparable(err)
		rep.Incomparable = err.Error()
		// A difference found before the comparison stopped is proved,
		// whatever the rest would show: e.g. a delete file of another size
		// than its catalog records (Options.Disk), which then cannot be
		// read, is a file that does not match its catalog.
		if len(rep.Differences) == 0 || ctx.Err() != nil {
			return rep, err
		}
		return rep, fmt.Errorf("%w: %s (format %s) and %s (format %s): %d difference(s) before the comparison stopped, first: %s; then: %v",
			ErrNotEquivalent, a, rep.A.Format, b, rep.B.Format, len(rep.Differences), rep.Differences[0], err)
	}
	if len(rep.Differences) > 0 {
		return rep, fmt.Errorf("%w: %s (format %s) and %s (format %s): %d difference(s), first: %s",
			ErrNotEquivalent, a, rep.A.Format, b, rep.B.Format, len(rep.Differences), rep.Differences[0])
	}
	if opts.BUnderDataPath {
		files, err := rb.StoredFiles(ctx)
		if err != nil {
			err = incomparable(err)
			rep.Incomparable = err.Error()
			return rep, err
		}
		if _, outside := Outside(files, rb.DataPath(), b); outside != nil {
			return rep, outside
		}
	}
	if opts.BBookkeeping {
		bk, err := rb.Bookkeeping(ctx)
		if err != nil {
			err = incomparable(err)
			rep.Incomparable = err.Error()
			return rep, err
		}
		if breaches := bk.Breaches(); len(breaches) > 0 {
			return rep, &BookkeepingError{Catalog: b, Breaches: breaches}
		}
	}
	rep.Equivalent = true
	if opts.DigestCache != nil && name.base != "" {
		if what, ok := stillRead(opts.Listings, name, nil, ra, rb); !ok {
			log.Warn("a data file changed while the proof read its folder (another run sharing the cache replaced a copy?): the proof holds for what it read, and is not kept",
				"a", a, "b", b, "file", what)
			name = proofName{}
		}
	}
	keepProof(opts.DigestCache, name, rep, opts.Listings)
	return rep, nil
}

// stillRead reports whether the data folders of a proof named n still
// hold every file n lists, as it lists it (and every file the listings in
// also list: a carried read's), and whether every data file its readers
// named is still the copy they named (see identity.go); what names the
// first file that is not.
func stillRead(l *Listings, n proofName, also []proofName, readers ...*Reader) (what string, ok bool) {
	named := map[string]bool{}
	for _, r := range readers {
		if r != nil {
			for path := range r.namedAs {
				named[path] = true
			}
		}
	}
	what, ok, ids := l.stillListed(n, named, also...)
	if !ok {
		return what, false
	}
	for _, r := range readers {
		if what, ok := r.identitiesCurrent(ids); !ok {
			return what, false
		}
	}
	return "", true
}

// keptName names a proof of catalogs a and b (sha256 sumA and sumB, ""
// to read them) kept with opts' rules over its data folders as they are,
// found without opening either catalog; nothing without a digest cache or
// the data folders.
func keptName(a, b, sumA, sumB string, opts Options) proofName {
	if opts.DigestCache == nil || opts.DataPath == "" {
		return proofName{}
	}
	dpA, dpB := keyDataPaths(opts)
	return inputsName(a, b, dpA, dpB, sumA, sumB, opts.Listings, opts)
}

// keyDataPaths are A's and B's data folders as a kept proof's key names
// them.
func keyDataPaths(opts Options) (a, b string) {
	b = opts.DataPath
	if opts.DataPathB != "" {
		b = opts.DataPathB
	}
	return overridePath(opts.DataPath), overridePath(b)
}

// withRules is a proof key that also names the options that add checks to
// the proof (BUnderDataPath, BBookkeeping), so that a proof kept without them does not
// answer for one with them.
func withRules(key string, opts Options) string {
	if key == "" || (!opts.BUnderDataPath && !opts.BBookkeeping && opts.BReaders == "") {
		return key
	}
	if opts.BReaders != "" {
		key += " b-readers " + opts.BReaders
	}
	if opts.BUnderDataPath {
		key += " b-under-data-path"
	}
	if opts.BBookkeeping {
		key += " b-bookkeeping"
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// keptReport is a kept proof's report, for catalogs a and b now.
func keptReport(kept *Report, a, b string, start time.Time) *Report {
	kept.A.Path, kept.B.Path = a, b
	kept.ProofCached = true
	kept.DeleteFiles = nil // nothing read now; the kept count was another run's
	kept.Timings = Timings{TotalMS: time.Since(start).Milliseconds()}
	return kept
}

// incomparable makes every read failure an ErrIncomparable.
func incomparable(err error) error {
	if err == nil || errors.Is(err, ErrIncomparable) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrIncomparable, err)
}

type comparison struct {
	ctx  context.Context
	a, b *Reader
	rep  *Report
	opts Options
	log  *slog.Logger
	// ext is set when the ducklake extension loaded: both catalogs are then
	// also read through it, for the formats it opens natively.
	ext bool
	// diskSeen: "side path" of files whose on-disk disagreement is reported.
	diskSeen map[string]bool
	// aNames: A's files relative to its data folder (onlyBNames).
	aNames map[string]bool
	// lastA, lastB: each catalog's latest snapshot, at which its real
	// reader may answer count(*) from the catalog (counts.go).
	lastA, lastB int64
	// self: a self-read (Self): b is a, and only side A is reported.
	self bool
	// ties: B's data file ids as A's of the same files (fileTiesOf).
	ties *fileTies
	// selfFrom is the earlier clean self-read a self-read carried
	// (selfCarried), nil when it walked every snapshot.
	selfFrom *Report
	// feedSeen: the table pairs whose change feed deletions are compared
	// (feedDeletes).
	feedSeen map[string]bool
}

func (c *comparison) add(d Difference) { c.rep.Differences = append(c.rep.Differences, d) }

// schemaVersions compares how the two catalogs group their common
// snapshots by schema_version. Real DuckLake readers cache a snapshot's
// whole schema (tables, columns, partitioning, inlined tables) under its
// schema_version, so snapshots sharing one are read with one schema: the
// grouping, not the numbers (a migration may renumber), must agree. A
// snapshot's group is named by the first snapshot with its schema_version.
func (c *comparison) schemaVersions(sa, sb []Snapshot, common []int64) {
	group := func(snaps []Snapshot) map[int64]int64 {
		first := map[int64]int64{}
		out := map[int64]int64{}
		for _, s := range snaps {
			if _, ok := first[s.SchemaVersion]; !ok {
				first[s.SchemaVersion] = s.ID
			}
			out[s.ID] = first[s.SchemaVersion]
		}
		return out
	}
	ga, gb := group(sa), group(sb)
	for _, id := range common {
		if ga[id] != gb[id] {
			c.add(Difference{Kind: "snapshot", Snapshot: ptr(id), Reason: "schema_version groups the snapshot differently (DuckLake readers read it with the schema of the first snapshot sharing its schema_version)",
				A: fmt.Sprintf("as snapshot %d", ga[id]), B: fmt.Sprintf("as snapshot %d", gb[id])})
		}
	}
}

// timeTies compares, for each snapshot time two or more snapshots share,
// which of them readers resolve AT (TIMESTAMP => t) to: of the snapshots
// at or before t with the latest time, the first in storage order
// (DuckLake 1.3/1.4 select MAX_BY(snapshot_id, snapshot_time), 1.5 and main
// ORDER BY snapshot_time DESC LIMIT 1, and both keep the first row of a
// tie: the real DuckDB 1.3.0 to 2.0.0; the change feed's lower bound,
// MIN_BY or ORDER BY ... ASC, alike). Two catalogs with the same snapshots
// and times whose tied snapshots are stored in another order read other
// snapshots at those times. Times that differ are differences already.
func (c *comparison) timeTies(sa, sb []Snapshot) {
	first := func(snaps []Snapshot) map[string]Snapshot {
		out, n := map[string]Snapshot{}, map[string]int{}
		for _, s := range snaps {
			n[s.Time]++
			if f, ok := out[s.Time]; !ok || s.stored < f.stored {
				out[s.Time] = s
			}
		}
		maps.DeleteFunc(out, func(t string, _ Snapshot) bool { return n[t] < 2 })
		return out
	}
	fa, fb := first(sa), first(sb)
	for _, t := range slices.Sorted(maps.Keys(fa)) {
		a := fa[t]
		b, ok := fb[t]
		if !ok || b.ID == a.ID {
			continue
		}
		c.add(Difference{Kind: "snapshot", Snapshot: ptr(a.ID), Reason: fmt.Sprintf("snapshots share the time %s and are stored in another order: AT (TIMESTAMP => '%s') reads snapshot %d in A, %d in B", t, t, a.ID, b.ID),
			A: fmt.Sprintf("snapshot %d stored first", a.ID), B: fmt.Sprintf("snapshot %d stored first", b.ID)})
	}
}

func (c *comparison) run() error {
	// First: a value B's readers cannot read is found before a read of
	// the rows it spoils fails.
	if err := c.readerValues(); err != nil {
		return err
	}
	sa, err := c.a.Snapshots(c.ctx)
	if err != nil {
		return markA(err)
	}
	sb, err := c.b.Snapshots(c.ctx)
	if err != nil {
		return markB(err)
	}
	c.rep.A.Snapshots, c.rep.B.Snapshots = len(sa), len(sb)
	c.lastA, c.lastB = latestSnapshot(sa), latestSnapshot(sb)
	inB := map[int64]Snapshot{}
	for _, s := range sb {
		inB[s.ID] = s
	}
	inA := map[int64]bool{}
	var common []int64
	for _, s := range sa {
		inA[s.ID] = true
		o, ok := inB[s.ID]
		if !ok {
			c.add(Difference{Kind: "snapshot", Snapshot: ptr(s.ID), Reason: fmt.Sprintf("snapshot %d is only in A", s.ID)})
			continue
		}
		if o.Time != s.Time {
			c.add(Difference{Kind: "snapshot", Snapshot: ptr(s.ID), Reason: "snapshot time differs", A: s.Time, B: o.Time})
		}
		common = append(common, s.ID)
	}
	for _, s := range sb {
		if !inA[s.ID] {
			c.add(Difference{Kind: "snapshot", Snapshot: ptr(s.ID), Reason: fmt.Sprintf("snapshot %d is only in B", s.ID)})
		}
	}
	c.timeTies(sa, sb)
	c.schemaVersions(sa, sb, common)
	if err := c.schemaVersionRows(); err != nil {
		return err
	}
	if c.a.encrypted != c.b.encrypted {
		// DuckLake passes the data files' keys only when it is 'true'.
		c.add(Difference{Kind: "schema", Item: "ducklake_metadata encrypted", Reason: "the encrypted option differs (DuckLake reads the files' encryption keys only when it is 'true')", A: c.a.encrypted, B: c.b.encrypted})
	}
	c.rep.Snapshots = common
	if err := c.snapshotChanges(common); err != nil {
		return err
	}
	if err := c.stats(); err != nil {
		return err
	}
	if err := c.hiveTimeZoneValues(); err != nil {
		return err
	}
	c.extension()
	walk := common
	if carried, from, why := c.carried(common); len(carried) > 0 {
		walk = slices.DeleteFunc(slices.Clone(common), func(s int64) bool { return carried[s] })
		c.rep.Carried = &Carried{A: from.A, B: from.B, Snapshots: len(carried)}
	} else if why != "" {
		c.rep.CarryNote = why
		c.log.Debug("earlier proof not carried", "reason", why)
	}
	// Every data file plan of every walked snapshot, read up front in
	// one query per plan shape; the walk below then reads no data rows.
	t0 := time.Now()
	c.prefetch(walk, rowOptions())
	c.rep.Timings.ScanMS = time.Since(t0).Milliseconds()
	for _, s := range walk {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		c.log.Debug("compare snapshot", "snapshot", s)
		if err := c.snapshot(s); err != nil {
			return fmt.Errorf("snapshot %d: %w", s, err)
		}
	}
	if len(walk) < len(common) {
		// A carried proof walked the other snapshots; the change feed
		// spans every snapshot, so the tables of the latest are compared
		// whether or not the walk met them. The walk misses the latest
		// common snapshot only where neither side's last snapshot is
		// common (carried leaves both out), so the catalogs differ
		// already; this adds the feed's differences
		// (TestCarryFeedOfLatestTables).
		return c.feedDeletesAt(common[len(common)-1])
	}
	return nil
}

// tablesAt returns A's and B's tables at snapshot s that their readers
// resolve by name (readable), and B's by full name. A table of a name the
// readers resolve to another entry (shadowTables) is not read; the schema
// description lists it apart.
func (c *comparison) tablesAt(s int64) (ta, tb []Table, byName map[string]Table, err error) {
	if ta, err = c.a.Tables(c.ctx, s); err != nil {
		return nil, nil, nil, markA(err)
	}
	if tb, err = c.b.Tables(c.ctx, s); err != nil {
		return nil, nil, nil, markB(err)
	}
	ta, tb = readable(ta), readable(tb)
	byName = make(map[string]Table, len(tb))
	for _, t := range tb {
		byName[t.FullName()] = t
	}
	return ta, tb, byName, nil
}

// feedDeletesAt compares the change feed deletions of the tables both
// catalogs show at snapshot s (feedDeletes, once per table pair).
func (c *comparison) feedDeletesAt(s int64) error {
	ta, _, byName, err := c.tablesAt(s)
	if err != nil {
		return err
	}
	for _, x := range ta {
		if y, ok := byName[x.FullName()]; ok {
			if err := c.feedDeletes(x, y); err != nil {
				return fmt.Errorf("table %s: %w", x.Shown(), err)
			}
		}
	}
	return nil
}

// rowOptions are the scan options of the rows a comparison digests: the
// columns and the row id.
func rowOptions() ScanOptions { return ScanOptions{RowIDs: true} }

func ptr(v int64) *int64 { return &v }

func dropPrefix(e entries, prefix string) (dropped []string) {
	for k := range e {
		if strings.HasPrefix(k, prefix) {
			delete(e, k)
			dropped = append(dropped, k)
		}
	}
	slices.Sort(dropped)
	return dropped
}

// notCompared lists note in the report's NotCompared once.
func (c *comparison) notCompared(note string) {
	if !slices.Contains(c.rep.NotCompared, note) {
		c.rep.NotCompared = append(c.rep.NotCompared, note)
	}
}

// expressionDefaults leaves out of the comparison a column's default that
// is an SQL expression in A, whose format can hold one (0.4+), where B's
// format cannot (0.1-0.3) and B has no default for the column: what
// convert's --allow-lossy expression-defaults writes. A default is used
// only by writers (readers fill missing columns from initial_default),
// and B's format has no way to hold it; any other default there is still
// a difference. Each such column is listed in NotCompared once. The other
// way round, an expression default in a 0.4+ B where its 0.1-0.3 A has
// none is a difference, as a literal one is: convert never writes one,
// and B's readers show a default A's do not (it was left out too).
func (c *comparison) expressionDefaults(ea, eb entries) {
	if !c.a.format.Has(formats.CapExpressionDefaults) || c.b.format.Has(formats.CapExpressionDefaults) {
		return
	}
	has, lacks, lacksName := ea, eb, c.rep.B.Format
	for k, v := range has {
		if !strings.HasPrefix(k, "column ") {
			continue
		}
		head, def, ok := strings.Cut(v, " default=")
		if !ok || !strings.HasSuffix(def, " default_kind=expression") {
			continue
		}
		if lacks[k] != head+" default=<none> default_kind=<none>" {
			continue
		}
		has[k] = lacks[k]
		c.notCompared(fmt.Sprintf("default of %s: the SQL expression %s, which format %s cannot hold (used only by writers: expression-defaults)",
			k, strings.TrimSuffix(def, " default_kind=expression"), lacksName))
	}
}

func (c *comparison) snapshot(s int64) error {
	t0 := time.Now()
	ea, err := c.a.schemaEntries(c.ctx, s)
	if err != nil {
		return markA(err)
	}
	eb, err := c.b.schemaEntries(c.ctx, s)
	if err != nil {
		return markB(err)
	}
	// What B's format cannot hold (macros before 0.4, view column
	// comments before 1.1) is not compared: convert refuses it, or drops
	// it where told to (lossy). What A's format cannot hold B must not
	// hold either: B's readers would show a macro or a comment A's never
	// show. (Both were left out when either side lacked them, and a 0.4+
	// B of a 0.3 A with a macro, or a 1.1 B of a 1.0 A with a view column
	// comment, was proved equivalent.)
	// Each is listed in NotCompared, as --allow-lossy's other drops are.
	if !c.b.format.Has(formats.CapMacros) {
		for _, k := range dropPrefix(ea, "macro ") {
			c.notCompared(fmt.Sprintf("%s: format %s cannot hold macros", k, c.rep.B.Format))
		}
	}
	if !c.b.format.Has(formats.CapViewColumnComments) {
		for _, k := range dropPrefix(ea, viewColumnTagPrefix) {
			c.notCompared(fmt.Sprintf("%s: format %s cannot hold view column comments", k, c.rep.B.Format))
		}
	}
	c.expressionDefaults(ea, eb)
	c.diffEntries("schema", ptr(s), "", ea, eb)
	ca, okA, err := c.a.commitInfo(c.ctx, s)
	if err != nil {
		return markA(err)
	}
	cb, okB, err := c.b.commitInfo(c.ctx, s)
	if err != nil {
		return markB(err)
	}
	switch {
	case okA && okB && ca != cb:
		c.add(Difference{Kind: "schema", Snapshot: ptr(s), Item: "commit info", A: ca, B: cb, Reason: "commit info differs"})
	case okA && !okB && ca != noCommitInfo && ca != noSnapshotChanges:
		c.notCompared(fmt.Sprintf("commit info (author, message, extra info) of A's snapshots: format %s cannot hold commit info", c.rep.B.Format))
	case !okA && okB && cb != noCommitInfo && cb != noSnapshotChanges:
		// Commit info exists from 0.3: a B that has it where A's format
		// cannot hold any shows its readers a commit A's never do (it
		// was left out, as commit info A has and B's format cannot hold
		// still is).
		c.add(Difference{Kind: "schema", Snapshot: ptr(s), Item: "commit info", A: "format " + c.rep.A.Format + " has no commit info", B: cb,
			Reason: "commit info in B, whose source's format cannot hold any"})
	}
	c.rep.Timings.SchemaMS += time.Since(t0).Milliseconds()

	ta, tb, byName, err := c.tablesAt(s)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, x := range ta {
		seen[x.FullName()] = true
		y, ok := byName[x.FullName()]
		if !ok {
			c.rep.Tables = append(c.rep.Tables, TableResult{Snapshot: s, Table: x.FullName(), Status: "only_a"})
			continue
		}
		if err := c.table(s, x, y); err != nil {
			return fmt.Errorf("table %s: %w", x.Shown(), err)
		}
	}
	for _, y := range tb {
		if !seen[y.FullName()] {
			c.rep.Tables = append(c.rep.Tables, TableResult{Snapshot: s, Table: y.FullName(), Status: "only_b"})
		}
	}
	return nil
}

func (c *comparison) table(s int64, x, y Table) error {
	t0 := time.Now()
	fa, pa, errA := c.a.fileEntries(c.ctx, x, s, c.onDisk("A", x.FullName()))
	fb, pb, errB := c.b.fileEntries(c.ctx, y, s, c.onDisk("B", y.FullName()))
	if done, err := c.refusedDeleteFiles(s, x, markA(errA), markB(errB)); done || err != nil {
		return err
	}
	c.diffEntries("files", ptr(s), x.FullName(), fa, fb)
	for i := range c.rep.Differences {
		d := &c.rep.Differences[i]
		if k, ok := strings.CutPrefix(d.Item, "deletes of "); ok && d.Kind == "files" && d.Table == x.FullName() && *d.Snapshot == s {
			d.Reason += firstPositionDiff(pa[k], pb[k])
		}
	}
	c.rep.Timings.FilesMS += time.Since(t0).Milliseconds()

	t0 = time.Now()
	defer func() { c.rep.Timings.RowsMS += time.Since(t0).Milliseconds() }()
	opts := rowOptions()
	planA, errA := c.a.tablePlan(c.ctx, x, s, opts)
	planB, errB := c.b.tablePlan(c.ctx, y, s, opts)
	if done, err := c.unreadable(s, x, errA, errB); done || err != nil {
		return err
	}
	var skipA, skipB []bool
	res := TableResult{Snapshot: s, Table: x.FullName(), Status: "matched"}
	if !c.opts.everyDigest {
		skipA, skipB, res.SamePlanFiles = samePlans(planA, planB)
		c.a.memo.countSamePlan(res.SamePlanFiles)
	}
	da, partsA, errA := c.a.planDigest(c.ctx, x, s, opts, planA, skipA)
	db, partsB, errB := c.b.planDigest(c.ctx, y, s, opts, planB, skipB)
	if done, err := c.unreadable(s, x, errA, errB); done || err != nil {
		return err
	}
	if err := c.recordCounts(s, x, opts, planA, planB, skipA, skipB); err != nil {
		return err
	}
	// count(*) is compared on the whole tables' rows: the files left out
	// add the same rows to both sides.
	wholeA, wholeB := Digest{Rows: da.Rows + c.a.samePlanRows(planA, skipA)}, Digest{Rows: db.Rows + c.b.samePlanRows(planB, skipB)}
	if err := c.counts(s, x, y, wholeA, wholeB, partsA, partsB); err != nil {
		return err
	}
	if len(partsA)+len(partsB) > 0 || res.SamePlanFiles == 0 {
		res.A, res.B = &da, &db
	}
	if da != db {
		res.Status = "differed"
		plain := ScanOptions{}
		// A table with a TIMESTAMP_NS value DuckDB cannot render is
		// rendered on both sides with that column as text, so that equal
		// rows have equal texts.
		var ra, rb map[string]int64
		for _, nsText := range []bool{false, true} {
			var errA, errB error
			ra, errA = c.a.rowTexts(c.ctx, x, s, plain, nsText)
			if errA == nil {
				rb, errB = c.b.rowTexts(c.ctx, y, s, plain, nsText)
			}
			if !nsText && (isTimestampNSRenderError(errA) || isTimestampNSRenderError(errB)) {
				continue
			}
			if errA != nil {
				return markA(errA)
			}
			if errB != nil {
				return markB(errB)
			}
			break
		}
		d := diffRows(ra, rb, c.opts.MaxRowDiffs)
		if len(d.OnlyA) == 0 && len(d.OnlyB) == 0 {
			c.add(Difference{Kind: "row_ids", Snapshot: ptr(s), Table: x.FullName(), Reason: "same rows, different row ids"})
		} else {
			res.Rows = &d
			c.add(Difference{Kind: "rows", Snapshot: ptr(s), Table: x.FullName(), Reason: "rows differ", A: da.String(), B: db.String()})
		}
	}
	if err := c.extensionCheck(s, x, y); err != nil {
		return err
	}
	c.rep.Tables = append(c.rep.Tables, res)
	// After the reads: a delete file they fail on is reported by them.
	return c.feedDeletes(x, y)
}

// recordCounts reads the files both sides read under the same plan that no
// scan has read yet (checkPlans), and reports each side's data files whose
// rows under their all-rows plan are not the record_count its catalog
// records (once per side and file).
func (c *comparison) recordCounts(s int64, x Table, opts ScanOptions, pa, pb *tablePlan, skipA, skipB []bool) error {
	if skipA == nil {
		skipA, skipB = make([]bool, len(pa.files)), make([]bool, len(pb.files))
	}
	for _, side := range []struct {
		name string
		r    *Reader
		tp   *tablePlan
		skip []bool
	}{{"A", c.a, pa, skipA}, {"B", c.b, pb, skipB}} {
		if c.self && side.name == "B" {
			continue
		}
		wrong, err := side.r.checkPlans(c.ctx, x, s, opts, side.tp, side.skip)
		if err != nil {
			return c.mark(side.r, err)
		}
		for _, w := range wrong {
			f, n := w.f, w.rows
			key := side.name + " rows " + f.Path
			if c.diskSeen[key] {
				continue
			}
			if c.diskSeen == nil {
				c.diskSeen = map[string]bool{}
			}
			c.diskSeen[key] = true
			c.add(Difference{Kind: "files", Table: x.FullName(), Item: side.r.relPath(f.Path),
				Reason: fmt.Sprintf("%s: record_count is %d, the file has %d rows", c.sideLabel(side.name), f.RecordCount, n)})
		}
	}
	return nil
}

// unreadable reports a table that the real reader of one side's format
// cannot read (UnreadableError, a modelled reader quirk) as a difference of
// kind "unreadable": a reader of that catalog gets an error, not the rows.
// done says the table's rows were not compared; err is any other failure.
func (c *comparison) unreadable(s int64, x Table, errA, errB error) (done bool, err error) {
	ua, okA := AsUnreadable(errA)
	ub, okB := AsUnreadable(errB)
	if (errA != nil && !okA) || (errB != nil && !okB) {
		// Each side's failure is marked with it; a table the real reader
		// of a side's format cannot read (a modelled quirk) is no failure
		// of that side's read.
		if !okA {
			errA = markA(errA)
		}
		if !okB {
			errB = markB(errB)
		}
		if errA != nil && errB != nil && errA.Error() == errB.Error() {
			// The same failure on both sides (a data file both name,
			// read alike): said once.
			return true, &bothFailed{a: errA, b: errB}
		}
		return true, errors.Join(errA, errB)
	}
	if !okA && !okB {
		return false, nil
	}
	d := Difference{Kind: "unreadable", Snapshot: ptr(s), Table: x.FullName()}
	var side []string
	if okA {
		d.A = "cannot read: " + ua.Quirk.Name
		side = append(side, "A: "+ua.Error())
		if c.self {
			side[len(side)-1] = ua.Error()
		}
	}
	if okB {
		d.B = "cannot read: " + ub.Quirk.Name
		side = append(side, "B: "+ub.Error())
	}
	d.Reason = "the reader of a catalog's format cannot read this table (" + strings.Join(side, "; ") + ")"
	c.add(d)
	c.rep.Tables = append(c.rep.Tables, TableResult{Snapshot: s, Table: x.FullName(), Status: "unreadable"})
	return true, nil
}

// refusedDeleteFiles handles the file listings of one table at snapshot s
// that failed on deletes the real readers read otherwise than this reader
// can: a delete file every DuckLake reader refuses (DeleteFileError), or a
// data file with two visible delete files, which they read twice
// (TwoDeleteFilesError). On one side only, that catalog's readers fail, or
// return other rows, where the other's read: a difference (kind
// "unreadable", or "files"; done: the table is not compared further). On
// both, neither can be read, as when neither catalog opens: could not
// compare (ErrIncomparable). Any other failure is returned as it is.
func (c *comparison) refusedDeleteFiles(s int64, x Table, errA, errB error) (done bool, err error) {
	if errA == nil && errB == nil {
		return false, nil
	}
	okA, okB := deleteReadFailure(errA), deleteReadFailure(errB)
	switch {
	case errA != nil && !okA:
		return true, errA
	case errB != nil && !okB:
		return true, errB
	case okA && okB:
		what := fmt.Sprintf("A: %v; B: %v", errA, errB)
		if ua, ok := AsDeleteFileError(errA); ok {
			if ub, ok := AsDeleteFileError(errB); ok && ua.Path == ub.Path {
				what = ua.Error()
			}
		}
		return true, fmt.Errorf("%w: %s at snapshot %d: both catalogs name deletes DuckLake readers refuse or read twice, neither can be compared (%s)", ErrIncomparable, x.Shown(), s, what)
	}
	bad, good, r, e := "A", "B", c.a, errA
	if okB {
		bad, good, r, e = "B", "A", c.b, errB
	}
	d := Difference{Kind: "unreadable", Snapshot: ptr(s), Table: x.FullName()}
	val := "cannot read: delete file refused"
	if u, ok := AsDeleteFileError(e); ok {
		d.Item = r.relPath(u.Path)
		d.Reason = fmt.Sprintf("%s's readers cannot read this table while %s's can: %v", bad, good, u)
		if c.self {
			d.Reason = fmt.Sprintf("its readers cannot read this table: %v", u)
		}
	} else {
		var two *TwoDeleteFilesError
		errors.As(e, &two)
		d.Kind, d.Item, val = "files", "delete files of "+r.relPath(two.DataFile), fmt.Sprintf("delete files %d and %d", two.First, two.Second)
		d.Reason = fmt.Sprintf("%s: data file %s has two visible delete files (ids %d, %d): DuckLake readers read it once per delete file, its rows twice", c.sideLabel(bad), oneline.Name(r.relPath(two.DataFile)), two.First, two.Second)
	}
	if okA {
		d.A = val
	} else {
		d.B = val
	}
	c.add(d)
	c.rep.Tables = append(c.rep.Tables, TableResult{Snapshot: s, Table: x.FullName(), Status: "unreadable"})
	return true, nil
}

// deleteReadFailure reports whether err is one refusedDeleteFiles turns
// into a difference.
func deleteReadFailure(err error) bool {
	var two *TwoDeleteFilesError
	_, refused := AsDeleteFileError(err)
	return refused || errors.As(err, &two)
}

// firstPositionDiff names the first delete position present on one side only.
func firstPositionDiff(a, b []int64) string {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case a[i] < b[j]:
			return fmt.Sprintf("; position %d deleted only in A", a[i])
		default:
			return fmt.Sprintf("; position %d deleted only in B", b[j])
		}
	}
	if i < len(a) {
		return fmt.Sprintf("; position %d deleted only in A", a[i])
	}
	if j < len(b) {
		return fmt.Sprintf("; position %d deleted only in B", b[j])
	}
	return ""
}

// onDisk checks one side's record of a data or delete file against the file
// on disk, and reports a disagreement once per side and file.
func (c *comparison) onDisk(side, table string) func(path string, size int64, footer *int64, format string) error {
	return func(path string, size int64, footer *int64, format string) error {
		problem, err := c.opts.Disk.Check(path, size, footer, format)
		var pe *fs.PathError
		if side == "B" && errors.Is(err, fs.ErrNotExist) && errors.As(err, &pe) && c.onlyBNames(path) {
			return &bReadFailure{err: fmt.Errorf("catalog B names %s, which does not exist and which A does not name: %w", oneline.Name(c.b.relPath(path)), namedPath(pe))}
		}
		if err != nil || problem == "" {
			return err
		}
		key := side + " " + path
		if c.diskSeen[key] {
			return nil
		}
		if c.diskSeen == nil {
			c.diskSeen = map[string]bool{}
		}
		c.diskSeen[key] = true
		c.add(Difference{Kind: "files", Table: table, Item: c.a.relPath(path), Reason: fmt.Sprintf("catalog %s: %s", side, problem)})
		return nil
	}
}

// diffEntries records every entry missing on one side or described differently.
func (c *comparison) diffEntries(kind string, s *int64, table string, a, b entries) {
	if maps.Equal(a, b) {
		return // the usual case, at every snapshot of every table: nothing to sort
	}
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		va, okA := a[k]
		vb, okB := b[k]
		var reason string
		switch {
		case !okB:
			reason = "only in A"
		case !okA:
			reason = "only in B"
		case va != vb:
			reason = "differs: " + attrDiff(va, vb)
		default:
			continue
		}
		c.add(Difference{Kind: kind, Snapshot: s, Table: table, Item: k, A: va, B: vb, Reason: oneline.Escape(k) + " " + reason})
	}
}

// attrDiff names the attributes (key=value, values possibly Go-quoted)
// that differ.
func attrDiff(a, b string) string {
	ma, mb := attrs(a), attrs(b)
	var out []string
	for k, v := range mb {
		if w, ok := ma[k]; !ok || w != v {
			out = append(out, k)
		}
	}
	for k := range ma {
		if _, ok := mb[k]; !ok {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return "value"
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func attrs(s string) map[string]string {
	m := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		k, rest, ok := strings.Cut(s, "=")
		if !ok || strings.Contains(k, " ") {
			m[s] = ""
			break
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			if q, err := strconv.QuotedPrefix(rest); err == nil {
				v, rest = q, rest[len(q):]
			}
		}
		if v == "" {
			v, rest, _ = strings.Cut(rest, " ")
		}
		m[k] = v
		s = rest
	}
	return m
}

// mergeRuns folds a difference repeated unchanged at consecutive compared
// snapshots into one entry with a Through snapshot, so that one altered
// column does not fill the report once per snapshot.
func mergeRuns(diffs []Difference, snapshots []int64) []Difference {
	pos := map[int64]int{}
	for i, s := range snapshots {
		pos[s] = i
	}
	type key struct{ kind, table, item, a, b, reason string }
	last := map[key]int{} // -> index in out
	var out []Difference
	for _, d := range diffs {
		if d.Snapshot == nil {
			out = append(out, d)
			continue
		}
		k := key{d.Kind, d.Table, d.Item, d.A, d.B, d.Reason}
		if i, ok := last[k]; ok {
			prev := out[i].Snapshot
			if out[i].Through != nil {
				prev = out[i].Through
			}
			pi, okP := pos[*prev]
			ci, okC := pos[*d.Snapshot]
			if okP && okC && ci == pi+1 {
				out[i].Through = d.Snapshot
				continue
			}
		}
		last[k] = len(out)
		out = append(out, d)
	}
	return out
}
