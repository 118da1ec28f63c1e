package formats

import "slices"

var tablesV0_4 = derive(V0_3.Tables,
	addTables(
		// Every macro visible at the snapshot is loaded with the catalog:
		// its implementations and their parameters are lists aggregated
		// in SQL, read with StringValue::Get (DuckLakeMetadataManager::
		// LoadMacroImplementations); every column but end_snapshot and
		// the parameters' column_id (never read) is always written
		// (WriteNewMacros; a parameter without a default has the text
		// 'NULL').
		Table{Name: "ducklake_macro", Key: []string{"macro_id", "begin_snapshot"}, Columns: []Column{required(bigint("schema_id"), nullFails), required(bigint("macro_id"), nullFails), required(varchar("macro_name"), nullAsText), required(bigint("begin_snapshot"), nullSkipsRow), bigint("end_snapshot")}},
		Table{Name: "ducklake_macro_impl", Key: []string{"macro_id", "impl_id"}, Columns: []Column{required(bigint("macro_id"), nullNoImpl), required(bigint("impl_id"), nullNoParams), required(varchar("dialect"), nullTextFails), required(varchar("sql"), nullTextFails), required(varchar("type"), nullTextFails)}},
		Table{Name: "ducklake_macro_parameters", Key: []string{"macro_id", "impl_id", "column_id"}, Columns: []Column{required(bigint("macro_id"), nullNoParam), required(bigint("impl_id"), nullNoParam), bigint("column_id"), required(varchar("parameter_name"), nullTextFails), required(varchar("parameter_type"), nullTextFails), required(varchar("default_value"), nullTextFails), required(varchar("default_value_type"), nullTextFails)}},
	),
	// A default_value (but the text 'NULL', no default) of a column
	// without fields is read by its default_value_type, which 0.4+
	// writers always write ('literal' for none) and the migration fills.
	addColumns("ducklake_column", requiredWhen(fill(varchar("default_value_type"), "'literal'"), nullDefaultType, defaultSet), varchar("default_value_dialect")),
	// The sort order is only a writers' hint, loaded with the catalog as
	// the partition spec is: only its numbers fail the load.
	addTables(
		Table{Name: "ducklake_sort_info", Key: []string{"sort_id", "begin_snapshot"}, Columns: []Column{bigint("sort_id"), required(bigint("table_id"), nullFails), bigint("begin_snapshot"), bigint("end_snapshot")}},
		Table{Name: "ducklake_sort_expression", Key: []string{"sort_id", "sort_key_index"}, Columns: []Column{bigint("sort_id"), bigint("table_id"), required(bigint("sort_key_index"), nullFails), varchar("expression"), varchar("dialect"), varchar("sort_direction"), varchar("null_order")}},
		Table{Name: "ducklake_file_variant_stats", Columns: []Column{bigint("data_file_id"), bigint("table_id"), bigint("column_id"), varchar("variant_path"), varchar("shredded_type"), bigint("column_size_bytes"), bigint("value_count"), bigint("null_count"), varchar("min_value"), varchar("max_value"), boolean("contains_nan"), varchar("extra_stats")}},
	),
	addColumns("ducklake_schema_versions", bigint("table_id")),
	addColumns("ducklake_data_file", bigint("partial_max")),
	addColumns("ducklake_delete_file", bigint("partial_max")),
	dropColumn("ducklake_data_file", "partial_file_info"),
)

// capsV0_4 drops the partial_file_info encodings: 0.4 has the partial_max column.
const (
	nullNoImpl      = "DuckLake's readers leave the implementation out, and fail on a macro left without one (INTERNAL Error: Calling ListValue::GetChildren on a NULL value)"
	nullNoParams    = "DuckLake's readers leave the implementation's parameters out: the macro takes none, and its body fails to bind where it names one"
	nullNoParam     = "DuckLake's readers leave the parameter out: the macro takes one parameter fewer"
	nullDefaultType = "DuckLake's readers fail to load the column where it has a default (Not implemented Error: Column type  is not supported)"
	// defaultSet: a column's default the readers read by its
	// default_value_type (TransformColumnType, leaf columns only).
	defaultSet = "default_value IS NOT NULL AND default_value <> 'NULL' AND lower(column_type) NOT IN ('struct', 'list', 'map')"
)

var capsV0_4 = (V0_3.Caps &^ (CapSplitPartialFiles | CapPartialMaxInfo)) |
	CapPerTableSchemaVersions | CapPartialMax | CapPartialDeleteFiles | CapInlinedDeletes | CapMacros |
	CapExpressionDefaults | CapSortHints | CapVariantStats | CapNullDefaultSentinel

var typesV0_4 = append(slices.Clone(V0_3.Types), "variant", "time_ns", "unknown")

// changeKindsV0_4: 0.4 writers record a flush of inlined data as
// inline_flush, which 0.4 readers read as flushed_inlined; the two kinds of
// compaction are 0.3's one; 0.3 has no macros to record.
var changeKindsV0_4 = []ChangeKind{
	{Name: "inline_flush", Before: "flushed_inlined", Alias: true},
	{Name: "merge_adjacent", Before: "compacted_table"},
	{Name: "rewrite_delete", Before: "compacted_table"},
	{Name: "created_scalar_macro"}, {Name: "created_table_macro"}, {Name: "dropped_scalar_macro"}, {Name: "dropped_table_macro"},
}

var tokensV0_4 = withChangeKinds(V0_3.ChangeTokens, changeKindsV0_4)

// V0_4 is DuckLake 0.4 (DuckDB 1.5.0/1.5.1): macros, expression defaults,
// sort hints, variant stats, per-table schema versions, partial_max, partial
// deletion files and inlined file deletions. Same DDL as 1.0.
var V0_4 = &Version{
	Name: "0.4", Stamp: "0.4",
	Tables:       tablesV0_4,
	Caps:         capsV0_4,
	Quirks:       quirksV1_5_0,
	SourceQuirks: quirksV1_5_1,
	// DuckLake 7ea15644, 67480b1d (DuckDB 1.5.0, 1.5.1) cast the base types
	// and set each bound present; neither answers min/max from them.
	TableStats:     TableStatsReading{CastByEvery: StatsTypesBase, CastBySome: StatsTypesBase},
	DuckDB:         ">= 1.5.0, < 1.5.2",
	DataPathRows:   DataPathRowsMatch,
	Storage:        "v1.5.0",
	Types:          typesV0_4,
	Transforms:     transformsV0_1,
	ChangeTokens:   tokensV0_4,
	NewChangeKinds: changeKindsV0_4,
}

// V0_4Dev1 is the development stamp '0.4-dev1': layouts between 0.3 and 0.4,
// some with both partial_file_info and partial_max (ducklake-formats.md §1.4).
// Tables lists the fullest known layout; it converges to 0.4.
var V0_4Dev1 = &Version{
	Name: "0.4-dev1", Stamp: "0.4-dev1", Dev: true, Release: "0.4", Older: []string{"0.3"},
	Tables:       derive(tablesV0_4, insertColumn("ducklake_data_file", "mapping_id", varchar("partial_file_info"))),
	Caps:         capsV0_4 | CapPartialMaxInfo | CapSplitPartialFiles,
	Quirks:       quirksV1_5_0,
	DuckDB:       "< 0.0.0",
	DataPathRows: DataPathRowsMatch,
	Storage:      "v1.4.0",
	Types:        typesV0_4,
	Transforms:   transformsV0_1,
	ChangeTokens: tokensV0_4,
}
