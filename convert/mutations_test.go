package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// mutationFixture is a conformance lake's last catalog (A; converted to
// via first, when set) converted to a target (B), the pair each mutation
// of B is proved against.
type mutationFixture struct {
	archive, lake string
	via, to       *formats.Version
}

func (f mutationFixture) key() string {
	if f.via != nil {
		return f.archive + "/" + f.lake + "->" + f.via.Name + "->" + f.to.Name
	}
	return f.archive + "/" + f.lake + "->" + f.to.Name
}

var mutationFixtures = []mutationFixture{
	{"lakes", "06_deletes", nil, formats.V1_1},
	{"lakes-0.3", "06_deletes", nil, formats.V1_0},
	{"lakes", "03_renames", nil, formats.V0_3},
	{"lakes", "04_type_promotion", nil, formats.V1_1},
	{"lakes", "05_defaults_not_null", nil, formats.V0_4},
	{"lakes", "08_partitioning", nil, formats.V1_1},
	{"lakes", "09_views", nil, formats.V1_1},
	{"lakes", "10_macros", nil, formats.V1_1},
	{"lakes", "11_comments_tags", nil, formats.V1_0},
	{"lakes", "16_data_inlining", nil, formats.V1_1},
	{"lakes", "19_add_data_files", nil, formats.V1_1},
	{"lakes", "24_deletion_vectors", nil, formats.V1_1},
	{"lakes-1.1-dev1", "26_v11_only_features", nil, formats.V1_1},
	// A 0.2 source (no commit info) and its 0.3 conversion.
	{"lakes-0.3", "11_comments_tags", formats.V0_2, formats.V0_3},
}

// mutation is one wrong value planted in B's metadata: a statement that
// must change at least one row of B.
type mutation struct {
	name    string
	on      []string // fixtures: "archive/lake" (every target) or "archive/lake->format"
	sql     string
	neutral string // why the proof rightly passes it ("": it must not)
}

const (
	mutFirstFile = `(SELECT min(data_file_id) FROM ducklake_data_file)`
	mutLastFile  = `(SELECT max(data_file_id) FROM ducklake_data_file)`
	mutFirstDel  = `(SELECT min(delete_file_id) FROM ducklake_delete_file)`
	mutLastDel   = `(SELECT max(delete_file_id) FROM ducklake_delete_file WHERE end_snapshot IS NULL)`
	mutLastSnap  = `(SELECT max(snapshot_id) FROM ducklake_snapshot)`
	// mutFirstTable is the first table with two top-level columns alive at
	// the last snapshot.
	mutFirstTable = `(SELECT min(table_id) FROM ducklake_column WHERE column_order = 2 AND end_snapshot IS NULL AND parent_column IS NULL)`
)

// The fixtures each kind of mutation runs on: one of each source format
// (1.0, 0.3) and of each target (1.1, 1.0, 0.3) for the values every
// catalog has; each feature's own lake for the rest.
var (
	onGeneric   = []string{"lakes/06_deletes", "lakes-0.3/06_deletes", "lakes/03_renames"}
	onDefaults  = []string{"lakes/05_defaults_not_null"}
	onPromotion = []string{"lakes/04_type_promotion"}
	onRenames   = []string{"lakes/03_renames"}
	onPartition = []string{"lakes/08_partitioning"}
	onInlined   = []string{"lakes/16_data_inlining"}
	onMapping   = []string{"lakes/19_add_data_files"}
	onViews     = []string{"lakes/09_views"}
	onMacros    = []string{"lakes/10_macros"}
	onComments  = []string{"lakes/11_comments_tags"}
	onDeletes10 = []string{"lakes/06_deletes"}
	onDeletes03 = []string{"lakes-0.3/06_deletes"}
)

var mutations = []mutation{
	// Data files.
	{name: "data record_count +1", on: onGeneric, sql: `UPDATE ducklake_data_file SET record_count = record_count + 1 WHERE data_file_id = ` + mutFirstFile},
	{name: "data record_count -1", on: onDeletes03, sql: `UPDATE ducklake_data_file SET record_count = record_count - 1 WHERE data_file_id = ` + mutLastFile},
	{name: "data begin_snapshot +1", on: onGeneric, sql: `UPDATE ducklake_data_file SET begin_snapshot = begin_snapshot + 1 WHERE data_file_id = ` + mutLastFile},
	{name: "data begin_snapshot -1", on: onRenames, sql: `UPDATE ducklake_data_file SET begin_snapshot = begin_snapshot - 1 WHERE data_file_id = ` + mutLastFile},
	{name: "data end_snapshot set", on: onDeletes03, sql: `UPDATE ducklake_data_file SET end_snapshot = ` + mutLastSnap + ` WHERE data_file_id = ` + mutLastFile},
	{name: "data end_snapshot cleared", on: onDeletes03, sql: `UPDATE ducklake_data_file SET end_snapshot = NULL WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file WHERE end_snapshot IS NOT NULL)`},
	{name: "data row_id_start +1", on: onRenames, sql: `UPDATE ducklake_data_file SET row_id_start = row_id_start + 1 WHERE data_file_id = ` + mutLastFile},
	{name: "data file_size_bytes +1", on: onDeletes10, sql: `UPDATE ducklake_data_file SET file_size_bytes = file_size_bytes + 1 WHERE data_file_id = ` + mutFirstFile},
	{name: "data footer_size +1", on: onDeletes03, sql: `UPDATE ducklake_data_file SET footer_size = footer_size + 1 WHERE data_file_id = ` + mutFirstFile},
	{name: "data footer_size NULL", on: onDeletes10, sql: `UPDATE ducklake_data_file SET footer_size = NULL WHERE data_file_id = ` + mutFirstFile},
	{name: "data paths swapped", on: onGeneric, sql: `UPDATE ducklake_data_file f SET path = (SELECT path FROM ducklake_data_file g WHERE g.data_file_id = CASE WHEN f.data_file_id = ` + mutFirstFile + ` THEN ` + mutLastFile + ` ELSE ` + mutFirstFile + ` END) WHERE data_file_id IN (` + mutFirstFile + `, ` + mutLastFile + `)`},
	{name: "data path_is_relative false", on: onDeletes10, sql: `UPDATE ducklake_data_file SET path_is_relative = false WHERE data_file_id = ` + mutFirstFile},
	{name: "data table_id moved", on: onPromotion, sql: `UPDATE ducklake_data_file SET table_id = table_id + 1 WHERE data_file_id = ` + mutFirstFile},
	{name: "data file_order changed", on: onDeletes10, sql: `UPDATE ducklake_data_file SET file_order = coalesce(file_order, 0) + 7 WHERE data_file_id = ` + mutFirstFile,
		neutral: "no DuckLake reader reads file_order (written only: staged commits and compaction; the scan's file list selects path, sizes, footer, row ids, snapshots, mapping), and row order is no part of a table's rows"},
	{name: "data file_format upper case", on: onDeletes10, sql: `UPDATE ducklake_data_file SET file_format = 'PARQUET' WHERE data_file_id = ` + mutFirstFile,
		neutral: "no DuckLake reader reads ducklake_data_file.file_format: every data file is read as Parquet (GetFileSelectList)"},
	// Readers of a catalog whose encrypted is false never select the key
	// (as for the delete file's below), but the proof reads the file with
	// it and fails: stricter than the readers, a difference all the same.
	{name: "data encryption_key set", on: onDeletes10, sql: `UPDATE ducklake_data_file SET encryption_key = 'AAAAAAAAAAAAAAAAAAAAAA==' WHERE data_file_id = ` + mutFirstFile},
	{name: "data row dropped", on: onRenames, sql: `DELETE FROM ducklake_data_file WHERE data_file_id = ` + mutLastFile},
	{name: "data row duplicated", on: onDeletes10, sql: `INSERT INTO ducklake_data_file SELECT * REPLACE (data_file_id + 1000 AS data_file_id) FROM ducklake_data_file WHERE data_file_id = ` + mutLastFile},
	{name: "data file moved to scheduled for deletion", on: onDeletes10, sql: `INSERT INTO ducklake_files_scheduled_for_deletion SELECT data_file_id, path, path_is_relative, now() FROM ducklake_data_file WHERE data_file_id = ` + mutFirstFile,
		neutral: "readers never read ducklake_files_scheduled_for_deletion (expire writes it, cleanup reads it); the file is still listed in ducklake_data_file"},
	{name: "data partial_max after begin", on: onDeletes03, sql: `UPDATE ducklake_data_file SET partial_max = ` + mutLastSnap + ` WHERE data_file_id = ` + mutFirstFile},
	// 0.1-0.3 keep a partial file's rule in partial_file_info.
	{name: "data partial_file_info partial_max", on: onRenames, sql: `UPDATE ducklake_data_file SET partial_file_info = 'partial_max:21' WHERE data_file_id = ` + mutFirstFile},
	{name: "data partial_file_info split list", on: onRenames, sql: `UPDATE ducklake_data_file SET partial_file_info = '3:1' WHERE data_file_id = ` + mutFirstFile},
	{name: "data partial_max at begin", on: onDeletes10, sql: `UPDATE ducklake_data_file SET partial_max = begin_snapshot WHERE data_file_id = ` + mutFirstFile,
		neutral: "partial_max at or before every snapshot the file is visible at filters nothing (SetSnapshotFilter: max <= snapshot reads every row)"},
	{name: "data row_group_count set", on: onDeletes10, sql: `UPDATE ducklake_data_file SET row_group_count = 7 WHERE data_file_id = ` + mutFirstFile,
		neutral: "DuckLake (main, the only 1.1 reader) writes row_group_count and never reads it: the scan's file list does not select it"},

	// Delete files.
	{name: "delete delete_count +1", on: []string{"lakes/06_deletes", "lakes/24_deletion_vectors"}, sql: `UPDATE ducklake_delete_file SET delete_count = delete_count + 1 WHERE delete_file_id = ` + mutLastDel},
	{name: "delete delete_count of an ended delete file", on: []string{"lakes-0.3/06_deletes"}, sql: `UPDATE ducklake_delete_file SET delete_count = delete_count + 1 WHERE delete_file_id = ` + mutFirstDel,
		neutral: "only count(*) at the current snapshot reads delete_count (DuckLakeGetPartitionStats; time travel scans), and this delete file ended before it (docs/compare.md, TestDeleteCountCompared)"},
	{name: "delete begin_snapshot +1", on: onDeletes03, sql: `UPDATE ducklake_delete_file SET begin_snapshot = begin_snapshot + 1 WHERE delete_file_id = ` + mutLastDel},
	{name: "delete begin_snapshot -1", on: []string{"lakes/08_partitioning"}, sql: `UPDATE ducklake_delete_file SET begin_snapshot = begin_snapshot - 1 WHERE delete_file_id = (SELECT max(delete_file_id) FROM ducklake_delete_file WHERE partial_max IS NULL)`},
	{name: "delete begin_snapshot -1 of a partial deletion file", on: onDeletes10, sql: `UPDATE ducklake_delete_file SET begin_snapshot = begin_snapshot - 1 WHERE delete_file_id = ` + mutLastDel,
		neutral: "a partial deletion file's positions carry their own snapshots (the file's third column), all after the new begin_snapshot: readers filter them by snapshot (DuckLakeDeleteFilter::SetSnapshotFilter) and delete nothing more at the earlier snapshot"},
	{name: "delete end_snapshot set", on: []string{"lakes/24_deletion_vectors"}, sql: `UPDATE ducklake_delete_file SET end_snapshot = ` + mutLastSnap + ` WHERE delete_file_id = ` + mutLastDel},
	{name: "delete paths swapped", on: []string{"lakes/06_deletes", "lakes/24_deletion_vectors"}, sql: `UPDATE ducklake_delete_file f SET path = (SELECT path FROM ducklake_delete_file g WHERE g.delete_file_id = CASE WHEN f.delete_file_id = ` + mutFirstDel + ` THEN ` + mutLastDel + ` ELSE ` + mutFirstDel + ` END) WHERE delete_file_id IN (` + mutFirstDel + `, ` + mutLastDel + `)`},
	{name: "delete data_file_id moved", on: onDeletes03, sql: `UPDATE ducklake_delete_file SET data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file d WHERE d.table_id = ducklake_delete_file.table_id AND d.data_file_id <> ducklake_delete_file.data_file_id) WHERE delete_file_id = ` + mutLastDel},
	{name: "delete file_size_bytes +1", on: []string{"lakes/24_deletion_vectors"}, sql: `UPDATE ducklake_delete_file SET file_size_bytes = file_size_bytes + 1 WHERE delete_file_id = ` + mutLastDel},
	{name: "delete footer_size +1", on: onDeletes10, sql: `UPDATE ducklake_delete_file SET footer_size = footer_size + 1 WHERE delete_file_id = ` + mutFirstDel},
	{name: "delete row dropped", on: onDeletes03, sql: `DELETE FROM ducklake_delete_file WHERE delete_file_id = ` + mutLastDel},
	{name: "delete format puffin/parquet swapped", on: []string{"lakes/24_deletion_vectors"}, sql: `UPDATE ducklake_delete_file SET format = CASE format WHEN 'puffin' THEN 'parquet' ELSE 'puffin' END WHERE delete_file_id = ` + mutFirstDel},
	{name: "delete partial_max -1", on: []string{"lakes/24_deletion_vectors"}, sql: `UPDATE ducklake_delete_file SET partial_max = partial_max - 1 WHERE delete_file_id = (SELECT max(delete_file_id) FROM ducklake_delete_file WHERE partial_max IS NOT NULL)`,
		neutral: "readers take a delete file's per-row snapshots from its content (a third column _ducklake_internal_snapshot_id) whatever partial_max says; only compaction reads ducklake_delete_file.partial_max (GetFilesForCompaction)"},
	{name: "delete partial_max NULL", on: onDeletes10, sql: `UPDATE ducklake_delete_file SET partial_max = NULL WHERE delete_file_id = (SELECT max(delete_file_id) FROM ducklake_delete_file WHERE partial_max IS NOT NULL)`,
		neutral: "as partial_max -1: DuckLake's own ducklake_flush_inlined_data writes partial deletion files with partial_max NULL, and readers filter them by content"},
	{name: "delete table_id moved", on: onDeletes10, sql: `UPDATE ducklake_delete_file SET table_id = table_id + 1 WHERE delete_file_id = ` + mutLastDel},
	{name: "delete second delete file of a data file", on: onDeletes10, sql: `INSERT INTO ducklake_delete_file SELECT * REPLACE (delete_file_id + 1000 AS delete_file_id) FROM ducklake_delete_file WHERE delete_file_id = ` + mutLastDel},
	// As a data file's key above: the proof reads B's delete file with
	// its key and fails, stricter than the readers (before, it took the
	// file as A had read it, without a key, and passed).
	{name: "delete encryption_key set", on: onDeletes10, sql: `UPDATE ducklake_delete_file SET encryption_key = 'AAAAAAAAAAAAAAAAAAAAAA==' WHERE delete_file_id = ` + mutLastDel},

	// Columns.
	{name: "column type narrowed", on: onDeletes03, sql: `UPDATE ducklake_column SET column_type = 'int32' WHERE table_id = 1 AND column_id = 1`},
	{name: "column type of an old schema", on: onPromotion, sql: `UPDATE ducklake_column SET column_type = 'int32' WHERE table_id = 1 AND column_id = 2 AND column_type = 'int16'`},
	{name: "column type int64 to uint64", on: onPromotion, sql: `UPDATE ducklake_column SET column_type = 'uint64' WHERE table_id = 1 AND column_id = 2 AND column_type = 'int64'`},
	{name: "column type timestamptz to timestamp", on: onPromotion, sql: `UPDATE ducklake_column SET column_type = 'timestamp' WHERE table_id = 4 AND column_id = 2 AND column_type = 'timestamptz'`},
	{name: "column type float64 to float32", on: onPromotion, sql: `UPDATE ducklake_column SET column_type = 'float32' WHERE table_id = 3 AND column_id = 3 AND column_type = 'float64'`},
	{name: "column renamed", on: onGeneric, sql: `UPDATE ducklake_column SET column_name = column_name || '_x' WHERE table_id = ` + mutFirstTable + ` AND column_order = 1 AND end_snapshot IS NULL`},
	{name: "column old name", on: onRenames, sql: `UPDATE ducklake_column SET column_name = 'tmp2' WHERE table_id = 1 AND column_name = 'tmp'`},
	{name: "column rename a snapshot later", on: onRenames, sql: `UPDATE ducklake_column SET end_snapshot = end_snapshot + 1 WHERE table_id = 1 AND column_name = 'tmp'`},
	{name: "column nulls_allowed flipped", on: onDefaults, sql: `UPDATE ducklake_column SET nulls_allowed = NOT nulls_allowed WHERE table_id = ` + mutFirstTable + ` AND column_order = 1 AND end_snapshot IS NULL`},
	{name: "column default_value changed", on: onDefaults, sql: `UPDATE ducklake_column SET default_value = 'bye' WHERE table_id = 1 AND column_name = 'n_txt'`},
	{name: "column initial_default changed", on: onDefaults, sql: `UPDATE ducklake_column SET initial_default = 'bye' WHERE table_id = 1 AND column_name = 'n_txt'`},
	{name: "column initial_default of a nested field", on: onDefaults, sql: `UPDATE ducklake_column SET initial_default = '43' WHERE table_id = 3 AND column_name = 'k'`},
	{name: "column expression default where A has none", on: onDeletes03, sql: `UPDATE ducklake_column SET default_value = 'CAST(now() AS VARCHAR)', default_value_type = 'expression' WHERE table_id = 1 AND column_id = 2`},
	{name: "column default 'NULL' in 0.3", on: onRenames, sql: `UPDATE ducklake_column SET default_value = 'NULL' WHERE table_id = 1 AND column_id = 2 AND end_snapshot IS NULL`},
	{name: "column default_value_type expression", on: onDefaults, sql: `UPDATE ducklake_column SET default_value_type = 'expression' WHERE table_id = 1 AND column_name = 'n_txt'`},
	{name: "column default_value_dialect", on: onDefaults, sql: `UPDATE ducklake_column SET default_value_dialect = 'postgres' WHERE table_id = 1 AND column_name = 'n_txt'`,
		neutral: "no DuckLake reader reads default_value_dialect (written only); the default itself is compared"},
	{name: "column order swapped", on: []string{"lakes/06_deletes", "lakes/03_renames"}, sql: `UPDATE ducklake_column SET column_order = CASE column_order WHEN 1 THEN 2 ELSE 1 END WHERE table_id = ` + mutFirstTable + ` AND column_order IN (1, 2) AND end_snapshot IS NULL AND parent_column IS NULL`},
	{name: "column ids swapped", on: onPromotion, sql: `UPDATE ducklake_column SET column_id = CASE column_id WHEN 1 THEN 2 ELSE 1 END WHERE table_id = 1 AND column_id IN (1, 2)`},
	{name: "column end_snapshot set", on: onDeletes10, sql: `UPDATE ducklake_column SET end_snapshot = ` + mutLastSnap + ` WHERE table_id = ` + mutFirstTable + ` AND column_order = 2 AND end_snapshot IS NULL`},
	{name: "column row dropped", on: onRenames, sql: `DELETE FROM ducklake_column WHERE table_id = ` + mutFirstTable + ` AND column_order = 2 AND end_snapshot IS NULL`},

	// Name mapping (files added with ducklake_add_data_files).
	{name: "mapping target_field_id", on: onMapping, sql: `UPDATE ducklake_name_mapping SET target_field_id = 3 WHERE mapping_id = 8 AND source_name = 'id'`},
	{name: "mapping source_name", on: onMapping, sql: `UPDATE ducklake_name_mapping SET source_name = 'col1' WHERE mapping_id = 8 AND source_name = 'id'`},
	{name: "mapping is_partition", on: onMapping, sql: `UPDATE ducklake_name_mapping SET is_partition = NOT is_partition WHERE mapping_id = 14 AND source_name = 'part_key'`},
	{name: "mapping entry id of a parent", on: onMapping, sql: `UPDATE ducklake_name_mapping SET column_id = 9 WHERE mapping_id = 12 AND column_id = 3`},
	{name: "mapping entry id of a top-level entry", on: onMapping, sql: `UPDATE ducklake_name_mapping SET column_id = 7 WHERE mapping_id = 8 AND column_id = 2`,
		neutral: "an entry's column_id only names it as its children's parent_column (ConvertNameMap), and this entry has none"},
	{name: "mapping table_id", on: onMapping, sql: `UPDATE ducklake_column_mapping SET table_id = 2 WHERE mapping_id = 8`,
		neutral: "readers find a file's mapping by mapping_id (TryGetMappingById); its table_id only keys writers' reuse of an equal mapping (DuckLakeNameMap::Hash)"},
	{name: "mapping of a file changed", on: onMapping, sql: `UPDATE ducklake_data_file SET mapping_id = 1 WHERE mapping_id = 8 AND path LIKE 'f6%'`},

	// Partitions.
	{name: "partition value", on: onPartition, sql: `UPDATE ducklake_file_partition_value SET partition_value = 'fr' WHERE partition_value = 'eu'`},
	{name: "partition value added", on: onPartition, sql: `INSERT INTO ducklake_file_partition_value VALUES (0, 1, 1, 'x')`},
	{name: "partition value of a bucket", on: onPartition, sql: `UPDATE ducklake_file_partition_value SET partition_value = '2' WHERE data_file_id = 5`},
	{name: "partition key index swapped", on: onPartition, sql: `UPDATE ducklake_file_partition_value SET partition_key_index = 1 - partition_key_index WHERE data_file_id = 3`},
	{name: "partition transform", on: onPartition, sql: `UPDATE ducklake_partition_column SET transform = 'bucket(5)' WHERE transform = 'bucket(4)'`},
	{name: "partition column", on: onPartition, sql: `UPDATE ducklake_partition_column SET column_id = 2 WHERE partition_id = 15`},
	{name: "partition spec end_snapshot", on: onPartition, sql: `UPDATE ducklake_partition_info SET end_snapshot = NULL WHERE partition_id = 12`},
	{name: "partition_id of a file", on: onPartition, sql: `UPDATE ducklake_data_file SET partition_id = 5 WHERE partition_id = 4`,
		neutral: "ducklake_data_file.partition_id is read by compaction only (GetFilesForCompaction); readers prune by the table's partition spec at the snapshot and the file's partition values (docs/compare.md, Known limits)"},

	// Inlined data (1.1 names the system columns _ducklake_*).
	{name: "inlined value", on: onInlined, sql: `UPDATE ducklake_inlined_data_1_4 SET i = i + 1`},
	{name: "inlined begin_snapshot +1", on: onInlined, sql: `UPDATE ducklake_inlined_data_1_3 SET _ducklake_begin_snapshot = _ducklake_begin_snapshot + 1`},
	{name: "inlined row added", on: onInlined, sql: `INSERT INTO ducklake_inlined_data_5_11 VALUES (3, 24, NULL, 4, 'w')`},
	{name: "inlined table's schema_version", on: onInlined, sql: `UPDATE ducklake_inlined_data_tables SET schema_version = 3 WHERE table_name = 'ducklake_inlined_data_1_4'`},
	{name: "inlined deletion position", on: onInlined, sql: `UPDATE ducklake_inlined_delete_1 SET row_id = 2 WHERE row_id = 1`},

	// Snapshots and schema versions.
	{name: "snapshot schema_version regrouped", on: onDeletes10, sql: `UPDATE ducklake_snapshot SET schema_version = schema_version + 1 WHERE snapshot_id = 2`},
	{name: "snapshot schema_version renumbered", on: onDeletes10, sql: `UPDATE ducklake_snapshot SET schema_version = schema_version + 100`,
		neutral: "the proof compares how schema_version groups snapshots, not the numbers: readers use them as a cache key and (1.0+) to find inlined tables and ducklake_schema_versions rows, which this lake has none of"},
	{name: "snapshot schema_version renumbered with inlined tables", on: onInlined, sql: `UPDATE ducklake_snapshot SET schema_version = schema_version + 100`,
		neutral: "an inlined table's schema is found by its own schema_version through ducklake_schema_versions (GetBeginSnapshotForSchemaVersion), both unchanged; the snapshots' numbers only key the schema cache, and 102-111 meet none of 1-11 (a shift that does meet them is caught, below)"},
	{name: "snapshot schema_version shifted with inlined tables", on: onInlined, sql: `UPDATE ducklake_snapshot SET schema_version = schema_version + 1 WHERE schema_version >= 3`},
	{name: "schema_versions begin_snapshot", on: onPromotion, sql: `UPDATE ducklake_schema_versions SET begin_snapshot = begin_snapshot + 1 WHERE schema_version = (SELECT max(schema_version) FROM ducklake_schema_versions)`},
	{name: "schema_versions begin_snapshot of 0.3", on: onRenames, sql: `UPDATE ducklake_schema_versions SET begin_snapshot = begin_snapshot + 1 WHERE schema_version = (SELECT max(schema_version) FROM ducklake_schema_versions)`,
		neutral: "0.3's global ducklake_schema_versions rows are read by compaction only (GetFilesForCompaction in v1.4-andium); docs/compare.md: not compared"},
	{name: "snapshot changes", on: onDeletes10, sql: `UPDATE ducklake_snapshot_changes SET changes_made = changes_made || ',inserted_into_table:4' WHERE snapshot_id = 3`},
	{name: "changes_made reordered", on: onDeletes10, sql: `UPDATE ducklake_snapshot_changes SET changes_made = 'inserted_into_table:1,created_table:"main"."del"' WHERE snapshot_id = 1`,
		neutral: "readers parse changes_made into sets per kind (SnapshotChangeInformation::ParseChangesMade); order does not count (docs/compare.md)"},
	{name: "snapshot time", on: onDeletes03, sql: `UPDATE ducklake_snapshot SET snapshot_time = snapshot_time + INTERVAL 1 SECOND WHERE snapshot_id = 3`},
	{name: "snapshot dropped", on: onDeletes10, sql: `DELETE FROM ducklake_snapshot WHERE snapshot_id = 5`},
	{name: "snapshot added", on: onDeletes10, sql: `INSERT INTO ducklake_snapshot SELECT snapshot_id + 1, snapshot_time + INTERVAL 1 SECOND, schema_version, next_catalog_id, next_file_id FROM ducklake_snapshot WHERE snapshot_id = ` + mutLastSnap},
	{name: "snapshot next_file_id", on: onDeletes10, sql: `UPDATE ducklake_snapshot SET next_file_id = next_file_id + 1 WHERE snapshot_id = ` + mutLastSnap,
		neutral: "read-only readers never allocate an id; they read next_file_id only to skip reloading name maps (LoadNameMaps), whose first load takes them all; a value they cannot read (NULL, negative) is a rule of formats.ReaderValueRules"},
	{name: "snapshot next_catalog_id", on: onDeletes10, sql: `UPDATE ducklake_snapshot SET next_catalog_id = next_catalog_id + 1 WHERE snapshot_id = ` + mutLastSnap,
		neutral: "as next_file_id: an id allocator for writers"},
	{name: "commit author where A has none", on: []string{"lakes-0.3/11_comments_tags"}, sql: `UPDATE ducklake_snapshot_changes SET author = 'mallory' WHERE snapshot_id = 3`},
	{name: "commit message", on: onDeletes10, sql: `UPDATE ducklake_snapshot_changes SET commit_message = 'hello' WHERE snapshot_id = 3`},

	// Tables and schemas.
	{name: "table renamed", on: []string{"lakes/06_deletes", "lakes-0.3/06_deletes"}, sql: `UPDATE ducklake_table SET table_name = table_name || '_x' WHERE table_id = (SELECT min(table_id) FROM ducklake_table)`},
	{name: "table uuid", on: onDeletes10, sql: `UPDATE ducklake_table SET table_uuid = uuid() WHERE table_id = (SELECT min(table_id) FROM ducklake_table)`},
	{name: "table path", on: onGeneric, sql: `UPDATE ducklake_table SET path = path || 'x/' WHERE table_id = (SELECT min(table_id) FROM ducklake_table)`},
	{name: "schema added", on: onDeletes10, sql: `INSERT INTO ducklake_schema VALUES (100, uuid(), 3, NULL, 'extra', 'extra/', true)`},

	// Views, macros, comments.
	{name: "view sql", on: onViews, sql: `UPDATE ducklake_view SET sql = 'SELECT 43 AS answer, ''hello'' AS greeting' WHERE view_name = 'v_const'`},
	{name: "view aliases", on: onViews, sql: `UPDATE ducklake_view SET column_aliases = '"b","a"' WHERE view_name = 'v_alias'`},
	{name: "view renamed", on: onViews, sql: `UPDATE ducklake_view SET view_name = 'v_other' WHERE view_name = 'v_const'`},
	{name: "view dropped at a snapshot", on: onViews, sql: `UPDATE ducklake_view SET end_snapshot = 20 WHERE view_name = 'v_scaled'`},
	{name: "view added", on: onDeletes10, sql: `INSERT INTO ducklake_view VALUES (100, uuid(), 3, NULL, 0, 'vx', 'duckdb', 'SELECT 1 AS one', '')`},
	{name: "view column comment added", on: onViews, sql: `INSERT INTO ducklake_view_column_tag VALUES (2, 'answer', 5, NULL, 'comment', 'the answer')`},
	{name: "view column comment changed", on: []string{"lakes-1.1-dev1/26_v11_only_features"}, sql: `UPDATE ducklake_view_column_tag SET value = 'another note' WHERE end_snapshot IS NULL`},
	{name: "view column comment renamed column", on: []string{"lakes-1.1-dev1/26_v11_only_features"}, sql: `UPDATE ducklake_view_column_tag SET column_name = 'col_b' WHERE end_snapshot IS NULL`},
	{name: "macro body", on: onMacros, sql: `UPDATE ducklake_macro_impl SET sql = '(x + 2)' WHERE macro_id = 3`},
	{name: "macro table body", on: onMacros, sql: `UPDATE ducklake_macro_impl SET sql = replace(sql, '>=', '>') WHERE macro_id = 7`},
	{name: "macro type", on: onMacros, sql: `UPDATE ducklake_macro_impl SET type = 'table' WHERE macro_id = 3`},
	{name: "macro parameter default", on: onMacros, sql: `UPDATE ducklake_macro_parameters SET default_value = '6' WHERE macro_id = 2 AND parameter_name = 'b'`},
	{name: "macro parameter type", on: onMacros, sql: `UPDATE ducklake_macro_parameters SET parameter_type = 'int64' WHERE macro_id = 3`},
	{name: "macro parameter default type", on: onMacros, sql: `UPDATE ducklake_macro_parameters SET default_value_type = 'varchar' WHERE macro_id = 2 AND parameter_name = 'b'`},
	{name: "macro dropped at a snapshot", on: onMacros, sql: `UPDATE ducklake_macro SET end_snapshot = 14 WHERE macro_id = 1`},
	{name: "macro added where A has none", on: []string{"lakes-0.3/06_deletes"}, sql: "INSERT INTO ducklake_macro VALUES (0, 100, 'invented', 1, NULL);\nINSERT INTO ducklake_macro_impl VALUES (100, 0, 'duckdb', '42', 'scalar')"},
	{name: "table comment", on: onComments, sql: `UPDATE ducklake_tag SET value = 'another comment' WHERE value = 'updated table comment'`},
	{name: "table comment added", on: onDeletes10, sql: `INSERT INTO ducklake_tag VALUES (1, 3, NULL, 'comment', 'hi')`},
	{name: "view comment", on: onComments, sql: `UPDATE ducklake_tag SET value = 'x' WHERE value = 'very gezellige view'`},
	{name: "comment begin_snapshot", on: onComments, sql: `UPDATE ducklake_tag SET begin_snapshot = 8 WHERE value = 'updated table comment'`},
	{name: "column comment", on: onComments, sql: `UPDATE ducklake_column_tag SET value = 'the key column' WHERE value = 'the id column'`},

	// Statistics.
	{name: "file stats min", on: onDeletes03, sql: `UPDATE ducklake_file_column_stats SET min_value = '1000000' WHERE data_file_id = ` + mutFirstFile + ` AND column_id = 1`},
	{name: "file stats max", on: onRenames, sql: `UPDATE ducklake_file_column_stats SET max_value = '-1000000' WHERE data_file_id = ` + mutFirstFile + ` AND column_id = 1`},
	{name: "file stats row dropped", on: onDeletes10, sql: `DELETE FROM ducklake_file_column_stats WHERE data_file_id = ` + mutFirstFile + ` AND column_id = 1`},
	{name: "table stats extra_stats where A's format has none", on: []string{"lakes-0.3/11_comments_tags"}, sql: `UPDATE ducklake_table_column_stats SET extra_stats = '{"xmin": 0}' WHERE table_id = (SELECT min(table_id) FROM ducklake_table_column_stats)`,
		neutral: "readers read extra_stats only for GEOMETRY columns (DuckLakeColumnStats allocates extra stats for geo types alone), which this table has none of; the proof lists the column as not compared"},
	{name: "table stats max", on: onDeletes10, sql: `UPDATE ducklake_table_column_stats SET max_value = '-1000000' WHERE table_id = (SELECT min(table_id) FROM ducklake_table_column_stats) AND column_id = 1`},
	{name: "table stats record_count", on: onDeletes03, sql: `UPDATE ducklake_table_stats SET record_count = record_count + 1 WHERE table_id = (SELECT min(table_id) FROM ducklake_table_stats)`},

	// ducklake_metadata.
	{name: "metadata data_path", on: onDeletes10, sql: `UPDATE ducklake_metadata SET value = 'https://elsewhere.example/data/' WHERE key = 'data_path'`,
		neutral: "an FDL catalog's readers attach it with DATA_PATH and OVERRIDE_DATA_PATH true, which skips these rows (formats.Version.DataPathRows), as the proof does with --data"},
	{name: "metadata encrypted", on: onDeletes10, sql: `UPDATE ducklake_metadata SET value = 'true' WHERE key = 'encrypted'`},
	{name: "metadata created_by", on: onDeletes10, sql: `UPDATE ducklake_metadata SET value = 'someone else' WHERE key = 'created_by'`,
		neutral: "no reader reads created_by"},
}

// TestMutationsCaught plants one wrong value at a time in the metadata of
// real conversions of conformance lakes (mutations, on mutationFixtures)
// and proves each mutated B against its source A: the proof must find B
// not equivalent (compare.ErrNotEquivalent, exit 3), unless the mutation
// is declared neutral with the reason no reader's rows, schema or
// metadata can differ, and then it must prove B equivalent. Each fixture
// is converted and proved once, unmutated; each mutation copies its B.
// docs/compare.md, "Tests", lists what it found.
func TestMutationsCaught(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Now()
	engines := NewEngines(1)
	defer engines.Close()
	// The proofs share readers' databases, digests and delete files, as a
	// check's proofs do: each mutation costs the reads of what it changed.
	readers := compare.NewEngines(2)
	defer readers.Close()
	digests, deletes := compare.NewDigests(nil), compare.NewDeletes()
	ran := map[string]int{}
	var caught, neutral, fixtures int
	for _, fx := range mutationFixtures {
		t.Run(fx.key(), func(t *testing.T) {
			fixtures++
			lake := testlakes.Lake(t, fx.archive, fx.lake)
			// Both pools are bounded within the lake's testReach, as
			// lakeOuts' Engines are: each mutation's B is a copy in its
			// own temporary folder, and each proof's own reach, which
			// names it, started two readers' databases of their own
			// (compare.Open 6.5 of the test's 38 s of CPU samples, 2.5
			// bounded). Every mutation is still proved against its own
			// copy; a proof's own reach stays tested where Engines are
			// not bounded (compare's sandbox tests, nil Engines).
			engines.Within(testReach(lake)...)
			readers.Within(testReach(lake)...)
			// convert may write delete files beside the data: a copy.
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			vs := versionCatalogs(t, lake)
			a := vs[len(vs)-1]
			if fx.via != nil {
				via := filepath.Join(t.TempDir(), "a.duckdb")
				if _, err := Catalog(ctx, a, via, fx.via, Options{DataPath: data, Engines: engines}); err != nil {
					t.Fatal(err)
				}
				a = via
			}
			// A conversion of a lake that TestRoundTrips and
			// TestConvertedLakesReadIdentically share (lakeOuts: a
			// release's to every other release, a development layout's
			// to its release and 1.0), when no lossy option changed it,
			// is this one (lakeOuts.plain): read, not written again (each
			// mutation copies it).
			b := ""
			if fx.via == nil {
				if lo := sharedLakeOuts(t, lake); lo.has(fx.to) {
					b, _ = lo.plain(t, fx.to)
				}
			}
			if b == "" {
				b = filepath.Join(t.TempDir(), "b.duckdb")
				if _, err := Catalog(ctx, a, b, fx.to, Options{DataPath: data, AllowInlined: true, Engines: engines}); err != nil {
					t.Fatal(err)
				}
			}
			source := compare.NewSource()
			defer source.Close()
			opts := compare.Options{DataPath: data, Engines: readers, Source: source, Digests: digests, Deletes: deletes}
			if rep, err := compare.Catalogs(ctx, a, b, opts); err != nil {
				t.Fatalf("unmutated: %v\n%v", err, rep.Differences)
			}
			for _, m := range mutations {
				if !m.applies(fx) {
					continue
				}
				ran[m.name]++
				t.Run(m.name, func(t *testing.T) {
					mb := filepath.Join(t.TempDir(), "b.duckdb")
					copyFile(t, b, mb)
					mutate(t, mb, m.sql)
					rep, err := compare.Catalogs(ctx, a, mb, opts)
					switch {
					case err == nil && m.neutral == "":
						t.Errorf("proved equivalent")
					case err == nil:
						neutral++
					case m.neutral != "":
						t.Errorf("declared neutral (%s), but: %v", m.neutral, err)
					case !errors.Is(err, compare.ErrNotEquivalent):
						t.Errorf("want not equivalent (B fails or differs where A reads), got: %v", err)
					default:
						caught++
						t.Logf("caught: %s", caughtBy(rep))
					}
				})
			}
		})
	}
	t.Logf("%d mutations (%d runs): %d caught, %d neutral, in %s", len(mutations), caught+neutral, caught, neutral, time.Since(start))
	if t.Failed() || fixtures < len(mutationFixtures) {
		return // a fixture failed, or -run chose some
	}
	for _, m := range mutations {
		for _, k := range m.on {
			if !slices.ContainsFunc(mutationFixtures, func(fx mutationFixture) bool { return k == fx.archive+"/"+fx.lake || k == fx.key() }) {
				t.Errorf("mutation %q names fixture %q, which is not one", m.name, k)
			}
		}
		if ran[m.name] == 0 {
			t.Errorf("mutation %q runs on no fixture (on %v)", m.name, m.on)
		}
	}
}

// mutate runs statements (separated by ";\n") on the catalog file and
// fails the test unless each changed a row.
func mutate(t *testing.T, path, stmts string) {
	t.Helper()
	ctx := context.Background()
	conn, release := attached(t, path, "")
	defer release()
	if _, err := conn.ExecContext(ctx, "USE c"); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(stmts, ";\n") {
		res, err := conn.ExecContext(ctx, stmt)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			t.Fatalf("%s changed no row (%d, %v)", stmt, n, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "USE memory; DETACH c"); err != nil {
		t.Fatal(err)
	}
}

func (m mutation) applies(fx mutationFixture) bool {
	for _, k := range m.on {
		if k == fx.archive+"/"+fx.lake || k == fx.key() {
			return true
		}
	}
	return false
}

// caughtBy names the kinds of a report's differences and its first one.
func caughtBy(rep *compare.Report) string {
	var kinds []string
	for _, d := range rep.Differences {
		if !slices.Contains(kinds, d.Kind) {
			kinds = append(kinds, d.Kind)
		}
	}
	if len(kinds) == 0 {
		return "no difference listed"
	}
	first := rep.Differences[0].String()
	if len(first) > 300 {
		first = first[:300]
	}
	return strings.Join(kinds, ",") + ": " + first
}
