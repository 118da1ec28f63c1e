package formats

import "strings"

// OneSidedStatsTypes are the DuckLake column types whose
// ducklake_table_column_stats DuckLake 1.5's readers turn into numeric
// statistics (DuckLakeColumnStats::ToStats -> CreateNumericStats; FLOAT
// and DOUBLE where contains_nan is false), lower case; decimal(W,S) too
// (OneSidedStatsType).
var OneSidedStatsTypes = []string{"boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float32", "float64", "date", "time", "timestamp", "timestamptz", "timestamp_s", "timestamp_ms", "timestamp_ns", "uuid"}

// OneSidedStatsTypeSQL is an SQL condition on a ducklake_column column_type
// expression (typ) that is true for OneSidedStatsTypes and decimals.
func OneSidedStatsTypeSQL(typ string) string {
	return "(lower(trim(" + typ + ")) IN ('" + strings.Join(OneSidedStatsTypes, "', '") + "') OR lower(trim(" + typ + ")) LIKE 'decimal(%')"
}

// OneSidedStatsEmpty reports whether the format's readers read a
// ducklake_table_column_stats row of a numeric or temporal column
// (OneSidedStatsTypes) that has only one of min_value and max_value as an
// empty range, so that under a filter on the column the optimizer answers
// no rows: DuckLake 1.5's CreateNumericStats (src/storage/ducklake_stats.cpp
// in 7ea15644 and 67480b1d, the DuckLake of DuckDB 1.5.0 and 1.5.1, in
// v1.5-variegata and main) starts from NumericStats::CreateEmpty (min the
// type's maximum, max its minimum) and sets only the bound present (format
// 0.4, 1.0, 1.1). The readers of 0.1-0.3 (v1.3-ossivalis, v1.4-andium)
// give no statistics unless both are set, so they read every row. Both NULL
// is read as unknown by every reader: convert writes that for a target
// whose readers read one-sided statistics as empty (review rv16-a F6 f).
func OneSidedStatsEmpty(v *Version) bool {
	name := v.Name
	if v.Dev {
		name = v.Release
	}
	switch name {
	case "0.1", "0.2", "0.3":
		return false
	}
	return true
}
