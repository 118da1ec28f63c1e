package repo

import (
	"context"
	"fmt"

	"github.com/fdl-formats/fdl-formats/compare"
)

// bookkeepingIssues checks a version's frozen catalog (read by rd; key names
// it) against what the FDL specification asks of it ("The frozen catalog")
// and against version.json's ducklake claims, whatever formats fdl.json
// declares:
//
//   - "It holds bookkeeping rows up to ducklake.snapshot_id and none
//     after": its last snapshot (ducklake_snapshot) is
//     ducklake.snapshot_id, and no bookkeeping row names a later snapshot
//     (begin_snapshot, end_snapshot, snapshot_id). files.json is compared
//     at ducklake.snapshot_id, and readers attach the catalog without a
//     snapshot, so a claim short of the catalog's last snapshot gives the
//     readers of files.json other rows than DuckDB's;
//   - "It holds no inlined rows": no ducklake_inlined_data_* or
//     ducklake_inlined_delete_* table holds a row;
//   - ducklake.snapshots, "the range of snapshots this version adds after
//     its parent (first and last)": last is the catalog's last snapshot,
//     and, where the first parent's version.json is at hand and its
//     snapshot_id is below this version's, first comes after the parent's
//     snapshot_id and no later than the catalog's first snapshot after it
//     (a snapshot expired before freezing may leave a gap there);
//   - "a writer must not run ducklake_expire_snapshots ... in a way that
//     removes the snapshot a version was frozen at": every first-parent
//     ancestor's snapshot_id is still a snapshot of the catalog.
//
// A claim the catalog contradicts is a mismatch, a catalog breaking a rule
// a violation: both are differences (exit 3).
func (r *repository) bookkeepingIssues(ctx context.Context, v *version, rd *compare.Reader, key string) []Issue {
	bk, err := rd.Bookkeeping(ctx)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: err.Error(), cause: err}}
	}
	last, ok := bk.Last()
	issues := snapshotIDIssues(v, key, last, ok)
	for _, b := range bk.Breaches() {
		issues = append(issues, Issue{Problem: ProblemViolation, Detail: key + ": " + b})
	}
	parent, _ := r.parentSnapshot(v)
	first, found := firstAfter(bk.Snapshots, parent)
	issues = append(issues, r.snapshotsIssues(v, key, last, ok, first, found)...)
	issues = append(issues, expiredAncestorIssues(v, bk.Snapshots, r.ancestorSnapshots(v), key)...)
	// Read with the bookkeeping (the reader keeps them): the rows the
	// comparison with the parent's history needs (historyIssues).
	if snaps, err := rd.Snapshots(ctx); err == nil {
		r.noteHistory(v, snaps)
	}
	return issues
}

// snapshotIDIssues is the mismatch of v's ducklake.snapshot_id with its
// frozen catalog (key), whose last snapshot is last (ok false: it holds
// none).
func snapshotIDIssues(v *version, key string, last int64, ok bool) []Issue {
	claim := v.prefix() + "version.json: ducklake"
	switch {
	case !ok:
		return []Issue{{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s.snapshot_id is %d, but %s holds no snapshot (ducklake_snapshot is empty)", claim, v.meta.DuckLake.SnapshotID, key)}}
	case last != v.meta.DuckLake.SnapshotID:
		return []Issue{{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s.snapshot_id is %d, but the last snapshot of %s is %d: the frozen catalog holds bookkeeping rows up to ducklake.snapshot_id and none after (readers of the catalog read snapshot %d, readers of files.json snapshot %d)",
			claim, v.meta.DuckLake.SnapshotID, key, last, last, v.meta.DuckLake.SnapshotID)}}
	}
	return nil
}

// snapshotsIssues are the mismatches of v's ducklake.snapshots with its
// frozen catalog (key), whose last snapshot is last (ok false: it holds
// none) and whose first snapshot after v's first parent's snapshot_id is
// first (found false: none), and a snapshot_id not after the parent's.
func (r *repository) snapshotsIssues(v *version, key string, last int64, ok bool, first int64, found bool) []Issue {
	s := v.meta.DuckLake.Snapshots
	if len(s) != 2 || !ok {
		return nil
	}
	var issues []Issue
	claim := v.prefix() + "version.json: ducklake"
	if s[1] != last {
		issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s.snapshots is [%d, %d], but the last snapshot of %s is %d", claim, s[0], s[1], key, last)})
	}
	// A parent frozen at this version's snapshot or later leaves no
	// range to check: in a cycle of parents the history rules report
	// it; otherwise history goes back, which is a false claim here.
	parent, known := r.parentSnapshot(v)
	if known && parent >= v.meta.DuckLake.SnapshotID && r.historyCycle(v) == nil {
		issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s.snapshot_id is %d, not after its first parent %s's snapshot_id %d: a version adds snapshots after its parent's", claim, v.meta.DuckLake.SnapshotID, v.meta.Parents[0], parent)})
	}
	if known && parent < v.meta.DuckLake.SnapshotID {
		after := "after its parent's snapshot_id " + fmt.Sprint(parent)
		if parent < 0 {
			after = "(the version has no parent)"
		}
		switch {
		case !found:
			issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s.snapshots is [%d, %d], but %s holds no snapshot %s", claim, s[0], s[1], key, after)})
		case s[0] <= parent || s[0] > first:
			issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s.snapshots is [%d, %d], but the first snapshot of %s %s is %d", claim, s[0], s[1], key, after, first)})
		}
	}
	return issues
}

// firstAfter is the first of snapshots (in order) after parent.
func firstAfter(snapshots []int64, parent int64) (int64, bool) {
	for _, id := range snapshots {
		if id > parent {
			return id, true
		}
	}
	return 0, false
}

// frozenAt is a version and the snapshot it was frozen at.
type frozenAt struct {
	id   string
	snap int64
}

// ancestorSnapshots follows v's first parents ("follow the first entry for
// history") and returns each ancestor at hand with the snapshot it was
// frozen at, nearest first; it stops at an ancestor not in the repository,
// unreadable, or seen before (a cycle, which the history rules report).
func (r *repository) ancestorSnapshots(v *version) []frozenAt {
	var out []frozenAt
	seen := map[string]bool{v.id: true}
	for cur := v; cur.meta != nil && len(cur.meta.Parents) > 0; {
		id := cur.meta.Parents[0]
		if seen[id] {
			break
		}
		seen[id] = true
		if cur = r.find(id); cur == nil || cur.meta == nil {
			break
		}
		out = append(out, frozenAt{id, cur.meta.DuckLake.SnapshotID})
	}
	return out
}

// expiredAncestorIssues are the ancestors whose snapshot v's frozen catalog
// (key, holding snapshots) no longer holds: "a writer must not run
// ducklake_expire_snapshots on its working catalog in a way that removes
// the snapshot a version was frozen at" (FDL 0.1, Versions: The frozen
// catalog). A reader of v asking for an earlier version's state (AT
// (VERSION => n)) fails on such a catalog. An ancestor frozen at v's
// snapshot or later is the range check's finding, not this one's.
func expiredAncestorIssues(v *version, snapshots []int64, ancestors []frozenAt, key string) []Issue {
	held := make(map[int64]bool, len(snapshots))
	for _, s := range snapshots {
		held[s] = true
	}
	var issues []Issue
	for _, a := range ancestors {
		if a.snap < v.meta.DuckLake.SnapshotID && !held[a.snap] {
			issues = append(issues, Issue{Problem: ProblemViolation, Detail: fmt.Sprintf("%s holds no snapshot %d, the snapshot its ancestor %s was frozen at: the writer expired it (ducklake_expire_snapshots), which FDL forbids (Versions: The frozen catalog), and DuckDB fails on this version's AT (VERSION => %d)", key, a.snap, a.id, a.snap)})
		}
	}
	return issues
}

// parentSnapshot is the ducklake.snapshot_id of v's first parent, -1 for a
// version with no parent; known is false when the parent's version.json is
// not at hand (not in the repository, or unreadable).
func (r *repository) parentSnapshot(v *version) (snap int64, known bool) {
	if len(v.meta.Parents) == 0 {
		return -1, true
	}
	p := r.find(v.meta.Parents[0])
	if p == nil || p.meta == nil {
		return 0, false
	}
	return p.meta.DuckLake.SnapshotID, true
}

// snapshotsPart names, in a content pass's key, the ducklake.snapshots
// claim and the parent's snapshot_id it is checked with, and the
// ancestors' snapshots the catalog must still hold.
func snapshotsPart(claim []int64, parent int64, known bool, ancestors []frozenAt) string {
	part := fmt.Sprintf("snapshots %v after %d", claim, parent)
	if !known {
		part = fmt.Sprintf("snapshots %v, parent unknown", claim)
	}
	for _, a := range ancestors {
		part += fmt.Sprintf(" %s@%d", a.id, a.snap)
	}
	return part
}
