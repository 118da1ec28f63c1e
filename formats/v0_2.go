package formats

// nullMapType: ConvertNameMap accepts only 'map_by_name'.
const nullMapType = "DuckLake's readers take the type 'NULL' for it and fail to read a file the mapping maps (Unsupported column mapping type \"NULL\")"

// V0_2 is DuckLake 0.2 (DuckDB 1.3.1/1.3.2): MigrateV01 added schema/table
// paths, scoped settings and name mapping; partition columns became field ids.
var V0_2 = &Version{
	Name: "0.2", Stamp: "0.2",
	Tables: derive(tablesV0_1,
		addColumns("ducklake_schema", fill(varchar("path"), "''"), requiredWhen(fill(boolean("path_is_relative"), "true"), nullRelFails, "path IS NOT NULL")),
		addColumns("ducklake_table", fill(varchar("path"), "''"), requiredWhen(fill(boolean("path_is_relative"), "true"), nullRelFails, "path IS NOT NULL")),
		addColumns("ducklake_metadata", varchar("scope"), bigint("scope_id")),
		addColumns("ducklake_data_file", bigint("mapping_id")),
		addTables(
			// Every mapping is loaded (a join on mapping_id) the first
			// time a file added with one is read, of any table
			// (DuckLakeCatalog::LoadNameMaps, GetColumnMappings).
			Table{Name: "ducklake_column_mapping", Key: []string{"mapping_id"}, Columns: []Column{required(bigint("mapping_id"), nullSkipsRow), required(bigint("table_id"), nullFails), required(varchar("type"), nullMapType)}},
			Table{Name: "ducklake_name_mapping", Key: []string{"mapping_id", "column_id"}, Columns: []Column{required(bigint("mapping_id"), nullSkipsRow), required(bigint("column_id"), nullFails), required(varchar("source_name"), nullAsText), required(bigint("target_field_id"), nullFails), bigint("parent_column")}},
		),
	),
	Caps:   V0_1.Caps | CapScopedSettings | CapTablePaths | CapNameMapping | CapPartitionFieldIDs,
	Quirks: quirksV1_3,
	// DuckDB 1.3.1's DuckLake (2d890446) needs every visible data file's
	// row_id_start; 1.3.2's (9cc2d903) reads a NULL one.
	EarlyQuirks:  QuirkRowIDStartRequired,
	EarlyFixes:   map[ReaderQuirk]string{QuirkRowIDStartRequired: "1.3.2"},
	TableStats:   tableStatsV0_1,
	DuckDB:       ">= 1.3.1, < 1.4.0",
	DataPathRows: DataPathFirstRow,
	Storage:      "v1.3.0",
	Types:        typesV0_1,
	Transforms:   transformsV0_1,
	ChangeTokens: tokensV0_1,
}
