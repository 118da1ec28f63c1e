package convert

import (
	"fmt"
	"strings"
)

// splitChanges splits a changes_made value into its tokens. Tokens are
// comma-separated; names inside double quotes may hold commas ("" escapes).
func splitChanges(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			inQuote = !inQuote
			cur.WriteByte(c)
		case c == ',' && !inQuote:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 || len(out) > 0 {
		out = append(out, cur.String())
	}
	return out
}

func tokenKind(tok string) string {
	if i := strings.IndexByte(tok, ':'); i >= 0 {
		return tok[:i]
	}
	return tok
}

// rewriteTokens maps change-token kinds in ducklake_snapshot_changes; a
// mapping to "" removes the token.
func rewriteTokens(r *run, mapping map[string]string) error {
	if len(mapping) == 0 {
		return nil
	}
	rows, err := r.w.conn.QueryContext(r.ctx, `SELECT snapshot_id, changes_made FROM ducklake_snapshot_changes WHERE changes_made IS NOT NULL`)
	if err != nil {
		return fmt.Errorf("read ducklake_snapshot_changes: %w", err)
	}
	type change struct {
		id  int64
		val string
	}
	var updates []change
	for rows.Next() {
		var c change
		if err := rows.Scan(&c.id, &c.val); err != nil {
			rows.Close()
			return err
		}
		toks := splitChanges(c.val)
		var out []string
		changed := false
		for _, t := range toks {
			kind := tokenKind(t)
			if repl, ok := mapping[kind]; ok {
				changed = true
				if repl == "" {
					continue
				}
				t = repl + t[len(kind):]
			}
			out = append(out, t)
		}
		if changed {
			updates = append(updates, change{c.id, strings.Join(dedupe(out), ",")})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// One statement for all the snapshots (a statement a snapshot was
	// most of the step's statements for a catalog of many), the keys and
	// values as two list parameters (as fileColumnStats' keys: thousands
	// of VALUES rows cost DuckDB ~30 us a row to parse and bind). Each
	// snapshot's last value read is the one written, as one statement a
	// row did.
	last := map[int64]int{}
	for i, u := range updates {
		last[u.id] = i
	}
	var ids []int64
	var vals []string
	for i, u := range updates {
		if last[u.id] == i {
			ids, vals = append(ids, u.id), append(vals, u.val)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return r.w.exec(r.ctx, `UPDATE ducklake_snapshot_changes SET changes_made = v.changes_made
		FROM (SELECT unnest($1::BIGINT[]) AS snapshot_id, unnest($2::VARCHAR[]) AS changes_made) v
		WHERE ducklake_snapshot_changes.snapshot_id = v.snapshot_id`, ids, vals)
}

// dedupe keeps the first of equal tokens: two source kinds may map to one.
func dedupe(toks []string) []string {
	seen := map[string]bool{}
	out := toks[:0]
	for _, t := range toks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
