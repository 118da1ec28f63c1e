package formats

import (
	"fmt"
	"slices"
	"strings"

	goversion "github.com/hashicorp/go-version"
)

// ReaderQuirk is a behaviour of the real reader of a format (the DuckLake
// release whose DuckDB line opens it) that the specification does not state
// and that makes it return other rows than the newest reader, or fail, on
// catalogs that carry exactly the same metadata rows. The proof (package
// compare) reads a catalog with its format's quirks, and the converter
// refuses or normalises what a target's quirks would read differently.
type ReaderQuirk uint64

const (
	// QuirkUnmappedFilesNull: a data file with no mapping_id whose top-level
	// Parquet columns do not all have field ids is matched by field id only,
	// through the columns before the first without one: without field ids
	// every column reads as its initial default (NULL). Newer readers map
	// such a file by position.
	QuirkUnmappedFilesNull ReaderQuirk = 1 << iota
	// QuirkTimeTZDefaultOffset: a TIMETZ initial_default is read as its
	// wall-clock time at offset +00; its own offset is ignored.
	QuirkTimeTZDefaultOffset
	// QuirkHiveValuesRaw: a partition value taken from a Hive path segment
	// (name mapping is_partition) is cast from the raw text: it is not
	// URL-decoded, and __HIVE_DEFAULT_PARTITION__ is not NULL (it stays that
	// string in a VARCHAR column; the cast fails for other types).
	QuirkHiveValuesRaw
	// QuirkTableStatsNeedColumnStats: a ducklake_table_stats row (with
	// record_count and file_size_bytes) of a table without any
	// ducklake_table_column_stats row makes loading the catalog's statistics
	// fail, so every table read fails.
	QuirkTableStatsNeedColumnStats
	// QuirkInlinedAtFirstSnapshot: an inlined data table of schema version
	// sv is read with the table's columns as of the table's first snapshot
	// (ducklake_table.begin_snapshot), not as of sv, unless sv is the schema
	// version of the snapshot read (cached): a column renamed since is not
	// found (binder error), one added since reads NULL, one retyped since
	// is misread where rows are visible.
	QuirkInlinedAtFirstSnapshot
	// QuirkInlinedAtSnapshotZero: an inlined data table of schema version sv
	// is read with the table as of snapshot 0, where it does not exist,
	// unless sv is the schema version of the snapshot read (cached): the
	// read fails.
	QuirkInlinedAtSnapshotZero
	// QuirkFilesWithoutColumnStatsPruned: under a filter pushed down on a
	// column, a data file without a ducklake_file_column_stats row for that
	// column (a file written before ADD COLUMN, read with the column's
	// initial default) is skipped, whatever the filter and the default.
	QuirkFilesWithoutColumnStatsPruned
	// QuirkPartialDeletesWholeWithInlined: a data file whose delete file is
	// a partial deletion file (a third column _ducklake_internal_snapshot_id)
	// and that has inlined deletions visible at the snapshot read
	// (ducklake_inlined_delete_<table>, begin_snapshot <= it) is read with
	// every position of the delete file deleted, whatever snapshot deleted
	// it: the per-row snapshots are dropped when the inlined deletions are
	// merged in.
	QuirkPartialDeletesWholeWithInlined
	// QuirkViewCatalogVerbatim: a view's SQL is parsed as stored; the
	// placeholder ViewCatalogPlaceholder, which newer writers store for the
	// view's own catalog and newer readers replace, is a parser error.
	QuirkViewCatalogVerbatim
	// QuirkBooleanStatsComparedAsText: under a filter pushed down on a
	// BOOLEAN column, min_value/max_value are compared as text with the
	// constant's text ('true'/'false'), not cast to BOOLEAN: statistics
	// spelled '0'/'1' (DuckDB 1.5's Parquet writer) skip every file under
	// = true, = false, IN and >=. Only 'false'/'true' (or NULL) compare as
	// the values (BooleanTextStats.Ordered).
	QuirkBooleanStatsComparedAsText
	// QuirkHiveTimeZoneValuesUTC: a Hive partition value of a TIMESTAMPTZ or
	// TIMETZ column is cast with DuckDB's core casts (no ICU), which read a
	// value without an explicit offset as UTC (+00), whatever the session's
	// TimeZone; newer readers cast it in the session's TimeZone (DuckDB's
	// default: the machine's local zone). Only a value with an explicit
	// offset (HiveValueHasOffset) reads alike.
	QuirkHiveTimeZoneValuesUTC
	// QuirkNestedDefaultsDropped: DuckDB 1.3.0's column mapper drops the
	// default of a LIST element or a MAP key or value, so a data file whose
	// list elements or map keys/values (at any depth) lack a field the
	// catalog's struct has at the snapshot read fails every read of the
	// table ("Missing target value ... for remap").
	QuirkNestedDefaultsDropped
	// QuirkStructWithoutFileFieldsNotNull: DuckDB 1.3.0's column mapper
	// reads a top-level STRUCT column found in the file none of whose fields
	// (at any depth) is in the file as the struct of the fields' defaults
	// on every row, also on rows where the file's struct is NULL.
	QuirkStructWithoutFileFieldsNotNull
	// QuirkRemapListsUnreserved: DuckDB 1.3.0's remap_struct sets the size
	// of a remapped LIST or MAP without reserving room for it, so a list
	// element or map key or value that is itself nested (STRUCT, LIST,
	// MAP) is remapped into a vector sized for 2048 entries: more in one
	// chunk (with NULL elements, or nested lists) corrupt the heap. The
	// column mapper remaps a top-level column whose file type is not the
	// catalog's (a field renamed, retyped, dropped, added or moved at any
	// depth) and every column holding a MAP (DuckLake passes a map's key
	// and value without the file's key_value level), so such a table is
	// not certified readable.
	QuirkRemapListsUnreserved
	// QuirkTemporalStatsComparedAsText: under a filter pushed down on a
	// DATE, TIME, TIMETZ or TIMESTAMP* column, min_value/max_value are
	// compared as text with the constant's text, not cast to the type: a
	// year >= 10000, a BC date or a TIMETZ offset (in a statistic or in the
	// constant) sorts otherwise than the value, and files holding matching
	// rows are skipped. Only NULL statistics read alike
	// (TemporalTextStats).
	QuirkTemporalStatsComparedAsText
	// QuirkStringTableStatsEmpty: a ducklake_table_column_stats row of a
	// VARCHAR (or JSON) column with min_value and max_value both NULL is
	// read as the statistics of an empty column (no string can be in it,
	// max string length 0): WHERE col = 'x' returns no rows whatever the
	// files hold.
	QuirkStringTableStatsEmpty
	// QuirkInlinedAtSchemaVersionLookup: an inlined data table of schema
	// version sv is read with its table as of the begin_snapshot of the
	// first row of ducklake_inlined_data_tables joined with ducklake_table
	// at schema_version sv, whatever the table (DuckDB 1.4.1-1.4.4), unless
	// sv is the schema version of the snapshot read (cached). The model
	// reads the catalogs of those releases' format with
	// QuirkInlinedAtSnapshotZero, which 1.4.0 has: the two read alike
	// exactly where the read is at the inlined table's own schema version.
	QuirkInlinedAtSchemaVersionLookup
	// QuirkDeleteFilesTwoColumns: a Parquet delete file with a third
	// column (a partial deletion file's _ducklake_internal_snapshot_id, or
	// Iceberg's row) fails every read of its table: only file_path and pos
	// are accepted (DuckLake on DuckDB 1.3 and the DuckLake DuckDB 1.4.0
	// pins).
	QuirkDeleteFilesTwoColumns
	// QuirkStructNullsAfterSkippedVector: DuckDB's Parquet reader (1.3.0
	// to 1.5.0) skips a 2048-row vector of a row group all of whose rows
	// are deleted and applies the skip when it reads the next vector of
	// the row group, writing the skipped rows' definition levels into the
	// buffer that vector's STRUCT validity is then taken from: a non-NULL
	// struct there reads NULL where a skipped row's struct was NULL
	// (StructSkipColumns, SkippedVectorReads, StructSkipSQL).
	QuirkStructNullsAfterSkippedVector
	// QuirkDeleteFilesHiveColumns: a Parquet delete file is scanned with
	// DuckDB's Hive partition detection on, so every key=value folder of its
	// path (DeleteFileHiveKeys) adds a column after the file's own; the
	// reader accepts only delete files of two columns (DuckDB 1.3, 1.4.0) or
	// two or three (later), so a partial deletion file in such a folder, or
	// a delete file in two or more (one, for two-column readers), fails every read
	// of its table. A 2-column file with one such folder reads, the added
	// column ignored.
	QuirkDeleteFilesHiveColumns
	// QuirkValueCountZeroPruned: under a filter pushed down on a column
	// that compares its min_value or max_value (=, <>, <, <=, >, >=, IN),
	// a data file whose statistics row for the column has value_count 0 is
	// skipped, whatever its min, max and null_count: the reader takes it
	// for a file of NULLs only. DuckLake 1.5.0+ writers store
	// num_values - null_count, and DuckDB's Parquet writer reports
	// num_values 0 for TIMETZ and INTERVAL columns, so a file holding
	// such values gets value_count 0 (ValueCountZeroWithValuesSQL). Unlike
	// the other quirks it is the newer readers' behaviour: formats 1.0
	// (DuckDB 1.5.3+) and 1.1; readers of 0.1-0.4 (and DuckDB 1.5.2) keep
	// the file.
	QuirkValueCountZeroPruned
	// QuirkTimeNSFilesUnreadable: a data file whose field for a TIME_NS
	// column (at any depth) is a Parquet TIME fails every read of its
	// table: the Parquet reader reads a TIME column of any unit
	// (TIME(NANOS), as DuckDB 1.5.6 writes TIME_NS, included) as TIME, and
	// DuckDB has no cast from TIME to TIME_NS ("Unimplemented type for cast
	// (TIME -> TIME_NS)"): DuckDB 1.5.0-1.5.5 (0.4, and 1.0's first
	// releases). A field stored as text (what DuckDB wrote for TIME_NS
	// before) reads; a file without the field reads the default.
	QuirkTimeNSFilesUnreadable
	// QuirkRowIDStartRequired: the file list reads every visible data
	// file's row_id_start as a number, so a NULL one (what DuckLake's
	// merge of files whose row ids are not adjacent writes, from DuckDB
	// 1.3.2 on, the file carrying its own row ids) fails every read of its
	// table at the snapshots it is visible: the DuckLake builds of DuckDB
	// 1.3.0 (0.1) and 1.3.1 (0.2's first release).
	QuirkRowIDStartRequired
)

// QuirkInfo documents one ReaderQuirk: what the real reader does, where in
// DuckLake's source it comes from, and what shows it.
type QuirkInfo struct {
	Quirk ReaderQuirk
	// Name is the stable name used in reports, refusals and docs.
	Name string
	// Family is the audit family (files without field ids, initial
	// defaults, Hive partition values, statistics).
	Family string
	// Behaviour is what the real reader does.
	Behaviour string
	// Source names the DuckLake branch, file and function (and the commit
	// that changed it for newer readers).
	Source string
	// Error is the start of the real reader's error message when the
	// behaviour is a failure ("" when it returns other rows).
	Error string
	// Evidence names the conformance lake that shows it.
	Evidence string
}

// AllQuirks documents every ReaderQuirk, in bit order.
var AllQuirks = []QuirkInfo{
	{Quirk: QuirkUnmappedFilesNull, Name: "unmapped-files-read-null", Family: "files without field ids or mapping",
		Behaviour: "a data file without mapping_id whose top-level Parquet columns do not all carry field ids is matched by field id only, and only through the columns before the first without one: with no field ids no column matches and every column reads as its initial default (NULL); with some, a catalog column whose id is on a later file column reads its default too (1.0 reads such files by position)",
		Source:    "DuckLakeMultiFileReader::CreateMapping (src/storage/ducklake_multi_file_reader.cpp) maps by field id unless the file has a mapping_id, in v1.3-ossivalis and v1.4-andium and in v1.5-variegata up to 1dcdba8f (2026-04-08, \"Support reading files without positional id\", DuckLake 1.0, first in 415a9ebd), which maps by position every file one of whose top-level columns has no field id (ColumnsHaveFieldIds); DuckDB's FieldIdMapper (multi-file column mapping) stops at the first local column without a field id",
		Evidence:  "lakes-0.3-reader/q_delete__delete_legacy_missing_mapping_after_rename_add_files (0.3 and 0.4 read every column NULL)"},
	{Quirk: QuirkTimeTZDefaultOffset, Name: "timetz-default-offset-ignored", Family: "initial defaults",
		Behaviour: "a TIMETZ initial_default such as '12:34:56+02' reads as 12:34:56+00 (the offset is dropped), where 1.0 reads 12:34:56+02 (DuckDB keeps the offset in the value, so no literal makes these readers return it); every other type of the all-types lake parses the same",
		Source:    "TransformColumnType (src/storage/ducklake_catalog.cpp) casts initial_default with Value::DefaultCastAs on the DuckDB line of the release (1.3/1.4/1.5.0-1.5.1); same code in v1.3-ossivalis, v1.4-andium and v1.5-variegata, the difference is the DuckDB cast",
		Evidence:  "lakes-0.3-reader/q_default__all_types_column_default_stats (0.3 and 0.4 return 12:34:56+00 for the old rows; 0.1/0.2 not observed, modelled from the same code path)"},
	{Quirk: QuirkHiveValuesRaw, Name: "hive-values-cast-raw", Family: "partition values from paths",
		Behaviour: "a Hive partition value (name mapping is_partition) is cast from the raw path text: not URL-decoded, and __HIVE_DEFAULT_PARTITION__ is not NULL (a VARCHAR column gets that string, any other type fails to cast)",
		Source:    "MapColumns (src/storage/ducklake_multi_file_reader.cpp) in v1.4-andium and in 7ea15644, the DuckLake of DuckDB 1.5.0: Value(partition).DefaultCastAs(type); a99ff824 (2026-03-03, \"Handle null and cast types when reading Hive keys\"), first in 67480b1d, the DuckLake of DuckDB 1.5.1, uses HivePartitioning::GetValue. Format 0.4 is read by both: a catalog written as 0.4 is modelled by 1.5.0's reader, a 0.4 source by 1.5.1's (SourceQuirks)",
		Error:     "Invalid Input Error: Failed to cast value",
		Evidence:  "lakes-0.3-reader/q_add_files__add_files_hive_partition_cast (0.3 fails on DATE, DECIMAL, TIMESTAMP and DOUBLE partitions and returns other VARCHAR values; 0.4 under DuckDB 1.5.1 reads the same as 1.0; DuckDB 1.5.0 not observed, modelled from its source)"},
	{Quirk: QuirkTableStatsNeedColumnStats, Name: "table-stats-need-column-stats", Family: "statistics the reader requires",
		Behaviour: "a ducklake_table_stats row (record_count and file_size_bytes set) of a table with no ducklake_table_column_stats row makes the global statistics query return a NULL column_id, which the reader reads as a number: every table read fails",
		Source:    "DuckLakeMetadataManager::GetGlobalTableStats / TransformGlobalStatsRow (src/storage/ducklake_metadata_manager.cpp, LEFT JOIN ducklake_table_column_stats) in v1.3-ossivalis and v1.4-andium and in v1.5-variegata up to db9cb183 (2026-05-31, \"Fix for table_stats column stats\"), which d318a545, the DuckLake of DuckDB 1.5.4, is the first release to have: DuckDB 1.5.2 (415a9ebd) and 1.5.3 (e6a3bd0a), format 1.0 readers, fail too (every scan loads every table's statistics: GetCardinality and DuckLakeStatistics -> GetTableStats -> GetStatsForSnapshot). The model reads 1.0 as 1.5.4+ do, but convert to 1.0 drops such rows and the proof reports a 1.0 catalog written with one (first releases: Version.EarlyQuirks)",
		Error:     "INTERNAL Error: Calling GetValueInternal on a value that is NULL",
		Evidence:  "lakes-0.3-reader/q_stats__table_stats_without_column_stats (0.3 and 0.4 fail)"},
	{Quirk: QuirkInlinedAtFirstSnapshot, Name: "inlined-read-at-first-snapshot", Family: "inlined data",
		Behaviour: "an inlined data table (ducklake_inlined_data_<table>_<schema version>) is read with the table's columns as of the table's first snapshot, unless its schema version is the one of the snapshot read (the catalog caches schemas by schema version): a column renamed since then is not found in it (a binder error, even without rows), a column added since then reads NULL (or its initial default), a column whose type changed binds and its stored values are copied into vectors of the old type without a cast (TransformInlinedData keeps the stored types, ColumnDataCollection::Scan checks them only in debug builds): wrong values where rows are visible, nothing read and no error where none is",
		Source:    "DuckLakeMultiFileReader::TryCreateInlinedDataReader (src/storage/ducklake_multi_file_reader.cpp) builds DuckLakeSnapshot(GetBeginSnapshotForTable(table), schema_version) and DuckLakeCatalog::GetSchemaForSnapshot caches by schema_version, in v1.4-andium from ff8cb1db/fd0d763a (2026-01-12/14, first in 41255d47, DuckDB 1.4.5: a 0.3 source is read so; DuckDB 1.4.0-1.4.4 read otherwise, see inlined-read-at-snapshot-zero) and in the commits DuckDB 1.5.0 and 1.5.1 pin (7ea15644, 67480b1d); v1.5-variegata 7addd33f (2026-03-18, \"Fix BeginSanpshot for tables with different schema versions\", DuckLake 1.0, DuckDB 1.5.2) looks the snapshot up in ducklake_schema_versions (table_id and schema_version exactly, else the table's first snapshot)",
		Error:     "Binder Error: Referenced column",
		Evidence:  "lakes-0.3 README: 16_data_inlining has no 0.3 lake because DuckLake 0.3 fails with a binder error reading its inlined data after a rename"},
	{Quirk: QuirkInlinedAtSnapshotZero, Name: "inlined-read-at-snapshot-zero", Family: "inlined data",
		Behaviour: "an inlined data table is read with the table as of snapshot 0, where no table exists, unless its schema version is the one of the snapshot read (cached): the read fails",
		Source:    "DuckLakeMultiFileReader::TryCreateInlinedDataReader (src/storage/ducklake_multi_file_reader.cpp) in v1.3-ossivalis and in 09f9b85b, the DuckLake DuckDB 1.4.0 pins (line 228): DuckLakeSnapshot(0, schema_version), then Cast on the entry GetEntryById returns (none); 7bb38b90 (2025-10-01, \"Get correct snapshot_id\"), first in f134ad86 (DuckDB 1.4.1), looks a snapshot up by schema version (inlined-read-at-schema-version-lookup), and 41255d47 (DuckDB 1.4.5) takes the table's first snapshot. Format 0.3 is modelled with DuckDB 1.4.0's reading (a 0.3 source with 1.4.5's)",
		Error:     "INTERNAL Error: Attempting to dereference an optional pointer that is not set",
		Evidence:  "modelled from the source; no conformance lake of 0.1/0.2 holds inlined data read at another schema version; lakes/25_reserved_names_v11_hazards converted to 0.3 (ducklake_inlined_data_3_4, schema version 4, read at snapshots 9-11 of schema versions 5 and 6) was proved equivalent until 0.3 was modelled with it"},
	{Quirk: QuirkFilesWithoutColumnStatsPruned, Name: "files-without-column-stats-pruned", Family: "statistics the reader requires",
		Behaviour: "under a filter pushed down on a column (=, <>, <, <=, >, >=, IN, IS NULL, IS NOT NULL; not on BLOB), a data file with no ducklake_file_column_stats row for that column (a file written before ALTER TABLE ADD COLUMN, which the real writers of every line leave without one, or a name-mapped file that lacks the column) is skipped, so its rows, which read the column's initial default, are missing from the answer (WHERE new_col = <its default>, or WHERE new_col IS NULL without a default); a row whose referenced statistic is NULL keeps the file",
		Source:    "ConvertFilterPushdownToSQL (src/storage/ducklake_metadata_manager.cpp) in v1.4-andium and in the commits DuckDB 1.5.0 and 1.5.1 pin (7ea15644, 67480b1d), and DuckLakeMultiFileList::DynamicFilterPushdown (src/storage/ducklake_multi_file_list.cpp) in v1.3-ossivalis: data_file_id IN (SELECT data_file_id FROM the column's file statistics WHERE <stat> IS NULL OR (<condition>)); v1.5-variegata 30ea0f5e (2026-05-18, \"Fix mis-pruned data files\"), first in d318a545, the DuckLake of DuckDB 1.5.4 (not in 1.5.2's 415a9ebd nor 1.5.3's e6a3bd0a, which read 1.0 with the same behaviour: not modelled, 1.0 is read as the v1.5-variegata head reads it), keeps files without a row (data_file_id NOT IN (...) OR ...); the writers insert file statistics only for the files they write (WriteNewDataFiles), never on ADD COLUMN",
		Evidence:  "modelled from the source (no ducklake extension here to run it): lakes/05_defaults_not_null, where files 0 and 1 of table d have no statistics for the eight columns added after them; DuckLake's own test/sql/issues/issue_1135.test (30ea0f5e) is the case: count(*) WHERE b = 42 after ADD COLUMN b INT DEFAULT 42 must be 10"},
	{Quirk: QuirkPartialDeletesWholeWithInlined, Name: "partial-deletes-whole-with-inlined-deletes", Family: "deletes",
		Behaviour: "a data file with a partial deletion file (per-row _ducklake_internal_snapshot_id) and inlined deletions visible at the snapshot read (ducklake_inlined_delete_<table>, begin_snapshot <= it) is read with every position of that deletion file deleted, also the positions deleted only at a later snapshot: time travel to a snapshot between an inlined deletion and the last snapshot of the deletion file loses those rows",
		Source:    "DuckLakeMultiFileReader::InitializeReader (src/storage/ducklake_multi_file_reader.cpp) reads the delete file, then merges the inlined deletions through DuckLakeDeleteFilter::Initialize(const DuckLakeInlinedDataDeletes &) (src/storage/ducklake_delete_filter.cpp), which calls delete_data->snapshot_ids.clear(); DuckLakeDeleteData::Filter honours the per-row snapshots only when snapshot_ids is not empty. So in 7ea15644 and 67480b1d (the DuckLake of DuckDB 1.5.0 and 1.5.1) and in 415a9ebd (DuckDB 1.5.2, a 1.0 reader); 788c309e (2026-04-26, \"Fix deletion filter\", with the regression test test/sql/issues/issue_1073.test), first in e6a3bd0a (DuckDB 1.5.3), merges the snapshots instead (an inlined deletion as snapshot 0). Format 1.0 is modelled by its newest readers (1.5.3+); 1.5.2's reading is a documented limit (docs/compare.md, Known limits)",
		Evidence:  "modelled from the source (DuckDB 1.5.0/1.5.1 not run here); conformance lake 06_deletes (delete file 13 of data file 0: positions deleted at snapshots 3, 4, 5 and 15) with an inlined deletion of data file 0 at snapshot 6 is read by this model with position 1 deleted at snapshots 6-14"},
	{Quirk: QuirkViewCatalogVerbatim, Name: "view-catalog-placeholder-verbatim", Family: "views",
		Behaviour: "a view's SQL is parsed as stored: the placeholder {DUCKLAKE_CATALOG}. (outside string constants, double-quoted identifiers and comments), which DuckLake from DuckDB 1.5.2 on writes for a view's references to its own catalog and replaces by the catalog's attached name before parsing, is a parser error, so the view cannot be queried",
		Source:    "DuckLakeViewEntry::ParseSelectStatement (src/storage/ducklake_view_entry.cpp) parses query_sql verbatim in v1.3-ossivalis, v1.4-andium and the commits DuckDB 1.5.0 and 1.5.1 pin (7ea15644, 67480b1d); v1.5-variegata bdeb8afc (2026-03-25, \"Make catalog generic for view attach\"), first in 415a9ebd (DuckDB 1.5.2) and in main, stores catalog_name + \".\" as {DUCKLAKE_CATALOG}. (DuckLakeSchemaEntry::CreateView) and replaces it back, case-sensitively and outside quotes (DuckLakeUtil::ReplaceSkippingQuotes), in ParseSelectStatement and ToSQL",
		Error:     "Parser Error: syntax error",
		Evidence:  "modelled from the source (no DuckDB before 1.5.2 with the ducklake extension here); DuckDB's parser (1.5.6 here, the same grammar in every line) refuses SELECT i, j FROM {DUCKLAKE_CATALOG}.main.base: syntax error at or near \"{\"; DuckLake's test/sql/view/view_portable_alias.test (bdeb8afc) reads a view created as SELECT * FROM dl.t after re-attaching under another name"},
	{Quirk: QuirkBooleanStatsComparedAsText, Name: "boolean-stats-compared-as-text", Family: "file pruning by statistics",
		Behaviour: "under a filter pushed down on a BOOLEAN column (=, <>, <, <=, >, >=, IN), min_value and max_value are compared as text with the constant's text, 'true' or 'false' (Value::ToString): statistics spelled '0'/'1', as DuckDB 1.5's Parquet writer gives them to DuckLake 1.5.0+ writers, make 'true' BETWEEN '0' AND '1' false, so WHERE b = true (and = false, IN, >=) skips every such file; 'false'/'true' sort as the values and are read as them by every reader (TRY_CAST to BOOLEAN from 1.5.2), NULL keeps the file",
		Source:    "CastStatsToTarget and GenerateConstantFilter (src/storage/ducklake_metadata_manager.cpp) in v1.4-andium (casts only IsNumeric types) and in the commits DuckDB 1.5.0 and 1.5.1 pin (7ea15644, 67480b1d: RequiresValueComparison in src/include/storage/ducklake_stats.hpp is IsNumeric() || IsTemporal()), and CastStatsToTarget in src/storage/ducklake_multi_file_list.cpp in v1.3-ossivalis; 65c48cd2 (2026-03-18, \"Do value comparison for boolean\", test/sql/transaction/update_null_column.test), first in 415a9ebd, the DuckLake of DuckDB 1.5.2 (format 1.0), adds BOOLEAN to RequiresValueComparison. The writers of 1.4 leave BOOLEAN min/max NULL (lakes-0.3/01_primitive_types); those of 1.5.x write '0'/'1' for inserted rows (lakes/01_primitive_types, and DuckDB 1.5.6's COPY ... RETURN_STATS) and 'false'/'true' for files added with ducklake_add_data_files (from the Parquet footer: lakes-0.3-reader/q_add_files__add_files_hive_partition_cast)",
		Evidence:  "lakes/01_primitive_types (format 1.0, data files 0 and 1 of main.primitives with b min '0' max '1' and 101 rows where b is true) converted field for field to 0.3 or 0.4: the 1.4-style file list for WHERE b = true keeps no file; converted with the spellings 'false'/'true' it keeps both"},
	{Quirk: QuirkHiveTimeZoneValuesUTC, Name: "hive-tz-values-read-as-utc", Family: "partition values from paths",
		Behaviour: "a Hive partition value (name mapping is_partition) of a TIMESTAMPTZ or TIMETZ column without an explicit UTC offset (created_at=2024-01-15, t=10:00:00) is cast by DuckDB's core cast, which reads it as UTC (+00) in every session; DuckLake from DuckDB 1.5.1 on casts it in the session's TimeZone (ICU), DuckDB's default being the machine's local zone: in a New York session 2024-01-15 is 2024-01-15 00:00 UTC here and 05:00 UTC there. A value with an explicit offset reads alike. Format 0.4 is read both ways (DuckDB 1.5.0 as UTC, 1.5.1 in the session's zone): a catalog written as 0.4 reads such a value alike with no other format's, while a 0.4 source is read as 1.5.1 reads it (SourceQuirks), as 1.0 and 1.1 do",
		Source:    "MapColumns (src/storage/ducklake_multi_file_reader.cpp) in v1.4-andium (line 307) and in 7ea15644 (DuckDB 1.5.0, line 446): Value(partition).DefaultCastAs(type), the default cast set (cast_operators.cpp, no ICU: a value without offset is UTC); a99ff824, first in 67480b1d (DuckDB 1.5.1, line 447), in v1.5-variegata (line 462) and main (line 500): HivePartitioning::GetValue(context, ...) (DuckDB src/common/hive_partitioning.cpp), value.TryCastAs(context, type), which takes ICU's VARCHAR -> TIMESTAMPTZ/TIMETZ casts in the session's TimeZone",
		Evidence:  "lakes-0.3-reader/q_add_files__add_files_hive_partition_cast with its created_at column made TIMESTAMPTZ and its folder created_at=2024-01-15: DuckDB 1.5.1's read_parquet(hive_types TIMESTAMPTZ) in a New York session returns 2024-01-15 05:00:00+00, DuckDB's core cast 2024-01-15 00:00:00+00"},
	{Quirk: QuirkNestedDefaultsDropped, Name: "list-map-struct-fields-missing-fail", Family: "nested fields",
		Behaviour: "a data file whose LIST elements or MAP keys or values (at any depth, through structs) lack a struct field that the catalog's column has at the snapshot read (a field added after the file was written) fails every read of the table: the element's or value's default is dropped and remap_struct gets a NULL default",
		Source:    "DuckDB v1.3.0 src/common/multi_file/multi_file_column_mapper.cpp: MapColumnList (line 232) and MapColumnMap (line 333) never pass the child's default_value up (DuckLake v1.3-ossivalis maps DuckLake files by field id through it); v1.3.1 wraps it in struct_pack(list := ...) / struct_pack(key := ..., value := ...). Format 0.1 is opened by DuckDB 1.3.0 only (0.2 from 1.3.1)",
		Error:     "Binder Error: Missing target value",
		Evidence:  "lakes/12_nested_types (format 1.0), table fevo, data file 6, whose lst elements and mp values lack k (added at snapshots 15 and 16): DuckDB 1.3.0 and 1.3.2 fail remap_struct(lst, NULL::STRUCT(i INT, j INT, k INT)[], {'list': ROW('list', {'i': 'i', 'j': 'j'})}, NULL), the expression 1.3.0's mapper binds, with that error; with the 1.3.1 default {'list': {'k': NULL}} it reads"},
	{Quirk: QuirkStructWithoutFileFieldsNotNull, Name: "struct-without-file-fields-not-null", Family: "nested fields",
		Behaviour: "a top-level STRUCT column that the data file has but none of whose catalog fields (at any depth) is in the file (every field the file has was dropped, and the struct's fields were added since) reads as the struct of its fields' defaults on every row, also on rows where the file's struct is NULL; newer readers keep those rows NULL",
		Source:    "DuckDB v1.3.0 src/common/multi_file/multi_file_column_mapper.cpp, ConstructMapExpression (line 568): \"no columns to map - emit the default value directly\" returns MapColumnStruct's struct_pack of the defaults in place of the column; v1.3.1 removes it, and remap_struct keeps the source's NULL rows (src/function/scalar/struct/remap_struct.cpp, has_top_level_null)",
		Evidence:  "modelled from the source (DuckDB 1.3.0 reads nested field ids only through DuckLake, which is not run here); no conformance lake has such a file"},
	{Quirk: QuirkRemapListsUnreserved, Name: "remapped-nested-lists-unreserved", Family: "nested fields",
		Behaviour: "a LIST or MAP that DuckDB 1.3.0's column mapper reads through remap_struct and whose element, key or value is nested (STRUCT, LIST or MAP) is remapped into child vectors sized for 2048 entries: once a chunk's lists or maps hold more entries, with NULL struct elements or nested lists among them, the heap is corrupted (malloc(): invalid size, SIGABRT or SIGSEGV) or rows are lost. The mapper goes through remap_struct for a top-level column that is not trivially mappable: its file type differs from the catalog's (a struct field renamed, a type widened, a field dropped, added or moved, at any depth, by field id), or it holds a MAP (DuckLake passes the map's key and value as two children, the file has one key_value child). Reading such a table is not certified in 0.1, whatever its chunk sizes",
		Source:    "DuckDB v1.3.0 src/function/scalar/struct/remap_struct.cpp: RemapMap (line 87) and RemapList (line 139) call ListVector::SetListSize without ListVector::Reserve, then RemapChildVectors remaps the element with the list's size (RemapStruct sets validity, RemapList writes list entries past the 2048 slots); 03442e963e2 (#17836, 2025-06-07, first in v1.3.1) adds the Reserve. src/common/multi_file/multi_file_column_mapper.cpp: IsTriviallyMappable (line 197) compares the file's and catalog's types and child counts, ConstructMapExpression (line 551) emits remap_struct otherwise; DuckLake v1.3-ossivalis DuckLakeMultiFileReader::Bind passes ColumnsFromFieldData(field_data) with emit_key_value false (src/storage/ducklake_multi_file_reader.cpp)",
		Error:     "malloc(): invalid size (unsorted) (SIGABRT, exit 134) or SIGSEGV",
		Evidence:  "DuckDB 1.3.0 (Go bindings v0.1.10): remap_struct over 5000 map entries with NULL struct values, MAP(INTEGER, STRUCT(i INTEGER)) -> MAP(INTEGER, STRUCT(i BIGINT)), aborts with malloc(): mismatching next->prev_size; the same map to its own type reads 1422 of 2500 values; a STRUCT(a, l STRUCT(x)[]) remapped for a widened a with an unchanged list of 5000 elements aborts with malloc(): invalid next size; DuckDB 1.3.2 reads all three (the last two reproduced in this project). That DuckLake's 1.3.0 reader takes remap_struct for these columns is read from the source: no DuckDB 1.3.0 ducklake extension is run here, and read_parquet's name mapping over two files did not reproduce it"},
	{Quirk: QuirkTemporalStatsComparedAsText, Name: "temporal-stats-compared-as-text", Family: "file pruning by statistics",
		Behaviour: "under a filter pushed down on a DATE, TIME, TIMETZ or TIMESTAMP (_S, _MS, _NS, TZ) column (=, <>, <, <=, >, >=, IN), min_value and max_value are compared as text with the constant's text (Value::ToString), not cast to the type: text order is value order only for dates of the years 0001-9999 AD and TIMETZ values at one offset, so a statistic or constant of the year 10000 or later ('10000-01-01' < '2025-01-01'), a BC date ('0044-03-15 (BC)') or a TIMETZ with another offset makes the reader skip a file that holds matching rows (WHERE d = DATE '2025-01-01' on a file with min '2024-01-01' and max '10000-01-01'; WHERE d < DATE '10000-01-01' on any file): only NULL statistics (the file is kept) read alike for every constant; the table column statistics are read as values (CreateNumericStats)",
		Source:    "CastStatsToTarget and CastValueToTarget (src/storage/ducklake_metadata_manager.cpp) in v1.4-andium, in every commit DuckDB 1.4.x pins (09f9b85b of 1.4.0 in src/storage/ducklake_multi_file_list.cpp, to 41255d47 of 1.4.5), and in src/storage/ducklake_multi_file_list.cpp in v1.3-ossivalis: TRY_CAST only where type.IsNumeric(), the constant a string literal; 967de26a (2026-02-17), first in 7ea15644, the DuckLake of DuckDB 1.5.0 (and in 67480b1d, 1.5.1's), casts where RequiresValueComparison (src/include/storage/ducklake_stats.hpp: IsNumeric() || IsTemporal())",
		Evidence:  "a 1.0 table t(id, d DATE, ts TIMESTAMP) with 2024-01-01, 2025-01-01 and 10000-01-01 in one file converted to 0.3 field for field: the 1.4 file list for WHERE d = DATE '2025-01-01' and for WHERE ts >= TIMESTAMP '2024-06-01' keeps no file (run on DuckDB 1.4.3 too: plain VARCHAR comparison), the 1.5.0 one keeps it"},
	{Quirk: QuirkStringTableStatsEmpty, Name: "string-table-stats-without-minmax-empty", Family: "statistics the reader requires",
		Behaviour: "a ducklake_table_column_stats row of a VARCHAR (or JSON) column whose min_value and max_value are both NULL (what the writers of 1.0 leave once one file of the column has values but no string statistics: MergeStats drops has_min for good) is given to the planner as the statistics of a column that holds no string (min 0xFF.., max '', max string length 0): the optimizer folds WHERE col = 'x' (and other comparisons) to an empty result whatever the files hold, and a zero maximum length misleads compressed materialization; a column with no row has no statistics and reads as the files say",
		Source:    "DuckLakeColumnStats::CreateStringStats (src/storage/ducklake_stats.cpp) in 7ea15644, the DuckLake of DuckDB 1.5.0: StringStats::CreateEmpty kept when neither has_min nor has_max (DuckDB v1.5.0 src/storage/statistics/string_stats.cpp CreateEmpty; CheckZonemap gives FILTER_ALWAYS_FALSE, propagate_get.cpp ReplaceWithEmptyResult), reached through DuckLakeStatistics (ducklake_scan.cpp) -> DuckLakeTableEntry::GetStatistics -> GetColumnStats; 8b94fb1c (2026-03-03, \"Do not assume 0 length if no string stats available\"), first in 67480b1d, the DuckLake of DuckDB 1.5.1, uses StringStats::CreateUnknown. v1.4-andium returns no statistics when min or max is missing. Format 0.4 is read by both: a catalog written as 0.4 is modelled by 1.5.0's reader, a 0.4 source by 1.5.1's (SourceQuirks)",
		Evidence:  "t(id, s VARCHAR) with ('apple', 'banana', NULL) in one file and 'cherry' in another whose s statistics are NULL, its table column statistics of s NULL as MergeStats leaves them, converted to 0.4: DuckDB 1.5.0 with its DuckLake returns no row for WHERE s = 'apple', 1.5.1 one"},
	{Quirk: QuirkInlinedAtSchemaVersionLookup, Name: "inlined-read-at-schema-version-lookup", Family: "inlined data",
		Behaviour: "an inlined data table of schema version sv is read with its table as of the begin_snapshot of the first row (no ORDER BY) of ducklake_inlined_data_tables joined with ducklake_table on table_id where schema_version = sv, without filtering on the table: the first snapshot of any table with an inlined table at sv, or a later ducklake_table row of a renamed table, unless sv is the schema version of the snapshot read (cached). Where that snapshot predates the table the inlined table is handed to the Parquet reader (the read fails); where it is another row, the inlined rows are read with that row's columns. The model reads format 0.3 with inlined-read-at-snapshot-zero (DuckDB 1.4.0's), which fails every such read: what it proves is read at the inlined table's own schema version, alike in every 1.4.x release",
		Source:    "DuckLakeMultiFileReader::TryCreateInlinedDataReader (src/storage/ducklake_multi_file_reader.cpp line 227) takes DuckLakeSnapshot(catalog.GetSnapshotForSchema(schema_version), schema_version) and returns nullptr when GetEntryById finds no table; DuckLakeMetadataManager::GetCatalogIdForSchema (src/storage/ducklake_metadata_manager.cpp) returns the first row of SELECT begin_snapshot FROM ducklake_inlined_data_tables INNER JOIN ducklake_table ON table_id WHERE schema_version = sv. From 7bb38b90 (2025-10-01, \"Get correct snapshot_id\") in v1.4-andium: in f134ad86, 77f2512a, de813ff4 and 3f1b3725, the DuckLake DuckDB 1.4.1, 1.4.2, 1.4.3 and 1.4.4 pin (.github/config/extensions/ducklake.cmake); ff8cb1db and fd0d763a (2026-01-12/14, \"Fix GetCatalogIdForSchema to filter by table_id (DAT-1794)\"), first in 41255d47 (DuckDB 1.4.5), read the table's first snapshot (inlined-read-at-first-snapshot)",
		Evidence:  "modelled from the source (the case: lakes/25_reserved_names_v11_hazards converted to 0.3, ducklake_inlined_data_3_4 read at snapshots of schema versions 5 and 6); no DuckDB 1.4.1-1.4.4 ducklake extension is run here"},
	{Quirk: QuirkDeleteFilesTwoColumns, Name: "delete-files-two-columns-only", Family: "deletes",
		Behaviour: "a Parquet delete file must have exactly two columns, file_path VARCHAR and pos BIGINT: one with a third column (a partial deletion file's _ducklake_internal_snapshot_id, as DuckLake 0.4+ writers and 1.0's ducklake_flush_inlined_data write them, or Iceberg's row) fails every read of its table; newer readers accept it and, before 0.4, delete every position it holds",
		Source:    "ScanDeleteFile (src/storage/ducklake_delete_filter.cpp) in v1.3-ossivalis and in 09f9b85b, the DuckLake DuckDB 1.4.0 pins: return_types.size() != 2 throws; 72cf52ae (2025-09-16, \"Accept iceberg pos deletes\"), first in f134ad86 (DuckDB 1.4.1), accepts a third column of any type and reads only the positions",
		Error:     "Invalid Input Error: Invalid schema contained in the delete file",
		Evidence:  "modelled from the source (the case: lakes/06_deletes with delete file 6 replaced by a 3-column file, converted to 0.3, was proved equivalent until this was modelled); v1.3-ossivalis (formats 0.1 and 0.2) has the same check, which compare applied to those formats before (by their DuckDB range)"},
	{Quirk: QuirkStructNullsAfterSkippedVector, Name: "struct-nulls-after-skipped-vector", Family: "deletes",
		Behaviour: "a data file with deletes is scanned 2048 rows at a time from the start of each row group; a vector all of whose rows are deleted is skipped, and the skip is applied when the next vector of the same row group is read, writing the skipped rows' definition levels into the buffer the reader then takes that vector's STRUCT validity from: where a skipped row's struct (or a struct below it, through structs only) was NULL, a non-NULL struct of the vector read reads NULL, unless the leaf read last has a NULL in that stretch (then its levels overwrite the buffer). Affected: a top-level STRUCT and the structs nested in it through structs only, that hold a leaf not inside a LIST or MAP; not a LIST or MAP of structs, not a struct whose fields are all lists. A partly deleted vector is read, not skipped; a skip at the end of a row group is dropped. The proof reports such a file and delete state as unreadable and convert refuses it where the source's and the target's readers differ; the model flags a skipped run followed by a read vector of the same row group (row groups from the footer; of an encrypted file, whose footer is not read, any run of 2048 deleted positions followed by a kept one) where a skipped row has a NULL struct and the vector read a non-NULL one, which is all a misread needs (whether it happens depends on the data pages)",
		Source:    "DuckDB extension/parquet/column_reader.cpp ColumnReader::ApplyPendingSkips calls PrepareRead(skip_now, define_out, repeat_out, 0) on the caller's define buffer in v1.3.0 (line 703), v1.3.2, v1.4.0-v1.4.x and v1.5.0 (line 769); PrepareRead's all-valid fast path leaves the buffer unwritten on the read, and StructColumnReader::Read (reader/struct_column_reader.cpp) sets the struct's validity from define_out after reading its children; parquet_reader.cpp (v1.5.0 line 1438, v1.3.0 line 1312) calls Skip for every column of a vector the deletion filter empties, which DuckLake sets for every data file with deletes (DuckLakeMultiFileReader::InitializeReader, src/storage/ducklake_multi_file_reader.cpp, in v1.3-ossivalis, v1.4-andium and the commits DuckDB 1.5.0 pins). Fixed by b8ac093d355 and f7db97177bd (2026-03-10, \"fix(parquet): avoid corrupting define/repeat buffers during skips\": private skip buffers), first in v1.5.1. Format 0.4 is read both ways (1.5.0 misreads, 1.5.1 does not): a catalog written as 0.4 must not have such a file, a 0.4 source is read as 1.5.1 reads it (SourceQuirks)",
		Evidence:  "DuckDB 1.3.0, 1.3.2, 1.4.3 and 1.5.0 read the rows 112640-114687 of a STRUCT(a VARCHAR, b DOUBLE) column NULL in a 122880-row file (one row group) whose rows 59392-112639 hold NULL, when rows 59392-112639 are filtered out (read_parquet ... WHERE id NOT BETWEEN 59392 AND 112639: the same skip path as a deletion filter); 1.5.1 reads them {'a': hello, 'b': 42.0}. The same for a struct nested in a struct and for a struct with a LIST field beside a scalar one; not for a LIST or MAP of structs, a struct of lists only, a leaf NULL below a non-NULL struct, a partly filtered vector, or a skip at the end of a row group; the 8192-row file of convert/skipstruct_test.go's first lake (rows 2048-4095 NULL, filtered out) read by 1.3.0-1.5.0 with rows 4096-6143 NULL, by 1.5.1 without. TestRealReleasesStructSkip (formats) runs the real releases on 8192-row files of one row group read with a filter that leaves out a vector: 1.3.0, 1.3.2, 1.4.3 and 1.5.0 misread the file of convert/skipstruct_test.go's first lake and its NULL-inner-struct twin, 1.5.1 and 2.0.0 read them as 1.5.6, and every release reads a partly kept vector, a skip at the end of the row group, skipped non-NULL structs, NULL fields of a non-NULL struct and a list of structs as 1.5.6, as the model flags"},
	{Quirk: QuirkDeleteFilesHiveColumns, Name: "delete-files-hive-columns", Family: "deletes",
		Behaviour: "a Parquet delete file whose path below the data path holds key=value folders (year=2024/month=1/...-delete.parquet) is scanned with DuckDB's Hive partition detection on: each distinct key adds a column after the file's own (a key naming one of the file's columns replaces it with the folder's value). The reader accepts a delete file of exactly two columns (DuckDB 1.3, formats 0.1 and 0.2, and DuckDB 1.4.0: delete-files-two-columns-only) or of two or three (DuckDB 1.4.1+ and 1.5, the third ignored unless it is _ducklake_internal_snapshot_id BIGINT), so a 2-column delete file under two key=value folders (one, where only two columns are read), or a partial deletion file under one, fails every read of its table at the snapshots it is visible; DuckLake itself writes every delete file in the table's folder, never in a partition folder. Format 1.0 is read so by DuckDB 1.5.2 only (first releases); the key=value folders of the data path itself, which the catalog does not name, are the reader's and not modelled",
		Source:    "DuckLakeDeleteFilter::ScanDeleteFile (src/storage/ducklake_delete_filter.cpp) binds parquet_scan with only encryption_config among its named parameters in v1.3-ossivalis and v1.4-andium, and through ParquetFileScanner (src/common/parquet_file_scanner.cpp) in the commits DuckDB 1.5.0, 1.5.1 and 1.5.2 pin (7ea15644, 67480b1d, 415a9ebd), so DuckDB's MultiFileOptions::AutoDetectHivePartitioning (auto_detect_hive_partitioning defaults to true; HivePartitioning::Parse takes every key=value folder of the path) adds the Hive columns (MultiFileReader::Bind); v1.5-variegata fbe8d67a (2026-04-17, \"Disable hive partitioning auto-detection in ParquetFileScanner\", DuckLake issue 1027), first in e6a3bd0a, the DuckLake of DuckDB 1.5.3, sets hive_partitioning false; v1.3-ossivalis accepts return_types.size() == 2 only, v1.4-andium from 72cf52ae and v1.5-variegata 2 or 3",
		Error:     "Invalid Input Error: Invalid schema contained in the delete file",
		Evidence:  "lakes-0.3-compaction/c_compaction__merge_rewrite_partial_file_info version 2 with its merged data file 10 moved under year=2024/month=1/: converted to 0.4 with --rewrite-deletes, the delete-file chain written beside the data file binds as file_path, pos, month, year in DuckDB 1.5.1's parquet_scan; lakes/08_partitioning (1.0) keeps every delete file in the table's folder though its data files lie in year=2024/month=1/, region=us/, bucket=2/"},
	{Quirk: QuirkValueCountZeroPruned, Name: "files-with-value-count-zero-pruned", Family: "file pruning by statistics",
		Behaviour: "under a filter pushed down on a column that compares its min_value or max_value (=, <>, <, <=, >, >=, IN; not IS NULL or IS NOT NULL alone), a data file whose ducklake_file_column_stats row for the column has value_count 0 is skipped, whatever its min_value, max_value and null_count (a NULL value_count, or no row, keeps it): right for a file of NULLs only, but DuckDB's Parquet writer reports num_values 0 (and null_count 0) for TIMETZ and INTERVAL columns, so the writers of DuckDB 1.5.0 and later (value_count = num_values - null_count) store value_count 0 for every file of such a column, and WHERE ttz = TIMETZ '...' skips files that hold matching rows. The newer readers' behaviour, unlike the others here: readers of 0.1-0.4 (and DuckDB 1.5.2 of 1.0) keep such a file; 1.0 is modelled as DuckDB 1.5.3+ read it",
		Source:    "DuckLakeMetadataManager::ConvertFilterPushdownToSQL (src/storage/ducklake_metadata_manager.cpp): 3b8cb1f1 (2026-04-20, \"Fix null partition prune\") adds (value_count IS NULL OR value_count > 0) to the file list's condition of every filter that references min_value or max_value; first in e6a3bd0a, the DuckLake of DuckDB 1.5.3, and in main (DuckDB 2.0); not in 7ea15644, 67480b1d or 415a9ebd (DuckDB 1.5.0-1.5.2), nor in v1.3-ossivalis or v1.4-andium. Writers: DuckLakeColumnStatsInfo::FromColumnStats (src/storage/ducklake_transaction.cpp) stores num_values - null_count from ae5d618e (first in 7ea15644, DuckDB 1.5.0); v1.4-andium stored the file's row count - null_count",
		Evidence:  "lakes/01_primitive_types (1.0) and its lakes-1.1-dev1 twin, table exotic, data file 2: ttz TIMETZ and iv INTERVAL with value_count 0, null_count 0, record_count 3 (DuckDB 1.5.6's COPY ... RETURN_STATS of one TIMETZ value and one NULL: num_values 0, null_count 0); its 0.4 conversion (the rows DuckDB 1.5.0/1.5.1 write) converted to 1.0 with the row unchanged: the file list DuckLake 1.5.3+ builds for WHERE ttz = TIMETZ '12:00:00+00' keeps no file of exotic, the 1.5.0-1.5.2 one keeps it"},
	{Quirk: QuirkTimeNSFilesUnreadable, Name: "time-ns-files-unreadable", Family: "column types",
		Behaviour: "a data file whose field (matched by field id or name mapping, at any depth) for a column of type time_ns is a Parquet TIME, of any unit, fails every read of its table at the snapshots it is visible: DuckDB 1.5.0's and 1.5.1's Parquet reader reads a TIME column, TIME(NANOS) included (what DuckDB 1.5.6 writes for TIME_NS), as TIME, and the column mapper's cast from TIME to TIME_NS does not exist in those releases. A field stored as text, as DuckDB's Parquet writer stored TIME_NS before it knew the type (so in the native 0.4 lakes DuckDB 1.5.0 and 1.5.1 write), casts and reads; a file without the field reads the column's default. DuckDB 1.5.3 and 1.5.5, format 1.0's first readers, do the same (run here; 1.5.2 and 1.5.4 have no Go binding to run, and lie between): the model reads 1.0 as DuckDB 1.5.6 does, which reads a TIME field as TIME_NS, as 2.0.0 does, and holds a 1.0 catalog this tool writes to the first releases (EarlyQuirks)",
		Source:    "DuckDB's Parquet reader and cast functions, not DuckLake: DuckDB v1.5.0 and v1.5.1 read_parquet of a TIME(NANOS) column gives TIME (microseconds), and the multi-file column mapper (what DuckLakeMultiFileReader maps each file's fields with, by field id or name mapping) binds a cast to the catalog's type, which fails (\"failed to cast column ... from type TIME to TIME_NS: Unimplemented type for cast (TIME -> TIME_NS)\"); DuckDB pull request 23958 (\"Fix TIME_NS read/write with parquet\", merged 2026-07-20) writes TIME_NS as TIME(NANOS) instead of VARCHAR, reads TIME(NANOS) as TIME_NS and adds the TIME/TIME_NS casts; the type time_ns (src/common/ducklake_types.cpp) first in v1.5-variegata",
		Error:     "Conversion Error: Error while reading file",
		Evidence:  "TestRealReleasesReadTimeNS (formats): a TIME_NS column DuckDB 1.5.6 wrote (TIME(NANOS)), a TIME column and a TIME_NS stored as text read with read_parquet's field id schema as TIME_NS, as DuckLake maps them: DuckDB 1.5.0 and 1.5.1 fail on the first two with \"Unimplemented type for cast (TIME -> TIME_NS)\" and read the text, 1.5.6 and 2.0.0 read all three (DuckDB 1.5.3 and 1.5.5, built once by hand from duckdb-go v2.10503.1 and v2.10505.0, fail as 1.5.0 does); lakes/01_primitive_types with main.prim's tm column made time_ns and its files written again by DuckDB 1.5.6 (testlakes.TimeNS), converted to 0.4: converted and proved equivalent before this was modelled"},
	{Quirk: QuirkRowIDStartRequired, Name: "row-id-start-required", Family: "file list",
		Behaviour: "every read of a table lists its visible data files and reads each one's row_id_start with GetValue<idx_t>, which fails on NULL: a data file with a NULL row_id_start (DuckLake's merge_adjacent_files writes one, and the merged rows' ids into the file, when the merged files' row ids are not adjacent, from DuckDB 1.3.2 on, in every later line too; the 1.0 lakes 17_compaction and 23_row_lineage hold such files) makes the table unreadable at every snapshot where the file is visible; the change feed (GetTableInsertions, GetTableDeletions) reads it so too for every data file begun or ended in its range, whether or not a snapshot sees it. Later readers take a NULL row_id_start as none and read each row's id from the file",
		Source:    "DuckLakeMetadataManager::GetFilesForTable (src/storage/ducklake_metadata_manager.cpp: file_entry.row_id_start = row.GetValue<idx_t>(col_idx++)) in the DuckLake builds of DuckDB 1.3.0 (main from 2f7433bf, 2025-05-27, to 4899f99b, 2025-06-08, the last deployed for it) and in 2d890446, the DuckLake DuckDB 1.3.1 pins; ae083ac7 (2025-06-24, \"Make row_id_start fully optional\"), first in 9cc2d903, the DuckLake DuckDB 1.3.2 pins, reads it after an IsNull check, as v1.4-andium, v1.5-variegata and main do. Format 0.1 (DuckDB 1.3.0 only) is read with it; 0.2 as DuckDB 1.3.2 reads it, and a catalog written as 0.2 is held to 1.3.1 (first releases: Version.EarlyQuirks)",
		Error:     "INTERNAL Error: Calling GetValueInternal on a value that is NULL",
		Evidence:  "modelled from the source (no DuckDB 1.3 with the ducklake extension here); lakes/17_compaction (1.0, tables rw and cpart: data files 24, 32 and 33 merged with row_id_start NULL) converted to 0.1 and 0.2 and proved equivalent before this was modelled (TestRowIDStartRequired13, convert)"},
}

// DeleteFileHiveKeys returns the distinct Hive partition keys DuckDB's
// detection takes from a delete file's path (QuirkDeleteFilesHiveColumns):
// every folder key=value as HivePartitioning::Parse reads them
// (hiveFolders); the file name itself is not a folder. path is the part
// below the data path the catalog names (or the whole path of an absolute
// one).
func DeleteFileHiveKeys(path string) []string {
	var keys []string
	hiveFolders(path, func(k, _ string) bool {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		return true
	})
	return keys
}

// Info returns the documentation of a single quirk.
func (q ReaderQuirk) Info() QuirkInfo {
	for _, i := range AllQuirks {
		if i.Quirk == q {
			return i
		}
	}
	return QuirkInfo{Quirk: q, Name: "unknown"}
}

// String lists the quirk names joined by '|'.
func (q ReaderQuirk) String() string {
	var names []string
	for _, i := range AllQuirks {
		if q&i.Quirk != 0 {
			names = append(names, i.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// List returns the single quirks set in q, in bit order.
func (q ReaderQuirk) List() []ReaderQuirk {
	var out []ReaderQuirk
	for _, i := range AllQuirks {
		if q&i.Quirk != 0 {
			out = append(out, i.Quirk)
		}
	}
	return out
}

// Quirk sets of each release line's reader.
const (
	// quirksV1_3: DuckLake v1.3-ossivalis (DuckDB 1.3), formats 0.1 and 0.2
	// (no Hive partition mappings exist in these formats).
	quirksV1_3 = QuirkUnmappedFilesNull | QuirkTimeTZDefaultOffset | QuirkTableStatsNeedColumnStats | QuirkInlinedAtSnapshotZero | QuirkFilesWithoutColumnStatsPruned |
		QuirkViewCatalogVerbatim | QuirkBooleanStatsComparedAsText | QuirkTemporalStatsComparedAsText | QuirkDeleteFilesTwoColumns | QuirkStructNullsAfterSkippedVector | QuirkDeleteFilesHiveColumns
	// quirksV1_3_0: DuckLake v1.3-ossivalis on DuckDB 1.3.0, the only
	// release that opens format 0.1: DuckDB 1.3.0's column mapper, and the
	// DuckLake builds of 1.3.0, which need every visible data file's
	// row_id_start.
	quirksV1_3_0 = quirksV1_3 | QuirkNestedDefaultsDropped | QuirkStructWithoutFileFieldsNotNull | QuirkRemapListsUnreserved | QuirkRowIDStartRequired
	// quirksV1_4_5: DuckLake 41255d47 (the v1.4-andium head), which DuckDB
	// 1.4.5 pins, the newest release that reads format 0.3.
	quirksV1_4_5 = QuirkUnmappedFilesNull | QuirkTimeTZDefaultOffset | QuirkHiveValuesRaw | QuirkHiveTimeZoneValuesUTC | QuirkTableStatsNeedColumnStats | QuirkInlinedAtFirstSnapshot | QuirkFilesWithoutColumnStatsPruned |
		QuirkViewCatalogVerbatim | QuirkBooleanStatsComparedAsText | QuirkTemporalStatsComparedAsText | QuirkStructNullsAfterSkippedVector | QuirkDeleteFilesHiveColumns
	// quirksV1_4_1: DuckLake f134ad86, 77f2512a, de813ff4 and 3f1b3725,
	// which DuckDB 1.4.1, 1.4.2, 1.4.3 and 1.4.4 pin: inlined tables are
	// read at a snapshot GetCatalogIdForSchema looks up by schema version
	// only (ff8cb1db, in 1.4.5, filters by table).
	quirksV1_4_1 = quirksV1_4_5&^QuirkInlinedAtFirstSnapshot | QuirkInlinedAtSchemaVersionLookup
	// quirksV1_4_0: DuckLake 09f9b85b, which DuckDB 1.4.0 pins: inlined
	// tables read at snapshot 0 (7bb38b90, in 1.4.1, looks one up), and
	// delete files of two columns only (72cf52ae, in 1.4.1, accepts a
	// third). DuckLake's own CI deployed newer v1.4-andium builds for
	// DuckDB 1.4.0 from 2025-09-17 (799c7c7b) to 2025-10-08 (56dc10f9), each
	// at least as lenient in both: which one a DuckDB 1.4.0 runs depends on
	// when it installed the extension, so the pinned build is modelled
	// (docs/formats.md, "Which DuckLake build reads 0.3").
	quirksV1_4_0 = quirksV1_4_5&^QuirkInlinedAtFirstSnapshot | QuirkInlinedAtSnapshotZero | QuirkDeleteFilesTwoColumns
	// quirksV1_4: format 0.3, read by DuckDB 1.4.0-1.4.5: every release's
	// quirks, so that a catalog written as 0.3 must read alike in all.
	// QuirkInlinedAtSnapshotZero decides how the model reads inlined data
	// (InlinedSchemaSourceOf): where 1.4.0 reads a table alike with the
	// others, at the inlined table's own schema version, all do.
	quirksV1_4 = quirksV1_4_0 | quirksV1_4_1 | quirksV1_4_5
	// quirksV1_5_0: DuckLake on DuckDB 1.5.0-1.5.1, format 0.4: where the
	// two differ (Hive values), the one that reads fewer catalogs as 1.0
	// does (1.5.0's), so that a catalog proved for one is read alike by
	// both.
	quirksV1_5_0 = QuirkUnmappedFilesNull | QuirkTimeTZDefaultOffset | QuirkHiveValuesRaw | QuirkHiveTimeZoneValuesUTC | QuirkTableStatsNeedColumnStats | QuirkInlinedAtFirstSnapshot | QuirkFilesWithoutColumnStatsPruned |
		QuirkPartialDeletesWholeWithInlined | QuirkViewCatalogVerbatim | QuirkBooleanStatsComparedAsText | QuirkStringTableStatsEmpty | QuirkStructNullsAfterSkippedVector | QuirkDeleteFilesHiveColumns |
		QuirkTimeNSFilesUnreadable
	// quirksV1_5_1: DuckLake on DuckDB 1.5.1, the newest release that reads
	// format 0.4 (Hive values decoded as 1.0 does, string statistics
	// without min and max unknown, its Parquet reader keeps skipped levels
	// apart).
	quirksV1_5_1 = quirksV1_5_0 &^ (QuirkHiveValuesRaw | QuirkHiveTimeZoneValuesUTC | QuirkStringTableStatsEmpty | QuirkStructNullsAfterSkippedVector)
)

// quirksV1_5_3: DuckLake e6a3bd0a (DuckDB 1.5.3) and later, up to the
// v1.5-variegata head, format 1.0 as the model reads it; and DuckLake main
// (DuckDB 2.0), format 1.1: files with value_count 0 skipped under
// comparison filters (3b8cb1f1). DuckDB 1.5.2 (415a9ebd) keeps them, which
// keeps more files: a catalog written as 1.0 is held to 1.5.3+.
const quirksV1_5_3 = QuirkValueCountZeroPruned

// ReadsWith reports whether the format's real reader has every quirk in q
// (one of its real readers, where they differ: what a catalog written in
// the format must be read with).
func (v *Version) ReadsWith(q ReaderQuirk) bool { return q != 0 && v.Quirks&q == q }

// ReadsAsSourceWith reports whether the newest release that reads the
// format has every quirk in q: how a catalog in the format is read as a
// conversion's or a proof's source. A 0.4 catalog with Hive values that
// need decoding is read by DuckDB 1.5.1 as 1.0 reads it, so it converts to
// 1.0; written as 0.4 it must read alike in 1.5.0 too, which casts them
// raw.
func (v *Version) ReadsAsSourceWith(q ReaderQuirk) bool {
	if v.SourceQuirks == 0 {
		return v.ReadsWith(q)
	}
	return q != 0 && v.SourceQuirks&q == q
}

// EarlyReadsWith reports whether some of the format's first releases have
// every quirk in q while the model reads the format without it
// (Version.EarlyQuirks).
func (v *Version) EarlyReadsWith(q ReaderQuirk) bool { return q != 0 && v.EarlyQuirks&q == q }

// EarlyFixedIn is the first DuckDB release of v's range that reads
// without q, one of v's EarlyQuirks (Version.EarlyFixes): the releases of
// the range before it have q. It is nil where q is none of them.
func (v *Version) EarlyFixedIn(q ReaderQuirk) *goversion.Version {
	if !v.EarlyReadsWith(q) {
		return nil
	}
	fixed, err := goversion.NewVersion(v.EarlyFixes[q])
	if err != nil {
		return nil // Validate rejects it
	}
	return fixed
}

// EarlyReleases names the releases of v's range that have q, one of its
// EarlyQuirks, for messages: the range's lower bounds and the fix, "DuckDB
// >= 1.5.2 before 1.5.4" (0.2: "DuckDB >= 1.3.1 before 1.3.2", not the
// range's upper bound too). It is empty where q is none of them.
func (v *Version) EarlyReleases(q ReaderQuirk) string {
	fixed := v.EarlyFixedIn(q)
	if fixed == nil {
		return ""
	}
	var lower []string
	for _, part := range strings.Split(v.DuckDB, ",") {
		if part = strings.TrimSpace(part); strings.HasPrefix(part, ">") {
			lower = append(lower, part)
		}
	}
	if len(lower) == 0 {
		return fmt.Sprintf("DuckDB before %s", fixed)
	}
	return fmt.Sprintf("DuckDB %s before %s", strings.Join(lower, ", "), fixed)
}

// ReadersWith names, for messages, the readers of v that have q: "format
// 0.1's readers" where its releases do, "format 0.2's readers DuckDB >=
// 1.3.1 before 1.3.2" where only its first releases do (EarlyReleases).
func (v *Version) ReadersWith(q ReaderQuirk) string {
	if early := v.EarlyReleases(q); early != "" && !v.ReadsWith(q) {
		return "format " + v.Name + "'s readers " + early
	}
	return "format " + v.Name + "'s readers"
}

// ReadAlike reports whether the source, read as the newest release of its
// format reads it (ReadsAsSourceWith), and every release of the target
// (ReadsWith and ReadsAsSourceWith: where a format's releases differ, such
// as 0.4's DuckDB 1.5.0 and 1.5.1, both) have the quirk q alike: what the
// converter must hold for a catalog written in the target.
func ReadAlike(source, target *Version, q ReaderQuirk) bool {
	s := source.ReadsAsSourceWith(q)
	return target.ReadsWith(q) == s && target.ReadsAsSourceWith(q) == s
}

// InlinedSchemaSource names the catalog value a format's real reader takes
// as the snapshot whose schema of a table it reads an inlined data table
// with, when the inlined table's schema version is not the one of the
// snapshot read (then it reads that snapshot's schema, cached by schema
// version). The converter (its refusal of inlined reads that differ) and
// the proof (its model of each reader) both ask InlinedSchemaSourceOf and
// follow one NULL rule: where the value taken is NULL, the real reader
// reads it as a number and fails, so the read fails; it never falls back
// to another value.
type InlinedSchemaSource int

const (
	// InlinedSchemaFromVersionRow: the begin_snapshot of the first
	// ducklake_schema_versions row (storage order) with the table's
	// table_id and the inlined table's schema_version
	// (GetBeginSnapshotForSchemaVersion, 1.0 and 1.1).
	InlinedSchemaFromVersionRow InlinedSchemaSource = iota + 1
	// InlinedSchemaFromFirstSnapshot: the table's first snapshot, the
	// begin_snapshot of its first ducklake_table row in storage order
	// (GetBeginSnapshotForTable).
	InlinedSchemaFromFirstSnapshot
	// InlinedSchemaFromSnapshotZero: snapshot 0, whatever the catalog holds
	// (QuirkInlinedAtSnapshotZero).
	InlinedSchemaFromSnapshotZero
)

// InlinedSchemaSourceOf says which value v's reader takes for an inlined
// table; versionRow reports whether ducklake_schema_versions has a table_id
// column and a row with the table's id and the inlined table's schema
// version, whatever its begin_snapshot. 0.1, 0.2 and 0.3 take snapshot 0
// (QuirkInlinedAtSnapshotZero; 0.3: DuckDB 1.4.0), 0.4 the table's first
// snapshot (QuirkInlinedAtFirstSnapshot), newer formats the row, else the
// table's first snapshot. It is how a catalog written in v is read (every
// release of v); SourceInlinedSchemaSourceOf is how a source in v is.
func (v *Version) InlinedSchemaSourceOf(versionRow bool) InlinedSchemaSource {
	return v.inlinedSchemaSource(v.ReadsWith, versionRow)
}

// SourceInlinedSchemaSourceOf is InlinedSchemaSourceOf for a catalog read
// as a conversion's or a proof's source, by the newest release of its
// format (ReadsAsSourceWith): 0.3 as DuckDB 1.4.5 reads it, at the table's
// first snapshot, where a catalog written as 0.3 must be read as DuckDB
// 1.4.0 reads it, at snapshot 0.
func (v *Version) SourceInlinedSchemaSourceOf(versionRow bool) InlinedSchemaSource {
	return v.inlinedSchemaSource(v.ReadsAsSourceWith, versionRow)
}

func (v *Version) inlinedSchemaSource(reads func(ReaderQuirk) bool, versionRow bool) InlinedSchemaSource {
	switch {
	case reads(QuirkInlinedAtSnapshotZero):
		return InlinedSchemaFromSnapshotZero
	case !reads(QuirkInlinedAtFirstSnapshot) && versionRow:
		return InlinedSchemaFromVersionRow
	}
	return InlinedSchemaFromFirstSnapshot
}
