package compare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// This file reads the min and max of a table's columns (minmax.go) part
// by part: a data file none of whose rows is deleted at the snapshot gives
// its min and max under its read plan (the all-rows plan key of its
// digest, so a file read alike in another snapshot, version, format or
// run is read once: the answers are kept in memory and in the digest
// cache beside the digests), the files with deletes and the inlined rows
// give theirs in one scan, and the table's answer is the min and max of
// the parts' answers as values of the column's type.

// minMaxKey is the cache key of a data file's min/max of cols (names and
// types) under its all-rows plan (planKey: the file's identity, its
// projection and the DuckDB build).
func minMaxKey(all string, cols []*Column, types []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "fdl-formats file minmax v1\x00%s", all)
	for i, c := range cols {
		fmt.Fprintf(h, "\x00%s\x00%s", c.Name, types[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fileMinMax returns a data file's min/max kept under key (2 texts per
// column, nil for NULL), from memory or the store.
func (m *digestMemo) fileMinMax(key string) ([]*string, bool) {
	m.mu.Lock()
	v, ok := m.minmax[key]
	m.mu.Unlock()
	if ok || m.store == nil {
		return v, ok
	}
	b, ok := m.store.Get(key)
	if !ok || json.Unmarshal(b, &v) != nil {
		return nil, false
	}
	m.mu.Lock()
	m.minmax[key] = v
	m.mu.Unlock()
	return v, true
}

// putFileMinMax records a data file's min/max, and keeps it in the store
// when keep (the file is still the copy its key names: stillNamed).
func (m *digestMemo) putFileMinMax(key string, v []*string, keep bool) {
	m.mu.Lock()
	m.minmax[key] = v
	m.mu.Unlock()
	if m.store == nil || !keep {
		return
	}
	if b, err := json.Marshal(v); err == nil {
		_ = m.store.Put(key, b) // a cache that cannot be written only costs time
	}
}

// scannedMinMax is min and max of each of cols (top-level columns of t at
// snap) over t's rows at snap, as this reader's scan returns them.
func (r *Reader) scannedMinMax(ctx context.Context, t Table, snap int64, cols []*Column) (map[int64]minMax, error) {
	fail := func(err error) error {
		return fmt.Errorf("min/max of %s at snapshot %d in %s: %w", t.Shown(), snap, oneline.Name(r.path), err)
	}
	all, err := r.Columns(ctx, t.ID, snap)
	if err != nil {
		return nil, err
	}
	types := make([]string, len(cols))
	for i, c := range cols {
		if types[i], err = c.DuckType(); err != nil {
			return nil, fail(err)
		}
	}
	plan, err := r.tablePlan(ctx, t, snap, rowOptions())
	if err != nil {
		return nil, err
	}
	var answers [][]*string // per part read or found, 2 texts per column
	type miss struct{ key, sql, path string }
	var misses []miss
	var rest []string  // files with deletes and inlined rows, read together
	var paths []string // the files read
	for _, n := range plan.files {
		if len(n.deleted) > 0 || n.gone != "" {
			q, err := r.fileSQL(ctx, t, n.f, all, snap, ScanOptions{})
			if err != nil {
				return nil, fail(err)
			}
			rest = append(rest, "("+q+")")
			paths = append(paths, n.f.Path)
			continue
		}
		key := minMaxKey(n.all, cols, types)
		if v, ok := r.memo.fileMinMax(key); ok && len(v) == 2*len(cols) {
			answers = append(answers, v)
			continue
		}
		q, err := r.fileSQL(ctx, t, n.f, all, snap, ScanOptions{deletes: deletesIgnored})
		if err != nil {
			return nil, fail(err)
		}
		misses = append(misses, miss{key, q, n.f.Path})
		paths = append(paths, n.f.Path)
	}
	inl, err := r.inlinedSQL(ctx, t, all, snap, ScanOptions{})
	if err != nil {
		return nil, fail(err)
	}
	for _, p := range inl {
		rest = append(rest, "("+p.SQL+")")
	}
	// Each min and max as text (renderedText: a TIMESTAMP_NS DuckDB cannot
	// render is read as epoch_ns).
	texts := func() []*renderedText {
		v := make([]*renderedText, 0, 2*len(cols))
		for k, c := range cols {
			for _, f := range []string{"min", "max"} {
				v = append(v, newRenderedText(f+"("+ident(c.Name)+")", types[k]))
			}
		}
		return v
	}
	var agg []string
	for _, x := range texts() {
		agg = append(agg, x.exprs...)
	}
	// One query: a row per missing file (its index), one for the rest (-1).
	var sel []string
	for i, m := range misses {
		sel = append(sel, fmt.Sprintf("SELECT %d AS i, %s FROM (%s) t", i, strings.Join(agg, ", "), m.sql))
	}
	if len(rest) > 0 {
		sel = append(sel, fmt.Sprintf("SELECT -1 AS i, %s FROM (%s) t", strings.Join(agg, ", "), strings.Join(rest, "\nUNION ALL BY NAME\n")))
	}
	if err := r.readable(ctx, paths...); err != nil {
		return nil, fail(err)
	}
	if len(sel) > 0 {
		err = r.scanning(ctx, func() error {
			rows, err := r.conn.QueryContext(ctx, strings.Join(sel, "\nUNION ALL\n"))
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var i int
				vals := texts()
				ptrs := []any{&i}
				for _, x := range vals {
					ptrs = append(ptrs, x.dest()...)
				}
				if err := rows.Scan(ptrs...); err != nil {
					return err
				}
				v := make([]*string, len(vals))
				for k, x := range vals {
					v[k] = x.value()
				}
				if i >= 0 && i < len(misses) {
					r.memo.putFileMinMax(misses[i].key, v, r.stillNamed(misses[i].path))
				}
				answers = append(answers, v)
			}
			return rows.Err()
		})
		if err != nil {
			return nil, fail(err)
		}
	}
	out := map[int64]minMax{}
	if len(answers) == 0 {
		for _, c := range cols {
			out[c.ID] = minMax{min: "NULL", max: "NULL"}
		}
		return out, nil
	}
	if len(answers) == 1 {
		for k, c := range cols {
			out[c.ID] = minMax{min: textOr(answers[0][2*k]), max: textOr(answers[0][2*k+1])}
		}
		return out, nil
	}
	// The table's min and max are those of the parts', as values.
	var comb []string
	var vals []*renderedText
	var ptrs []any
	for k := range cols {
		for j, f := range []string{"min", "max"} {
			vs := make([]string, len(answers))
			for a, v := range answers {
				vs[a] = "(" + optSQL(v[2*k+j]) + ")"
			}
			x := newRenderedText(fmt.Sprintf("(SELECT %s(CAST(x AS %s)) FROM (VALUES %s) v(x))", f, types[k], strings.Join(vs, ", ")), types[k])
			comb = append(comb, x.exprs...)
			vals = append(vals, x)
			ptrs = append(ptrs, x.dest()...)
		}
	}
	if err := r.conn.QueryRowContext(ctx, "SELECT "+strings.Join(comb, ", ")).Scan(ptrs...); err != nil {
		return nil, fail(err)
	}
	for k, c := range cols {
		out[c.ID] = minMax{min: textOr(vals[2*k].value()), max: textOr(vals[2*k+1].value())}
	}
	return out, nil
}

func textOr(v *string) string {
	if v == nil {
		return "NULL"
	}
	return *v
}

func optSQL(v *string) string {
	if v == nil {
		return "NULL"
	}
	return sqlString(*v)
}
