package compare

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMappedNameFirstCaseFoldWins: DuckDB's NameMapper (multi-file column
// mapping, v1.3.0 to v1.5.5) matches a name mapping's source to a file's
// columns ignoring ASCII case, and the first column in file order wins,
// even over a later exact match. A file of lakes/19_add_data_files
// rewritten with a struct "COL1" {x, y} before an integer "col1", its
// mapping's col1 children renamed to x and y: every reader reads the
// struct; this reader took the exact match, the integer, and failed
// ("STRUCT to STRUCT cast must have at least one matching member").
func TestMappedNameFirstCaseFoldWins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	cat, data := copyLake(t, catalog, filepath.Join(lake, "data"))
	f := filepath.Join(data, "main", "ext_nested", "nested_reordered.parquet")
	w := openForTest(t, cat, data)
	// DuckDB's COPY renames a second "col1" (any case) to col1_1: write
	// c0l1 and rename it in the file's bytes (same length, footer intact).
	if _, err := w.conn.ExecContext(ctx, `COPY (SELECT {'x': 1::INT, 'y': 2::INT} AS "COL1", 5::INT AS "c0l1", {'a': 3::INT, 'b': 4::INT} AS col2) TO `+sqlString(f)+` (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, bytes.ReplaceAll(b, []byte("c0l1"), []byte("col1")), 0o644); err != nil {
		t.Fatal(err)
	}
	execCatalog(t, cat,
		`UPDATE ducklake_name_mapping SET source_name = 'y' WHERE mapping_id = 12 AND column_id = 4`,
		`UPDATE ducklake_name_mapping SET source_name = 'x' WHERE mapping_id = 12 AND column_id = 5`)
	r, snaps := openWithSnapshots(t, cat, data)
	last := snaps[len(snaps)-1].ID
	tbl, err := r.Table(ctx, "main.ext_nested", last)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.RowTexts(ctx, tbl, last, ScanOptions{})
	if err != nil {
		t.Fatalf("read main.ext_nested: %v", err)
	}
	want := "{'col1': {'i': 1, 'j': 2}, 'col2': {'a': 3, 'b': 4}}"
	if len(rows) != 1 || rows[want] != 1 {
		t.Errorf("rows %v, want %s (the first column named col1 in any case)", rows, want)
	}
}

// TestNameMapExactDuplicateRow: DuckLake's readers build a name mapping
// from its rows in load order (DuckLakeCatalog::ConvertNameMap, every
// release line): the first entry loaded with a column_id takes the
// entries naming it as parent (column_id_map.emplace), and the first
// sibling with a target field id is the one read (MapColumns'
// field_id_map.emplace). Of two identical rows the first is both: they
// read as one. This reader let the last row of a column_id take the
// children and matched the first, so a struct under a duplicated row read
// its fields as defaults (NULL) where every reader reads them.
func TestNameMapExactDuplicateRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	data := filepath.Join(lake, "data")
	want := tableRows(t, catalog, data, "main.ext_nested")
	dup := tamper(t, catalog, `INSERT INTO ducklake_name_mapping SELECT * FROM ducklake_name_mapping WHERE mapping_id = 12 AND column_id = 3`)
	if got := tableRows(t, dup, data, "main.ext_nested"); !maps.Equal(got, want) {
		t.Errorf("with col1's mapping row twice: rows %v, want %v", got, want)
	}
	if _, err := Catalogs(ctx, catalog, dup, Options{DataPath: data, Engines: readerDBs}); err != nil && hasDuplicateRule(err) {
		t.Errorf("an exact duplicate row refused: %v", err)
	}
}

// TestNameMapDuplicateTies: two rows of one mapping under one parent are
// loaded in no defined order (ORDER BY mapping_id, parent_column NULLS
// FIRST); with one target field id readers read the first loaded, with one
// column_id named as a parent the first loaded takes the children: unless
// they read alike, a B that has them where A has not is unreadable
// (formats.NameMapDuplicate).
func TestNameMapDuplicateTies(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
	for _, stmt := range []string{
		`INSERT INTO ducklake_name_mapping VALUES (12, 7, 'other', 1, NULL, false)`,
		`INSERT INTO ducklake_name_mapping VALUES (12, 3, 'other', 1, NULL, false)`,
		`INSERT INTO ducklake_name_mapping VALUES (12, 2, 'c', 5, 0, false)`,
		// col1's column_id (its fields' parent) on another field id: the
		// first loaded takes col1's fields.
		`INSERT INTO ducklake_name_mapping VALUES (12, 3, 'col1', 9, NULL, false)`,
		// col1's name and field id on a column_id no entry names as
		// parent: the first loaded is read, with col1's fields or without.
		`INSERT INTO ducklake_name_mapping VALUES (12, 9, 'col1', 1, NULL, false)`,
	} {
		b := tamper(t, catalog, stmt)
		rep, err := Catalogs(ctx, catalog, b, opts)
		if !errors.Is(err, ErrNotEquivalent) {
			t.Fatalf("%s: want ErrNotEquivalent, got %v", stmt, err)
		}
		if !hasDifference(rep, "unreadable", "no defined order") {
			t.Errorf("%s: no unreadable difference for the tie; got %v", stmt, rep.Differences)
		}
		// The same rows in A too are the lake's, not the conversion's.
		if rep, _ := Catalogs(ctx, tamper(t, catalog, stmt), b, opts); rep != nil && hasDifference(rep, "unreadable", "no defined order") {
			t.Errorf("%s in A too: %v", stmt, rep.Differences)
		}
	}
}

// TestNameMapLeafDuplicatesRead: readers keep no column_id in a mapping's
// entries (DuckLakeCatalog::ConvertNameMap uses it only to find a child's
// parent), and of siblings with one field id read the first loaded
// (MapColumns). So entries of one parent sharing a column_id no entry
// names as parent, on distinct field ids, or sharing a field id with the
// same name and no children, read the same in any load order:
// formats.NameMapDuplicate refused them.
func TestNameMapLeafDuplicatesRead(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	data := filepath.Join(lake, "data")
	want := tableRows(t, catalog, data, "main.ext_nested")
	for _, stmts := range [][]string{
		// Two root leaves of one column_id on two field ids.
		{`INSERT INTO ducklake_name_mapping VALUES (12, 7, 'x', 7, NULL, false)`, `INSERT INTO ducklake_name_mapping VALUES (12, 7, 'y', 8, NULL, false)`},
		// A field of col2 sharing b's column_id on another field id.
		{`INSERT INTO ducklake_name_mapping VALUES (12, 1, 'z', 9, 0, false)`},
		// b again (name and field id) on another column_id, both leaves.
		{`INSERT INTO ducklake_name_mapping VALUES (12, 9, 'b', 6, 0, false)`},
	} {
		b := tamper(t, catalog, stmts...)
		if got := tableRows(t, b, data, "main.ext_nested"); !maps.Equal(got, want) {
			t.Errorf("%s: rows %v, want %v", stmts, got, want)
		}
		rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data, Engines: readerDBs})
		if hasDuplicateRule(err) || rep != nil && hasDifference(rep, "unreadable", "no defined order") {
			t.Errorf("%s: refused: %v", stmts, err)
		}
	}
}

func hasDuplicateRule(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no defined order")
}

// tableRows reads a table of a catalog at its last snapshot, as row texts.
func tableRows(t *testing.T, catalog, data, table string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	r, snaps := openWithSnapshots(t, catalog, data)
	last := snaps[len(snaps)-1].ID
	tbl, err := r.Table(ctx, table, last)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.RowTexts(ctx, tbl, last, ScanOptions{})
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	return rows
}

// TestMappedNameAfterRenamedDuplicate: DuckDB's Parquet reader renames a
// column whose name equals an earlier one's ignoring ASCII case, at every
// inner node (ParquetReader::ParseSchemaRecursive,
// extension/parquet/parquet_reader.cpp, the same in v1.3-ossivalis,
// v1.4-andium, v1.5-variegata and main): file columns KEYX, keyx, KEYX_1
// are KEYX, keyx_1, KEYX_1_1 to every reader, and DuckDB's NameMapper,
// through which every DuckLake reader matches a name mapping's source
// (MapColumns, then BY_NAME), matches those names. A source KEYX_1 is
// keyx_1, the file's second column ('second'); proof v82 matched the
// file's own names and read the column named KEYX_1 ('third').
func TestMappedNameAfterRenamedDuplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	cat, data := copyLake(t, catalog, filepath.Join(lake, "data"))
	f := filepath.Join(data, "main", "ext", "f5_extra.parquet")
	w := openForTest(t, cat, data)
	// DuckDB's COPY renames a second "keyx" (any case): write qqqx and
	// rename it in the file's bytes (same length, footer intact).
	if _, err := w.conn.ExecContext(ctx, `COPY (SELECT 1::INT AS col1, 'first' AS "KEYX", 'second' AS "qqqx", 'third' AS "KEYX_1") TO `+sqlString(f)+` (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	renameInFile(t, f, "qqqx", "keyx")
	execCatalog(t, cat,
		`INSERT INTO ducklake_column_mapping VALUES (20, 1, 'map_by_name')`,
		`INSERT INTO ducklake_name_mapping VALUES (20, 0, 'col1', 1, NULL, false), (20, 1, 'KEYX_1', 2, NULL, false)`,
		`UPDATE ducklake_data_file SET mapping_id = 20 WHERE data_file_id = 7`)
	rows := tableRows(t, cat, data, "main.ext")
	var got []string
	for row := range rows {
		if strings.Contains(row, "first") || strings.Contains(row, "second") || strings.Contains(row, "third") {
			got = append(got, row)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "'col2': second") {
		t.Errorf("rows of data file 7: %v, want col2 'second' (keyx_1 to the Parquet reader, which KEYX_1 matches in any case)", got)
	}
}

// TestPositionalNameAfterRenamedDuplicate: a file without field ids and
// without a name mapping is read by position in 1.0 and 1.1
// (DuckLakeNameMap::CreatePositionalMapping, src/common/ducklake_name_map.cpp
// in v1.5-variegata and main), each table column named by the name the
// Parquet reader gives the file column at its position and matched through
// DuckDB's NameMapper. Those names are unique in any case (the reader
// renames KEYX, keyx, KEYX_1 to KEYX, keyx_1, KEYX_1_1), so table column i
// reads file column i. Proof v82 took the first file column of the file's
// own i-th name in any case: col2 read KEYX (1) where every reader reads
// keyx ('7').
func TestPositionalNameAfterRenamedDuplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	cat, data := copyLake(t, catalog, filepath.Join(lake, "data"))
	f := filepath.Join(data, "main", "ext", "f5_extra.parquet")
	w := openForTest(t, cat, data)
	if _, err := w.conn.ExecContext(ctx, `COPY (SELECT 1::INT AS "KEYX", '7' AS "qqqx", 3::INT AS "KEYX_1") TO `+sqlString(f)+` (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	renameInFile(t, f, "qqqx", "keyx")
	execCatalog(t, cat, `UPDATE ducklake_data_file SET mapping_id = NULL WHERE data_file_id = 7`)
	rows := tableRows(t, cat, data, "main.ext")
	if want := "{'id': 1, 'col2': 7, 'col3': 3}"; rows[want] != 1 {
		t.Errorf("rows %v, want %s (each table column from the file column at its position)", rows, want)
	}
}

// TestMappedStructFieldAfterRenamedDuplicate: the Parquet reader renames a
// struct's fields as it renames top-level columns (every inner node), so
// a name mapping's child sources match the renamed names: of a struct
// {KEYX, keyx, KEYX_1} the reader sees {KEYX, keyx_1, KEYX_1_1}, and the
// sources KEYX_1_1 and keyx_1 are its third and second fields. Proof v82
// matched the file's own names and found neither (NULL fields).
func TestMappedStructFieldAfterRenamedDuplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	cat, data := copyLake(t, catalog, filepath.Join(lake, "data"))
	f := filepath.Join(data, "main", "ext_nested", "nested_reordered.parquet")
	w := openForTest(t, cat, data)
	if _, err := w.conn.ExecContext(ctx, `COPY (SELECT {'KEYX': 1::INT, 'qqqx': 2::INT, 'KEYX_1': 3::INT} AS col1, {'a': 4::INT, 'b': 5::INT} AS col2) TO `+sqlString(f)+` (FORMAT parquet)`); err != nil {
		t.Fatal(err)
	}
	renameInFile(t, f, "qqqx", "keyx")
	execCatalog(t, cat,
		`UPDATE ducklake_name_mapping SET source_name = 'keyx_1' WHERE mapping_id = 12 AND column_id = 4`,
		`UPDATE ducklake_name_mapping SET source_name = 'KEYX_1_1' WHERE mapping_id = 12 AND column_id = 5`)
	rows := tableRows(t, cat, data, "main.ext_nested")
	if want := "{'col1': {'i': 3, 'j': 2}, 'col2': {'a': 4, 'b': 5}}"; len(rows) != 1 || rows[want] != 1 {
		t.Errorf("rows %v, want %s (fields matched by the Parquet reader's names)", rows, want)
	}
}

// renameInFile replaces every occurrence of old in a file's bytes with
// new, of the same length (a footer's names, the file intact).
func renameInFile(t *testing.T, f, old, new string) {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, bytes.ReplaceAll(b, []byte(old), []byte(new)), 0o644); err != nil {
		t.Fatal(err)
	}
}
