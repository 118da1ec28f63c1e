package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// This file models what the real readers answer to SELECT min(c) and
// max(c) of a table at the catalog's latest snapshot. DuckLake from
// 8c1e97ab ("Answer MIN/MAX from catalog metadata when stats are exact",
// first in DuckDB 1.5.4's pin d318a545, then 1.5.5's d8a1881e and main,
// DuckDB 2.0; not in 1.5.0-1.5.3) gives DuckDB's optimizer
// (StatisticsPropagator::TryExecuteAggregates) the table statistics with
// the count(*) partition statistics (DuckLakePartitionRowGroup,
// src/storage/ducklake_scan.cpp), and calls them exact when
// ducklake_table_stats.record_count (a row with record_count and
// file_size_bytes not NULL) equals the net count count(*) answers (no row
// deleted). The optimizer then folds min/max of a top-level column of a
// numeric or temporal type (not BOOLEAN, UUID, VARCHAR: VARCHAR statistics
// come without a maximum length, HUGEINT, TIMETZ, INTERVAL: DuckLake gives
// none) into the constant Value(min_value).DefaultCastAs(type)
// (DuckLakeColumnStats::CreateNumericStats, src/storage/ducklake_stats.cpp),
// FLOAT and DOUBLE only where contains_nan is false (not NULL), and only
// where min <= max as values (NumericStats::HasMinMax): both min_value and
// max_value set and ordered, or one only, at or beyond its type's extreme
// in its direction (CreateNumericStats keeps the type's opposite extreme
// as the other bound, NumericStats::CreateEmpty: a lone min_value v at the
// type's minimum answers min v, max the type's minimum; foldExtremes). At another snapshot (AT (VERSION => ...), a
// catalog attached at a snapshot) it scans, as for count(*). Readers of
// formats 0.1-0.4 (DuckDB 1.3-1.5.1) and DuckDB 1.5.2 and 1.5.3 reading
// 1.0 scan: the rows' min and max.
//
// DuckDB 2.0 (DuckLake main on DuckDB main's reworked string statistics)
// folds a top-level VARCHAR column too, where min_value and max_value are
// both set and neither is longer than 100000 bytes, to those texts
// (formats.TableStatsReading.FoldStringMinMax; DuckDB 1.5 scans it): the
// lesser as min, the greater as max (CreateStringStats merges both as
// constants, so a min_value above max_value swaps). DuckDB's Parquet
// writer, and so every DuckLake writer, keeps at most 256 bytes of a string
// in the statistics (the max cut and its last byte incremented), so a table
// whose extreme string is longer folds to a value it does not hold.
//
// The rule is directional (A the source, B its conversion): whatever B's
// readers answer must be an answer A's readers give.

// minMaxReaders names, for a format, the DuckDB releases that fold min/max
// from exact statistics (fold, "" for none) and those that scan even then
// (scan, "" for none), as the registry declares them
// (formats.TableStatsReading.FoldMinMax, ScanMinMax); a format none of
// whose readers fold is scanned by all of them. Where the statistics are
// not exact every reader scans.
func minMaxReaders(v *formats.Version) (fold, scan string) {
	st := v.ReadsTableStats()
	if st.FoldMinMax == "" {
		return "", "format " + v.Name + " readers"
	}
	return st.FoldMinMax, st.ScanMinMax
}

// stringMinMaxReaders is minMaxReaders for a top-level VARCHAR column
// (formats.TableStatsReading.FoldStringMinMax, ScanStringMinMax).
func stringMinMaxReaders(v *formats.Version) (fold, scan string) {
	st := v.ReadsTableStats()
	if st.FoldStringMinMax == "" {
		return "", "format " + v.Name + " readers"
	}
	return st.FoldStringMinMax, st.ScanStringMinMax
}

// foldsMinMax reports whether some reader of format v folds min/max of
// some column type.
func foldsMinMax(v *formats.Version) bool {
	fold, _ := minMaxReaders(v)
	sfold, _ := stringMinMaxReaders(v)
	return fold != "" || sfold != ""
}

// foldedString is the VARCHAR type whose min/max the readers of
// stringMinMaxReaders fold, and stringStatsExact the longest bound they
// take as exact (formats.StringStatsExactBytes).
const (
	foldedString     = "VARCHAR"
	stringStatsExact = formats.StringStatsExactBytes
)

// foldedTypes are the DuckDB types whose min/max a folding reader answers
// from the statistics (DECIMAL(W,S) too).
var foldedTypes = map[string]bool{
	"TINYINT": true, "SMALLINT": true, "INTEGER": true, "BIGINT": true,
	"UTINYINT": true, "USMALLINT": true, "UINTEGER": true, "UBIGINT": true,
	"FLOAT": true, "DOUBLE": true, "DATE": true, "TIME": true, "TIMESTAMP": true,
	"TIMESTAMPTZ": true, "TIMESTAMP_S": true, "TIMESTAMP_MS": true, "TIMESTAMP_NS": true,
}

// foldExtremes returns the literals of DuckDB type dt's extremes
// (Value::MinimumValue and MaximumValue), for the folded types
// (foldedTypes, DECIMAL(W,S)): the exact ones of the one-sided model
// (formats.OneSidedExtremes, by the DuckDB type they cast to), and
// TIMESTAMP_NS and TIMESTAMPTZ, which that model tests by a band
// (TestFoldExtremes checks these against DuckDB). A lone bound at or
// beyond its type's extreme in its direction folds (castStat.extreme).
func foldExtremes(dt string) (lo, hi string, ok bool) {
	switch dt {
	case "TIMESTAMP_NS":
		// INT64 min floored to a day, INT64 max - 1.
		return "1677-09-22 00:00:00", "2262-04-11 23:47:16.854775806", true
	case "TIMESTAMPTZ":
		// TIMESTAMP's, at UTC.
		return "290309-12-22 (BC) 00:00:00+00", "294247-01-10 04:00:54.775806+00", true
	}
	if w, sc, isDec := formats.DecimalWidthScale(dt); isDec {
		nines := strings.Repeat("9", w-sc)
		if sc > 0 {
			nines += "." + strings.Repeat("9", sc)
		}
		return "-" + nines, nines, true
	}
	if !foldedTypes[dt] {
		return "", "", false
	}
	for _, name := range formats.OneSidedStatsTypes {
		if castAs, lo, hi, exact, ok := formats.OneSidedExtremes(name); ok && exact && castAs == dt {
			return lo, hi, true
		}
	}
	return "", "", false
}

// allStatsCounts reads, once per reader, the record_count of every row
// of ducklake_table_stats with a record_count and a file_size_bytes, by
// table_id, each table's in the table's order (rowid, the order of
// foldedMinMax's own query of one table, a plain scan): one statement
// where foldedMinMax ran one per table (a table without such a row has
// none). Nil where they are not read so: a table_id that is not a
// BIGINT (compared in SQL as its own type), or the statement or a
// value's scan failed (a row of a table foldedMinMax may never ask);
// foldedMinMax then asks each table as before.
func (r *Reader) allStatsCounts(ctx context.Context) map[int64][]int64 {
	return r.meta.statsCounts.get(ctx, r, [][2]string{{"ducklake_table_stats", "table_id"}}, func() (map[int64][]int64, error) {
		all := map[int64][]int64{}
		err := r.eachRow(ctx, `SELECT table_id, record_count FROM cat.ducklake_table_stats
		WHERE table_id IS NOT NULL AND record_count IS NOT NULL AND file_size_bytes IS NOT NULL ORDER BY table_id, rowid`, func(rows *sql.Rows) error {
			var id, n int64
			if err := rows.Scan(&id, &n); err != nil {
				return err
			}
			all[id] = append(all[id], n)
			return nil
		})
		return all, err
	})
}

// minMax is one answer to SELECT min(c), max(c): the values' text in the
// column's type (UTC for TIMESTAMPTZ), "NULL" for none, or the error the
// reader fails with.
type minMax struct{ min, max, err string }

func (m minMax) String() string {
	if m.err != "" {
		return "error: " + m.err
	}
	return "min " + m.min + ", max " + m.max
}

// foldedMinMax is, per top-level column id of t at snap (the catalog's
// latest snapshot), the answer a folding reader gives from the table
// statistics (castStats), for the columns it folds; nil when the format's
// readers never fold or the statistics are not exact (record_count is not
// net, the count(*) answer).
//
// strs holds the columns folded as VARCHAR (stringMinMaxReaders), whose
// folding and scanning readers are not the other types'.
func (r *Reader) foldedMinMax(ctx context.Context, t Table, snap, net int64) (out map[int64]minMax, strs map[int64]bool, err error) {
	if !foldsMinMax(r.format) || r.empty("ducklake_table_stats") || r.empty("ducklake_table_column_stats") {
		return nil, nil, nil
	}
	var counts []int64
	if all := r.allStatsCounts(ctx); all != nil {
		counts = all[t.ID]
	} else {
		counts, err = r.int64s(ctx, fmt.Sprintf(`SELECT record_count FROM cat.ducklake_table_stats WHERE table_id = %d AND record_count IS NOT NULL AND file_size_bytes IS NOT NULL`, t.ID))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the table statistics of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
	}
	if len(counts) == 0 || counts[0] != net {
		return nil, nil, nil
	}
	st, err := r.castStats(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	fold, _ := minMaxReaders(r.format)
	sfold, _ := stringMinMaxReaders(r.format)
	out = map[int64]minMax{}
	for _, s := range st {
		if s.top && s.typ == foldedString {
			// Both bounds, each exact: the lesser is min, the greater max.
			if sfold == "" || s.min == nil || s.max == nil || len(*s.min) > stringStatsExact || len(*s.max) > stringStatsExact {
				continue
			}
			lo, hi := *s.min, *s.max
			if hi < lo {
				lo, hi = hi, lo
			}
			out[s.id] = minMax{min: lo, max: hi}
			if strs == nil {
				strs = map[int64]bool{}
			}
			strs[s.id] = true
			continue
		}
		if fold == "" || !s.top || !(foldedTypes[s.typ] || strings.HasPrefix(s.typ, "DECIMAL(")) || (s.min == nil && s.max == nil) {
			continue // not folded
		}
		switch {
		case s.min == nil || s.max == nil:
			// One bound: CreateNumericStats keeps the type's opposite
			// extreme as the other, so HasMinMax holds only where the bound
			// is at or beyond its own extreme (castStat.extreme).
			switch {
			case !s.extreme.Valid:
			case s.min != nil:
				out[s.id] = minMax{min: s.minVal.String, max: s.extreme.String}
			default:
				out[s.id] = minMax{min: s.extreme.String, max: s.maxVal.String}
			}
		case !s.minVal.Valid || !s.maxVal.Valid:
			// DefaultCastAs throws: the query fails.
			out[s.id] = minMax{err: fmt.Sprintf("the statistics %q, %q do not cast to %s", *s.min, *s.max, s.typ)}
		case s.ordered:
			out[s.id] = minMax{min: s.minVal.String, max: s.maxVal.String}
		}
	}
	return out, strs, nil
}

// minMaxSide is one catalog's readers' answers for a table.
type minMaxSide struct {
	name         string
	r            *Reader
	t            Table
	fold, scan   string            // the releases that fold and that scan (minMaxReaders)
	sfold, sscan string            // the same for VARCHAR columns (stringMinMaxReaders)
	folded       map[int64]minMax  // per column, where the statistics are exact and fold
	strs         map[int64]bool    // the folded columns folded as VARCHAR
	scanned      map[int64]minMax  // filled where needed
	need         map[int64]*Column // the columns whose scan is needed
	cols         map[int64]*Column // the side's own top-level columns by id
}

func newMinMaxSide(name string, r *Reader, t Table) *minMaxSide {
	m := &minMaxSide{name: name, r: r, t: t, need: map[int64]*Column{}}
	m.fold, m.scan = minMaxReaders(r.format)
	m.sfold, m.sscan = stringMinMaxReaders(r.format)
	return m
}

// readers is the releases that fold and those that scan column id, a
// folded one (the VARCHAR ones' own).
func (m *minMaxSide) readers(id int64) (fold, scan string) {
	if m.strs[id] {
		return m.sfold, m.sscan
	}
	return m.fold, m.scan
}

// scans reports whether some reader of the side scans column id.
func (m *minMaxSide) scans(id int64) bool {
	if _, ok := m.folded[id]; !ok {
		return true
	}
	_, scan := m.readers(id)
	return scan != ""
}

func (m *minMaxSide) foldWho(id int64) string {
	fold, _ := m.readers(id)
	return fold
}

func (m *minMaxSide) scanWho(id int64) string {
	if _, ok := m.folded[id]; !ok {
		if foldsMinMax(m.r.format) {
			return "every format " + m.r.format.Name + " reader (the statistics are not exact or not folded)"
		}
		return "format " + m.r.format.Name + " readers"
	}
	_, scan := m.readers(id)
	return scan
}

// minMax checks, per top-level column of the table at the snapshot that
// is the latest of both catalogs, that every answer B's readers give to
// SELECT min(c), max(c) is one A's readers give (netA, netB: the count(*)
// answers from the catalog, which decide whether statistics are exact).
// The scan of a side is read only where an answer has to be checked
// against it: a scan of A equals a scan of B where the rows are equal,
// which the digests check.
func (c *comparison) minMax(s int64, x, y Table, netA, netB int64) error {
	a := newMinMaxSide("A", c.a, x)
	b := newMinMaxSide("B", c.b, y)
	if !foldsMinMax(c.b.format) && (a.fold == "" || a.scan != "") && (a.sfold == "" || a.sscan != "") {
		// B only scans, and A's readers scan too.
		return nil
	}
	var err error
	if a.folded, a.strs, err = c.a.foldedMinMax(c.ctx, x, s, netA); err != nil {
		return markA(err)
	}
	if b.folded, b.strs, err = c.b.foldedMinMax(c.ctx, y, s, netB); err != nil {
		return markB(err)
	}
	if len(a.folded) == 0 && len(b.folded) == 0 {
		return nil
	}
	// Each side scans its own columns (by column_id): B may have renamed
	// one, which the schema comparison reports.
	// A's first, as every step reads: a failure of both is A's too.
	colsA, err := c.a.Columns(c.ctx, x.ID, s)
	if err != nil {
		return markA(err)
	}
	cols, err := c.b.Columns(c.ctx, y.ID, s)
	if err != nil {
		return markB(err)
	}
	a.cols = map[int64]*Column{}
	for _, col := range colsA {
		a.cols[col.ID] = col
	}
	b.cols = map[int64]*Column{}
	for _, col := range cols {
		b.cols[col.ID] = col
	}
	// First pass: which scans the checks need.
	for _, col := range cols {
		if own := a.cols[col.ID]; len(col.Children) > 0 || own == nil || len(own.Children) > 0 {
			continue // nested, or a column A has not: the schema comparison reports it
		}
		fa, okA := a.folded[col.ID]
		fb, okB := b.folded[col.ID]
		if b.scans(col.ID) && !a.scans(col.ID) {
			b.need[col.ID] = col // B's scan must be A's folded answer
		}
		if okB && (!okA || fa != fb) && a.scans(col.ID) {
			a.need[col.ID] = col // B's folded answer must be A's scan
		}
	}
	for _, side := range []*minMaxSide{a, b} {
		if len(side.need) == 0 {
			continue
		}
		need := make([]*Column, 0, len(side.need))
		for _, col := range cols {
			if own := side.cols[col.ID]; side.need[col.ID] != nil && own != nil && len(own.Children) == 0 {
				need = append(need, own)
			}
		}
		if side.scanned, err = side.r.scannedMinMax(c.ctx, side.t, s, need); err != nil {
			return c.mark(side.r, err)
		}
	}
	for _, col := range cols {
		if own := a.cols[col.ID]; len(col.Children) > 0 || own == nil || len(own.Children) > 0 {
			continue // nested, or a column A has not: the schema comparison reports it
		}
		fa, okA := a.folded[col.ID]
		fb, okB := b.folded[col.ID]
		var bad, badWho string
		switch {
		case okB && !(okA && fa == fb) && !(a.scans(col.ID) && a.scanned[col.ID] == fb):
			bad, badWho = fb.String()+" from the statistics", b.foldWho(col.ID)
		case b.scans(col.ID) && !a.scans(col.ID) && b.scanned[col.ID] != fa:
			bad, badWho = b.scanned[col.ID].String()+" by a scan", b.scanWho(col.ID)
		default:
			continue
		}
		var ans []string
		if okA {
			ans = append(ans, fa.String()+" from the statistics ("+a.foldWho(col.ID)+")")
		}
		if a.scans(col.ID) {
			if v, ok := a.scanned[col.ID]; ok {
				ans = append(ans, v.String()+" by a scan ("+a.scanWho(col.ID)+")")
			} else {
				ans = append(ans, "a scan ("+a.scanWho(col.ID)+")")
			}
		}
		c.add(Difference{Kind: "minmax", Snapshot: ptr(s), Table: x.FullName(), Item: "column " + col.Name,
			A: strings.Join(ans, "; "), B: bad + " (" + badWho + ")",
			Reason: fmt.Sprintf("SELECT min(%[1]s), max(%[1]s) at the latest snapshot: format %[2]s readers of B answer what no format %[3]s reader of A answers (DuckDB 1.5.4+ and 2.0 answer it from the table statistics when record_count is the net row count, 2.0 for VARCHAR too)", oneline.Name(col.Name), c.b.format.Name, c.a.format.Name)})
	}
	return nil
}
