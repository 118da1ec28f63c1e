package convert

import "github.com/fdl-formats/fdl-formats/formats"

// A step converts the working tables from one format to an adjacent one.
// Each direction is declared once, here, as data. The engine (engine.go)
// runs every step the same way:
//
//  1. checks, on the step's input: what the target cannot express;
//  2. table renames;
//  3. new tables and columns of the target, filled as DuckLake's migration
//     fills them (formats.Column.Fill);
//  4. sql, the data migration, while old and new columns both exist;
//  5. change kinds the target's readers do not parse are renamed or dropped
//     (formats.ChangeKindRenames);
//  6. dynamic, the work on per-table inlined tables;
//  7. tables and columns the target lacks are dropped, and the version row
//     is stamped.
//
// Shapes and change kinds come from the registry: a step never spells out a
// column list or a change kind's rename.
type step struct {
	from, to string
	renames  [][2]string // {old, new}; applied only when old exists
	checks   []check
	sql      []string
	// sqlIf runs statements only when a column exists in the working copy
	// ("table.column"), for development layouts that may lack it.
	sqlIf   map[string][]string
	dynamic func(r *run) error
	note    string // documentation of the step, rendered into docs/formats.md (TestFormatsDoc)
}

// check is one thing the target may not be able to express. query returns
// one text row per offending item (no rows: nothing to report).
type check struct {
	code   string
	table  string
	query  string
	reason string
	// option names the per-feature option that converts it anyway, dropping
	// metadata that does not change rows (lossy) after running fix. Without an
	// option the finding always refuses.
	option string
	fix    []string
	// custom checks that need Go (dynamic tables); returns the offending items.
	custom func(r *run) ([]string, error)
	// readsData: custom reads data files (it then runs on every thread).
	readsData bool
	// rewrite, with Options.RewriteDeletes, expresses the items losslessly in
	// the target by writing new delete files; rewritten says how.
	rewrite   func(r *run) error
	rewritten string
}

var steps = []step{
	// 0.1 <-> 0.2 (MigrateV01)
	{from: "0.1", to: "0.2",
		sql: []string{sqlPartitionPositionsToFieldIDs},
		note: "schema and table paths become '' (relative), so file paths keep resolving against data_path; " +
			"partition column positions become field ids, using the columns alive when the partition spec began " +
			"(DuckLake's migration uses today's columns, which is wrong for specs of altered or dropped tables)"},
	{from: "0.2", to: "0.1",
		checks: []check{
			{code: "name-mapped-files", table: "ducklake_data_file",
				query:  `SELECT 'data_file_id ' || data_file_id || ' ' || path || ' (mapping_id ' || mapping_id || ')' FROM ducklake_data_file WHERE mapping_id IS NOT NULL ORDER BY data_file_id`,
				reason: "format 0.1 matches Parquet columns only by field id; these files were added with a name mapping"},
			{code: "scoped-settings", table: "ducklake_metadata",
				query:  `SELECT scope || ' ' || scope_id || ': ' || key || '=' || value FROM ducklake_metadata WHERE scope IS NOT NULL ORDER BY ALL`,
				reason: "format 0.1 has no schema- or table-scoped settings (kept, they would turn into global settings)",
				option: "scoped-settings", fix: []string{`DELETE FROM ducklake_metadata WHERE scope IS NOT NULL`}},
			{code: "partition-column-position", table: "ducklake_partition_column",
				query:  sqlPartitionFieldIDsWithoutPosition,
				reason: "format 0.1 stores partition columns as positions among the top-level columns; no single position names these columns while their partition spec is visible"},
		},
		sql:  []string{sqlPartitionFieldIDsToPositions, sqlFilePathsToDataPath("ducklake_data_file"), sqlFilePathsToDataPath("ducklake_delete_file")},
		note: "file paths are rewritten relative to data_path (0.1 has no schema/table paths); partition field ids become positions"},

	// 0.2 <-> 0.3 (MigrateV02)
	{from: "0.2", to: "0.3",
		renames: [][2]string{{"ducklake_file_column_statistics", "ducklake_file_column_stats"}},
		sql:     []string{sqlBackfillGlobalSchemaVersions}},
	{from: "0.3", to: "0.2",
		renames: [][2]string{{"ducklake_file_column_stats", "ducklake_file_column_statistics"}},
		checks: []check{
			{code: "hive-partition-mapping", table: "ducklake_name_mapping",
				query:  `SELECT 'mapping_id ' || mapping_id || ' column ' || source_name FROM ducklake_name_mapping WHERE is_partition ORDER BY ALL`,
				reason: "format 0.2 cannot take a column's value from the Hive partition path; it would look for it inside the file"},
			{code: "flushed-partial-files", table: "ducklake_data_file",
				custom: flushedPartialFiles, readsData: true,
				reason: "format 0.2 reads partial_file_info only as a merge split list and fails on 'partial_max:N' (files flushed from inlined data, and 0.4+ merges); a file whose rows' snapshots are in file order becomes the split list it reads as, these cannot"},
			{code: "commit-info", table: "ducklake_snapshot_changes",
				query:  `SELECT 'snapshot ' || snapshot_id FROM ducklake_snapshot_changes WHERE author IS NOT NULL OR commit_message IS NOT NULL OR commit_extra_info IS NOT NULL ORDER BY snapshot_id`,
				reason: "format 0.2 has no commit author, message or extra info",
				option: "commit-info"},
			{code: "extra-stats", table: "ducklake_file_column_stats",
				query:  `SELECT 'data_file_id ' || data_file_id || ' column ' || column_id FROM ducklake_file_column_stats WHERE extra_stats IS NOT NULL UNION ALL SELECT 'table ' || table_id || ' column ' || column_id FROM ducklake_table_column_stats WHERE extra_stats IS NOT NULL ORDER BY ALL`,
				reason: "format 0.2 has no extra_stats (geometry and variant pruning statistics)",
				option: "extra-stats"},
		},
		note: "ducklake_schema_versions is dropped (0.2 has none; only compaction used it)"},
	{from: "0.3-dev1", to: "0.3",
		renames: [][2]string{{"ducklake_file_column_statistics", "ducklake_file_column_stats"}},
		sql:     []string{sqlBackfillGlobalSchemaVersions + ` WHERE NOT EXISTS (SELECT 1 FROM ducklake_schema_versions)`},
		note:    "development layouts converge to 0.3: missing columns and tables are added as MigrateV02 adds them"},

	// 0.3 <-> 0.4 (MigrateV03)
	{from: "0.3", to: "0.4",
		checks: []check{nullStringDefaultCheck, mergedFileCheck, mergedFilesUncheckedCheck},
		sql:    []string{sqlPartialMaxFromInfo, sqlPartialMaxFromSplitList, sqlExplodeSchemaVersions, sqlDropGlobalSchemaVersions},
		note: "'partial_max:N' becomes partial_max = N; a merge split list 's1:n1|s2:n2' becomes partial_max = max(si) " +
			"where every row's stored snapshot id gives the same rows as the list (DuckLake's migration sets NULL and so shows every merged row at every snapshot); " +
			"schema versions are exploded per table as MigrateV03 does"},
	{from: "0.4-dev1", to: "0.4",
		checks: []check{mergedFileCheck, mergedFilesUncheckedCheck},
		sqlIf:  map[string][]string{"ducklake_data_file.partial_file_info": {sqlPartialMaxFromInfo, sqlPartialMaxFromSplitList}},
		sql:    []string{sqlLiteralDefaultTypes, sqlExplodeSchemaVersions, sqlDropGlobalSchemaVersions},
		note: "development layouts converge to 0.4, also those DuckLake's own migration cannot upgrade (no partial_file_info column); " +
			"a ducklake_column row whose default_value_type is NULL gets 'literal', as MigrateV03 sets it"},
	{from: "0.4", to: "0.3",
		checks: []check{
			{code: "macros", table: "ducklake_macro",
				query:  `SELECT macro_name || ' (macro_id ' || macro_id || ')' FROM ducklake_macro ORDER BY macro_id, begin_snapshot`,
				reason: "format 0.3 has no macros"},
			{code: "geometry", table: "ducklake_column",
				query:  `SELECT 'table ' || table_id || ' column ' || column_name FROM ducklake_column WHERE lower(column_type) = 'geometry' ORDER BY ALL`,
				reason: "format 0.4+ writes native GEOMETRY Parquet columns; format 0.3 stores geometry as WKB BLOB and DuckDB 1.4 is not known to read them"},
			{code: "expression-defaults", table: "ducklake_column",
				query:  `SELECT 'table ' || table_id || ' column ' || column_name || ' DEFAULT ' || default_value FROM ducklake_column WHERE default_value_type = 'expression' ORDER BY ALL`,
				reason: "format 0.3 has only literal defaults: its writers would insert the expression's text, and its readers cast the text to the column's type as they load the schema (TransformColumnType), failing where it does not cast; the option drops the defaults (only writers use them)",
				option: "expression-defaults",
				fix:    []string{`UPDATE ducklake_column SET default_value = NULL, default_value_type = 'literal' WHERE default_value_type = 'expression'`}},
			{code: "default-dialect", table: "ducklake_column",
				query:  `SELECT 'table ' || table_id || ' column ' || column_name || ' dialect ' || default_value_dialect FROM ducklake_column WHERE default_value_dialect IS NOT NULL AND default_value_dialect <> 'duckdb' ORDER BY ALL`,
				reason: "format 0.3 has no default dialect; these defaults are not DuckDB SQL"},
			{code: "partial-delete-files", table: "ducklake_delete_file",
				custom: partialDeleteItems, readsData: true,
				reason:    "format 0.3 ignores the per-row snapshot of partial deletion files (3 columns, the third _ducklake_internal_snapshot_id, read from the data folder whatever partial_max says: DuckLake's flush of inlined data writes them with partial_max NULL; without the data folder partial_max decides), so time travel before their last snapshot would lose rows",
				rewrite:   rewritePartialDeletes,
				rewritten: "partial deletion files rewritten as one cumulative 2-column delete file per snapshot (as a 0.3 writer does), written beside them under the data folder"},
			{code: "inlined-deletes", table: "ducklake_inlined_delete_<table_id>",
				custom: inlinedDeleteRows,
				reason: "format 0.3 never reads inlined file deletions; the deleted rows would reappear"},
			{code: "sort-hints", table: "ducklake_sort_info",
				query:  `SELECT 'table ' || table_id || ' sort ' || sort_id FROM ducklake_sort_info ORDER BY ALL`,
				reason: "format 0.3 has no sort order (a write-side hint: rows are unchanged)",
				option: "sort-hints"},
		},
		sql: []string{
			`UPDATE ducklake_column SET default_value = NULL WHERE default_value = 'NULL'`,
			`UPDATE ducklake_data_file SET partial_file_info = 'partial_max:' || partial_max WHERE partial_max IS NOT NULL`,
			sqlGlobalSchemaVersions,
		},
		note: "default 'NULL' (0.4's no-default string) becomes SQL NULL; partial_max becomes 'partial_max:N'; " +
			"schema versions coarsen to one global row per schema version; new change tokens map to their 0.3 names"},

	// 0.4 <-> 1.0 (MigrateV04: version row only)
	{from: "0.4", to: "1.0",
		sql: []string{`UPDATE ducklake_delete_file SET format = 'parquet' WHERE format IS NOT NULL AND format <> 'parquet'`},
		note: "every delete file's format becomes 'parquet' (NULL stays NULL, which 1.0 reads as Parquet): readers before 1.0 never read the column and open every delete file as Parquet, " +
			"while 1.0 readers open 'puffin' in any case as a deletion vector and fail on any other value ('Unknown delete file format'); DuckLake's migration copies the value"},
	{from: "1.0", to: "0.4",
		checks: []check{
			{code: "deletion-vectors", table: "ducklake_delete_file",
				query:     `SELECT 'delete_file_id ' || delete_file_id || ' ' || path FROM ducklake_delete_file WHERE ` + formats.V1_0.DeleteFileFormatSQL("format") + ` = 'puffin' ORDER BY delete_file_id`,
				reason:    "format 0.4 reads every delete file as Parquet; these are Puffin deletion vectors",
				rewrite:   rewriteDeletionVectors,
				rewritten: "Puffin deletion vectors rewritten as 2-column Parquet delete files (same positions, same visibility), written beside them under the data folder"},
		}},

	// 1.0 <-> 1.1 (MigrateV10)
	{from: "1.0", to: "1.1",
		checks: []check{
			{code: "reserved-column-names", table: "ducklake_inlined_data_<table_id>_<schema_version>",
				custom: inlinedPrefixedNameCollisions,
				reason: "format 1.1 names the inlined system columns _ducklake_row_id, _ducklake_begin_snapshot and _ducklake_end_snapshot, and its readers select them by those names from every registered inlined table; " +
					"these inlined tables hold rows and have user columns of those names (DuckDB cannot hold both)"},
		},
		dynamic: prefixInlinedColumns,
		note: "the inlined system columns row_id, begin_snapshot and end_snapshot become _ducklake_row_id, _ducklake_begin_snapshot and _ducklake_end_snapshot; " +
			"an inlined data table without rows whose user columns are named like those is dropped with its ducklake_inlined_data_tables row (a 1.1 reader then reads no rows of it, as a 1.0 reader reads none; DuckLake's own migration refuses it, rows or not). " +
			"Other user columns starting with _ducklake_ are kept: 1.1 writers refuse them on CREATE TABLE, ADD COLUMN and RENAME COLUMN only, and 1.1 readers read them as 1.0 readers do (data files by field id, inlined columns by name)"},
	{from: "1.1-dev1", to: "1.1",
		dynamic: prefixInlinedColumns,
		note:    "development layouts converge to 1.1: row_group_count, ducklake_view_column_tag and prefixed inlined columns are added where missing"},
	{from: "1.1", to: "1.0",
		checks: []check{
			{code: "view-column-comments", table: "ducklake_view_column_tag",
				query:  `SELECT 'view ' || view_id || ' column ' || column_name || ' ' || key || ' from snapshot ' || begin_snapshot FROM ducklake_view_column_tag ORDER BY view_id, column_name, key, begin_snapshot`,
				reason: "format 1.0 has no view column comments",
				option: "view-column-comments"},
			{code: "deletion-vector-containers", table: "ducklake_delete_file",
				custom: puffinContainers,
				reason: "format 1.0 reads only bare deletion vectors; these Puffin containers carry deletions of several snapshots"},
			{code: "inlined-system-name-collision", table: "ducklake_inlined_data_<table_id>_<schema_version>",
				custom: inlinedSystemNameCollisions,
				reason: "format 1.0 names the inlined system columns row_id, begin_snapshot and end_snapshot, and its readers select them by those names from every registered inlined table; these inlined tables hold rows and have user columns of those names (DuckDB cannot hold both)"},
		},
		dynamic: unprefixInlinedColumns,
		note: "row_group_count is dropped (informational, never read); an inlined data table without rows whose user columns are named row_id, begin_snapshot or end_snapshot is dropped " +
			"with its ducklake_inlined_data_tables row (its system columns cannot be renamed to those names, and a 1.0 reader would select the user's columns or fail; without it, it reads no rows of it, as 1.1 reads none)"},
}

// nullStringDefaultCheck: a 0.1-0.3 default that is the string 'NULL'
// (DEFAULT 'NULL'; DuckDB 1.3/1.4 store no default as SQL NULL) is read by
// 0.4+ readers as no default. An expression default "'NULL'" would give
// 0.4+ writers the string, but the proof compares how a default is taken
// (literal or expression), so it is refused rather than written.
var nullStringDefaultCheck = check{code: "null-string-default", table: "ducklake_column",
	query: `SELECT 'table ' || c.table_id || ' ' || coalesce(t.table_name, '?') || ' column ' || c.column_name || ' (id ' || c.column_id || ', snapshots ' || c.begin_snapshot ||
			CASE WHEN c.end_snapshot IS NULL THEN ' on' ELSE ' to ' || (c.end_snapshot - 1) END || ')'
		FROM ducklake_column c
		LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t USING (table_id)
		WHERE c.default_value = 'NULL' ORDER BY c.table_id, c.column_id, c.begin_snapshot`,
	reason: "format 0.4+ readers read the default_value text 'NULL' as no default (the string their writers store for none; DuckLakeMetadataManager::BuildCatalogForSnapshot, v1.5-variegata), " +
		"format 0.1-0.3 readers as the string 'NULL' (a column declared DEFAULT 'NULL'; they store no default as SQL NULL): an INSERT that omits the column would write NULL, not 'NULL'; no 0.4+ literal default is the string 'NULL'"}

// mergedFileCheck: merged files of 0.1-0.3 whose rows' stored snapshot ids
// disagree with their split list (merged.go).
var mergedFileCheck = check{code: "merged-file-snapshots", table: "ducklake_data_file",
	custom: mergedFileSnapshots, readsData: true,
	reason: "format 0.4+ shows a merged file's rows by the snapshot id stored in each row, format 0.3 by the file's split list (partial_file_info); " +
		"in these files rows are stored with other snapshots than the split list gives them (rows of a rewritten file keep the snapshot of their first insert), " +
		"so 0.4+ would show them at other snapshots than 0.3 did (before the rewrite, next to the rows they replace)",
	rewrite:   rewriteMergedFiles,
	rewritten: "merged files whose rows' stored snapshots disagree with their split list are read without the per-row filter, each with a chain of 2-column delete files hiding, at every snapshot, the rows 0.3 did not show (its own delete files merged in), and, where the file ends, a partial deletion file no snapshot sees of the rows the chain's last file hides, so that the change feed reports them at the end as 0.3 does, written beside them under the data folder"}

// mergedFilesUncheckedCheck: without the data folder, merged files cannot
// be checked.
var mergedFilesUncheckedCheck = check{code: "merged-files-unchecked", table: "ducklake_data_file",
	custom: mergedFilesUnchecked,
	reason: "format 0.4+ shows a merged file's rows by the snapshot id stored in each row, format 0.3 by the file's split list (partial_file_info); " +
		"whether they agree is read from the data files: give the data folder (--data DIR)"}

// lookupStep finds the declared step between two formats.
func lookupStep(from, to *formats.Version) (step, bool) {
	for _, s := range steps {
		if s.from == from.Name && s.to == to.Name {
			return s, true
		}
	}
	return step{}, false
}
