package formats

import "strings"

// Statistics compared as text. Under a filter pushed down on a column, the
// real readers of some formats compare the column's min_value/max_value with
// the constant's text (Value::ToString), as VARCHARs, where newer readers
// TRY_CAST them to the column's type (RequiresValueComparison): BOOLEAN in
// 0.1-0.4 (QuirkBooleanStatsComparedAsText), the temporal types in 0.1-0.3
// (QuirkTemporalStatsComparedAsText). A statistic is read alike by both
// kinds of readers, under every constant, when it is NULL (the file is kept)
// or spelled so that text order is value order for every value of the type
// (Ordered). Convert rewrites a target's statistics into that spelling
// (SpellSQL), and the proof reports a catalog whose text-comparing readers
// would skip a file its source's readers keep.

// TextStats is one kind of column whose statistics some readers compare as
// text.
type TextStats struct {
	// Quirk is the readers' behaviour.
	Quirk ReaderQuirk
	// Kind names the types in reports ("BOOLEAN", "temporal").
	Kind string
	// Types are the DuckLake column_type names (lower case) of the kind.
	Types []string
	// Tables are the metadata tables whose min_value and max_value hold the
	// kind's statistics, keyed by table_id and column_id, that SpellSQL
	// rewrites: those the readers compare as text, and (BOOLEAN) those kept
	// in the same spelling.
	Tables []string
	// Ordered reports whether a statistic (nil: NULL) is read alike by
	// readers with and without Quirk under every constant.
	Ordered func(text *string) bool
	// Value is the value a statistic stands for in readers without Quirk,
	// so that spellings of one value compare equal (ok false: compared as
	// the text it is).
	Value func(text string) (value string, ok bool)
	// ordered and plain give the spelling of a statistic (a SQL expression
	// of col) for readers with Quirk (Ordered) and for readers without it
	// (what their writers write; "" where the ordered spelling is kept).
	ordered, plain func(col string) string
}

// The file column statistics tables (FileStatsTables).
var fileStatsTables = FileStatsTables()

// BooleanTextStats: BOOLEAN statistics (QuirkBooleanStatsComparedAsText).
// The spelling whose text order is the value order and that every reader
// casts back to the same value is 'false'/'true' (TRY_CAST('false' AS
// BOOLEAN) is false; 'false' < 'true'; the constant is rendered so). DuckLake
// 1.5's writers write '0'/'1'. The table column statistics are spelled alike
// (they prune nothing). ducklake_file_variant_stats (0.4+, per-path
// statistics inside VARIANT columns) is left alone: whether 1.5.0/1.5.1
// prune by its BOOLEAN paths was not audited.
var BooleanTextStats = &TextStats{
	Quirk:  QuirkBooleanStatsComparedAsText,
	Kind:   "BOOLEAN",
	Types:  []string{"boolean"},
	Tables: append(append([]string{}, fileStatsTables...), "ducklake_table_column_stats"),
	Ordered: func(text *string) bool {
		return text == nil || *text == "false" || *text == "true"
	},
	Value: func(text string) (string, bool) {
		v, ok := BooleanStatsValue(text)
		if !ok {
			return "", false
		}
		if v {
			return "true", true
		}
		return "false", true
	},
	ordered: func(col string) string {
		return "CASE TRY_CAST(" + col + " AS BOOLEAN) WHEN false THEN 'false' WHEN true THEN 'true' ELSE " + col + " END"
	},
	plain: func(col string) string {
		return "CASE " + col + " WHEN 'false' THEN '0' WHEN 'true' THEN '1' ELSE " + col + " END"
	},
}

// TemporalTextStats: DATE, TIME, TIMETZ and TIMESTAMP* statistics
// (QuirkTemporalStatsComparedAsText). No spelling orders as the values for
// every constant: DATE and TIMESTAMP text sorts as the value only for years
// 0001-9999 AD (10000-01-01 sorts before 2024-01-01, 0044-03-15 (BC) after
// 0001-01-01), and a constant outside them (WHERE d < DATE '10000-01-01')
// misreads even statistics inside them; TIMETZ orders by the instant, its
// text by the local time. So only NULL is ordered: readers with the quirk
// keep the file, and still apply the filter to its rows. The table column
// statistics are read as values by every reader (CreateNumericStats casts
// them with DefaultCastAs; TIMETZ has none) and are left as they are.
var TemporalTextStats = &TextStats{
	Quirk:   QuirkTemporalStatsComparedAsText,
	Kind:    "temporal",
	Types:   []string{"date", "time", "time_ns", "timetz", "timestamp", "timestamp_us", "timestamp_s", "timestamp_ms", "timestamp_ns", "timestamptz"},
	Tables:  fileStatsTables,
	Ordered: func(text *string) bool { return text == nil },
	Value:   func(string) (string, bool) { return "", false },
	ordered: func(string) string { return "NULL::VARCHAR" },
}

// AllTextStats are the kinds of statistics some readers compare as text.
var AllTextStats = []*TextStats{BooleanTextStats, TemporalTextStats}

// TypeSQL is the condition that the column c (a ducklake_column row) is of
// the kind.
func (k *TextStats) TypeSQL(c string) string {
	return "lower(" + c + ".column_type) IN ('" + strings.Join(k.Types, "', '") + "')"
}

// SpellSQL rewrites the statistics of the kind in stats (one of Tables;
// prefix "" or "cat.") in the spelling a format reads: ordered true (for
// readers with the kind's Quirk: every statistic in its Ordered spelling,
// NULL where it has none), ordered false (for readers without it: what
// their writers write, so that a catalog converted down and up again has
// its source's rows; "" where nothing is respelled). Its result is the
// number of rows changed.
func (k *TextStats) SpellSQL(prefix, stats string, ordered bool) string {
	spell := k.ordered
	if !ordered {
		spell = k.plain
	}
	if spell == nil {
		return ""
	}
	return `UPDATE ` + prefix + stats + ` s SET min_value = ` + spell("s.min_value") + `, max_value = ` + spell("s.max_value") + `
WHERE ` + k.RespellSQL(prefix, ordered)
}

// RespellSQL is the condition on a row aliased s of one of Tables (tables
// under prefix) that SpellSQL rewrites ("" where it rewrites nothing).
func (k *TextStats) RespellSQL(prefix string, ordered bool) string {
	spell := k.ordered
	if !ordered {
		spell = k.plain
	}
	if spell == nil {
		return ""
	}
	return `(s.min_value IS DISTINCT FROM ` + spell("s.min_value") + ` OR s.max_value IS DISTINCT FROM ` + spell("s.max_value") + `)
	AND EXISTS (SELECT 1 FROM ` + prefix + `ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id AND ` + k.TypeSQL("c") + `)`
}

// PrunesFiles reports whether the kind's statistics in stats decide which
// files readers skip (the file column statistics; table column statistics
// prune nothing under the quirk).
func (k *TextStats) PrunesFiles(stats string) bool {
	for _, t := range fileStatsTables {
		if t == stats {
			return true
		}
	}
	return false
}

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

// TableStatsWithoutColumnStatsSQL is the condition on a ducklake_table_stats
// row aliased s (tables under prefix, "" or "cat.") that readers with
// QuirkTableStatsNeedColumnStats fail on: record_count and file_size_bytes
// set (the rows their statistics query reads) and no
// ducklake_table_column_stats row of its table.
func TableStatsWithoutColumnStatsSQL(prefix string) string {
	return `s.record_count IS NOT NULL AND s.file_size_bytes IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM ` + prefix + `ducklake_table_column_stats c WHERE c.table_id = s.table_id)`
}

// StringTableStatsWithoutMinMaxSQL is the condition on a
// ducklake_table_column_stats row aliased s (tables under prefix, "" or
// "cat.") that readers with QuirkStringTableStatsEmpty read as an empty
// column: min_value and max_value NULL, and the column VARCHAR or JSON
// (JSON is a VARCHAR to DuckDB) in some row of ducklake_column.
func StringTableStatsWithoutMinMaxSQL(prefix string) string {
	return `s.min_value IS NULL AND s.max_value IS NULL
		AND EXISTS (SELECT 1 FROM ` + prefix + `ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id
			AND lower(col.column_type) IN ('varchar', 'json'))`
}

// ColumnMayHoldValuesSQL is the condition that the column of the row
// aliased s (table_id, column_id; tables under prefix, file statistics
// table stats) may hold a non-NULL value at some snapshot, as far as the
// catalog tells: a file statistics row of it with values (value_count > 0,
// what the readers' IS NOT NULL pruning asks, or NULL) or a min or max; a
// data file of the table without a statistics row for it that was written
// with the column (unknown) or is read with a non-NULL initial default;
// or inlined data of the table. Only a column every file of which holds
// NULLs alone (by its statistics, or its NULL default), and no inlined
// data, does not.
func ColumnMayHoldValuesSQL(prefix, stats string) string {
	return `(EXISTS (SELECT 1 FROM ` + prefix + stats + ` fs WHERE fs.table_id = s.table_id AND fs.column_id = s.column_id
			AND (fs.value_count IS NULL OR fs.value_count > 0 OR fs.min_value IS NOT NULL OR fs.max_value IS NOT NULL))
		OR EXISTS (SELECT 1 FROM ` + prefix + `ducklake_data_file f WHERE f.table_id = s.table_id
			AND NOT EXISTS (SELECT 1 FROM ` + prefix + stats + ` fs WHERE fs.data_file_id = f.data_file_id AND fs.column_id = s.column_id)
			AND EXISTS (SELECT 1 FROM ` + prefix + `ducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id
				AND (col.initial_default IS NOT NULL OR col.begin_snapshot <= f.begin_snapshot)))
		OR EXISTS (SELECT 1 FROM ` + prefix + `ducklake_inlined_data_tables i WHERE i.table_id = s.table_id))`
}
