package convert

import "fmt"

// The data migrations used by steps.go. They run on the working copy, whose
// tables hold the columns of both formats while a step runs.

// topLevelColumnsAtSpec: the top-level columns of a partition spec's table
// alive when the spec began, with their 0-based position.
const topLevelColumnsAtSpec = `
	SELECT pi.partition_id, c.column_id, row_number() OVER (PARTITION BY pi.partition_id ORDER BY c.column_order) - 1 AS pos
	FROM ducklake_partition_info pi
	JOIN ducklake_column c ON c.table_id = pi.table_id AND c.parent_column IS NULL
	 AND c.begin_snapshot <= pi.begin_snapshot AND (c.end_snapshot IS NULL OR c.end_snapshot > pi.begin_snapshot)`

var sqlPartitionPositionsToFieldIDs = `UPDATE ducklake_partition_column pc SET column_id = p.column_id
	FROM (` + topLevelColumnsAtSpec + `) p WHERE p.partition_id = pc.partition_id AND p.pos = pc.column_id`

var sqlPartitionFieldIDsToPositions = `UPDATE ducklake_partition_column pc SET column_id = p.pos
	FROM (` + topLevelColumnsAtSpec + `) p WHERE p.partition_id = pc.partition_id AND p.column_id = pc.column_id`

// sqlPartitionFieldIDsWithoutPosition finds partition columns that no single
// 0.1 position can name: not a top-level column when the spec began, or at
// another position at some snapshot while the spec is visible (a column
// added or dropped before it), where a 0.1 reader would pick another column.
var sqlPartitionFieldIDsWithoutPosition = `
	WITH spec_snaps AS (
		SELECT pi.partition_id, pi.table_id, s.snapshot_id FROM ducklake_partition_info pi JOIN ducklake_snapshot s
		ON s.snapshot_id >= pi.begin_snapshot AND (pi.end_snapshot IS NULL OR s.snapshot_id < pi.end_snapshot)),
	positions AS (
		SELECT ss.partition_id, ss.snapshot_id, c.column_id, row_number() OVER (PARTITION BY ss.partition_id, ss.snapshot_id ORDER BY c.column_order) - 1 AS pos
		FROM spec_snaps ss JOIN ducklake_column c ON c.table_id = ss.table_id AND c.parent_column IS NULL
		 AND c.begin_snapshot <= ss.snapshot_id AND (c.end_snapshot IS NULL OR c.end_snapshot > ss.snapshot_id))
	SELECT concat_ws(' ', 'partition', pc.partition_id, 'key', pc.partition_key_index, 'column_id', pc.column_id) FROM ducklake_partition_column pc
	WHERE NOT EXISTS (SELECT 1 FROM (` + topLevelColumnsAtSpec + `) p WHERE p.partition_id = pc.partition_id AND p.column_id = pc.column_id)
	   OR (SELECT count(DISTINCT pos) FROM positions p WHERE p.partition_id = pc.partition_id AND p.column_id = pc.column_id) > 1
	ORDER BY ALL`

// sqlTableDirs gives each table's directory from its latest schema and
// table rows (ducklake-formats.md §6.2), with the catalog's data_path.
const sqlTableDirs = `
	WITH dp AS (SELECT value AS data_path FROM ducklake_metadata WHERE key = 'data_path' AND scope IS NULL),
	sch AS (SELECT s.schema_id, CASE WHEN s.path IS NULL THEN dp.data_path WHEN s.path_is_relative THEN dp.data_path || s.path ELSE s.path END AS dir
		FROM ducklake_schema s, dp QUALIFY row_number() OVER (PARTITION BY s.schema_id ORDER BY s.begin_snapshot DESC) = 1)
	SELECT t.table_id, dp.data_path, CASE WHEN t.path IS NULL THEN sch.dir WHEN t.path_is_relative THEN sch.dir || t.path ELSE t.path END AS dir
	FROM ducklake_table t JOIN sch USING (schema_id), dp
	QUALIFY row_number() OVER (PARTITION BY t.table_id ORDER BY t.begin_snapshot DESC) = 1`

// sqlFilePathsToDataPath rewrites relative file paths from "relative to the
// table's path" (0.2+) to "relative to data_path" (0.1); a file outside
// data_path is stored absolute.
func sqlFilePathsToDataPath(table string) string {
	return fmt.Sprintf(`UPDATE %[1]s f SET path = CASE WHEN starts_with(d.dir || f.path, d.data_path) THEN substr(d.dir || f.path, length(d.data_path) + 1) ELSE d.dir || f.path END,
		path_is_relative = starts_with(d.dir || f.path, d.data_path)
	FROM (%[2]s) d
	WHERE f.table_id = d.table_id AND f.path_is_relative`, table, sqlTableDirs)
}

// Each schema version starts at the first snapshot that has it (MigrateV02).
const sqlBackfillGlobalSchemaVersions = `INSERT INTO ducklake_schema_versions (begin_snapshot, schema_version)
	SELECT * FROM (SELECT MIN(snapshot_id), schema_version FROM ducklake_snapshot GROUP BY schema_version ORDER BY schema_version)`

// A column row without a default type gets 'literal', the type of a
// literal default and of none (MigrateV03 from d1a598ab: the fill covers a
// 0.3 catalog, where the column is new; a 0.4-dev1 catalog already has it).
const sqlLiteralDefaultTypes = `UPDATE ducklake_column SET default_value_type = 'literal' WHERE default_value_type IS NULL`

// 'partial_max:N' (files flushed from inlined data in 0.3) is kept (MigrateV03).
const sqlPartialMaxFromInfo = `UPDATE ducklake_data_file SET partial_max = TRY_CAST(regexp_extract(partial_file_info, 'partial_max:(\d+)', 1) AS BIGINT)
	WHERE partial_max IS NULL AND partial_file_info LIKE '%partial_max:%'`

// A merge split list 's1:n1|s2:n2|...' becomes partial_max = max(si). Merged
// files of 0.1-0.3 embed _ducklake_internal_snapshot_id, so a 0.4+ reader
// then filters them exactly (DuckLake's own migration drops the list).
const sqlPartialMaxFromSplitList = `UPDATE ducklake_data_file SET partial_max = (
		SELECT max(TRY_CAST(split_part(e, ':', 1) AS BIGINT)) FROM (SELECT unnest(string_split(partial_file_info, '|')) AS e))
	WHERE partial_max IS NULL AND partial_file_info IS NOT NULL AND partial_file_info NOT LIKE '%partial_max:%'`

// Global schema versions become one row per table alive then (MigrateV03,
// including its duplicates for renamed tables).
const sqlExplodeSchemaVersions = `INSERT INTO ducklake_schema_versions (table_id, begin_snapshot, schema_version)
	SELECT t.table_id, sv.begin_snapshot, sv.schema_version FROM ducklake_schema_versions sv
	JOIN ducklake_table t ON sv.begin_snapshot BETWEEN t.begin_snapshot AND COALESCE(t.end_snapshot, sv.begin_snapshot)
	WHERE sv.table_id IS NULL`

const sqlDropGlobalSchemaVersions = `DELETE FROM ducklake_schema_versions WHERE table_id IS NULL`

// Per-table schema versions coarsen to one global row per schema version:
// the first snapshot that has it, also covering expired snapshots.
const sqlGlobalSchemaVersions = `CREATE OR REPLACE TABLE ducklake_schema_versions AS
	SELECT MIN(begin_snapshot) AS begin_snapshot, schema_version, NULL::BIGINT AS table_id FROM (
		SELECT begin_snapshot, schema_version FROM ducklake_schema_versions
		UNION ALL SELECT MIN(snapshot_id), schema_version FROM ducklake_snapshot GROUP BY schema_version)
	GROUP BY schema_version ORDER BY schema_version`
