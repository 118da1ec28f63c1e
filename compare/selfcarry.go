package compare

import (
	"fmt"
	"slices"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// A self-read walks every snapshot of its catalog, and a version of a lake
// holds every snapshot of the versions before it: a check that reads many
// versions alone walks the same history again at every version (its CPU
// grows with the square of the versions). A self-read may instead carry
// the clean self-read of an earlier catalog of the same lake made in the
// same run (Options.SelfCarry): where the catalog, restricted to the
// earlier catalog's snapshots, is row for row that catalog (restrictedTo,
// as a proof carrying an earlier proof checks it), its readers read at
// those snapshots exactly what the earlier catalog's read there, over the
// same data files, and found readable and true to record_count (a delete
// file the catalog replaced counts as the one it replaced where both delete
// the same positions at every earlier snapshot: deletereplace.go). What
// depends on more than those rows is still checked: the statistics (not
// restricted: a table whose statistics the readers fail to cast is walked
// at every snapshot), and everything of the latest snapshot (delete_count,
// count(*)), which is always walked. docs/repository.md, "The frozen
// catalog read alone".

// SelfCarry is an earlier catalog of the same lake whose self-read (Self)
// this run found clean: Options.SelfCarry.
type SelfCarry struct {
	// Path is the earlier catalog, whose bytes must have the sha256
	// SHA256 (the self-read's bytes: a file that changed since is not
	// carried).
	Path, SHA256 string
	// Read is its clean self-read's report (Report.Equivalent), made over
	// the same data folder with the same options as the carrying read.
	Read *Report
}

// ForCarry is what a run keeps of a clean self-read for later self-reads
// to carry (SelfCarry.Read): its catalog, verdict, readers and snapshots,
// and the listing it holds for, not its table results.
func (r *Report) ForCarry() *Report {
	return &Report{A: r.A, Equivalent: r.Equivalent, Readers: r.Readers, Snapshots: r.Snapshots, heldTo: r.heldTo}
}

// minSelfCarryWork is the least walk a self-read carries an earlier one
// over, in table and data file visits (walkWork): checking the
// restriction costs about 35 ms of DuckDB statements at 200 versions
// (20-60 ms), the self-read's walk about 5 us a visit, which would put
// break-even near 7,000 visits; yet a check carrying from 15,000, 8,000
// or 4,000 visits used no less CPU than at 30,000 (docs/repository.md,
// "Carrying an earlier self-read"), so the shorter walks are walked.
const minSelfCarryWork = 30_000

// selfCarried returns the snapshots of snaps the self-read may leave out,
// carried from the clean self-read of an earlier catalog (one of
// opts.SelfCarry), and why none are (for the report) when it returns none.
func (c *comparison) selfCarried(snaps []int64) (_ map[int64]bool, from string, why string) {
	if c.opts.SelfCarry == nil || c.opts.everyDigest {
		return nil, "", ""
	}
	least := c.opts.CarryMinWork
	if least == 0 {
		least = minSelfCarryWork
	}
	if n, ok := c.walkWork(snaps); ok && n < least {
		return nil, "", fmt.Sprintf("the walk is short (about %d table and file visits): carrying costs more", n)
	}
	var sc SelfCarry
	for _, e := range c.opts.SelfCarry(c.ctx) {
		if e.Read == nil || !e.Read.Equivalent || e.Read.A.Format != c.a.format.Name || !slices.Equal(e.Read.Readers, c.rep.Readers) || e.SHA256 == "" {
			continue
		}
		if sum, err := fileSHA256(e.Path); err != nil || sum != e.SHA256 {
			continue
		}
		sc = e
		break
	}
	if c.ctx.Err() != nil {
		return nil, "", "" // the walk returns the cancellation
	}
	if sc.Read == nil {
		return nil, "", fmt.Sprintf("no clean self-read of an earlier catalog of format %s is at hand", c.a.format.Name)
	}
	// A failure to load the statistics fails every snapshot's read: such
	// a catalog is walked whole.
	if err := c.a.statsFailure(c.ctx, Table{}); err != nil {
		return nil, "", "its readers fail on its statistics"
	}
	if c.ctx.Err() != nil {
		return nil, "", "" // the walk returns the cancellation
	}
	through, why, err := c.a.restrictedTo(c.ctx, sc.Path, sc.SHA256, true)
	if err != nil || why != "" {
		return nil, "", fmt.Sprintf("restricted to %s: %s", oneline.Name(sc.Path), orErr(why, err))
	}
	read := map[int64]bool{}
	for _, s := range sc.Read.Snapshots {
		read[s] = true
	}
	out := map[int64]bool{}
	for _, s := range snaps {
		// The latest snapshot is always walked: what is checked there
		// only (count(*), delete_count) depends on the whole catalog.
		if !read[s] || s > through || s == c.lastA {
			continue
		}
		// The statistics are not in the restriction: a snapshot with a
		// table whose statistics its readers fail to cast is walked,
		// which reports the table as they refuse it.
		tables, err := c.a.Tables(c.ctx, s)
		if err != nil {
			continue // the walk reports it
		}
		castable := true
		for _, x := range tables {
			if bad, err := c.a.uncastableStats(c.ctx, x); err != nil || len(bad) > 0 {
				castable = false
				break
			}
		}
		if castable {
			out[s] = true
		}
	}
	if len(out) == 0 {
		return nil, "", "no snapshot to carry"
	}
	c.selfFrom = sc.Read
	return out, sc.Path, ""
}

// carriedListing is the listing the carried self-read held for
// (Report.heldTo), which the data folders must still hold, as it held it,
// for this read to be kept (stillRead's also): the carried snapshots'
// files were read by the earlier read, not this one, so this read's check
// of its own reader does not cover them; a copy replaced since (another
// run sharing the cache) would otherwise leave a kept self-read naming a
// copy no read of its snapshots saw. why says why it cannot be kept at
// all (the earlier read named no listing); nothing when nothing was
// carried.
func (c *comparison) carriedListing() (also []proofName, why string) {
	if c.selfFrom == nil {
		return nil, ""
	}
	if c.selfFrom.heldTo.base == "" {
		return nil, "the carried self-read was not kept (what it read is not named)"
	}
	return []proofName{c.selfFrom.heldTo}, ""
}
