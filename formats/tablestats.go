package formats

import "fmt"

// TableStatsReading is how the readers of a format turn the catalog's table
// statistics (ducklake_table_stats, ducklake_table_column_stats) into the
// statistics DuckDB's planner uses (DuckLakeColumnStats::ToStats ->
// CreateNumericStats, src/storage/ducklake_stats.cpp): which column types
// they cast, when, and whether they answer min/max from them. The proof
// (package compare) refuses statistics a reader fails to cast and checks
// folded min/max; convert and the proof treat one-sided rows by it
// (onesided.go). Declared once per released format (Version.TableStats); a
// development layout reads as its release (Version.ReadsTableStats).
type TableStatsReading struct {
	// BothBounds: the readers give a column no statistics unless both
	// min_value and max_value are set (v1.3-ossivalis, v1.4-andium:
	// formats 0.1-0.3). Later readers (7ea15644 on) start from
	// NumericStats::CreateEmpty and set each bound present, so a row with
	// one bound reads as no bounds (min > max), or as one value where the
	// bound is at its type's extreme (OneSidedStatsEmpty, OneSidedMisreadSQL).
	BothBounds bool
	// CastByEvery are the types every reader of the format casts when it
	// plans a scan (a text that does not cast fails the query: compare's
	// uncastable-column-stats refusal); CastBySome those some reader casts
	// (where a one-sided row at its type's extreme is misread: OneSidedMisreadSQL). They differ
	// where the releases that read the format run different DuckLake builds.
	CastByEvery, CastBySome StatsTypes
	// CurrentSnapshotOnly: every reader gives the planner the table
	// statistics only for a scan at the catalog's current snapshot, so a
	// read at an older one (AT (VERSION => ...)) never casts them.
	CurrentSnapshotOnly bool
	// FoldMinMax names the DuckDB releases reading the format that answer
	// SELECT min(c), max(c) at the latest snapshot from exact table
	// statistics ("" for none: every reader scans); ScanMinMax those that
	// scan even then ("" for none) (compare/minmax.go).
	FoldMinMax, ScanMinMax string
	// FoldStringMinMax names the releases that answer min/max of a
	// top-level VARCHAR column from exact table statistics, and
	// ScanStringMinMax those that scan it even then: DuckLake main
	// (DuckDB 2.0) gives a column both of whose bounds are set
	// StringStats::MergeInConstant of each (DuckLakeColumnStats::
	// CreateStringStats, 38b862a4), which DuckDB main's reworked string
	// statistics (968f84a9eb8, ba999157015, 2026-05-13) mark EXACT_STATS
	// up to 100000 bytes, and TryGetValueFromStats folds exact string
	// statistics; DuckDB 1.5 folds string statistics only with a maximum
	// string length of at most 8 bytes, which DuckLake's never have
	// (ResetMaxStringLength), so it scans (compare/minmax.go).
	FoldStringMinMax, ScanStringMinMax string
}

// StatsTypes is a set of column types whose table column statistics a
// DuckLake build's DuckLakeColumnStats::ToStats turns into numeric
// statistics (src/storage/ducklake_stats.cpp); each set holds the one
// before it. FLOAT and DOUBLE statistics are read only where contains_nan
// is false.
type StatsTypes uint8

const (
	// StatsTypesNone: no type (the zero value; no format declares it).
	StatsTypesNone StatsTypes = iota
	// StatsTypesBase: v1.3-ossivalis, v1.4-andium, and 7ea15644, 67480b1d
	// and 415a9ebd (DuckDB 1.5.0, 1.5.1, 1.5.2): the integers from SMALLINT
	// up, unsigned ones, FLOAT, DOUBLE, DATE, TIME and the TIMESTAMPs.
	StatsTypesBase
	// StatsTypesMore: from d6906fa9 ("Populate stats for more types";
	// e6a3bd0a, DuckDB 1.5.3, and later): also BOOLEAN, TINYINT, DECIMAL
	// and UUID.
	StatsTypesMore
	// StatsTypesMain: DuckLake main (DuckDB 2.0): also TIMESTAMP_TZ_NS.
	StatsTypesMain
)

// ReadsTableStats is how the format's readers read table statistics: its
// TableStats, or for a development layout its release's (as ReleaseName).
func (v *Version) ReadsTableStats() TableStatsReading {
	if v.Dev {
		for _, r := range All {
			if r.Name == v.Release {
				return r.TableStats
			}
		}
	}
	return v.TableStats
}

// StringStatsExactBytes is the longest VARCHAR table statistics bound the
// readers of TableStatsReading.FoldStringMinMax take as exact
// (StringStats::FromConstant's CONSTANT_STATS_BOUND in DuckDB main): a
// longer one is truncated and not folded.
const StringStatsExactBytes = 100000

// StringBoundsUnfolded reports whether a conversion from source to target
// writes the table statistics bounds of top-level VARCHAR columns NULL
// (FoldedStringBoundsSQL): some reader of the target folds SELECT min(s),
// max(s) from them (FoldStringMinMax) while no reader of the source does
// (0.1-0.4 to 1.0 and 1.1). DuckDB's Parquet writer keeps at most 256
// bytes of a string in its statistics (StringStatisticsState: the min cut
// to a character boundary, the max cut where a byte below 0x7F can be
// incremented, so a cut max may be of any length up to 256), and
// ducklake_add_data_files stores other writers' bounds as their footers
// hold them (cut at other lengths, or not at all): no text of a bound
// tells whether a row holds it. The target's folding readers would answer
// a cut bound the source's readers never answer (they scan); with both
// bounds NULL they scan too (DuckLake's CreateStringStats gives
// StringStats::CreateUnknown, NO_STATS, which TryGetValueFromStats does
// not fold), as every DuckDB 1.5 reader of 1.0 already does, reading NULL
// bounds as no statistics (CreateUnknown).
func StringBoundsUnfolded(source, target *Version) bool {
	return source.ReadsTableStats().FoldStringMinMax == "" && target.ReadsTableStats().FoldStringMinMax != ""
}

// FoldedStringBoundsSQL is the condition on a ducklake_table_column_stats
// row aliased s (tables under prefix, "" or "cat.") that the readers of
// TableStatsReading.FoldStringMinMax fold when the statistics are exact:
// its column a top-level VARCHAR (not JSON) column of the table at the
// latest snapshot, both bounds set, neither longer than
// StringStatsExactBytes.
func FoldedStringBoundsSQL(prefix string) string {
	return fmt.Sprintf(`s.min_value IS NOT NULL AND s.max_value IS NOT NULL
		AND strlen(s.min_value) <= %[2]d AND strlen(s.max_value) <= %[2]d
		AND EXISTS (SELECT 1 FROM %[1]sducklake_column col WHERE col.table_id = s.table_id AND col.column_id = s.column_id
			AND col.end_snapshot IS NULL AND col.parent_column IS NULL AND lower(trim(col.column_type)) = 'varchar')`, prefix, StringStatsExactBytes)
}

// StringBoundsFoldedOnlyBySource reports whether every reader of source
// folds min/max of a top-level VARCHAR column from exact table statistics
// (1.1: DuckDB 2.0 only) while some reader of target scans it (1.0's
// DuckDB 1.5, 0.1-0.4): where the folded bound is no value of the table
// (cut by a Parquet writer), the target's scanning readers answer what no
// reader of the source does, and no rewrite of the target's statistics
// makes them answer the cut value; convert refuses such a table.
func StringBoundsFoldedOnlyBySource(source, target *Version) bool {
	s, t := source.ReadsTableStats(), target.ReadsTableStats()
	return s.FoldStringMinMax != "" && s.ScanStringMinMax == "" && (t.FoldStringMinMax == "" || t.ScanStringMinMax != "")
}

// StringBoundsCutUnfolded reports whether a conversion from source to
// target writes NULL the folded VARCHAR table statistics bounds
// (FoldedStringBoundsSQL) that are not the min and max of the table's
// rows, where the statistics are exact: some reader of source scans such a
// column (1.0's DuckDB 1.5) and some folds it (1.0's DuckDB 2.0), while
// every reader of target folds it (1.1: DuckDB 2.0 only). Kept, a bound
// DuckDB's Parquet writer cut leaves the target only readers that answer
// a value no row holds, where the source's scanning readers answer the
// true one; with both bounds NULL DuckDB 2.0 scans and answers it too.
// Bounds that are the rows' min and max stay (no reader's answer changes,
// and DuckDB 2.0 keeps its fold). A source none of whose readers fold is
// StringBoundsUnfolded's (every such row NULL).
func StringBoundsCutUnfolded(source, target *Version) bool {
	s, t := source.ReadsTableStats(), target.ReadsTableStats()
	return s.FoldStringMinMax != "" && s.ScanStringMinMax != "" && t.FoldStringMinMax != "" && t.ScanStringMinMax == ""
}
