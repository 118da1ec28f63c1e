package formats

import "strings"

// BOOLEAN statistics (QuirkBooleanStatsComparedAsText). A reader with the
// quirk compares a BOOLEAN column's min_value/max_value as text with the
// constant's text ('true' or 'false'); newer readers TRY_CAST them to
// BOOLEAN. The spelling whose text order is the value order and that every
// reader casts back to the same value is 'false'/'true' (TRY_CAST('false'
// AS BOOLEAN) is false; 'false' < 'true'; the constant is rendered so).

// BooleanStatsValue is the value DuckDB's TRY_CAST(text AS BOOLEAN) gives a
// BOOLEAN statistic ('0', 'f', 'n', 'no', 'false' and '1', 't', 'y', 'yes',
// 'true', in any letter case); ok false where the cast gives NULL (then
// the statistic is compared as the text it is).
func BooleanStatsValue(text string) (value, ok bool) {
	switch strings.ToLower(text) {
	case "0", "f", "n", "no", "false":
		return false, true
	case "1", "t", "y", "yes", "true":
		return true, true
	}
	return false, false
}

// BooleanStatsOrdered reports whether a BOOLEAN statistic (nil: NULL) is
// read alike by readers with and without QuirkBooleanStatsComparedAsText:
// NULL (it keeps the file) or exactly 'false' or 'true'.
func BooleanStatsOrdered(text *string) bool {
	return text == nil || *text == "false" || *text == "true"
}

// BooleanStatsTables are the metadata tables whose min_value and
// max_value hold BOOLEAN statistics of a column (keyed by table_id and
// column_id): the file column statistics (ducklake_file_column_statistics
// before 0.3) and the table column statistics. ducklake_file_variant_stats
// (0.4+, per-path statistics inside VARIANT columns) is left alone: whether
// 1.5.0/1.5.1 prune by its BOOLEAN paths was not audited.
var BooleanStatsTables = []string{"ducklake_file_column_stats", "ducklake_file_column_statistics", "ducklake_table_column_stats"}

// BooleanStatsSpellSQL rewrites the BOOLEAN statistics of stats (one of
// BooleanStatsTables, prefix "" or "cat.") in the spelling a format reads:
// ordered true ('false'/'true', for readers with
// QuirkBooleanStatsComparedAsText: every statistic that casts to a
// BOOLEAN), ordered false ('0'/'1', what the writers of 1.0 and 1.1
// write: only 'false' and 'true', so that a catalog converted down and up
// again has its source's rows). A statistic that does not cast is kept.
// Its result is the number of rows changed.
func BooleanStatsSpellSQL(prefix, stats string, ordered bool) string {
	spell := func(col string) string {
		if ordered {
			return "CASE TRY_CAST(" + col + " AS BOOLEAN) WHEN false THEN 'false' WHEN true THEN 'true' ELSE " + col + " END"
		}
		return "CASE " + col + " WHEN 'false' THEN '0' WHEN 'true' THEN '1' ELSE " + col + " END"
	}
	return `UPDATE ` + prefix + stats + ` s SET min_value = ` + spell("s.min_value") + `, max_value = ` + spell("s.max_value") + `
WHERE (s.min_value IS DISTINCT FROM ` + spell("s.min_value") + ` OR s.max_value IS DISTINCT FROM ` + spell("s.max_value") + `)
	AND EXISTS (SELECT 1 FROM ` + prefix + `ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id AND lower(c.column_type) = 'boolean')`
}

// TableStatsWithoutColumnStatsSQL is the condition on a ducklake_table_stats
// row aliased s (tables under prefix, "" or "cat.") that readers with
// QuirkTableStatsNeedColumnStats fail on: record_count and file_size_bytes
// set (the rows their statistics query reads) and no
// ducklake_table_column_stats row of its table.
func TableStatsWithoutColumnStatsSQL(prefix string) string {
	return `s.record_count IS NOT NULL AND s.file_size_bytes IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM ` + prefix + `ducklake_table_column_stats c WHERE c.table_id = s.table_id)`
}
