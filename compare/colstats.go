package compare

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// castStat is one column's row of ducklake_table_column_stats as the
// format's readers cast it (DuckLakeColumnStats::ToStats ->
// CreateNumericStats, DefaultCastAs to the column's type at the catalog's
// latest snapshot). min and max are the texts the readers cast, nil where
// they cast none: not set, or, in formats 0.1-0.3 (v1.3-ossivalis,
// v1.4-andium), the other one not set (statsCastTypes' both); FLOAT and DOUBLE
// statistics are cast only where contains_nan is false.
type castStat struct {
	id       int64
	typ      string // the column's DuckDB type
	top      bool   // a top-level column (not a nested field)
	min, max *string
	// minVal, maxVal: the casts' text in the type (UTC for TIMESTAMPTZ),
	// invalid where DefaultCastAs throws; ordered: min <= max as values,
	// where both cast.
	minVal, maxVal sql.NullString
	ordered        bool
	// extreme: where the row has one bound only, of a column a folding
	// reader folds (foldedMinMax), and that bound is at or beyond its type's
	// extreme in its direction (foldExtremes: min only, <= the type's
	// minimum; max only, >= its maximum), the text of that extreme, which
	// CreateNumericStats keeps as the other bound (NumericStats::CreateEmpty):
	// the statistics then read as [min, type minimum] or [type maximum, max],
	// min <= max (NumericStats::HasMinMax). Invalid elsewhere.
	extreme sql.NullString
}

// castsStats tells whether some reader of the catalog's format casts a
// column's statistics of type dt, for the refusal (statsCastTypes, nested
// fields too) or for a folded min/max (foldedTypes, top-level columns of
// formats whose readers fold; VARCHAR where some reader folds it, read as
// text, not cast).
func (r *Reader) castsStats(dt string, top bool) bool {
	casts, _ := statsCastTypes(r.format)
	if casts(dt) {
		return true
	}
	if !top {
		return false
	}
	if sfold, _ := stringMinMaxReaders(r.format); sfold != "" && dt == foldedString {
		return true
	}
	fold, _ := minMaxReaders(r.format)
	return fold != "" && (foldedTypes[dt] || strings.HasPrefix(dt, "DECIMAL("))
}

// castStats is the table statistics of t as the format's readers cast them,
// per column with statistics the readers cast (castsStats): one reading per
// reader and table, for the refusal of texts that do not cast
// (uncastableStats) and the min/max a folding reader answers
// (foldedMinMax). The statistics are not versioned and a reader loads them
// for its current snapshot's schema: a table or column gone there has none.
func (r *Reader) castStats(ctx context.Context, t Table) ([]castStat, error) {
	if st, ok := r.colStats[t.ID]; ok {
		return st, nil
	}
	st, err := r.readCastStats(ctx, t)
	if err != nil {
		return nil, err
	}
	if r.colStats == nil {
		r.colStats = map[int64][]castStat{}
	}
	r.colStats[t.ID] = st
	return st, nil
}

func (r *Reader) readCastStats(ctx context.Context, t Table) ([]castStat, error) {
	if _, ok := r.layout["ducklake_table_column_stats"]; !ok || r.empty("ducklake_table_column_stats") {
		return nil, nil
	}
	snaps, err := r.Snapshots(ctx)
	if err != nil || len(snaps) == 0 {
		return nil, err
	}
	last := latestSnapshot(snaps)
	tables, err := r.Tables(ctx, last)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(tables, func(x Table) bool { return x.ID == t.ID }) {
		return nil, nil
	}
	// No reader loads the catalog's current snapshot (its columns may
	// not even form a tree: formats.ParentRefusal): the proof reports
	// that snapshot's tables unreadable, and there are no statistics to
	// cast.
	if why, err := r.loadRefusal(ctx, last); err != nil || why != "" {
		return nil, err
	}
	cols, err := r.Columns(ctx, t.ID, last)
	if err != nil {
		return nil, err
	}
	type colType struct {
		dt  string
		top bool
	}
	types := map[int64]colType{}
	var leaves func(cs []*Column, top bool)
	leaves = func(cs []*Column, top bool) {
		for _, c := range cs {
			if len(c.Children) > 0 {
				leaves(c.Children, false)
				continue
			}
			if dt, err := c.DuckType(); err == nil && r.castsStats(dt, top) {
				types[c.ID] = colType{dt, top}
			}
		}
	}
	leaves(cols, true)
	if len(types) == 0 {
		return nil, nil
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT column_id, contains_nan, min_value, max_value FROM cat.ducklake_table_column_stats WHERE table_id = %d AND (min_value IS NOT NULL OR max_value IS NOT NULL) ORDER BY column_id`, t.ID))
	if err != nil {
		return nil, fmt.Errorf("read the column statistics of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
	}
	casts, both := statsCastTypes(r.format)
	var st []castStat
	for rows.Next() {
		var id int64
		var nan sql.NullBool
		var lo, hi sql.NullString
		if err := rows.Scan(&id, &nan, &lo, &hi); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the column statistics of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		ct, ok := types[id]
		if !ok || ((ct.dt == "FLOAT" || ct.dt == "DOUBLE") && (!nan.Valid || nan.Bool)) || (both && (!lo.Valid || !hi.Valid)) {
			continue
		}
		s := castStat{id: id, typ: ct.dt, top: ct.top}
		if lo.Valid {
			s.min = &lo.String
		}
		if hi.Valid {
			s.max = &hi.String
		}
		st = append(st, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the column statistics of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
	}
	if len(st) == 0 {
		return nil, nil
	}
	// One query casts every text as the readers do (TIMESTAMPTZ as UTC
	// text, the proof's time zone), and orders min and max where both are.
	var sel []string
	var ptrs []any
	orderedNull := make([]sql.NullBool, len(st))
	// Each bound's text as renderedText reads it (a TIMESTAMP_NS DuckDB
	// cannot render is read as epoch_ns), set into val after the query.
	type bound struct {
		x   *renderedText
		val *sql.NullString
	}
	var bounds []bound
	cast := func(text string, typ string, val *sql.NullString) {
		x := newRenderedText(fmt.Sprintf("TRY_CAST(%s AS %s)", sqlString(text), typ), typ)
		bounds = append(bounds, bound{x, val})
		sel = append(sel, x.exprs...)
		ptrs = append(ptrs, x.dest()...)
	}
	fold, _ := minMaxReaders(r.format)
	for i := range st {
		s := &st[i]
		if s.typ == foldedString && !casts(s.typ) {
			// Read as text by the readers that fold it (foldedMinMax):
			// nothing to cast.
			continue
		}
		if s.min != nil {
			cast(*s.min, s.typ, &s.minVal)
		}
		if s.max != nil {
			cast(*s.max, s.typ, &s.maxVal)
		}
		if lo, hi, ok := foldExtremes(s.typ); ok && fold != "" && s.top && (s.min == nil) != (s.max == nil) {
			v, cmp, ext := s.min, "<=", lo
			if s.max != nil {
				v, cmp, ext = s.max, ">=", hi
			}
			sel = append(sel, fmt.Sprintf("CASE WHEN TRY_CAST(%[1]s AS %[2]s) %[3]s CAST(%[4]s AS %[2]s) THEN CAST(%[4]s AS %[2]s)::VARCHAR END", sqlString(*v), s.typ, cmp, sqlString(ext)))
			ptrs = append(ptrs, &s.extreme)
		}
		if s.min != nil && s.max != nil {
			sel = append(sel, fmt.Sprintf("TRY_CAST(%[1]s AS %[3]s) <= TRY_CAST(%[2]s AS %[3]s)", sqlString(*s.min), sqlString(*s.max), s.typ))
			ptrs = append(ptrs, &orderedNull[i])
		}
	}
	if len(sel) == 0 {
		return st, nil
	}
	if err := r.conn.QueryRowContext(ctx, "SELECT "+strings.Join(sel, ", ")).Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("cast the column statistics of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
	}
	for i := range st {
		st[i].ordered = orderedNull[i].Valid && orderedNull[i].Bool
	}
	for _, b := range bounds {
		if v := b.x.value(); v != nil {
			*b.val = sql.NullString{String: *v, Valid: true}
		}
	}
	return st, nil
}

// timestampNSRenderable is the first TIMESTAMP_NS that DuckDB renders as
// text: NumericLimits<int64_t>::Minimum() nanoseconds floored to a day
// (Value::MinimumValue). A text from 1677-09-21 00:12:43.145225 on casts
// to TIMESTAMP_NS (DefaultCastAs, in every DuckDB from 1.3.0 to 2.0.0), but
// the value's text before this one fails the query (Timestamp::Convert:
// "Date out of range in timestamp_ns conversion": its day in nanoseconds
// overflows), so such a value is read as epoch_ns and its text written
// here (renderedText, timestampNSText).
const timestampNSRenderable = "TIMESTAMP_NS '1677-09-22 00:00:00'"

// timestampNSText is a TIMESTAMP_NS value's text as DuckDB writes it (a
// fraction of up to nine digits without trailing zeros), from its
// nanoseconds since the epoch (UTC).
func timestampNSText(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.999999999")
}

// renderedText reads one value of a query as DuckDB's text of it, also for
// a TIMESTAMP_NS before timestampNSRenderable, which DuckDB reads, compares
// and hashes but cannot render (its text is written from epoch_ns). exprs
// are its select expressions (one, or two for TIMESTAMP_NS), scanned into
// dest.
type renderedText struct {
	exprs []string
	text  sql.NullString
	ns    sql.NullInt64
	isNS  bool
}

func newRenderedText(expr, typ string) *renderedText {
	if !strings.EqualFold(typ, "TIMESTAMP_NS") {
		return &renderedText{exprs: []string{"(" + expr + ")::VARCHAR"}}
	}
	return &renderedText{isNS: true, exprs: []string{
		fmt.Sprintf("CASE WHEN (%[1]s) >= %[2]s OR (%[1]s) = '-infinity' THEN (%[1]s)::VARCHAR END", expr, timestampNSRenderable),
		"epoch_ns(" + expr + ")",
	}}
}

func (x *renderedText) dest() []any {
	if x.isNS {
		return []any{&x.text, &x.ns}
	}
	return []any{&x.text}
}

// value is the text read, nil for NULL.
func (x *renderedText) value() *string {
	switch {
	case x.text.Valid:
		s := x.text.String
		return &s
	case x.isNS && x.ns.Valid:
		s := timestampNSText(x.ns.Int64)
		return &s
	}
	return nil
}
