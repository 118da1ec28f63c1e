package formats

import "slices"

// The file column statistics table, which MigrateV02 (0.3) renamed.
const (
	fileStatsTableBefore03 = "ducklake_file_column_statistics"
	fileStatsTable         = "ducklake_file_column_stats"
)

// FileStatsTables are the names of the file column statistics table,
// newest first: a catalog has the one of its format.
func FileStatsTables() []string { return []string{fileStatsTable, fileStatsTableBefore03} }

// V0_3 is DuckLake 0.3 (DuckDB 1.4): MigrateV02 added commit info, Hive
// partition mappings, global schema versions and extra stats, and renamed the
// file stats table. Geometry columns and 'partial_max:N' flushed files appear.
var V0_3 = &Version{
	Name: "0.3", Stamp: "0.3",
	Tables: derive(V0_2.Tables,
		addColumns("ducklake_name_mapping", required(fill(boolean("is_partition"), "false"), nullFails)),
		addColumns("ducklake_snapshot_changes", varchar("author"), varchar("commit_message"), varchar("commit_extra_info")),
		addTables(Table{Name: "ducklake_schema_versions", Columns: []Column{bigint("begin_snapshot"), bigint("schema_version")}}),
		renameTable(fileStatsTableBefore03, fileStatsTable),
		addColumns("ducklake_file_column_stats", varchar("extra_stats")),
		addColumns("ducklake_table_column_stats", readAsNull(requiredWhen(varchar("extra_stats"), nullGeoStats, geometryStatsRead), geometryStatsNoTypes, noGeometryTypes)),
	),
	Caps:           V0_2.Caps | CapHivePartitionMapping | CapCommitInfo | CapSchemaVersions | CapExtraStats | CapPartialMaxInfo,
	Quirks:         quirksV1_4,
	SourceQuirks:   quirksV1_4_5,
	TableStats:     tableStatsV0_1,
	DuckDB:         ">= 1.4.0, < 1.5.0",
	DataPathRows:   DataPathRowsMatch,
	Storage:        "v1.4.0",
	Types:          append(slices.Clone(typesV0_1), "geometry"),
	Transforms:     transformsV0_1,
	ChangeTokens:   withChangeKinds(tokensV0_1, changeKindsV0_3),
	NewChangeKinds: changeKindsV0_3,
}

// changeKindsV0_3 are the change kinds of data inlining, which 0.2
// records as the plain insert, delete and compaction.
var changeKindsV0_3 = []ChangeKind{
	{Name: "inlined_insert", Before: "inserted_into_table"},
	{Name: "inlined_delete", Before: "deleted_from_table"},
	{Name: "flushed_inlined", Before: "compacted_table"},
}

// V0_3Dev1 is the development stamp '0.3-dev1'. On the v1.3 branch it is the
// 0.2 layout plus the three commit-info columns; main builds grew it up to the
// 0.3 layout (ducklake-formats.md §1.2). It converges to 0.3.
var V0_3Dev1 = &Version{
	Name: "0.3-dev1", Stamp: "0.3-dev1", Dev: true, Release: "0.3", Older: []string{"0.2"},
	Tables:       V0_3.Tables,
	Caps:         V0_3.Caps,
	Quirks:       quirksV1_3,
	DuckDB:       ">= 1.3.2, < 1.4.0",
	DataPathRows: DataPathFirstRow,
	Storage:      "v1.3.0",
	Types:        V0_3.Types,
	Transforms:   transformsV0_1,
	ChangeTokens: V0_3.ChangeTokens,
}
