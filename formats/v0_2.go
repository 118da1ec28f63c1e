package formats

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
			Table{Name: "ducklake_column_mapping", Columns: []Column{bigint("mapping_id"), bigint("table_id"), varchar("type")}},
			Table{Name: "ducklake_name_mapping", Columns: []Column{bigint("mapping_id"), bigint("column_id"), varchar("source_name"), bigint("target_field_id"), bigint("parent_column")}},
		),
	),
	Caps:         V0_1.Caps | CapScopedSettings | CapTablePaths | CapNameMapping | CapPartitionFieldIDs,
	Quirks:       quirksV1_3,
	TableStats:   tableStatsV0_1,
	DuckDB:       ">= 1.3.1, < 1.4.0",
	DataPathRows: DataPathFirstRow,
	Storage:      "v1.3.0",
	Types:        typesV0_1,
	Transforms:   transformsV0_1,
	ChangeTokens: tokensV0_1,
}
