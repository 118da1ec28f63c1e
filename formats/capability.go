package formats

import "strings"

// Capability is a feature of a catalog format. Code asks a Version what it
// supports (v.Has(CapMacros)) instead of comparing version numbers.
type Capability uint64

const (
	// CapScopedSettings: ducklake_metadata has scope/scope_id (schema and table settings).
	CapScopedSettings Capability = 1 << iota
	// CapTablePaths: schemas and tables have their own path; file paths are relative to the table path.
	CapTablePaths
	// CapNameMapping: files added by ducklake_add_data_files may be read by name (column/name mapping).
	CapNameMapping
	// CapPartitionFieldIDs: ducklake_partition_column.column_id is a field id (0.1: a position).
	CapPartitionFieldIDs
	// CapHivePartitionMapping: name mappings may take a value from the Hive path (is_partition).
	CapHivePartitionMapping
	// CapCommitInfo: snapshots carry author, commit_message and commit_extra_info.
	CapCommitInfo
	// CapSchemaVersions: ducklake_schema_versions exists (global rows).
	CapSchemaVersions
	// CapPerTableSchemaVersions: ducklake_schema_versions rows are per table.
	CapPerTableSchemaVersions
	// CapExtraStats: column stats have extra_stats.
	CapExtraStats
	// CapSplitPartialFiles: merged files carry partial_file_info 's:n|...'.
	CapSplitPartialFiles
	// CapPartialMaxInfo: flushed files carry partial_file_info 'partial_max:N' (0.3).
	CapPartialMaxInfo
	// CapPartialMax: data and delete files have a partial_max column.
	CapPartialMax
	// CapPartialDeleteFiles: delete files may embed per-position snapshots.
	CapPartialDeleteFiles
	// CapInlinedDeletes: ducklake_inlined_delete_<table_id> tables.
	CapInlinedDeletes
	// CapMacros: scalar and table macros.
	CapMacros
	// CapExpressionDefaults: default_value may be an SQL expression.
	CapExpressionDefaults
	// CapSortHints: ducklake_sort_info / ducklake_sort_expression.
	CapSortHints
	// CapVariantStats: ducklake_file_variant_stats.
	CapVariantStats
	// CapNullDefaultSentinel: no default is written as the string 'NULL'.
	CapNullDefaultSentinel
	// CapPuffinDeletes: bare deletion-vector delete files (format 'puffin').
	CapPuffinDeletes
	// CapPuffinContainers: Puffin containers with per-snapshot deletion vectors.
	CapPuffinContainers
	// CapViewColumnComments: ducklake_view_column_tag.
	CapViewColumnComments
	// CapRowGroupCount: data and delete files record row_group_count.
	CapRowGroupCount
	// CapPrefixedInlinedColumns: inlined data system columns are _ducklake_row_id, ...
	CapPrefixedInlinedColumns
	// CapReservedDucklakePrefix: writers refuse user columns starting with
	// _ducklake_ (CREATE TABLE, ADD COLUMN, RENAME COLUMN); readers read them
	// as 1.0 readers do, except where they collide with the prefixed inlined
	// system columns (convert: reserved-column-names).
	CapReservedDucklakePrefix
)

var capabilityNames = []string{
	"scoped-settings", "table-paths", "name-mapping", "partition-field-ids",
	"hive-partition-mapping", "commit-info", "schema-versions", "per-table-schema-versions",
	"extra-stats", "split-partial-files", "partial-max-info", "partial-max",
	"partial-delete-files", "inlined-deletes", "macros", "expression-defaults",
	"sort-hints", "variant-stats", "null-default-sentinel", "puffin-deletes",
	"puffin-containers", "view-column-comments", "row-group-count",
	"prefixed-inlined-columns", "reserved-ducklake-prefix",
}

// String lists the capability names joined by '|'.
func (c Capability) String() string {
	var names []string
	for i, n := range capabilityNames {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}
