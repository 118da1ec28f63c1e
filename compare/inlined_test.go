package compare

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestInlinedReadAsRealReaders plants edits on the inlined tables and on
// ducklake_schema_versions of 16_data_inlining (DuckLake 1.0, and the 1.1
// development line, whose system columns are _ducklake_-prefixed) and
// requires the difference each makes for the real reader (the adversarial
// review of session 8; before, every one was equivalent): system and user
// columns are taken by name, not position, and the schema an inlined table
// is read with is looked up in ducklake_schema_versions by table and schema
// version exactly, else at the table's first snapshot. Table 1 (main.inl)
// has ducklake_inlined_data_1_2 (i, j), _1_3 (i, j, k) and _1_4 (i,
// j_renamed, k), schema versions 2, 3 and 4, the last from snapshot 10.
func TestInlinedReadAsRealReaders(t *testing.T) {
	type want struct{ kind, text string }
	cases := []struct {
		archive string
		name    string
		stmts   []string
		want    []want // none: equivalent
	}{
		// Reads filter and order by begin_snapshot and end_snapshot by name:
		// swapped, row (5, 'e', 5.5), alive from snapshot 11, is gone: a
		// NULL begin_snapshot, which DuckLake's writers never leave (the
		// catalog is not opened: formats.Version.DynamicTable).
		{"lakes", "begin and end snapshot swapped by name", []string{
			`ALTER TABLE ducklake_inlined_data_1_4 RENAME begin_snapshot TO zz`,
			`ALTER TABLE ducklake_inlined_data_1_4 RENAME end_snapshot TO begin_snapshot`,
			`ALTER TABLE ducklake_inlined_data_1_4 RENAME zz TO end_snapshot`},
			[]want{{"catalog", "ducklake_inlined_data_1_4.begin_snapshot is NULL in the row row_id="}}},
		{"lakes", "row_id renamed", []string{`ALTER TABLE ducklake_inlined_data_1_4 RENAME row_id TO rid`},
			[]want{{"unreadable", "ducklake_inlined_data_1_4 has no system column row_id"}}},
		// "begin_\u017Fnapshot" (the long s, which strings.EqualFold folds
		// to "s") is no begin_snapshot to DuckDB. Before: equivalent.
		{"lakes", "begin_snapshot renamed beyond ASCII letter case", []string{"ALTER TABLE ducklake_inlined_data_1_4 RENAME begin_snapshot TO \"begin_\u017Fnapshot\""},
			[]want{{"unreadable", "ducklake_inlined_data_1_4 has no system column begin_snapshot"}}},
		{"lakes-1.1-dev1", "1.1 system columns unprefixed", []string{
			`ALTER TABLE ducklake_inlined_data_1_2 RENAME _ducklake_row_id TO row_id`,
			`ALTER TABLE ducklake_inlined_data_1_2 RENAME _ducklake_begin_snapshot TO begin_snapshot`,
			`ALTER TABLE ducklake_inlined_data_1_2 RENAME _ducklake_end_snapshot TO end_snapshot`},
			[]want{{"unreadable", "ducklake_inlined_data_1_2 has no system column _ducklake_row_id"}}},
		{"lakes", "user column renamed in the inlined table", []string{`ALTER TABLE ducklake_inlined_data_1_3 RENAME k TO kk`},
			[]want{{"unreadable", "ducklake_inlined_data_1_3 (schema version 3) is read with the table's columns as of snapshot 6: column k (id 3) is not in it"}}},
		{"lakes", "user column retyped in the inlined table", []string{`ALTER TABLE ducklake_inlined_data_1_4 ALTER k TYPE VARCHAR`},
			[]want{{"unreadable", "column k is read as DOUBLE but stored as VARCHAR"}}},
		// DuckDB binds column names case-insensitively, as the reader's
		// query does.
		{"lakes", "user column renamed in another case", []string{`ALTER TABLE ducklake_inlined_data_1_4 RENAME j_renamed TO J_RENAMED`}, nil},
		// ... in ASCII letter case only: "\u212A" (the Kelvin sign, which
		// strings.ToLower lowers to "k") is not k, the read fails. Before,
		// the column was found by strings.ToLower: equivalent.
		{"lakes", "user column renamed beyond ASCII letter case", []string{"ALTER TABLE ducklake_inlined_data_1_3 RENAME k TO \"\u212A\""},
			[]want{{"unreadable", "ducklake_inlined_data_1_3 (schema version 3) is read with the table's columns as of snapshot 6: column k (id 3) is not in it"}}},
		// The reader's lookup is table_id = 1 AND schema_version = 4; without
		// it, the table's first snapshot (i, j): j is not in _1_4.
		{"lakes", "schema_versions row without table_id", []string{`UPDATE ducklake_schema_versions SET table_id = NULL WHERE schema_version = 4 AND table_id = 1`},
			[]want{{"unreadable", "ducklake_inlined_data_1_4 (schema version 4) is read with the table's columns as of snapshot 1: column j (id 2) is not in it"},
				{"schema", "ducklake_schema_versions table_id=1 schema_version=4 only in A"},
				{"schema", "ducklake_schema_versions table_id=NULL schema_version=4 only in B"}}},
		{"lakes", "schema_versions row deleted", []string{`DELETE FROM ducklake_schema_versions WHERE schema_version = 4 AND table_id = 1`},
			[]want{{"unreadable", "ducklake_inlined_data_1_4 (schema version 4) is read with the table's columns as of snapshot 1"},
				{"schema", "ducklake_schema_versions table_id=1 schema_version=4 only in A"}}},
		{"lakes", "schema_versions row moved", []string{`UPDATE ducklake_schema_versions SET begin_snapshot = 6 WHERE schema_version = 4 AND table_id = 1`},
			[]want{{"unreadable", "ducklake_inlined_data_1_4 (schema version 4) is read with the table's columns as of snapshot 6: column j (id 2) is not in it"},
				{"schema", "ducklake_schema_versions table_id=1 schema_version=4 differs"}}},
		// A NULL begin_snapshot in the row found fails the read (the real
		// reader reads it as a number): no fallback to the first snapshot,
		// the rule formats.InlinedSchemaSourceOf states for the converter
		// too (convert's TestInlinedSchemaVersionRowNull).
		{"lakes", "schema_versions row without begin_snapshot", []string{`UPDATE ducklake_schema_versions SET begin_snapshot = NULL WHERE schema_version = 4 AND table_id = 1`},
			[]want{{"unreadable", "the ducklake_schema_versions row of schema version 4 has no begin_snapshot"}}},
		// The readers read every table a registration names, whatever its
		// name (review r2 #1): a registered copy of _1_4 under new row ids
		// doubles the rows, also in another letter case.
		{"lakes", "table registered under another name", []string{
			`CREATE TABLE zz_inl AS SELECT * REPLACE (row_id + 1000 AS row_id) FROM ducklake_inlined_data_1_4`,
			`INSERT INTO ducklake_inlined_data_tables VALUES (1, 'zz_inl', 4)`},
			[]want{{"rows", "in main.inl: rows differ"}}},
		{"lakes", "table registered in other letters", []string{
			`CREATE TABLE "Zz_Inl" AS SELECT * REPLACE (row_id + 1000 AS row_id) FROM ducklake_inlined_data_1_4`,
			`INSERT INTO ducklake_inlined_data_tables VALUES (1, 'zz_INL', 4)`},
			[]want{{"rows", "in main.inl: rows differ"}}},
		// The readers find the registered table in ASCII letter case only
		// (DuckDB's catalog lookup): "zz_İnl" (U+0130, which SQL lower()
		// lowers to "i") names no table, though a view zz_inl is there:
		// unreadable, where the view found by lower() refused the catalog
		// (ErrIncomparable, as TestInlinedRegisteredView's).
		{"lakes", "table registered in other letters beyond ASCII", []string{
			`CREATE VIEW zz_inl AS SELECT * FROM ducklake_inlined_data_1_4 WHERE now() > TIMESTAMP '2000-01-01'`,
			"INSERT INTO ducklake_inlined_data_tables VALUES (1, 'zz_\u0130nl', 4)"},
			[]want{{"unreadable", "inlined data table zz_\u0130nl (schema version 4) is registered in ducklake_inlined_data_tables but is not a table of the catalog"}}},
		// A registered table that is not there fails the reader's read
		// (TransformInlinedData; review r2 #2): before, it was skipped.
		{"lakes", "registered table missing", []string{`INSERT INTO ducklake_inlined_data_tables VALUES (1, 'ducklake_inlined_data_1_9', 4)`},
			[]want{{"unreadable", "inlined data table ducklake_inlined_data_1_9 (schema version 4) is registered in ducklake_inlined_data_tables but is not a table of the catalog"}}},
		{"lakes", "registered table dropped", []string{`DROP TABLE ducklake_inlined_data_1_3`},
			[]want{{"unreadable", "ducklake_inlined_data_1_3 (schema version 3) is registered"}}},
		// A row no inlined table is read by still differs (compaction reads them).
		{"lakes", "schema_versions row added", []string{`INSERT INTO ducklake_schema_versions VALUES (2, 2, 1)`},
			[]want{{"schema", "ducklake_schema_versions table_id=1 schema_version=2 only in B"}}},
	}
	ctx := context.Background()
	engines := readerDBs
	// Every case of an archive proves the same catalog A: its proofs take
	// turns with one Source (as a backfill's proofs of a version do), so
	// that A is opened and read once, not once per case.
	type sharedSource struct {
		mu  sync.Mutex
		src *Source
	}
	sources := map[string]*sharedSource{}
	for _, tc := range cases {
		if sources[tc.archive] == nil {
			s := &sharedSource{src: NewSource()}
			sources[tc.archive] = s
			t.Cleanup(func() { s.src.Close() })
		}
	}
	for _, tc := range cases {
		t.Run(tc.archive+"/"+tc.name, func(t *testing.T) {
			t.Parallel() // tampers a copy of its own
			lake, catalog := lastVersion(t, tc.archive, "16_data_inlining")
			b := tamper(t, catalog, tc.stmts...)
			shared := sources[tc.archive]
			shared.mu.Lock()
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: engines, Source: shared.src})
			shared.mu.Unlock()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("want equivalent, got %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			for _, w := range tc.want {
				if !hasDifference(rep, w.kind, w.text) {
					var all []string
					for _, d := range rep.Differences {
						all = append(all, d.String())
					}
					t.Errorf("no %s difference containing %q; got:\n%s", w.kind, w.text, strings.Join(all, "\n"))
				}
			}
		})
	}
}

// TestInlinedSchemaSnapshot checks the lookup of each reader model on
// 16_data_inlining's table 1 (first snapshot 1; schema versions 2, 3 and 4
// from snapshots 2, 6 and 10; ducklake_schema_versions names 3 and 4 only):
// a schema version equal to the read snapshot's is read at that snapshot
// (cached); otherwise 1.0 takes the ducklake_schema_versions row, else the
// first snapshot.
func TestInlinedSchemaSnapshot(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "16_data_inlining")
	r, _ := openWithSnapshots(t, catalog, filepath.Join(lake, "data"))
	ctx := context.Background()
	tb, err := r.Table(ctx, "main.inl", 24)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ sv, snap, want int64 }{
		{2, 24, 1},  // no row for (1, 2): first snapshot
		{3, 24, 6},  // row (1, 3) begins at 6
		{4, 24, 10}, // row (1, 4)
		{4, 11, 11}, // snapshot 11 has schema version 4: cached
		{3, 7, 7},   // snapshot 7 has schema version 3: cached
	} {
		got, err := r.inlinedSchemaSnapshot(ctx, tb, tc.sv, tc.snap)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("schema version %d read at snapshot %d: as of snapshot %d, want %d", tc.sv, tc.snap, got, tc.want)
		}
	}
}

// TestInlinedRegisteredView registers a view as an inlined data table
// (review r2 #1): its rows may depend on the date or the DuckDB release,
// so the catalog is refused as a view named like a DuckLake table is.
func TestInlinedRegisteredView(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "16_data_inlining")
	b := tamper(t, catalog,
		`CREATE VIEW zz_inl AS SELECT * FROM ducklake_inlined_data_1_4 WHERE now() > TIMESTAMP '2000-01-01'`,
		`INSERT INTO ducklake_inlined_data_tables VALUES (1, 'zz_inl', 4)`)
	_, err := Catalogs(context.Background(), catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	var nb *formats.NotBaseTableError
	if !errors.Is(err, ErrIncomparable) || !errors.As(err, &nb) || !strings.Contains(err.Error(), "main.zz_inl, registered as an inlined data table, is a view") {
		t.Fatalf("want ErrIncomparable with a NotBaseTableError naming the view, got %v", err)
	}
}

// TestInlinedRetypedWithoutRows (review rv16-b F2): an inlined table that
// holds a column of the schema its reader looks up with another type
// binds (the reader selects by name) and is built from its stored types
// (TransformInlinedData); without a row visible at the snapshot read it
// reads nothing and no error (ColumnDataCollection::Scan checks the types
// only in debug builds). With rows visible the values are misread, and a
// column missing fails to bind even without rows: both unreadable. Each
// case compares a conformance lake of format 1.0, with the empty inlined
// tables a flush leaves (testlakes.FlushedInlinedTables), with the same catalog
// stamped 0.4, whose readers look the schema up at the table's first
// snapshot (04_type_promotion: every column retyped since; 02_add_drop_
// columns: b and col2 dropped and added again with another type), or with
// itself. Before, every 0.4 catalog with such a table was unreadable.
func TestInlinedRetypedWithoutRows(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, lake string
		stmts      []string // besides testlakes.FlushedInlinedTables[lake]
		self       bool     // the 0.4 catalog with itself
		// unreadable: a difference expected in main.<table> (none: equivalent)
		table, unreadable string
	}{
		{name: "retyped columns, no rows", lake: "04_type_promotion"},
		{name: "retyped columns, no rows, 0.4 with itself", lake: "04_type_promotion", self: true},
		// (02_add_drop_columns stamped 0.4 differs from its 1.0 source in
		// the statistics the readers need, files-without-column-stats-pruned.)
		{name: "columns dropped and added with another type, no rows, 0.4 with itself", lake: "02_add_drop_columns", self: true},
		{name: "retyped column, a row visible", lake: "04_type_promotion",
			stmts: []string{`INSERT INTO ducklake_inlined_data_1_4 SELECT 1000, min(begin_snapshot), NULL, 1000, 5 FROM ducklake_table WHERE table_id = 1`},
			table: "p_int", unreadable: "ducklake_inlined_data_1_4 (schema version 4) is read with the table's columns as of snapshot 1: column c is read as TINYINT but stored as BIGINT, and rows of it are visible"},
		{name: "renamed column, no rows", lake: "16_data_inlining",
			table: "inl", unreadable: "ducklake_inlined_data_1_4 (schema version 4) is read with the table's columns as of snapshot 1: column j (id 2) is not in it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // tampers copies of its own
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			// One session per file: a DuckDB checkpoint that frees the
			// blocks an earlier one left truncates the file after writing
			// its header (SingleFileBlockManager::Truncate), which the
			// proof's length check refuses.
			stmts := append(slices.Clone(testlakes.FlushedInlinedTables[tc.lake]), tc.stmts...)
			a := tamper(t, catalog, stmts...)
			b := tamper(t, catalog, append(stmts, `UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`)...)
			if tc.self {
				a = filepath.Join(t.TempDir(), "self.duckdb")
				copyFile(t, b, a)
			}
			rep, err := Catalogs(ctx, a, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if tc.unreadable == "" {
				if err != nil {
					t.Fatalf("want equivalent, got %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			found := false
			for _, d := range rep.Differences {
				found = found || d.Kind == "unreadable" && d.Table == "main."+tc.table && strings.Contains(d.String(), tc.unreadable)
			}
			if !found {
				var all []string
				for _, d := range rep.Differences {
					all = append(all, d.String())
				}
				t.Errorf("no unreadable difference in main.%s containing %q; got:\n%s", tc.table, tc.unreadable, strings.Join(all, "\n"))
			}
		})
	}
}

// TestInlinedDeletionUnreadable (review rv16-b F3): every 0.4+ reader's
// file list reads all rows of ducklake_inlined_delete_<table> with
// begin_snapshot <= the snapshot read, of any file, and reads file_id and
// row_id as unsigned numbers (ReadInlinedFileDeletions, GetValue<idx_t>):
// a NULL or negative one fails the table's scan from its begin_snapshot
// on. Edits of lakes/16_data_inlining (1.0; latest snapshot 24) compared
// with the lake as published. Before, the proof read only the rows of the
// file it deleted from, and called each equivalent.
func TestInlinedDeletionUnreadable(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "16_data_inlining")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name, row string // a row of ducklake_inlined_delete_1 (file_id, row_id, begin_snapshot)
		from      int64  // the first snapshot main.inl is unreadable at (0: equivalent)
		err       string
		// null: a NULL DuckLake's writers never leave there, for which the
		// catalog is not opened (formats.Version.DynamicTable).
		null string
	}{
		{"file_id NULL", "(NULL, 3, 9)", 0, "", "ducklake_inlined_delete_1.file_id is NULL in the row file_id=NULL, row_id=3, "},
		{"file_id negative", "(-5, 2, 9)", 9, "Invalid Input Error: Type INT64 with value", ""},
		{"row_id negative", "(4, -1, 9)", 9, "file_id 4, row_id -1, begin_snapshot 9", ""},
		{"row_id NULL, later", "(4, NULL, 20)", 0, "", "ducklake_inlined_delete_1.row_id is NULL in the row file_id=4, row_id=NULL, "},
		// begin_snapshot NULL: never read (begin_snapshot <= S is not
		// true), so the deletion is left out.
		{"begin_snapshot NULL", "(4, 3, NULL)", 0, "", "ducklake_inlined_delete_1.begin_snapshot is NULL in the row file_id=4, row_id=3, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // tampers a copy of its own
			b := tamper(t, catalog, "INSERT INTO ducklake_inlined_delete_1 VALUES "+tc.row)
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data, Engines: readerDBs})
			if tc.null != "" {
				if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "catalog", tc.null) {
					t.Errorf("Catalogs: %v, want a catalog difference naming %q", err, tc.null)
				}
				return
			}
			if tc.from == 0 {
				if err != nil {
					t.Fatalf("want equivalent, got %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			var first int64 = -1
			for _, d := range rep.Differences {
				if d.Kind == "unreadable" && d.Table == "main.inl" && strings.Contains(d.String(), "invalid-inlined-deletion") && strings.Contains(d.String(), tc.err) {
					if first < 0 || *d.Snapshot < first {
						first = *d.Snapshot
					}
				}
			}
			if first != tc.from {
				var all []string
				for _, d := range rep.Differences {
					all = append(all, d.String())
				}
				t.Errorf("main.inl unreadable (invalid-inlined-deletion, %q) first at snapshot %d, want %d; got:\n%s", tc.err, first, tc.from, strings.Join(all, "\n"))
			}
		})
	}
}

// TestInlinedRegistrationNameASCII: an inlined table's required fields
// are held only where a registration names it (formats.CheckRequired), in
// ASCII letter case only, as the readers find the registered table: a
// registration "ducklake_\u0130nlined_data_1_4" (U+0130, which SQL
// lower() lowers to "i") names no table, so no reader reads
// ducklake_inlined_data_1_4 and its NULL begin_snapshot is no one's; the
// read of the registered name fails. Before, lower() took the registration
// for the table's and the NULL was reported too.
func TestInlinedRegistrationNameASCII(t *testing.T) {
	t.Parallel()
	lake, catalog := lastVersion(t, "lakes", "16_data_inlining")
	b := tamper(t, catalog,
		"UPDATE ducklake_inlined_data_tables SET table_name = 'ducklake_\u0130nlined_data_1_4' WHERE table_name = 'ducklake_inlined_data_1_4'",
		`UPDATE ducklake_inlined_data_1_4 SET begin_snapshot = NULL`)
	rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", "inlined data table ducklake_\u0130nlined_data_1_4 (schema version 4) is registered in ducklake_inlined_data_tables but is not a table of the catalog") {
		t.Fatalf("Catalogs: %v, want an unreadable difference naming the registration", err)
	}
	for _, d := range rep.Differences {
		if strings.Contains(d.String(), "is NULL") {
			t.Errorf("difference %s: the NULL is in a table no reader reads", d)
		}
	}
}
