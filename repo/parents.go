package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/store"
)

// specSeq quotes the spec's rule for seq (FDL 0.1, Versions, version.json).
const specSeq = "seq is 1 for the first version and the first parent's seq plus 1 after (FDL 0.1, Versions: version.json)"

// parentIssues checks what v's version.json says of its history: each
// parent is in the repository, seq follows the first parent's, and the
// first parents, which readers follow for history (FDL Versions page), do
// not come back to v. notes say what could not be checked (a seq whose
// parent's version.json is gone); they fail nothing.
//
// A parent whose folder is there counts, whatever its state (expired,
// withdrawn or invalid: those are reported on their own). On a store whose
// listing may leave files out (a web site, store.ListsPartially), a parent
// the listing does not show is probed where readers would open it: if its
// version.json or expired.json is there, the listing hid it, and the
// version is unverifiable rather than wrong. Other stores list every
// version (a folder's listing follows links and fails on what it cannot
// read; a bucket lists consistently), so a parent they do not list is not
// there.
func (r *repository) parentIssues(ctx context.Context, v *version) (issues []Issue, notes []string) {
	for i, id := range v.meta.Parents {
		if r.find(id) != nil {
			continue
		}
		field := fmt.Sprintf("%sversion.json: parents[%d]", v.prefix(), i)
		if store.ListsPartially(r.st) {
			if key, err := r.probeVersion(ctx, id); err != nil {
				issues = append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("%s: version %s is not listed under %s and probing it failed: %v", field, id, VersionsDir, err), cause: err})
				continue
			} else if key != "" {
				issues = append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("%s: version %s is not listed under %s, yet %s exists: the store's listing hides it", field, id, VersionsDir, key)})
				continue
			}
		}
		issues = append(issues, Issue{Problem: ProblemViolation, Detail: fmt.Sprintf("%s: version %s is not in the repository (no folder %s%s/): readers following its history find nothing", field, id, VersionsDir, id)})
	}
	// On a cycle of first parents no seq can follow its parent's all the
	// way round: the cycle is the finding, not the seqs.
	if cycle := r.historyCycle(v); cycle != nil {
		issues = append(issues, Issue{Problem: ProblemInvalid, Detail: fmt.Sprintf("%sversion.json: parents[0]: its history comes back to it (%s): following first parents, as readers do for history, never reaches a first version; a version cannot be its own ancestor", v.prefix(), strings.Join(append(cycle, v.id), " -> "))})
	} else if is, note := r.seqIssue(v); is != nil {
		issues = append(issues, *is)
	} else if note != "" {
		notes = append(notes, note)
	}
	return issues, notes
}

// seqIssue checks v's seq against the spec's rule (specSeq): invalid
// version metadata, which readers show people as the version's number. A
// first parent that is not in the repository, or not listed, is reported
// by parentIssues, and seq is not checked against it; neither is it
// against a parent whose version.json is gone or unusable.
//
// A withdrawn parent whose version.json is gone is as the spec has it
// ("version.json itself is deleted if it holds the withdrawn data", FDL
// 0.1, Versions), and nothing can ever mend the unchecked seq: the
// parent's version.json must stay gone and v's may not change. A note
// there repeated on every scheduled run, asking for nothing, so it is
// silent. Any other parent without version.json is not (only a withdrawal
// deletes it): note says what mends it.
func (r *repository) seqIssue(v *version) (_ *Issue, note string) {
	field := v.prefix() + "version.json: seq"
	if len(v.meta.Parents) == 0 {
		if v.meta.Seq != 1 {
			return &Issue{Problem: ProblemInvalid, Detail: fmt.Sprintf("%s: %d for a version without parents, want 1: %s; readers would show it as version %d", field, v.meta.Seq, specSeq, v.meta.Seq)}, ""
		}
		return nil, ""
	}
	pid := v.meta.Parents[0]
	p := r.find(pid)
	switch {
	case p == nil:
		return nil, ""
	case p.meta == nil && p.expired != nil && p.err == nil && p.expired.Reason == fdljson.ReasonWithdrawn:
		return nil, ""
	case p.meta == nil && p.expired != nil && p.err == nil:
		return nil, fmt.Sprintf("%s: %d not checked: its first parent %s is marked %q (expired.json) and its version.json is gone, which the spec allows only for a withdrawal (FDL 0.1, Versions: version.json is deleted if it holds the withdrawn data); restore %s, or, if the version was withdrawn, say so in its expired.json (\"reason\": \"withdrawn\")", field, v.meta.Seq, pid, p.expired.Reason, objectName(r.st, p.prefix()+"version.json"))
	case p.meta == nil:
		return nil, fmt.Sprintf("%s: %d not checked: the version.json of its first parent %s cannot be used (%v)", field, v.meta.Seq, pid, p.err)
	case v.meta.Seq != p.meta.Seq+1:
		return &Issue{Problem: ProblemInvalid, Detail: fmt.Sprintf("%s: %d, want %d: its first parent %s has seq %d, and %s; readers would show it as version %d", field, v.meta.Seq, p.meta.Seq+1, pid, p.meta.Seq, specSeq, v.meta.Seq)}, ""
	}
	return nil, ""
}

// historyCycle follows v's first parents and returns the versions on the
// way when they come back to v (v first, not repeated at the end), else
// nil. The walk stops at a parent not in the repository, one without a
// usable version.json, or one met before (a cycle v is not on, reported
// on the versions that are): it takes at most one step per version.
func (r *repository) historyCycle(v *version) []string {
	path := []string{v.id}
	seen := map[string]bool{v.id: true}
	for cur := v; cur.meta != nil && len(cur.meta.Parents) > 0; {
		id := cur.meta.Parents[0]
		if id == v.id {
			return path
		}
		if seen[id] {
			return nil
		}
		seen[id] = true
		if cur = r.find(id); cur == nil {
			return nil
		}
		path = append(path, id)
	}
	return nil
}

// probeVersion returns the key of the version.json or expired.json of
// version id that exists ("" when neither does).
func (r *repository) probeVersion(ctx context.Context, id string) (string, error) {
	for _, name := range []string{"version.json", "expired.json"} {
		key := VersionsDir + id + "/" + name
		if _, err := r.st.Stat(ctx, key); err == nil {
			return key, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", storeErr(r.st, "stat", key, err)
		}
	}
	return "", nil
}
