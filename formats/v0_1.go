package formats

// What DuckLake's readers do with a NULL where its writers always write a
// value (Column.NullRead), read from the extension's metadata manager: a
// field read as a number (Value::GetValue<idx_t>, <bool>) throws an internal
// error on NULL, one read as text (GetValue<string>) gives the text 'NULL',
// and a NULL in a filter's column (table_id = T, begin_snapshot <= S, a
// join on data_file_id) matches nothing.
const (
	nullFails        = "DuckLake's readers fail on it (INTERNAL Error: a NULL read as a number)"
	nullSkipsRow     = "DuckLake's readers leave the row out (a NULL matches no snapshot, table or file)"
	nullAsText       = "DuckLake's readers take the text 'NULL' for it"
	nullTypeFails    = "DuckLake's readers take the type name 'NULL' for it, which they cannot parse"
	nullNoDataFile   = "DuckLake's readers take the data file as absent and fail to scan it"
	nullNoDeleteFile = "DuckLake's readers take the delete file as absent: its rows are not deleted"
	nullNoRows       = "DuckLake's readers sum it for count(*) and the table statistics, where a NULL counts no rows"
	// StringValue::Get (a field of a list the readers aggregate in SQL:
	// inlined data tables, macros) throws an internal error on NULL.
	nullTextFails    = "DuckLake's readers fail on it (INTERNAL Error: Calling StringValue::Get on a NULL value)"
	nullTransform    = "DuckLake's readers take the transform 'NULL' for it and fail to load the catalog (Unsupported partition transform NULL)"
	nullInlinedTable = "DuckLake's readers leave the registration out: none of the inlined table's rows is read"
	nullRelFails     = "DuckLake's readers fail on it where a path is recorded (INTERNAL Error: a NULL read as a boolean)"
	nullNoKey        = "DuckLake's readers fail on it in an encrypted catalog (Database is encrypted, but file ... does not have an encryption key)"
	nullRowID        = "DuckLake's readers give the row the rowid NULL, which no row of a DuckLake table has (and match deletions against an undefined value)"
	nullNoDeletion   = "DuckLake's readers leave the deletion out: the row it deletes is read"
	nullViewSQL      = "DuckLake's readers take the text 'NULL' for the view's query, which does not parse: every read of the view fails (Parser Error: syntax error at or near \"NULL\")"
	nullAliases      = "DuckLake's readers take the text 'NULL' for the alias list, which does not parse: loading the catalog fails at every snapshot the view is in (Invalid Input Error: Failed to parse quoted value - expected a quote)"
	// The global statistics (GetGlobalTableStats, TransformGlobalStatsRow)
	// are loaded for every scan's planning: up to DuckDB 1.5.3 every
	// table's at once, from 1.5.4 (d318a545) the scanned table's alone.
	nullStatsTableID  = "DuckLake's readers up to DuckDB 1.5.3 (formats 0.1-0.4, and 1.0 on 1.5.2 and 1.5.3) fail on it when they load the table statistics, so every table read fails (INTERNAL Error: a NULL read as a number); later ones never read the row"
	nullStatsFails    = "DuckLake's readers fail on it when they load the table statistics (INTERNAL Error: a NULL read as a number): up to DuckDB 1.5.3 every table read fails, later that table's"
	nullStatsColumnID = "DuckLake's readers up to DuckDB 1.5.3 (formats 0.1-0.4, and 1.0 on 1.5.2 and 1.5.3) fail on it when they load the table statistics, so every table read fails (INTERNAL Error: a NULL read as a number); later ones read the column as one without statistics"
	// A GEOMETRY column's table statistics without extra_stats read as
	// geometry statistics with an empty extent and no geometry types
	// (DuckLakeColumnGeoStats' defaults, ToStats); DuckDB main's
	// vertex_extract statistics (VertexExtractStats, c92996ee, in DuckLake
	// main's pin ac5c6d11 and DuckDB 2.0.0) fold the call to a constant NULL
	// where the types hold no POINT.
	nullGeoStats = "DuckLake's readers read the GEOMETRY column as one holding no geometry types: DuckDB 2.0 (DuckLake main; formats 1.0 and 1.1) answers vertex_extract() of it (a point's x, y, z or m) NULL in every row; DuckDB 1.5 prunes nothing by the empty extent"
	// ConvertFilterPushdownToSQL from d318a545 (DuckDB 1.5.4) keeps a file
	// without a statistics row for the filtered column through
	// data_file_id NOT IN (the column's rows' data_file_id).
	nullStatsFileID = "DuckLake's readers from DuckDB 1.5.4 (format 1.0 as modelled, 1.1) skip, under a filter on the column, every data file without a statistics row for it (NOT IN a list holding NULL); earlier ones never match the row"
)

// statsRead is the condition (Column.NullWhen) of a ducklake_table_stats
// row the readers read: the global statistics query skips one without a
// record_count or a file_size_bytes.
const statsRead = "record_count IS NOT NULL AND file_size_bytes IS NOT NULL"

// columnStatsRead is the condition (Column.NullWhen) of a
// ducklake_table_column_stats row the readers read: one of a table whose
// ducklake_table_stats row they read (a LEFT JOIN USING (table_id)).
// {table_stats} stands for the catalog's ducklake_table_stats table.
const columnStatsRead = "table_id IN (SELECT s.table_id FROM {table_stats} s WHERE s.record_count IS NOT NULL AND s.file_size_bytes IS NOT NULL)"

// fileStatsRead is the condition (Column.NullWhen) of a file column
// statistics row a filter's pushdown reads: the column's rows of the
// table (WHERE column_id = C AND table_id = T).
const fileStatsRead = "table_id IS NOT NULL AND column_id IS NOT NULL"

// geometryStatsRead is the condition (Column.NullWhen) of a
// ducklake_table_column_stats row the readers read (columnStatsRead) of a
// GEOMETRY column, at any level of nesting: its statistics are built from
// extra_stats (DuckLakeColumnStats::FromGlobalStats, CreateGeometryStats).
// {column} stands for the catalog's ducklake_column table, {self} for the
// checked table.
const geometryStatsRead = columnStatsRead + " AND EXISTS (SELECT 1 FROM {column} k WHERE k.table_id = {self}.table_id AND k.column_id = {self}.column_id AND " + geometryColumnK + ")"

// geometryColumnK is the condition that the ducklake_column row k is of a
// GEOMETRY column, as geometryStatsRead asks it (and CheckRequired's
// hasGeometryColumn, which leaves the GEOMETRY conditions out of a catalog
// where no row meets it).
const geometryColumnK = "lower(k.column_type) = 'geometry'"

// geometryStatsNoTypes is the condition (Column.ReadAsNull) of a GEOMETRY
// column's table statistics row the readers read (geometryStatsRead) whose
// extra_stats, as they read it, names no geometry type, while a data
// file's statistics of the column count a value that is not NULL
// (value_count, NULLs included, above null_count). DuckLake's readers
// (DuckLakeColumnGeoStats::Deserialize, then ToStats) take the "types"
// list of a JSON object (none where it is missing or not a list), keep
// its strings, and add each that names a geometry type, matched
// case-insensitively; "unknown" and its _z, _m and _zm forms name none
// (GeometryType::INVALID), nor does any other string. The statistics then
// say no geometry holds a point, as a NULL extra_stats does
// (nullGeoStats), and every value has a type: DuckLake's writers list
// every type they write, and ducklake_add_data_files writes an empty list
// for files whose footers hold no geospatial statistics. Text that is no
// JSON object is left to the readers, which fail on it.
const geometryStatsNoTypes = geometryStatsRead + " AND CASE WHEN json_valid({self}.extra_stats) AND json_type({self}.extra_stats) = 'OBJECT' THEN " +
	"CASE WHEN json_type({self}.extra_stats, '$.types') = 'ARRAY' THEN len(list_filter(json_extract_string({self}.extra_stats, '$.types[*]'), lambda t: lower(t) IN (" + geometryTypeNames + "))) = 0 ELSE true END " +
	"ELSE false END AND EXISTS (SELECT 1 FROM {file_stats} f WHERE f.table_id = {self}.table_id AND f.column_id = {self}.column_id AND f.value_count > f.null_count)"

// geometryTypeNames are the names DuckLake's readers read as a geometry
// type in a GEOMETRY column's extra_stats (ToStats' type_mapping, without
// the "unknown" forms), as SQL literals.
const geometryTypeNames = "'point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection', " +
	"'point_z', 'linestring_z', 'polygon_z', 'multipoint_z', 'multilinestring_z', 'multipolygon_z', 'geometrycollection_z', " +
	"'point_m', 'linestring_m', 'polygon_m', 'multipoint_m', 'multilinestring_m', 'multipolygon_m', 'geometrycollection_m', " +
	"'point_zm', 'linestring_zm', 'polygon_zm', 'multipoint_zm', 'multilinestring_zm', 'multipolygon_zm', 'geometrycollection_zm'"

// noGeometryTypes says what such an extra_stats is (Column.ReadAsNullIs).
const noGeometryTypes = "names no geometry type (its \"types\" list empty, missing or of unknown types) while the column's data files hold values that are not NULL (value_count above null_count)"

// encrypted is the condition (Column.NullWhen) of a catalog whose
// ducklake_metadata says encrypted = 'true' (CheckMetadata refuses
// catalogs whose global rows disagree): its readers read every file's key.
const encrypted = "EXISTS (SELECT 1 FROM {metadata} m WHERE m.key = 'encrypted' AND m.value = 'true' AND {global})"

// tablesV0_1 is the layout of DuckLake 0.1 (DuckDB 1.3.0), 19 tables.
var tablesV0_1 = []Table{
	{Name: "ducklake_metadata", Columns: []Column{notNull(varchar("key")), notNull(varchar("value"))}},
	{Name: "ducklake_snapshot", Key: []string{"snapshot_id"}, Columns: []Column{pk(required(bigint("snapshot_id"), nullSkipsRow)), {Name: "snapshot_time", Type: "TIMESTAMP WITH TIME ZONE"}, required(bigint("schema_version"), nullFails), required(bigint("next_catalog_id"), nullFails), required(bigint("next_file_id"), nullFails)}},
	{Name: "ducklake_snapshot_changes", Columns: []Column{pk(bigint("snapshot_id")), varchar("changes_made")}},
	{Name: "ducklake_schema", Key: []string{"schema_id", "begin_snapshot"}, Columns: []Column{pk(required(bigint("schema_id"), nullFails)), {Name: "schema_uuid", Type: "UUID"}, required(bigint("begin_snapshot"), nullSkipsRow), bigint("end_snapshot"), required(varchar("schema_name"), nullAsText)}},
	{Name: "ducklake_table", Key: []string{"table_id", "begin_snapshot"}, Columns: []Column{required(bigint("table_id"), nullFails), {Name: "table_uuid", Type: "UUID"}, required(bigint("begin_snapshot"), nullSkipsRow), bigint("end_snapshot"), required(bigint("schema_id"), nullFails), required(varchar("table_name"), nullAsText)}},
	// The views are loaded with the catalog (BuildCatalogForSnapshot): the
	// ids read as numbers, the texts with GetValue<string>; view_uuid and
	// dialect are read as the text 'NULL' and used by writers only.
	{Name: "ducklake_view", Key: []string{"view_id", "begin_snapshot"}, Columns: []Column{required(bigint("view_id"), nullFails), {Name: "view_uuid", Type: "UUID"}, required(bigint("begin_snapshot"), nullSkipsRow), bigint("end_snapshot"), required(bigint("schema_id"), nullFails), required(varchar("view_name"), nullAsText), varchar("dialect"), required(varchar("sql"), nullViewSQL), required(varchar("column_aliases"), nullAliases)}},
	{Name: "ducklake_tag", Columns: []Column{bigint("object_id"), bigint("begin_snapshot"), bigint("end_snapshot"), varchar("key"), varchar("value")}},
	{Name: "ducklake_column_tag", Columns: []Column{bigint("table_id"), bigint("column_id"), bigint("begin_snapshot"), bigint("end_snapshot"), varchar("key"), varchar("value")}},
	{Name: "ducklake_data_file", Key: []string{"data_file_id"}, Columns: []Column{pk(required(bigint("data_file_id"), nullFails)), required(bigint("table_id"), nullSkipsRow), required(bigint("begin_snapshot"), nullSkipsRow), bigint("end_snapshot"), bigint("file_order"), required(varchar("path"), nullNoDataFile), required(boolean("path_is_relative"), nullFails), varchar("file_format"), required(bigint("record_count"), nullNoRows), required(bigint("file_size_bytes"), nullFails), bigint("footer_size"), bigint("row_id_start"), bigint("partition_id"), requiredWhen(varchar("encryption_key"), nullNoKey, encrypted), varchar("partial_file_info")}},
	{Name: "ducklake_file_column_statistics", Key: []string{"data_file_id", "table_id", "column_id"}, Columns: []Column{requiredWhen(bigint("data_file_id"), nullStatsFileID, fileStatsRead), bigint("table_id"), bigint("column_id"), bigint("column_size_bytes"), bigint("value_count"), bigint("null_count"), varchar("min_value"), varchar("max_value"), boolean("contains_nan")}},
	{Name: "ducklake_delete_file", Key: []string{"delete_file_id"}, Columns: []Column{pk(bigint("delete_file_id")), required(bigint("table_id"), nullSkipsRow), required(bigint("begin_snapshot"), nullSkipsRow), bigint("end_snapshot"), required(bigint("data_file_id"), nullSkipsRow), required(varchar("path"), nullNoDeleteFile), required(boolean("path_is_relative"), nullFails), varchar("format"), bigint("delete_count"), required(bigint("file_size_bytes"), nullFails), bigint("footer_size"), requiredWhen(varchar("encryption_key"), nullNoKey, encrypted)}},
	{Name: "ducklake_column", Key: []string{"table_id", "column_id", "begin_snapshot"}, Columns: []Column{required(bigint("column_id"), nullFails), required(bigint("begin_snapshot"), nullSkipsRow), bigint("end_snapshot"), required(bigint("table_id"), nullSkipsRow), bigint("column_order"), required(varchar("column_name"), nullAsText), required(varchar("column_type"), nullTypeFails), varchar("initial_default"), varchar("default_value"), required(boolean("nulls_allowed"), nullFails), bigint("parent_column")}},
	// The table statistics: a NULL record_count or file_size_bytes leaves
	// the row (and its columns' rows) out, a table without statistics;
	// the column statistics' values are each read only where set.
	{Name: "ducklake_table_stats", Key: []string{"table_id"}, Columns: []Column{requiredWhen(bigint("table_id"), nullStatsTableID, statsRead), bigint("record_count"), requiredWhen(bigint("next_row_id"), nullStatsFails, statsRead), bigint("file_size_bytes")}},
	{Name: "ducklake_table_column_stats", Key: []string{"table_id", "column_id"}, Columns: []Column{bigint("table_id"), requiredWhen(bigint("column_id"), nullStatsColumnID, columnStatsRead), boolean("contains_null"), boolean("contains_nan"), varchar("min_value"), varchar("max_value")}},
	// The partition spec is read when the catalog is loaded (a join on
	// partition_id, at the snapshot), but only writers use it: a NULL
	// that leaves a spec or key out changes no read; one read as a
	// number or as an unknown transform fails the load.
	{Name: "ducklake_partition_info", Key: []string{"partition_id", "begin_snapshot"}, Columns: []Column{bigint("partition_id"), required(bigint("table_id"), nullFails), bigint("begin_snapshot"), bigint("end_snapshot")}},
	{Name: "ducklake_partition_column", Key: []string{"partition_id", "partition_key_index"}, Columns: []Column{bigint("partition_id"), bigint("table_id"), required(bigint("partition_key_index"), nullFails), required(bigint("column_id"), nullFails), required(varchar("transform"), nullTransform)}},
	// The earliest 0.1 builds had a PRIMARY KEY on data_file_id, which breaks
	// multi-key partitions; released builds did not (ducklake-formats.md §2.5).
	{Name: "ducklake_file_partition_value", Columns: []Column{bigint("data_file_id"), bigint("table_id"), bigint("partition_key_index"), varchar("partition_value")}},
	{Name: "ducklake_files_scheduled_for_deletion", Columns: []Column{bigint("data_file_id"), varchar("path"), boolean("path_is_relative"), {Name: "schedule_start", Type: "TIMESTAMP WITH TIME ZONE"}}},
	{Name: "ducklake_inlined_data_tables", Key: []string{"table_id", "schema_version"}, Columns: []Column{required(bigint("table_id"), nullInlinedTable), required(varchar("table_name"), nullTextFails), required(bigint("schema_version"), nullFails)}},
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
