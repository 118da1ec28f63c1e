package compare

import "testing"

// TestOpenNullViewAndGeometryStats: a real catalog with NULL in a view
// field DuckLake's readers fail on (view_id and schema_id read as numbers;
// sql, read as the text 'NULL', which does not parse; column_aliases, whose
// 'NULL' fails the catalog's load) or read otherwise (a view named 'NULL',
// a view row never visible), or in the extra_stats of a GEOMETRY column's
// table statistics row the readers read (DuckDB 2.0 answers
// vertex_extract() of the column NULL in every row), is not opened: an
// OpenError (OpenNullFields) naming the table, the column and the row.
// view_uuid, dialect, table_uuid and schema_uuid (read as the text 'NULL'
// and used by writers only), the extra_stats of a column of another type,
// and that of a table whose statistics row is never read open. Before,
// every one of these catalogs opened.
func TestOpenNullViewAndGeometryStats(t *testing.T) {
	// noTypes is what ducklake_add_data_files writes for a file whose
	// footer holds no geospatial statistics.
	const noTypes = `{"bbox": {"xmin": null, "xmax": null, "ymin": null, "ymax": null, "zmin": null, "zmax": null, "mmin": null, "mmax": null}, "types": []}`
	for _, tc := range []struct {
		lake, name string
		stmts      []string
		want       string // "": opens
	}{
		{"09_views", "view sql",
			[]string{`UPDATE ducklake_view SET sql = NULL WHERE view_id = 3`},
			"ducklake_view.sql is NULL in the row view_id=3, begin_snapshot=4, rowid 1: "},
		{"09_views", "view column_aliases",
			[]string{`UPDATE ducklake_view SET column_aliases = NULL WHERE view_id = 2`},
			"ducklake_view.column_aliases is NULL in the row view_id=2, begin_snapshot=3, rowid 0: "},
		{"09_views", "view_id",
			[]string{`UPDATE ducklake_view SET view_id = NULL WHERE view_id = 13`},
			"ducklake_view.view_id is NULL in the row view_id=NULL, begin_snapshot=16, rowid 8: "},
		{"09_views", "view schema_id",
			[]string{`UPDATE ducklake_view SET schema_id = NULL WHERE view_id = 11`},
			"ducklake_view.schema_id is NULL in the row view_id=11, begin_snapshot=14, rowid 6: "},
		{"09_views", "view_name",
			[]string{`UPDATE ducklake_view SET view_name = NULL WHERE view_id = 4`},
			"ducklake_view.view_name is NULL in the row view_id=4, begin_snapshot=5, rowid 2: "},
		{"09_views", "view begin_snapshot",
			[]string{`UPDATE ducklake_view SET begin_snapshot = NULL WHERE view_id = 5`},
			"ducklake_view.begin_snapshot is NULL in the row view_id=5, begin_snapshot=NULL, rowid 3: "},
		{"09_views", "view_uuid and dialect: read as text, used by writers only",
			[]string{`UPDATE ducklake_view SET view_uuid = NULL, dialect = NULL WHERE view_id = 6`}, ""},
		{"09_views", "table_uuid and schema_uuid: read as text, used by writers only",
			[]string{`UPDATE ducklake_table SET table_uuid = NULL`, `UPDATE ducklake_schema SET schema_uuid = NULL`}, ""},
		{"14_geometry", "geometry column's extra_stats",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = NULL WHERE table_id = 1 AND column_id = 2`},
			"ducklake_table_column_stats.extra_stats is NULL in the row table_id=1, column_id=2, rowid "},
		// CheckRequired asks for a GEOMETRY row as its conditions do
		// (lower(column_type), any snapshot) before it reads them.
		{"14_geometry", "geometry column's extra_stats, its type in capitals",
			[]string{`UPDATE ducklake_column SET column_type = upper(column_type) WHERE lower(column_type) = 'geometry'`,
				`UPDATE ducklake_table_column_stats SET extra_stats = NULL WHERE table_id = 1 AND column_id = 2`},
			"ducklake_table_column_stats.extra_stats is NULL in the row table_id=1, column_id=2, rowid "},
		{"14_geometry", "nested geometry field's extra_stats",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = NULL WHERE table_id = 2 AND column_id = 5`},
			"ducklake_table_column_stats.extra_stats is NULL in the row table_id=2, column_id=5, rowid "},
		{"14_geometry", "geometry extra_stats of a table whose statistics are never read",
			[]string{`UPDATE ducklake_table_stats SET file_size_bytes = NULL WHERE table_id = 1`,
				`UPDATE ducklake_table_column_stats SET extra_stats = NULL WHERE table_id = 1 AND column_id = 2`}, ""},
		{"14_geometry", "extra_stats of other types",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = NULL WHERE table_id = 1 AND column_id = 1 OR table_id = 2 AND column_id = 3`}, ""},
		// extra_stats naming no geometry type while the files hold
		// values reads as a NULL one does (formats.Column.ReadAsNull).
		{"14_geometry", "geometry column's extra_stats with an empty types list",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = '` + noTypes + `' WHERE table_id = 1 AND column_id = 2`},
			"ducklake_table_column_stats.extra_stats names no geometry type (its \"types\" list empty, missing or of unknown types) while the column's data files hold values that are not NULL (value_count above null_count) in the row table_id=1, column_id=2, rowid "},
		{"14_geometry", "nested geometry field's extra_stats with an empty types list",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = '` + noTypes + `' WHERE table_id = 2 AND column_id = 5`},
			"ducklake_table_column_stats.extra_stats names no geometry type (its \"types\" list empty, missing or of unknown types) while the column's data files hold values that are not NULL (value_count above null_count) in the row table_id=2, column_id=5, rowid "},
		{"14_geometry", "geometry extra_stats without a types list",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = '{"bbox": {"xmin": 1.0}}' WHERE table_id = 1 AND column_id = 2`},
			"ducklake_table_column_stats.extra_stats names no geometry type"},
		{"14_geometry", "geometry extra_stats naming unknown types only",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = '{"types": ["UNKNOWN_Z", 1, ["point"], "pointy"]}' WHERE table_id = 1 AND column_id = 2`},
			"ducklake_table_column_stats.extra_stats names no geometry type"},
		{"14_geometry", "geometry extra_stats naming a type in capitals",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = '{"types": ["unknown", "LineString_ZM"]}' WHERE table_id = 1 AND column_id = 2`}, ""},
		{"14_geometry", "geometry extra_stats with an empty types list over NULLs only",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = '` + noTypes + `' WHERE table_id = 1 AND column_id = 2`,
				`UPDATE ducklake_file_column_stats SET null_count = value_count WHERE table_id = 1 AND column_id = 2`}, ""},
		{"14_geometry", "geometry extra_stats with an empty types list, files without counts",
			[]string{`UPDATE ducklake_table_column_stats SET extra_stats = '` + noTypes + `' WHERE table_id = 1 AND column_id = 2`,
				`UPDATE ducklake_file_column_stats SET value_count = NULL WHERE table_id = 1 AND column_id = 2`}, ""},
		{"14_geometry", "geometry extra_stats with an empty types list of a table whose statistics are never read",
			[]string{`UPDATE ducklake_table_stats SET file_size_bytes = NULL WHERE table_id = 1`,
				`UPDATE ducklake_table_column_stats SET extra_stats = '` + noTypes + `' WHERE table_id = 1 AND column_id = 2`}, ""},
		{"14_geometry", "geometry values, no extra_stats row at all",
			[]string{`DELETE FROM ducklake_table_column_stats WHERE table_id = 1 AND column_id = 2`}, ""},
	} {
		t.Run(tc.lake+"/"+tc.name, func(t *testing.T) {
			t.Parallel() // tampers a copy of its own
			_, catalog := lastVersion(t, "lakes", tc.lake)
			b := tamper(t, catalog, tc.stmts...)
			wantNullFields(t, b, tc.want)
		})
	}
}
