package testlakes

// LoadLookAlike is metadata close to a condition that fails every DuckLake
// reader's catalog load (catalog-load-fails) that every reader loads all
// the same: Stmt, run on the newest catalog of the conformance lake Lake
// of the "lakes" archive, makes it.
type LoadLookAlike struct {
	Name, Lake, Stmt string
}

// LoadLookAlikes are the cases the proof (compare) and convert must both
// leave unrefused: a model stricter than the readers there would fail check
// on repositories every reader reads, or refuse their conversion. The
// readers (GetCatalogForSnapshot, LoadSchemaForSnapshot) keep the first of
// two schemas named alike, skip a tag whose value is NULL (LoadTags), check
// the tags of a table's visible top-level columns only, and join visible
// columns only: a visible table whose column rows are none visible gives
// the join no row, and is left out before its schema and its rows are
// checked.
var LoadLookAlikes = []LoadLookAlike{
	{"a second schema named alike stored after, empty", "06_deletes", `INSERT INTO ducklake_schema SELECT * REPLACE (77 AS schema_id, '01a18fe9-0000-7000-8000-000000000077' AS schema_uuid, 'MAIN' AS schema_name) FROM ducklake_schema WHERE schema_name = 'main'`},
	{"a column tag other than a comment with a NULL value", "11_comments_tags", `INSERT INTO ducklake_column_tag VALUES (1, 1, 4, NULL, 'unit', NULL)`},
	{"a column tag other than a comment never visible", "11_comments_tags", `INSERT INTO ducklake_column_tag VALUES (1, 1, 4, 4, 'unit', 'm')`},
	{"a column tag other than a comment of a nested field", "12_nested_types", `INSERT INTO ducklake_column_tag SELECT table_id, column_id, begin_snapshot, NULL, 'unit', 'm' FROM ducklake_column WHERE parent_column IS NOT NULL AND end_snapshot IS NULL LIMIT 1`},
	{"a column tag other than a comment of a view", "09_views", `INSERT INTO ducklake_column_tag SELECT view_id, 1, begin_snapshot, NULL, 'unit', 'm' FROM ducklake_view WHERE end_snapshot IS NULL LIMIT 1`},
	{"a dropped column named alike", "06_deletes", `INSERT INTO ducklake_column SELECT * REPLACE (999 AS column_id, 'ID' AS column_name, begin_snapshot AS end_snapshot) FROM ducklake_column WHERE column_name = 'id' LIMIT 1`},
	{"a table of no visible schema whose columns are none visible", "06_deletes", ghostTable(", 999 AS schema_id")},
	{"a table with two visible rows whose columns are none visible", "06_deletes", ghostTable("") + `;
	INSERT INTO ducklake_table SELECT * FROM ducklake_table WHERE table_id = 99`},
}

// ghostTable adds table 99, ghost, a copy of 06_deletes' table del (id 1)
// with the columns the copy's replace (a text "..., x AS y") changes,
// whose column rows are never visible (each ends where it begins).
func ghostTable(replace string) string {
	return `INSERT INTO ducklake_table SELECT * REPLACE (99 AS table_id, '01a18fe9-0000-7000-8000-000000000099' AS table_uuid, 'ghost' AS table_name` + replace + `) FROM ducklake_table WHERE table_id = 1 AND end_snapshot IS NULL;
	INSERT INTO ducklake_column SELECT * REPLACE (99 AS table_id, begin_snapshot AS end_snapshot) FROM ducklake_column WHERE table_id = 1 AND end_snapshot IS NULL`
}
