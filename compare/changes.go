package compare

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// changesMade reads ducklake_snapshot_changes.changes_made by snapshot
// (nil for SQL NULL), once per reader.
func (r *Reader) changesMade(ctx context.Context) (map[int64]*string, error) {
	if r.meta.changes != nil {
		return r.meta.changes, nil
	}
	if r.snapshotChanges(ctx) {
		return r.meta.changes, nil
	}
	out := map[int64]*string{}
	if r.has("ducklake_snapshot_changes", "changes_made") {
		rows, err := r.conn.QueryContext(ctx, `SELECT snapshot_id, changes_made FROM cat.ducklake_snapshot_changes`)
		if err != nil {
			return nil, fmt.Errorf("read snapshot changes of %s: %w", oneline.Name(r.path), err)
		}
		defer rows.Close()
		for rows.Next() {
			var id sql.NullInt64
			var v sql.NullString
			if err := rows.Scan(&id, &v); err != nil {
				return nil, fmt.Errorf("read snapshot changes of %s: %w", oneline.Name(r.path), err)
			}
			if !id.Valid {
				continue // no snapshot's row: ducklake_snapshots() joins by snapshot_id
			}
			if v.Valid {
				out[id.Int64] = &v.String
			} else {
				out[id.Int64] = nil
			}
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read snapshot changes of %s: %w", oneline.Name(r.path), err)
		}
	}
	r.meta.changes = out
	return out, nil
}

// snapshotChanges reads, in one statement, what changesMade and
// commitInfo each read of ducklake_snapshot_changes in a statement of its
// own, where the table has both changes_made and author and neither has
// read yet: changes_made by snapshot, and the commit info by snapshot
// (commitInfo's text). False, and nothing kept, where it did not read
// them so, or the statement failed (each then reads and fails as
// before); commitInfo's part is left to it (r.meta.commits nil) where a
// row has no snapshot_id, which its own scan fails on.
func (r *Reader) snapshotChanges(ctx context.Context) bool {
	if r.meta.changes != nil || r.meta.commits != nil || !r.has("ducklake_snapshot_changes", "changes_made") || !r.has("ducklake_snapshot_changes", "author") {
		return false
	}
	changes, commits := map[int64]*string{}, map[int64]string{}
	err := r.eachRow(ctx, `SELECT snapshot_id, changes_made, author, commit_message, commit_extra_info FROM cat.ducklake_snapshot_changes`, func(rows *sql.Rows) error {
		var id sql.NullInt64
		var v, author, msg, extra sql.NullString
		if err := rows.Scan(&id, &v, &author, &msg, &extra); err != nil {
			return err
		}
		if !id.Valid {
			commits = nil // no snapshot's row: ducklake_snapshots() joins by snapshot_id
			return nil
		}
		changes[id.Int64] = nullString(v)
		if commits != nil {
			commits[id.Int64] = fmt.Sprintf("author=%s message=%s extra=%s", optString(nullString(author)), optString(nullString(msg)), optString(nullString(extra)))
		}
		return nil
	})
	if err != nil {
		return false
	}
	r.meta.changes, r.meta.commits = changes, commits
	return true
}

// parsedChanges is changes_made as the readers of format own parse it
// (SnapshotChangeInformation::ParseChangesMade, ducklake_transaction_changes.cpp,
// which ducklake_snapshots() and the change feed call): entries
// "kind:value" separated by commas outside double quotes, the kind matched
// in any letter case among those own's readers know (else "Unsupported
// change type"), a colon after it (else "Expected a colon after the change
// type"). The readers keep each kind's values in a set, so order and
// repeats do not count; a kind declared an alias is read as the kind it
// stands for ("inline_flush" as "flushed_inlined": formats.ReadChangeKind).
// A kind format other cannot hold is taken as convert writes it there
// (formats.Version.ChangeKindAs, from the registry's declaration of each
// release's new kinds). The result is the sorted, distinct entries, or why
// the readers fail.
func parsedChanges(v *string, own, other *formats.Version) string {
	if v == nil {
		return "NULL"
	}
	s := *v
	var out []string
	for pos := 0; pos < len(s); {
		colon := strings.IndexByte(s[pos:], ':')
		if colon < 0 {
			kind := strings.ToLower(s[pos:])
			if !knownChange(own, kind) {
				return fmt.Sprintf("unreadable: Unsupported change type %s", s[pos:])
			}
			return "unreadable: Expected a colon after the change type"
		}
		kind := strings.ToLower(s[pos : pos+colon])
		if !knownChange(own, kind) {
			return fmt.Sprintf("unreadable: Unsupported change type %s", s[pos:pos+colon])
		}
		pos += colon + 1
		start, quoted := pos, false
		for ; pos < len(s); pos++ {
			if !quoted && s[pos] == ',' {
				break
			}
			if s[pos] == '"' {
				quoted = !quoted
			}
		}
		value := s[start:pos]
		if pos < len(s) {
			pos++ // the comma
		}
		kind = formats.ReadChangeKind(kind)
		if other != nil {
			kind = other.ChangeKindAs(kind)
		}
		if kind != "" {
			out = append(out, kind+":"+value)
		}
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), ",")
}

func knownChange(v *formats.Version, kind string) bool {
	return v == nil || v.SupportsChangeToken(kind)
}

// snapshotChanges compares changes_made at every snapshot both catalogs
// hold, as each side's readers parse it (parsedChanges).
func (c *comparison) snapshotChanges(common []int64) error {
	ca, err := c.a.changesMade(c.ctx)
	if err != nil {
		return markA(err)
	}
	cb, err := c.b.changesMade(c.ctx)
	if err != nil {
		return markB(err)
	}
	for _, s := range common {
		va, okA := ca[s]
		vb, okB := cb[s]
		pa, pb := "<no snapshot_changes row>", "<no snapshot_changes row>"
		if okA {
			pa = parsedChanges(va, c.a.format, c.b.format)
		}
		if okB {
			pb = parsedChanges(vb, c.b.format, c.a.format)
		}
		if pa != pb {
			c.add(Difference{Kind: "schema", Snapshot: ptr(s), Item: "snapshot changes",
				Reason: "changes_made differs as readers parse it (ducklake_snapshots())", A: pa, B: pb})
		}
	}
	return nil
}
