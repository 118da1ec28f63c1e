package repo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fdl-formats/fdl-formats/compare"
)

// A version's frozen catalog holds the snapshots of the versions before it
// ("the range of snapshots this version adds after its parent"; a writer
// must not expire "the snapshot a version was frozen at"): readers of the
// latest version's catalog ask it for an earlier version's state (AT
// (VERSION => n)). Holding a snapshot of the same number is not holding the
// same snapshot: a working catalog restored from an older copy and written
// again, or a lake made anew for each version, numbers its snapshots the
// same way with other contents. The snapshot a first parent was frozen at
// is its frozen catalog's last row of ducklake_snapshot; the child's row of
// that number must be the same row (the time it was committed, its schema
// version). A diverged history differs there (the snapshot was committed
// at another time), whatever snapshot it diverged at.

// historyRowsKind names, in the digest cache, the rows a frozen catalog
// holds at its own last snapshot and at its first parent's, and its last
// snapshot and first after the parent's (historyRows), kept by its sha256
// and the parent's snapshot: a content pass kept clean does not open the
// catalog, and the comparison with the parent runs in every check.
const historyRowsKind = "fdl-formats frozen catalog history rows v2"

// snapshotRow is a row of ducklake_snapshot as compared: its time (text, as
// the reader renders it) and schema version.
type snapshotRow struct {
	Time          string `json:"time"`
	SchemaVersion int64  `json:"schema_version"`
}

// historyRows is what a frozen catalog holds at its own snapshot_id (Own) and
// at its first parent's snapshot (AtParent: nil when it has no parent, the
// parent's snapshot is unknown, or the catalog lacks it), and the
// snapshots its version.json's claims are checked with (ownHistoryIssues):
// its last (Last: nil when it holds none) and its first after its first
// parent's snapshot (FirstAfterParent: nil when none, or the parent's
// snapshot is unknown).
type historyRows struct {
	Own              *snapshotRow `json:"own,omitempty"`
	AtParent         *snapshotRow `json:"at_parent,omitempty"`
	Last             *int64       `json:"last,omitempty"`
	FirstAfterParent *int64       `json:"first_after_parent,omitempty"`
}

// histories are the run's historyRows by version id, and why the rows of
// a parent that the run read for them alone could not be read
// (parentHistory).
type histories struct {
	mu     sync.Mutex
	byID   map[string]historyRows
	failed map[string]rowsFailure
}

// rowsFailure is why a parent's rows could not be read (parentHistory):
// catalogFault tells that the parent's frozen catalog is at fault (a
// folder's absent or not the file its version.json names, or its bytes,
// copied and verified, unreadable: bytesFault), which a check of the
// parent finds as well, rather than this run's transfer of it or the
// answer this run was given; readHere, that the copy was verified and its
// read failed on this machine (a full disk, permissions, DuckDB out of
// memory), not for its bytes.
type rowsFailure struct {
	err                    error
	catalogFault, readHere bool
}

func (h *histories) fail(id string, f rowsFailure) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed == nil {
		h.failed = map[string]rowsFailure{}
	}
	h.failed[id] = f
}

func (h *histories) failure(id string) rowsFailure {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed[id]
}

func (h *histories) put(id string, rows historyRows) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byID == nil {
		h.byID = map[string]historyRows{}
	}
	h.byID[id] = rows
}

func (h *histories) get(id string) (historyRows, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rows, ok := h.byID[id]
	return rows, ok
}

// historyKey is the digest cache key of v's historyRows ("" without a
// cache or a sum).
func (r *repository) historyKey(v *version) string {
	if r.digestCache == nil || v.meta == nil || v.meta.Catalog.SHA256 == "" {
		return ""
	}
	parent, known := r.parentSnapshot(v)
	if !known {
		return ""
	}
	return compare.BuildKey(historyRowsKind, v.meta.Catalog.SHA256, strconv.FormatInt(v.meta.DuckLake.SnapshotID, 10), strconv.FormatInt(parent, 10))
}

// noteHistory keeps, for the run and in the digest cache, the rows v's
// frozen catalog holds at its own snapshot_id and at its first parent's,
// from the snapshots its content pass read.
func (r *repository) noteHistory(v *version, snaps []compare.Snapshot) {
	var rows historyRows
	parent, known := r.parentSnapshot(v)
	for _, s := range snaps {
		row := &snapshotRow{Time: s.Time, SchemaVersion: s.SchemaVersion}
		if s.ID == v.meta.DuckLake.SnapshotID {
			rows.Own = row
		}
		if known && parent >= 0 && s.ID == parent {
			rows.AtParent = row
		}
		if known && s.ID > parent && rows.FirstAfterParent == nil {
			rows.FirstAfterParent = &s.ID
		}
	}
	if len(snaps) > 0 {
		rows.Last = &snaps[len(snaps)-1].ID
	}
	r.histories.put(v.id, rows)
	if key := r.historyKey(v); key != "" {
		if b, err := json.Marshal(rows); err == nil {
			_ = r.digestCache.Put(key, b) // a cache that cannot be written only costs time
		}
	}
}

// historyOf is v's historyRows, from this run's content pass or the cache.
func (r *repository) historyOf(v *version) (historyRows, bool) {
	if rows, ok := r.histories.get(v.id); ok {
		return rows, true
	}
	key := r.historyKey(v)
	if key == "" {
		return historyRows{}, false
	}
	b, ok := r.digestCache.Get(key)
	if !ok {
		return historyRows{}, false
	}
	var rows historyRows
	if err := json.Unmarshal(b, &rows); err != nil {
		return historyRows{}, false
	}
	r.histories.put(v.id, rows) // asked again as the parent of the next version
	return rows, true
}

// comparedParent is v's first parent when historyIssues compares v's
// history with it: a parent in the repository whose version.json was read
// (an expired one too, whose row only the cache can give: no content pass
// reads it), frozen before v's snapshot, on no cycle of parents; else nil.
func (r *repository) comparedParent(v *version) *version {
	if v.meta == nil || len(v.meta.Parents) == 0 || r.historyCycle(v) != nil {
		return nil
	}
	p := r.find(v.meta.Parents[0])
	if p == nil || p.meta == nil || p.meta.DuckLake.SnapshotID >= v.meta.DuckLake.SnapshotID {
		return nil
	}
	return p
}

// unreadParents are the first parents historyIssues compares a version of
// m with (one whose content pass runs) that no content pass of the run
// reads, as the run does not select them (--versions, --shard), and whose
// rows the cache does not hold: parentHistory reads each, once. A parent
// the run selects reads as its content pass does (none for a parent in
// error or expired: then, as an unselected parent that is expired or
// whose version.json cannot be read, its row is compared only when the
// cache holds it). A version whose own rows are kept and hold no row at
// its parent's snapshot needs none.
func (r *repository) unreadParents(m *Matrix) []*version {
	inRun := map[string]bool{}
	for _, vp := range m.Versions {
		inRun[vp.ID] = true
	}
	var out []*version
	for _, vp := range m.Versions {
		if vp.Error != "" || vp.Skipped != "" || vp.v == nil {
			continue
		}
		p := r.comparedParent(vp.v)
		if p == nil || p.err != nil || p.expired != nil || inRun[p.id] {
			continue
		}
		if own, ok := r.historyOf(vp.v); ok && own.AtParent == nil {
			continue
		}
		if _, ok := r.historyOf(p); ok {
			continue
		}
		inRun[p.id] = true // once
		out = append(out, p)
	}
	return out
}

// parentHistory reads the rows historyIssues compares (noteHistory) from
// p's frozen catalog, a parent no content pass of the run reads
// (unreadParents): a verified copy, as a content pass makes it (a remote
// store's through the download cache), opened to read ducklake_snapshot
// alone (not read whole, nor its data files). The rows are kept in the
// cache as a content pass keeps them. What fails is kept for historyIssues
// (an error of a run that is stopping is not).
func (r *repository) parentHistory(ctx context.Context, p *version, frozen *frozenCopies, source *compare.Source) {
	snaps, failed := func() ([]compare.Snapshot, rowsFailure) {
		src, problem, err := frozen.catalog(ctx, p)
		if err != nil {
			// A file that is not the one version.json names, or is gone,
			// is the catalog's fault only where every run reads the same
			// file: a folder's. What a bucket or web site answered this
			// run proves nothing of what it answers another (a CDN edge or
			// replica serving an older copy, a proxy's cache, a transfer
			// gone wrong): the parent's shard may get the recorded bytes.
			return nil, rowsFailure{err: err, catalogFault: r.remote == nil && (problem == ProblemMismatch || errors.Is(err, fs.ErrNotExist))}
		}
		// The copy holds the bytes version.json hashes: a read of them
		// that fails is their fault only where every reader of them fails
		// so (bytesFault), not where this machine failed (the parent's
		// shard, on another, may read them and pass).
		key := p.prefix() + p.meta.Catalog.Path
		failed := func(err error) rowsFailure {
			fault := bytesFault(err, src)
			return rowsFailure{err: fmt.Errorf("read %s: %s", key, copyNamed(err, src, key)), catalogFault: fault, readHere: !fault}
		}
		rd, done, err := source.Reader(ctx, src, compare.ReaderOptions{DataPath: r.dataPath, Engines: r.engines, Listings: r.listings, Gate: r.gate()})
		if err != nil {
			return nil, failed(err)
		}
		defer done() //nolint:errcheck // a reader that only read
		snaps, err := rd.Snapshots(ctx)
		if err != nil {
			return nil, failed(err)
		}
		return snaps, rowsFailure{}
	}()
	switch {
	case failed.err == nil:
		r.noteHistory(p, snaps)
		r.log.Debug("history rows read of a first parent the run does not check", "version", p.id, "key", p.prefix()+p.meta.Catalog.Path)
	case ctx.Err() == nil:
		r.histories.fail(p.id, failed)
	}
}

// historyIssues compares the row v's frozen catalog holds at its first
// parent's snapshot with the parent's own, where both are known (the
// parent's frozen catalog read by this run's content pass, or for this
// alone where the run does not select the parent (parentHistory), or by
// an earlier run of this build: the cache). A parent whose row could not
// be read so leaves v's history unverifiable. A parent the run does not
// check (not in inRun) whose frozen catalog contradicts its own
// version.json's snapshot_id or snapshots (ownHistoryIssues: a whole check
// reports that of the parent) leaves nothing to compare with: a
// difference of v naming the parent's fault. A missing snapshot is
// expiredAncestorIssues' finding, a parent frozen at v's snapshot or later
// the snapshots claim's, a cycle the history rules'.
//
// A parent that another shard of the run's --shard holds (otherShards) is
// checked by that shard's run, which reports its frozen catalog's faults
// as the parent's own, as a whole check does: v's shard does not report
// again as v's (the shards' reports add up to the whole check's), it
// logs, a fault that shard is sure to find too: one of the bytes
// version.json hashes (parentHistory read them, or the cache holds their
// rows), or a folder's file that is not those bytes or is gone. A bucket's
// or web site's answer that is not those bytes or is absent (the shard of
// the parent may be answered the recorded bytes), and a transfer that
// failed, leave v's history unverifiable in v's shard.
func (r *repository) historyIssues(v *version, inRun, otherShards map[string]bool) []Issue {
	if is := r.parentAnsweredUnusable(v, otherShards); is != nil {
		return []Issue{*is}
	}
	p := r.comparedParent(v)
	if p == nil {
		return nil
	}
	own, ok := r.historyOf(v)
	if !ok || own.AtParent == nil {
		return nil
	}
	theirs, ok := r.historyOf(p)
	if !ok {
		if f := r.histories.failure(p.id); f.err != nil {
			err := f.err
			if f.catalogFault && otherShards[p.id] {
				r.log.Warn("the history is not compared with its first parent's, whose frozen catalog is at fault (missing, not the file its version.json names, or unreadable); the shard that holds the parent reports it", "version", v.id, "parent", p.id, "error", err)
				return nil
			}
			elsewhere := ""
			switch {
			case otherShards[p.id] && f.readHere:
				elsewhere = "; the shard that holds the parent reports its catalog's faults, but this is no fault of the catalog's bytes, which matched its version.json's sha256: reading them failed on this machine (its disk, permissions or memory, DuckDB itself), and the parent's shard, on another, may read them and pass, so no shard verified this history: run this shard again"
			case otherShards[p.id]:
				elsewhere = "; the shard that holds the parent reports its catalog's faults, but what the store answered this run is no proof of what it answers that shard (a CDN edge or replica serving an older copy, a proxy's cache, a transfer gone wrong), so no shard verified this history: run this shard again"
			}
			return []Issue{{Problem: ProblemUnreadable, cause: &parentRowError{parent: p.id, shard: otherShards[p.id], here: f.readHere, err: err}, Detail: fmt.Sprintf(
				"%s%s: snapshot %d, the one its first parent %s was frozen at, cannot be compared with the parent's own (the last row of ducklake_snapshot in %s%s), read for that alone as this run does not check the parent (left out by --versions or --shard): %v; check the parent (`fdl-formats check --versions %s`), whose frozen catalog is at fault, could not be fetched or could not be read here%s",
				v.prefix(), v.meta.Catalog.Path, p.meta.DuckLake.SnapshotID, p.id, p.prefix(), p.meta.Catalog.Path, err, p.id, elsewhere)}}
		}
		return nil
	}
	if faults := r.unselectedFaults(p, theirs, inRun); len(faults) > 0 {
		details := make([]string, len(faults))
		for i, f := range faults {
			details[i] = f.Detail
		}
		if otherShards[p.id] {
			r.log.Warn("the history is not compared with its first parent's, whose frozen catalog contradicts its version.json; the shard that holds the parent reports it", "version", v.id, "parent", p.id, "fault", strings.Join(details, "; "))
			return nil
		}
		return []Issue{{Problem: ProblemMismatch, cause: &parentRowError{parent: p.id, own: true, err: errors.New(details[0])}, Detail: fmt.Sprintf(
			"%s%s: snapshot %d, the one its first parent %s was frozen at, cannot be compared with the parent's own: the parent's frozen catalog %s%s, read for that alone as this run does not check the parent (left out by --versions or --shard), contradicts the parent's version.json (%s), so this version's history cannot be verified against it; check the parent (`fdl-formats check --versions %s`), whose frozen catalog or version.json is at fault",
			v.prefix(), v.meta.Catalog.Path, p.meta.DuckLake.SnapshotID, p.id, p.prefix(), p.meta.Catalog.Path, strings.Join(details, "; "), p.id)}}
	}
	if theirs.Own == nil || sameSnapshot(*theirs.Own, *own.AtParent) {
		return nil
	}
	return []Issue{{Problem: ProblemMismatch, Detail: fmt.Sprintf(
		"%s%s: snapshot %d, the one its first parent %s was frozen at, is another snapshot here (committed %s, schema version %d) than in %s%s (committed %s, schema version %d): this catalog's history is not its parent's (a working catalog restored from an older copy and written again, or a lake made anew, numbers its snapshots alike), so readers asking it for the parent's state (AT (VERSION => %d)) get other rows than the parent version; publish the version from the parent's working catalog, or name its real parent",
		v.prefix(), v.meta.Catalog.Path, p.meta.DuckLake.SnapshotID, p.id, own.AtParent.Time, own.AtParent.SchemaVersion,
		p.prefix(), p.meta.Catalog.Path, theirs.Own.Time, theirs.Own.SchemaVersion, p.meta.DuckLake.SnapshotID)}}
}

// parentAnsweredUnusable is v's unverifiable history in a --shard run on
// a bucket or web site that answered v's first parent's version.json with
// nothing usable (missing, not JSON, not a version.json), where another
// shard of the split holds the parent: that shard reports such a file as
// the parent's own fault, but what the store answered this run proves
// nothing of what it answers that shard (which may read the file whole,
// check the parent and pass), and without it v's history, seq and changes
// are checked against nothing. In a folder every shard reads the same
// file: the parent's shard reports it, and v's notes say what was not
// checked, as in a whole check (seqIssue).
func (r *repository) parentAnsweredUnusable(v *version, otherShards map[string]bool) *Issue {
	if r.remote == nil || v.meta == nil || len(v.meta.Parents) == 0 {
		return nil
	}
	p := r.find(v.meta.Parents[0])
	if p == nil || p.meta != nil || p.err == nil || !otherShards[p.id] {
		return nil
	}
	return &Issue{Problem: ProblemUnreadable, cause: &parentRowError{parent: p.id, shard: true, err: p.err}, Detail: fmt.Sprintf(
		"%sversion.json: its history, seq and changes cannot be checked against its first parent %s, whose %sversion.json, as the store answered this run, cannot be used: %v; the shard that holds the parent reports a fault of that file as the parent's own, but what the store answered this run is no proof of what it answers that shard (a CDN edge or replica serving an older copy, a proxy's cache, a transfer gone wrong), so no shard verified this history: run this shard again",
		v.prefix(), p.id, p.prefix(), p.err)}
}

// ownHistoryIssues are the claims of p's version.json (ducklake.snapshot_id
// and snapshots) that its frozen catalog contradicts, from the rows its
// content pass or parentHistory kept (rows): the findings a content pass of
// p reports (bookkeepingIssues).
func (r *repository) ownHistoryIssues(p *version, rows historyRows) []Issue {
	key := p.prefix() + p.meta.Catalog.Path
	var last, first int64
	if rows.Last != nil {
		last = *rows.Last
	}
	if rows.FirstAfterParent != nil {
		first = *rows.FirstAfterParent
	}
	issues := snapshotIDIssues(p, key, last, rows.Last != nil)
	return append(issues, r.snapshotsIssues(p, key, last, rows.Last != nil, first, rows.FirstAfterParent != nil)...)
}

// unselectedFaults are ownHistoryIssues of parent p when the run does not
// check it (not in inRun: a check of p reports them as its own); none for
// an expired parent or one in error, as unreadParents reads none.
func (r *repository) unselectedFaults(p *version, rows historyRows, inRun map[string]bool) []Issue {
	if inRun[p.id] || p.err != nil || p.expired != nil {
		return nil
	}
	return r.ownHistoryIssues(p, rows)
}

// parentRowError is why the rows of a first parent that the run does not
// select could not be read (parentHistory), or (own) why they are no
// history to compare with (ownHistoryIssues): the cause of the child's
// unverifiable or unverified history, whose hint is to check the parent.
type parentRowError struct {
	parent string // the parent's version id
	own    bool   // the parent's frozen catalog contradicts its version.json
	// shard: another shard of the run's --shard split checks the parent.
	shard bool
	// here: the parent's catalog matched its version.json and reading it
	// failed on this machine (rowsFailure.readHere).
	here bool
	err  error
}

func (e *parentRowError) Error() string { return e.err.Error() }
func (e *parentRowError) Unwrap() error { return e.err }

// sameSnapshot reports whether two rows of ducklake_snapshot are the same
// commit: the same schema version, committed at the same instant
// (sameInstant). The instant, not the text: a catalog copied through a
// tool that typed snapshot_time a TIMESTAMP renders it without the "+00" a
// TIMESTAMPTZ has (both read at TimeZone UTC), the same commit all the
// same. A time that is not read as one (infinity, a date BC) is compared
// as text.
func sameSnapshot(a, b snapshotRow) bool {
	if a.SchemaVersion != b.SchemaVersion {
		return false
	}
	ta, okA := snapshotInstant(a.Time)
	tb, okB := snapshotInstant(b.Time)
	if okA && okB {
		return sameInstant(ta, tb) || sameInstant(tb, ta)
	}
	return a.Time == b.Time
}

// sameInstant reports whether a commit time read at microseconds (fine)
// is coarse, the same time kept by a metadata database at a coarser
// precision: coarse equal to fine, or, when coarse has no digit below
// the millisecond (or none below the second), fine truncated or rounded
// (half up) to that precision. A lake whose working catalog moved from a
// DuckDB file to MySQL keeps its earlier snapshots' times so: DuckDB's
// MySQL extension declares DuckLake's TIMESTAMPTZ column a MySQL
// TIMESTAMP, whole seconds, and MySQL rounds the fractional seconds it is
// given (truncates them under TIME_TRUNCATE_FRACTIONAL, as MariaDB does by
// default); a column declared DATETIME(3) keeps milliseconds. The
// precision is read from the digits, so a time that happened to fall on a
// whole second is taken for a coarser one: a history that diverged within
// that second of the parent's commit is not told apart.
func sameInstant(coarse, fine time.Time) bool {
	if coarse.Equal(fine) {
		return true
	}
	var unit time.Duration
	switch ns := coarse.Nanosecond(); {
	case ns == 0:
		unit = time.Second
	case ns%int(time.Millisecond) == 0:
		unit = time.Millisecond
	default:
		return false
	}
	return coarse.Equal(fine.Truncate(unit)) || coarse.Equal(fine.Round(unit))
}

// snapshotInstant reads snapshot_time as DuckDB renders it at TimeZone
// UTC: "2026-12-04 22:41:19.515388+00" for a TIMESTAMPTZ, without the
// offset (UTC) for a TIMESTAMP; fractional seconds are read whatever
// their digits (Go reads them after the seconds unasked).
func snapshotInstant(text string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05Z07", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, text); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
