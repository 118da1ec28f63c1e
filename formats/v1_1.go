package formats

import "slices"

var tablesV1_1 = derive(tablesV0_4,
	addColumns("ducklake_data_file", bigint("row_group_count")),
	addColumns("ducklake_delete_file", bigint("row_group_count")),
	addTables(Table{Name: "ducklake_view_column_tag", Columns: []Column{bigint("view_id"), varchar("column_name"), bigint("begin_snapshot"), bigint("end_snapshot"), varchar("key"), varchar("value")}}),
)

var capsV1_1 = V1_0.Caps | CapPuffinContainers | CapViewColumnComments | CapRowGroupCount |
	CapPrefixedInlinedColumns | CapReservedDucklakePrefix

var transformsV1_1 = append(slices.Clone(V1_0.Transforms), "epoch_year", "epoch_month", "epoch_day", "epoch_hour")

// V1_1 is DuckLake 1.1 (DuckDB 2.0): row group counts, view column comments,
// prefixed inlined system columns, epoch transforms, Puffin containers and
// timestamptz_ns.
var V1_1 = &Version{
	Name: "1.1", Stamp: "1.1",
	Tables:       tablesV1_1,
	Caps:         capsV1_1,
	DuckDB:       ">= 2.0.0",
	DataPathRows: DataPathRowsMatchTrimmed,
	Storage:      "v1.5.0",
	Types:        append(slices.Clone(typesV0_4), "timestamptz_ns"),
	Transforms:   transformsV1_1,
	ChangeTokens: tokensV0_4,
	// Read by DuckLake main (DuckDB 2.0) only: it casts the main types,
	// only for a scan at the catalog's current snapshot (d2f4b9c0,
	// 2026-08-11, "Only apply global statistics to current-snapshot table
	// scans": DuckLakeStatistics returns none unless
	// DuckLakeFunctionInfo::CanUseGlobalStats, the scan's snapshot being the
	// transaction's and the catalog not pinned to a snapshot), and folds
	// min/max from exact statistics (8c1e97ab), VARCHAR too
	// (TableStatsReading.FoldStringMinMax).
	TableStats: TableStatsReading{CastByEvery: StatsTypesMain, CastBySome: StatsTypesMain,
		CurrentSnapshotOnly: true, FoldMinMax: "DuckDB 2.0", FoldStringMinMax: "DuckDB 2.0"},
	// DuckLake main skips files with value_count 0 under comparison
	// filters, as DuckDB 1.5.3+ do for 1.0 (3b8cb1f1).
	Quirks: quirksV1_5_3,
}

// V1_1Dev1 is the development stamp '1.1-dev1' written by DuckDB's 2.0
// development line. Early builds stamped it on the 1.0 layout and added the
// 1.1 columns and tables in place (ducklake-formats.md §3.5).
var V1_1Dev1 = &Version{
	Name: "1.1-dev1", Stamp: "1.1-dev1", Dev: true, Release: "1.1", Older: []string{"1.0"},
	Tables:       tablesV1_1,
	Caps:         capsV1_1,
	DuckDB:       "< 0.0.0",
	DataPathRows: DataPathRowsMatchTrimmed,
	Storage:      "v1.5.0",
	Types:        V1_1.Types,
	Transforms:   transformsV1_1,
	ChangeTokens: tokensV0_4,
	Quirks:       quirksV1_5_3,
}
