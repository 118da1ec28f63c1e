package formats

import (
	"slices"
	"strconv"
	"strings"
)

// One-sided table column statistics: DuckLake's readers of 0.4 and later
// turn a ducklake_table_column_stats row into numeric statistics for the
// types their DuckLakeColumnStats::ToStats lists (CreateNumericStats),
// starting from NumericStats::CreateEmpty (min the type's maximum, max its
// minimum, Value::MaximumValue and MinimumValue) and setting each bound
// present, cast to the column's type (Value::DefaultCastAs). A row with one
// bound v so becomes [v, type minimum] (min only) or [type maximum, v] (max
// only). DuckDB reads numeric bounds only through NumericStats::HasMinMax,
// HasMin && HasMax && Min <= Max (since 1.4.0): CheckZonemap,
// PropagateComparison, the filter's narrowing and TryGetValueFromStats ask
// it first. So such a row gives no bounds (every row kept) unless v is at
// or beyond the type's extreme in its direction (min only: v <= the type's
// minimum; max only: v >= its maximum), where the column reads as the
// range [v, v] (for an integer) or [-inf, -inf] and the like: a filter
// x > 0 on a UINTEGER column with min_value '0' and no max answers no rows,
// x = 0 every row. Which types depends on the DuckLake build
// (src/storage/ducklake_stats.cpp):
//   - 7ea15644, 67480b1d and 415a9ebd (DuckDB 1.5.0, 1.5.1, 1.5.2): the
//     integers from SMALLINT up, unsigned ones, DATE, TIME and the
//     TIMESTAMPs (oneSidedBaseTypes);
//   - from d6906fa9 ("Populate stats for more types"; e6a3bd0a, DuckDB 1.5.3,
//     and later, and main, DuckDB 2.0) also BOOLEAN, TINYINT, DECIMAL and
//     UUID, and on main TIMESTAMP_TZ_NS (1.1 only);
//   - FLOAT and DOUBLE in every build only when contains_nan is false.
//
// The readers of 0.1-0.3 (v1.3-ossivalis, v1.4-andium) give no statistics
// unless both bounds are set. Both NULL is read as unknown by every reader.
var (
	oneSidedBaseTypes  = []string{"int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "date", "time", "timestamp", "timestamptz", "timestamp_s", "timestamp_ms", "timestamp_ns"}
	oneSidedMoreTypes  = []string{"boolean", "int8", "uuid"} // and decimal(W,S)
	oneSidedFloatTypes = []string{"float32", "float64"}      // when contains_nan is false
	oneSidedMainTypes  = []string{"timestamptz_ns"}          // DuckLake main (1.1)
)

// oneSidedExtreme is how OneSidedMisreadSQL tests a one-sided bound of a
// DuckLake type against the type's extremes (DuckDB's Value::MinimumValue
// and MaximumValue): the bound is cast (TRY_CAST) to castAs, and a min-only
// row is misread where it is <= min, a max-only row where it is >= max (min
// and max are literals of castAs). exact: the test is the readers' own
// (castAs is the column's DuckDB type and min, max its extremes, checked
// against DuckDB 1.5.6 by TestOneSidedExtremes); else it is a band around
// the extreme that holds every bound the readers read at it, and some they
// do not (conservative: such rows count as misread). A bound that does not
// cast counts as misread too (the readers fail on it: compare refuses it
// as uncastable-column-stats). DECIMAL(W,S), whose extremes depend on the
// column's width and scale, is tested by decimalMisreadSQL, exactly;
// TIMESTAMP_TZ_NS, which DuckDB 1.5.6 cannot cast to, counts as misread for
// every one-sided row.
type oneSidedExtreme struct {
	castAs, min, max string
	exact            bool
}

var oneSidedExtremes = map[string]oneSidedExtreme{
	"boolean": {"BOOLEAN", "false", "true", true},
	"int8":    {"TINYINT", "-128", "127", true},
	"int16":   {"SMALLINT", "-32768", "32767", true},
	"int32":   {"INTEGER", "-2147483648", "2147483647", true},
	"int64":   {"BIGINT", "-9223372036854775808", "9223372036854775807", true},
	"uint8":   {"UTINYINT", "0", "255", true},
	"uint16":  {"USMALLINT", "0", "65535", true},
	"uint32":  {"UINTEGER", "0", "4294967295", true},
	"uint64":  {"UBIGINT", "0", "18446744073709551615", true},
	// NumericLimits<float>::Minimum() is -infinity; NaN sorts above
	// infinity, so a max-only 'nan' reads as [inf, nan].
	"float32": {"FLOAT", "-inf", "inf", true},
	"float64": {"DOUBLE", "-inf", "inf", true},
	// 'infinity' and '-infinity' lie beyond the extremes (>=, <=).
	"date":         {"DATE", "5877642-06-25 (BC)", "5881580-07-10", true},
	"time":         {"TIME", "00:00:00", "24:00:00", true},
	"timestamp":    {"TIMESTAMP", "290309-12-22 (BC) 00:00:00", "294247-01-10 04:00:54.775806", true},
	"timestamp_s":  {"TIMESTAMP_S", "290309-12-22 (BC) 00:00:00", "294247-01-10 04:00:54", true},
	"timestamp_ms": {"TIMESTAMP_MS", "290309-12-22 (BC) 00:00:00", "294247-01-10 04:00:54.775", true},
	// TIMESTAMP_NS: its Value::MinimumValue is the first whole day of its
	// range, 1677-09-22; text down to 1677-09-21 00:12:43.145225 still
	// casts (and lies beyond that extreme), but DuckDB 1.5.6 fails to
	// render such a value as text ("Date out of range in timestamp_ns
	// conversion"), so the bound is compared as microseconds (TIMESTAMP):
	// the band at the maximum is that of its microsecond.
	"timestamp_ns": {"TIMESTAMP", "1677-09-22 00:00:00", "2262-04-11 23:47:16.854775", false},
	// TIMESTAMPTZ: the readers' cast reads text without an offset as UTC,
	// a session's with ICU in its TimeZone; cast to TIMESTAMP (which drops
	// an offset) the band is five days inside each extreme (DuckDB takes
	// offsets up to +-99:99:99, 100 hours 40 minutes 39 seconds).
	"timestamptz": {"TIMESTAMP", "290309-12-27 (BC) 00:00:00", "294247-01-05 04:00:54.775806", false},
	"uuid":        {"UUID", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", true},
}

// OneSidedStatsTypes are the DuckLake column types whose one-sided table
// column statistics some reader of some format reads as bounds (at the
// type's extreme), lower case; decimal(W,S) too (OneSidedStatsTypeSQL).
var OneSidedStatsTypes = concat(oneSidedBaseTypes, oneSidedMoreTypes, oneSidedFloatTypes, oneSidedMainTypes)

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// OneSidedStatsTypeSQL is an SQL condition on a ducklake_column column_type
// expression (typ) that is true for OneSidedStatsTypes and decimals.
func OneSidedStatsTypeSQL(typ string) string {
	return "(" + typeIn(typ, OneSidedStatsTypes) + " OR lower(trim(" + typ + ")) LIKE 'decimal(%')"
}

func typeIn(typ string, types []string) string {
	return "lower(trim(" + typ + ")) IN ('" + strings.Join(types, "', '") + "')"
}

// OneSidedExtremes returns the literals OneSidedMisreadSQL compares a
// one-sided bound of DuckLake type typ (lower case) with, the DuckDB type
// it casts the bound to, and whether they are the type's own extremes
// (else a conservative band); ok is false for DECIMAL (tested by its width
// and scale) and TIMESTAMP_TZ_NS (every one-sided row counts as misread).
func OneSidedExtremes(typ string) (castAs, lo, hi string, exact, ok bool) {
	e, ok := oneSidedExtremes[typ]
	return e.castAs, e.min, e.max, e.exact, ok
}

// OneSidedStatsEmpty reports whether some reader of the format reads a
// ducklake_table_column_stats row with only one of min_value and max_value
// as bounds where the bound is at its type's extreme (0.4, 1.0, 1.1:
// readers that do not need both bounds, TableStatsReading.BothBounds):
// convert writes both bounds NULL for such a target.
func OneSidedStatsEmpty(v *Version) bool {
	return !v.ReadsTableStats().BothBounds
}

// OneSidedMisreadSQL is an SQL condition, on a ducklake_column column_type
// expression (typ) and a ducklake_table_column_stats row's contains_nan,
// min_value and max_value expressions, that is true where the row has one
// bound only and some reader of format v reads it as bounds, the single
// value at the type's extreme (above): "false" where every reader needs both
// bounds (0.1-0.3); else for the types some reader casts
// (TableStatsReading.CastBySome: 0.4's readers, DuckDB 1.5.0, 1.5.1, the
// base types; 1.0's, 1.5.2 and 1.5.3 and later, the base and more types;
// 1.1's, 2.0, the main ones too; FLOAT and DOUBLE only with contains_nan
// false) where the bound, cast, is at or beyond the type's extreme in its
// direction (oneSidedExtremes; conservative where that is not exact). A
// one-sided row of another type, or not at the extreme, reads as no
// statistics: every row kept.
func OneSidedMisreadSQL(v *Version, typ, containsNaN, minValue, maxValue string) string {
	st := v.ReadsTableStats()
	if st.BothBounds || st.CastBySome == StatsTypesNone {
		return "false"
	}
	types := oneSidedBaseTypes
	decimals := false
	switch st.CastBySome {
	case StatsTypesBase:
	case StatsTypesMore:
		types, decimals = concat(oneSidedBaseTypes, oneSidedMoreTypes), true
	default:
		types, decimals = concat(oneSidedBaseTypes, oneSidedMoreTypes, oneSidedMainTypes), true
	}
	types = concat(types, oneSidedFloatTypes)
	t := "lower(trim(" + typ + "))"
	var alts []string
	for _, name := range types {
		cond := t + " = '" + name + "'"
		if slices.Contains(oneSidedFloatTypes, name) {
			cond += " AND coalesce(" + containsNaN + " = false, false)"
		}
		if e, ok := oneSidedExtremes[name]; ok {
			cast := func(x string) string { return "TRY_CAST(" + x + " AS " + e.castAs + ")" }
			lit := func(x string) string { return "CAST('" + x + "' AS " + e.castAs + ")" }
			cond += " AND coalesce(CASE WHEN " + maxValue + " IS NULL THEN " + cast(minValue) + " <= " + lit(e.min) +
				" ELSE " + cast(maxValue) + " >= " + lit(e.max) + " END, true)"
		}
		alts = append(alts, "("+cond+")")
	}
	if decimals {
		alts = append(alts, "("+t+" LIKE 'decimal(%' AND coalesce("+decimalMisreadSQL(t, minValue, maxValue)+", true))")
	}
	return "((" + minValue + " IS NULL) <> (" + maxValue + " IS NULL) AND (" + strings.Join(alts, " OR ") + "))"
}

// decimalMisreadSQL is OneSidedMisreadSQL's test of a DECIMAL(W,S) column
// (t its lower-case type text) with one bound: the type's minimum and
// maximum are -(10^W - 1) and 10^W - 1 in units of 10^-S
// (Value::MinimumValue, MaximumValue), written as text of W - S nines and S
// nines after the point, and the bound and the extreme are cast to
// DECIMAL(38,S), which rounds a bound as the readers' cast to DECIMAL(W,S)
// does (one that then overflows W digits, which the readers fail on, is at
// or beyond the extreme). NULL where the type text is not DECIMAL(W,S) with
// 0 <= S <= W <= 38 or the bound does not cast.
func decimalMisreadSQL(t, minValue, maxValue string) string {
	const re = `'^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$'`
	w := "TRY_CAST(regexp_extract(" + t + ", " + re + ", 1) AS INTEGER)"
	sc := "TRY_CAST(regexp_extract(" + t + ", " + re + ", 2) AS INTEGER)"
	var b strings.Builder
	b.WriteString("CASE WHEN " + w + " IS NULL OR " + w + " > 38 OR " + sc + " > " + w + " THEN NULL")
	for s := 0; s <= 38; s++ {
		typ := "DECIMAL(38," + strconv.Itoa(s) + ")"
		text := "repeat('9', " + w + " - " + strconv.Itoa(s) + ")"
		if s > 0 {
			text += " || '." + strings.Repeat("9", s) + "'"
		}
		ext := "TRY_CAST(" + text + " AS " + typ + ")"
		b.WriteString(" WHEN " + sc + " = " + strconv.Itoa(s) + " THEN CASE WHEN " + maxValue + " IS NULL THEN TRY_CAST(" + minValue + " AS " + typ + ") <= -" + ext +
			" ELSE TRY_CAST(" + maxValue + " AS " + typ + ") >= " + ext + " END")
	}
	return b.String() + " END"
}
