package formats

import "strings"

// One-sided table column statistics: DuckLake's readers of 0.4 and later
// turn a ducklake_table_column_stats row into numeric statistics for the
// types their DuckLakeColumnStats::ToStats lists (CreateNumericStats),
// starting from NumericStats::CreateEmpty (min the type's maximum, max its
// minimum) and setting only the bounds present: a row with one bound is an
// empty range, and a filter on the column answers no rows. Which types
// depends on the DuckLake build (src/storage/ducklake_stats.cpp):
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

// OneSidedStatsTypes are the DuckLake column types whose one-sided table
// column statistics some reader of some format reads as an empty range,
// lower case; decimal(W,S) too (OneSidedStatsTypeSQL).
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

// OneSidedStatsEmpty reports whether some reader of the format reads a
// ducklake_table_column_stats row with only one of min_value and max_value
// as an empty range, for some column type (0.4, 1.0, 1.1: readers that do
// not need both bounds, TableStatsReading.BothBounds): convert writes both
// bounds NULL for such a target.
func OneSidedStatsEmpty(v *Version) bool {
	return !v.ReadsTableStats().BothBounds
}

// OneSidedEmptySQL is an SQL condition, on a ducklake_column column_type
// expression (typ) and the row's contains_nan expression (containsNaN),
// that is true where some reader of format v reads a one-sided row of that
// column as an empty range: "false" where every reader needs both bounds
// (0.1-0.3); else the types some reader casts (TableStatsReading.CastBySome:
// 0.4's readers, DuckDB 1.5.0, 1.5.1, the base types; 1.0's, 1.5.2 and
// 1.5.3 and later, the base and more types; 1.1's, 2.0, the main ones too),
// FLOAT and DOUBLE only with contains_nan false.
func OneSidedEmptySQL(v *Version, typ, containsNaN string) string {
	st := v.ReadsTableStats()
	if st.BothBounds || st.CastBySome == StatsTypesNone {
		return "false"
	}
	floats := "(" + typeIn(typ, oneSidedFloatTypes) + " AND coalesce(" + containsNaN + " = false, false))"
	switch st.CastBySome {
	case StatsTypesBase:
		return "(" + typeIn(typ, oneSidedBaseTypes) + " OR " + floats + ")"
	case StatsTypesMore:
		return "(" + typeIn(typ, concat(oneSidedBaseTypes, oneSidedMoreTypes)) + " OR lower(trim(" + typ + ")) LIKE 'decimal(%' OR " + floats + ")"
	}
	return "(" + typeIn(typ, concat(oneSidedBaseTypes, oneSidedMoreTypes, oneSidedMainTypes)) + " OR lower(trim(" + typ + ")) LIKE 'decimal(%' OR " + floats + ")"
}
