package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestColumnsReadOtherwiseByNameFooters: a file counts by its footer's
// field ids, not its begin_snapshot alone. 17_compaction's main.calt has
// column i (id 4, VARCHAR) added at 21 under the name of a dropped i (id
// 2, snapshots 12-18); its files begin at 13 and 16 (merged, holding field
// 2: 10-40), 19 (neither field) and 22 (merged rows 7 and 8 of snapshots
// 22 and 23, holding field 4: hello, world). Told that i came at 23 with
// default 'x', the file begun at 22 counts for neither case: it holds
// field 4, which DuckLake and a reader by name read alike. By
// begin_snapshot alone it counted for the default (4 files, not 3).
func TestColumnsReadOtherwiseByNameFooters(t *testing.T) {
	t.Parallel()
	lake, orig := lastVersion(t, "lakes", "17_compaction")
	catalog := tamper(t, orig,
		`UPDATE ducklake_column SET begin_snapshot = 23, initial_default = 'x' WHERE column_id = 4 AND table_id = (SELECT table_id FROM ducklake_table WHERE table_name = 'calt')`)
	got := readOtherwiseByNameAtLast(t, catalog, filepath.Join(lake, "data"))
	var all []string
	for _, entries := range got {
		all = append(all, entries...)
	}
	for _, want := range []string{
		"i (added at snapshot 23 with default x, which DuckLake reads for it in 3 file(s) without it",
		"i (added at snapshot 23 under the name of a dropped column (column_id 2, snapshots 12-18) whose values 2 file(s) hold under it",
	} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("no entry %q among %q", want, all)
		}
	}
	if len(all) != 2 {
		t.Errorf("entries %q, want 2", all)
	}
}

// TestColumnsReadOtherwiseByNameMapped: a file registered with
// ducklake_add_data_files is read by DuckLake through its name mapping, a
// column whose field the mapping does not give from the footer as its
// initial_default (CreateColumnFromFieldId's default_expression), whenever
// the file was registered. 19_add_data_files's main.ext gained col3 (id 3)
// at snapshot 9; told its default is 7, the files that lack it are its
// DuckLake-written file begun at 2 (no field 3), f3_tinyint, f4_missing and
// f5_extra (registered at 5-7, mappings without col3) and two files
// registered here at snapshot 11, after col3 came, holding id and col2
// only: one with a mapping of its two fields (allow_missing => true), one
// with mapping 8, which names col3 though the footer has no field of that
// name. f6_after_rename and inside_data_path (mapping 8, col3 in their
// footers) and the file DuckLake wrote at 13 hold col3. Before, a file with
// a mapping never counted, and one begun after the column never: 1 file.
func TestColumnsReadOtherwiseByNameMapped(t *testing.T) {
	t.Parallel()
	lake, orig := lastVersion(t, "lakes", "19_add_data_files")
	plain := filepath.Join(t.TempDir(), "no_col3.parquet")
	db := testduck.Open(t, "")
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("COPY (SELECT 50::INTEGER AS id, 'late' AS col2) TO %s (FORMAT parquet)", sqlString(plain))); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(plain)
	if err != nil {
		t.Fatal(err)
	}
	register := func(id, mapping int) string {
		return fmt.Sprintf(`INSERT INTO ducklake_data_file (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format, record_count, file_size_bytes, row_id_start, mapping_id)
			VALUES (%d, 1, 11, %s, false, 'parquet', 1, %d, %d, %d)`, id, sqlString(plain), st.Size(), 1000+id, mapping)
	}
	catalog := tamper(t, orig,
		`UPDATE ducklake_column SET initial_default = '7' WHERE table_id = 1 AND column_id = 3`,
		`INSERT INTO ducklake_column_mapping VALUES (100, 1, 'map_by_name')`,
		`INSERT INTO ducklake_name_mapping VALUES (100, 0, 'id', 1, NULL, false), (100, 1, 'col2', 2, NULL, false)`,
		register(100, 100), register(101, 8))
	got := readOtherwiseByNameAtLast(t, catalog, filepath.Join(lake, "data"))
	// The entry names the first three files (the DuckLake-written one
	// by its generated name), then how many more.
	head := "col3 (added at snapshot 9 with default 7, which DuckLake reads for it in 6 file(s) without it (main/ext/ducklake-"
	tail := ".parquet, main/ext/f3_tinyint.parquet, main/ext/f4_missing.parquet and 3 more), a reader by name NULL)"
	if len(got[1]) != 1 || !strings.HasPrefix(got[1][0], head) || !strings.HasSuffix(got[1][0], tail) {
		t.Errorf("main.ext: %q, want [%q...%q]", got[1], head, tail)
	}
}

// TestColumnsReadOtherwiseByNameMappedDropped: a column added under the
// name of a dropped one is read otherwise by name in a file registered with
// ducklake_add_data_files whose footer holds a field of that name its
// mapping gives the dropped column: DuckLake reads the new column's
// default there (NULL), a reader by name the field. Told that
// 19_add_data_files's main.ext col3 (id 3, mapped in f6_after_rename and
// inside_data_path, both holding col3) was dropped at 12 and a new col3
// (id 4) added then, those two files count; the DuckLake-written file begun
// at 13 holds field 3 but began after, and the one begun at 2 has no field
// 3. Before, a file with a mapping never counted: no entry.
func TestColumnsReadOtherwiseByNameMappedDropped(t *testing.T) {
	t.Parallel()
	lake, orig := lastVersion(t, "lakes", "19_add_data_files")
	catalog := tamper(t, orig,
		`UPDATE ducklake_column SET end_snapshot = 12 WHERE table_id = 1 AND column_id = 3`,
		`INSERT INTO ducklake_column SELECT * REPLACE (4 AS column_id, 12 AS begin_snapshot, NULL AS end_snapshot, column_order + 1 AS column_order) FROM ducklake_column WHERE table_id = 1 AND column_id = 3`)
	got := readOtherwiseByNameAtLast(t, catalog, filepath.Join(lake, "data"))
	want := "col3 (added at snapshot 12 under the name of a dropped column (column_id 3, snapshots 9-12) whose values 2 file(s) hold under it (main/ext/f6_after_rename.parquet, main/ext/inside_data_path.parquet), which a reader by name reads as this column's)"
	if len(got[1]) != 1 || got[1][0] != want {
		t.Errorf("main.ext: %q, want [%q]", got[1], want)
	}
}

// readOtherwiseByNameAtLast is ColumnsReadOtherwiseByName of catalog's
// last snapshot, by table id.
func readOtherwiseByNameAtLast(t *testing.T, catalog, data string) map[int64][]string {
	t.Helper()
	r := openForTest(t, catalog, data)
	ctx := context.Background()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.ColumnsReadOtherwiseByName(ctx, snaps[len(snaps)-1].ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestColumnsReadOtherwiseByNameNested: a column with fields takes no
// initial_default to any reader (TransformColumnType, every line: a
// struct, list or map missing from a file reads NULL), as to a reader by
// name, so a struct added with one after a file was written is not read
// otherwise. 05_defaults_not_null's main.d3 told of a struct s (id 100,
// initial_default {'i': 5}) with a field i (id 101, initial_default 7)
// added at its last snapshot: neither is listed, col1.k (a field without
// fields of its own, added to a struct the files hold) still is; before,
// s was (DuckLake "reading" {'i': 5} for it).
func TestColumnsReadOtherwiseByNameNested(t *testing.T) {
	t.Parallel()
	lake, orig := lastVersion(t, "lakes", "05_defaults_not_null")
	catalog := tamper(t, orig, `INSERT INTO ducklake_column (column_id, begin_snapshot, end_snapshot, table_id, column_order, column_name, column_type, initial_default, default_value, nulls_allowed, parent_column) VALUES
		(100, (SELECT max(snapshot_id) FROM ducklake_snapshot), NULL, 3, 100, 's', 'struct', '{''i'': 5}', NULL, true, NULL),
		(101, (SELECT max(snapshot_id) FROM ducklake_snapshot), NULL, 3, 101, 'i', 'int32', '7', NULL, true, 100)`)
	got := readOtherwiseByNameAtLast(t, catalog, filepath.Join(lake, "data"))
	if len(got[3]) != 1 || !strings.HasPrefix(got[3][0], "col1.k (added at snapshot 24 with default 42") {
		t.Errorf("main.d3: %q, want only col1.k's entry (none for s: no reader takes a struct's initial_default)", got[3])
	}
}
