package compare

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"
)

// ErrCatalogDiffers is wrapped by Self's error when a catalog disagrees
// with its own data files or its format's readers cannot read a table of
// it: what a proof would report as a difference of its side A, found with
// no side B.
var ErrCatalogDiffers = errors.New("the catalog disagrees with its data files, or its readers cannot read it")

// selfReadMarker stands for side B in the key of a kept self-read (no
// sha256 is this text, so no proof's key is a self-read's).
const selfReadMarker = "self-read v1"

// Self reads catalog a as a proof reads its side A (Catalogs), with no side
// B: every table at every snapshot, with the reader model of a's own format,
// every data file read under its all-rows plan (a check scan, kept in the
// digest cache where a later proof takes it) and every partial file's and
// inlined rows digested. It reports, as differences, what a proof would
// report of side A: a table the format's real readers cannot read (a
// modelled quirk, statistics they fail to cast, delete files they refuse or
// read twice), a data file whose rows are not the record_count recorded,
// a delete file whose delete_count is not the positions it deletes at the
// latest snapshot, and a count(*) answered from the catalog that is not
// the rows. A file that cannot be read (damaged, missing) stops the read:
// an error wrapping ErrIncomparable. Differences give an error wrapping
// ErrCatalogDiffers. A clean read is kept in opts.DigestCache under a's
// sha256 (opts.SumA) and the data folder's listing, found again while the
// folder only gains files (KeptSelf); Report.Equivalent is then true.
// Options used: DataPath, Logger, DigestCache, Digests, SumA, AReadWhole,
// Deletes, Engines, Source, Listings, BeforeRead, Gate, SelfCarry and
// CarryMinWork (an earlier clean self-read carried: its snapshots not
// walked again, Report.Carried).
func Self(ctx context.Context, a string, opts Options) (*Report, error) {
	start := time.Now()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	name := selfName(a, opts)
	if kept, ok := findKept(opts, name); ok {
		rep := keptReport(kept, a, "", start)
		rep.heldTo = name
		return rep, nil
	}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(ctx); err != nil {
			return nil, err
		}
	}
	ra, own, err := opts.Source.reader(ctx, a, ReaderOptions{DataPath: opts.DataPath, Engines: opts.Engines, AsSource: true, Listings: opts.Listings, Gate: opts.Gate})
	ra.setGate(opts.Gate)
	if ra != nil && own {
		defer ra.Close()
	}
	if err == nil {
		switch {
		case opts.AReadWhole:
		case own:
			err = ra.ReadEveryTable(ctx)
		default:
			err = opts.Source.readEveryTable(ctx)
		}
	}
	if err != nil {
		return nil, incomparable(fmt.Errorf("read %s: %w", a, err))
	}
	if name.base == "" || !ra.allPathsRelative(ctx) {
		name = proofName{} // files outside the data folder: the key does not name them
	}
	rep := &Report{A: CatalogInfo{Path: a, DataPath: ra.DataPath(), Format: ra.Format().Name}, Readers: []string{ReaderOwn}, Differences: []Difference{}}
	shared := opts.Digests
	if shared == nil {
		shared = NewDigests(opts.DigestCache)
	}
	ra.memo = newDigestMemo(shared)
	dels := ra.rawDeletes.useRun(opts.Deletes)
	c := &comparison{ctx: ctx, a: ra, b: ra, self: true, rep: rep, opts: opts, log: log}
	err = c.selfRun()
	rep.Differences = mergeRuns(rep.Differences, rep.Snapshots)
	for i := range rep.Differences {
		rep.Differences[i].A = "" // one side: its reason says it all
	}
	rep.Digests = ra.memo.snapshot()
	now := ra.rawDeletes.counts()
	rep.DeleteFiles = &DeleteFileStats{Read: now.Read - dels.Read, Shared: now.Shared - dels.Shared}
	rep.Timings.TotalMS = time.Since(start).Milliseconds()
	if err != nil {
		err = incomparable(fmt.Errorf("read %s: %w", a, err))
		rep.Incomparable = err.Error()
		if len(rep.Differences) == 0 || ctx.Err() != nil {
			return rep, err
		}
		return rep, fmt.Errorf("%w: %s (format %s): %d difference(s) before the read stopped, first: %s; then: %v",
			ErrCatalogDiffers, a, rep.A.Format, len(rep.Differences), rep.Differences[0], err)
	}
	if len(rep.Differences) > 0 {
		return rep, fmt.Errorf("%w: %s (format %s): %d difference(s), first: %s",
			ErrCatalogDiffers, a, rep.A.Format, len(rep.Differences), rep.Differences[0])
	}
	rep.Equivalent = true
	if opts.DigestCache != nil && name.base != "" {
		// As a proof (Catalogs): kept only while what it read is still
		// what its key names (identity.go).
		// A carrying read also holds the carried read's listing
		// (carriedListing), in the same walk.
		also, why := c.carriedListing()
		if why != "" {
			log.Warn("the self-read is not kept: "+why, "a", a, "carried", c.selfFrom.A.Path)
			name = proofName{}
		} else if what, ok := stillRead(opts.Listings, name, also, ra); !ok {
			log.Warn("a data file changed while the self-read, or the earlier one it carried, read its folder (another run sharing the cache replaced a copy?): the read holds for what was read, and is not kept",
				"a", a, "file", what)
			name = proofName{}
		}
	}
	keepProof(opts.DigestCache, name, rep, opts.Listings)
	rep.heldTo = name
	return rep, nil
}

// KeptSelf returns the report of a clean self-read (Self) kept in
// opts.DigestCache for the catalog whose bytes have the sha256 opts.SumA,
// over the data folder opts.DataPath as it is now, without opening the
// catalog (a only names it in the report); as KeptProof.
func KeptSelf(a string, opts Options) (*Report, bool) {
	start := time.Now()
	if opts.SumA == "" {
		return nil, false
	}
	name := selfName(a, opts)
	kept, ok := findKept(opts, name)
	if !ok {
		return nil, false
	}
	rep := keptReport(kept, a, "", start)
	rep.heldTo = name
	return rep, true
}

// selfName names a self-read of catalog a (opts.SumA, "" to hash it) over
// its data folder as it is: a proof's name with the marker for side B and
// none of the proof's rules.
func selfName(a string, opts Options) proofName {
	if opts.DigestCache == nil || opts.DataPath == "" {
		return proofName{}
	}
	opts.BUnderDataPath, opts.BBookkeeping = false, false
	dp := overridePath(opts.DataPath)
	if opts.SumA == "" {
		return inputsName(a, a, dp, dp, "", selfReadMarker, opts.Listings, opts)
	}
	return sumsName(opts.SumA, selfReadMarker, dp, dp, opts.Listings, opts)
}

// selfRun walks every snapshot of side A alone (comparison.self).
func (c *comparison) selfRun() error {
	snaps, err := c.a.Snapshots(c.ctx)
	if err != nil {
		return err
	}
	c.rep.A.Snapshots = len(snaps)
	c.lastA = latestSnapshot(snaps)
	c.lastB = c.lastA
	ids := make([]int64, len(snaps))
	for i, s := range snaps {
		ids[i] = s.ID
	}
	c.rep.Snapshots = ids
	walk := ids
	if carried, from, why := c.selfCarried(ids); len(carried) > 0 {
		walk = slices.DeleteFunc(slices.Clone(ids), func(s int64) bool { return carried[s] })
		c.rep.Carried = &Carried{A: from, Snapshots: len(carried)}
	} else if why != "" {
		c.rep.CarryNote = why
		c.log.Debug("earlier self-read not carried", "reason", why)
	}
	t0 := time.Now()
	c.prefetch(walk, rowOptions())
	c.rep.Timings.ScanMS = time.Since(t0).Milliseconds()
	for _, s := range walk {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if _, err := c.a.schemaEntries(c.ctx, s); err != nil {
			return fmt.Errorf("snapshot %d: %w", s, err)
		}
		tables, err := c.a.Tables(c.ctx, s)
		if err != nil {
			return fmt.Errorf("snapshot %d: %w", s, err)
		}
		for _, x := range tables {
			if x.notLoaded {
				// No column visible: the readers' load leaves it out,
				// and there is nothing of it to read (its description
				// says so).
				continue
			}
			if err := c.selfTable(s, x); err != nil {
				return fmt.Errorf("snapshot %d: table %s: %w", s, x.Shown(), err)
			}
		}
	}
	return nil
}

// selfTable reads one table of side A at snapshot s as comparison.table
// reads it: its files listed, its plan made (the reader model's refusals),
// every whole data file read by a check scan and held to its record_count,
// partial files and inlined rows digested, and at the latest snapshot the
// delete counts and the count(*) answer. The files' sizes and footers are
// the caller's to check (a check's content pass does).
func (c *comparison) selfTable(s int64, x Table) error {
	noDisk := func(string, int64, *int64, string) error { return nil }
	err := c.a.fileErrors(c.ctx, x, s, noDisk)
	if done, err := c.refusedDeleteFiles(s, x, err, nil); done || err != nil {
		return err
	}
	opts := rowOptions()
	plan, err := c.a.tablePlan(c.ctx, x, s, opts)
	if done, err := c.unreadable(s, x, err, nil); done || err != nil {
		return err
	}
	// Every whole file pairs with itself: checked, not digested.
	skip := selfSkip(plan)
	n := 0
	for _, k := range skip {
		if k {
			n++
		}
	}
	d, parts, err := c.a.planDigest(c.ctx, x, s, opts, plan, skip)
	if done, err := c.unreadable(s, x, err, nil); done || err != nil {
		return err
	}
	if err := c.recordCounts(s, x, opts, plan, plan, skip, skip); err != nil {
		return err
	}
	rows := d.Rows + c.a.samePlanRows(plan, skip)
	if err := c.counts(s, x, x, Digest{Rows: rows}, Digest{Rows: rows}, parts, parts); err != nil {
		return err
	}
	c.rep.Tables = append(c.rep.Tables, TableResult{Snapshot: s, Table: x.FullName(), Status: "matched", A: &d, SamePlanFiles: n})
	return nil
}

// sideLabel names a side of a comparison in a difference's reason: "catalog
// A" or "catalog B", or "the catalog" in a self-read.
func (c *comparison) sideLabel(side string) string {
	if c.self {
		return "the catalog"
	}
	return "catalog " + side
}
