package formats

// tablesV0_1 is the layout of DuckLake 0.1 (DuckDB 1.3.0), 19 tables.
var tablesV0_1 = []Table{
	{Name: "ducklake_metadata", Columns: []Column{notNull(varchar("key")), notNull(varchar("value"))}},
	{Name: "ducklake_snapshot", Columns: []Column{pk(bigint("snapshot_id")), {Name: "snapshot_time", Type: "TIMESTAMP WITH TIME ZONE"}, bigint("schema_version"), bigint("next_catalog_id"), bigint("next_file_id")}},
	{Name: "ducklake_snapshot_changes", Columns: []Column{pk(bigint("snapshot_id")), varchar("changes_made")}},
	{Name: "ducklake_schema", Columns: []Column{pk(bigint("schema_id")), {Name: "schema_uuid", Type: "UUID"}, bigint("begin_snapshot"), bigint("end_snapshot"), varchar("schema_name")}},
	{Name: "ducklake_table", Columns: []Column{bigint("table_id"), {Name: "table_uuid", Type: "UUID"}, bigint("begin_snapshot"), bigint("end_snapshot"), bigint("schema_id"), varchar("table_name")}},
	{Name: "ducklake_view", Columns: []Column{bigint("view_id"), {Name: "view_uuid", Type: "UUID"}, bigint("begin_snapshot"), bigint("end_snapshot"), bigint("schema_id"), varchar("view_name"), varchar("dialect"), varchar("sql"), varchar("column_aliases")}},
	{Name: "ducklake_tag", Columns: []Column{bigint("object_id"), bigint("begin_snapshot"), bigint("end_snapshot"), varchar("key"), varchar("value")}},
	{Name: "ducklake_column_tag", Columns: []Column{bigint("table_id"), bigint("column_id"), bigint("begin_snapshot"), bigint("end_snapshot"), varchar("key"), varchar("value")}},
	{Name: "ducklake_data_file", Columns: []Column{pk(bigint("data_file_id")), bigint("table_id"), bigint("begin_snapshot"), bigint("end_snapshot"), bigint("file_order"), varchar("path"), boolean("path_is_relative"), varchar("file_format"), bigint("record_count"), bigint("file_size_bytes"), bigint("footer_size"), bigint("row_id_start"), bigint("partition_id"), varchar("encryption_key"), varchar("partial_file_info")}},
	{Name: "ducklake_file_column_statistics", Columns: []Column{bigint("data_file_id"), bigint("table_id"), bigint("column_id"), bigint("column_size_bytes"), bigint("value_count"), bigint("null_count"), varchar("min_value"), varchar("max_value"), boolean("contains_nan")}},
	{Name: "ducklake_delete_file", Columns: []Column{pk(bigint("delete_file_id")), bigint("table_id"), bigint("begin_snapshot"), bigint("end_snapshot"), bigint("data_file_id"), varchar("path"), boolean("path_is_relative"), varchar("format"), bigint("delete_count"), bigint("file_size_bytes"), bigint("footer_size"), varchar("encryption_key")}},
	{Name: "ducklake_column", Columns: []Column{bigint("column_id"), bigint("begin_snapshot"), bigint("end_snapshot"), bigint("table_id"), bigint("column_order"), varchar("column_name"), varchar("column_type"), varchar("initial_default"), varchar("default_value"), boolean("nulls_allowed"), bigint("parent_column")}},
	{Name: "ducklake_table_stats", Columns: []Column{bigint("table_id"), bigint("record_count"), bigint("next_row_id"), bigint("file_size_bytes")}},
	{Name: "ducklake_table_column_stats", Columns: []Column{bigint("table_id"), bigint("column_id"), boolean("contains_null"), boolean("contains_nan"), varchar("min_value"), varchar("max_value")}},
	{Name: "ducklake_partition_info", Columns: []Column{bigint("partition_id"), bigint("table_id"), bigint("begin_snapshot"), bigint("end_snapshot")}},
	{Name: "ducklake_partition_column", Columns: []Column{bigint("partition_id"), bigint("table_id"), bigint("partition_key_index"), bigint("column_id"), varchar("transform")}},
	// The earliest 0.1 builds had a PRIMARY KEY on data_file_id, which breaks
	// multi-key partitions; released builds did not (ducklake-formats.md §2.5).
	{Name: "ducklake_file_partition_value", Columns: []Column{bigint("data_file_id"), bigint("table_id"), bigint("partition_key_index"), varchar("partition_value")}},
	{Name: "ducklake_files_scheduled_for_deletion", Columns: []Column{bigint("data_file_id"), varchar("path"), boolean("path_is_relative"), {Name: "schedule_start", Type: "TIMESTAMP WITH TIME ZONE"}}},
	{Name: "ducklake_inlined_data_tables", Columns: []Column{bigint("table_id"), varchar("table_name"), bigint("schema_version")}},
}

// Types every format stores (ducklake-formats.md §5.2).
var typesV0_1 = []string{
	"boolean", "int8", "int16", "int32", "int64", "int128", "uint8", "uint16", "uint32", "uint64", "uint128",
	"float32", "float64", "decimal", "time", "date", "timestamp", "timestamp_us", "timestamp_ms", "timestamp_ns",
	"timestamp_s", "timestamptz", "timetz", "interval", "varchar", "blob", "uuid", "json", "struct", "list", "map",
}

var transformsV0_1 = []string{"identity", "year", "month", "day", "hour"}

var tokensV0_1 = []string{
	"created_schema", "created_table", "created_view", "inserted_into_table", "deleted_from_table",
	"altered_table", "altered_view", "dropped_schema", "dropped_table", "dropped_view", "compacted_table",
}

// tableStatsV0_1 is how the readers of formats 0.1-0.3 (DuckLake
// v1.3-ossivalis, v1.4-andium) read table statistics: the base types, only
// where min_value and max_value are both set; none answers min/max from them
// (8c1e97ab is 1.5.4's), all scan.
var tableStatsV0_1 = TableStatsReading{BothBounds: true, CastByEvery: StatsTypesBase, CastBySome: StatsTypesBase}

// V0_1 is DuckLake 0.1: partition columns are positions, file paths are
// relative to data_path, no name mapping, no scoped settings.
var V0_1 = &Version{
	Name: "0.1", Stamp: "0.1",
	Tables:       tablesV0_1,
	Caps:         CapSplitPartialFiles,
	Quirks:       quirksV1_3_0,
	TableStats:   tableStatsV0_1,
	DuckDB:       ">= 1.3.0, < 1.3.1",
	DataPathRows: DataPathFirstRow,
	Storage:      "v1.3.0",
	Types:        typesV0_1,
	Transforms:   transformsV0_1,
	ChangeTokens: tokensV0_1,
}
