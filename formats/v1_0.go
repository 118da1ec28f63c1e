package formats

import "slices"

// V1_0 is DuckLake 1.0 (DuckDB 1.5.2+): the 0.4 layout; writers may add
// bucket(N) partitions and bare Puffin deletion vectors.
var V1_0 = &Version{
	Name: "1.0", Stamp: "1.0",
	Tables:       tablesV0_4,
	Caps:         capsV0_4 | CapPuffinDeletes,
	DuckDB:       ">= 1.5.2",
	DataPathRows: DataPathRowsMatchTrimmed,
	Storage:      "v1.5.0",
	Types:        typesV0_4,
	Transforms:   append(slices.Clone(transformsV0_1), "bucket("),
	ChangeTokens: tokensV0_4,
	// DuckDB 1.5.2 (415a9ebd) casts the base types; 1.5.3 on (e6a3bd0a,
	// from d6906fa9) and 2.0 the more types too, which only some 1.0
	// readers then fail on (not a refusal). DuckDB 1.5.4 on (d318a545, then
	// 1.5.5's d8a1881e: 8c1e97ab "Answer MIN/MAX from catalog metadata when
	// stats are exact") and 2.0 fold min/max from exact statistics; 1.5.2
	// and 1.5.3 scan. VARCHAR min/max: DuckDB 2.0 folds, every 1.5
	// release scans (TableStatsReading.FoldStringMinMax).
	TableStats: TableStatsReading{CastByEvery: StatsTypesBase, CastBySome: StatsTypesMore,
		FoldMinMax: "DuckDB 1.5.4+ and 2.0", ScanMinMax: "DuckDB 1.5.2-1.5.3",
		FoldStringMinMax: "DuckDB 2.0", ScanStringMinMax: "DuckDB 1.5"},
	// DuckDB 1.5.2 and 1.5.3 (DuckLake 415a9ebd, e6a3bd0a) still fail on
	// table statistics without column statistics (fixed by db9cb183, first
	// in 1.5.4's d318a545); DuckDB 1.5.2 (415a9ebd) still reads delete
	// files with Hive partition detection (fixed by fbe8d67a, first in
	// 1.5.3's e6a3bd0a); DuckDB 1.5.3 and 1.5.5 (run here; 1.5.2 and 1.5.4
	// have no Go binding to run) still read a Parquet TIME as TIME, with no
	// cast to TIME_NS (read as TIME_NS from 1.5.6).
	EarlyQuirks: QuirkTableStatsNeedColumnStats | QuirkDeleteFilesHiveColumns | QuirkTimeNSFilesUnreadable,
	EarlyFixes: map[ReaderQuirk]string{
		QuirkTableStatsNeedColumnStats: "1.5.4",
		QuirkDeleteFilesHiveColumns:    "1.5.3",
		QuirkTimeNSFilesUnreadable:     "1.5.6",
	},
	// DuckDB 1.5.3 on skip files with value_count 0 under comparison
	// filters (3b8cb1f1, first in e6a3bd0a); 1.5.2 keeps them.
	Quirks: quirksV1_5_3,
}
