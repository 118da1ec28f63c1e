package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestInlinedReadAtFirstSnapshot is the session-8 review's reproduction: a
// copy of 16_data_inlining without its inlined file deletions (which 0.3
// never reads) converted with --allow-inlined. DuckLake 0.3 and 0.4 read an
// inlined table with the columns its table had at its first snapshot
// (formats.QuirkInlinedAtFirstSnapshot), 0.1 and 0.2 at snapshot 0
// (QuirkInlinedAtSnapshotZero): table 1's ducklake_inlined_data_1_4 (i,
// j_renamed, k) is then read asking for j (a binder error) and _1_3 without
// k (NULL). Each such conversion is refused naming the inlined tables, and
// the same conversion written without the reader checks is not proved
// equivalent (the proof, the safety net); 1.1 reads them as 1.0 does and
// converts, proved equivalent. Before, 0.3 and 0.4 converted and were
// proved equivalent.
func TestInlinedReadAtFirstSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "16_data_inlining")
	vs := versionCatalogs(t, lake)
	src := filepath.Join(t.TempDir(), "src.duckdb")
	copyFile(t, vs[len(vs)-1], src)
	execOn(t, src, "DROP TABLE ducklake_inlined_delete_1")
	data := filepath.Join(lake, "data")
	opts := Options{AllowInlined: true, DataPath: data}
	for _, tc := range []struct {
		target *formats.Version
		code   string // "": converts
		detail string
	}{
		{formats.V0_2, "inlined-read-at-snapshot-zero", "ducklake_inlined_data_1_2 (schema version 2) read as of snapshot 1 (i int32 #1, j varchar #2) by format 1.0 readers, as of snapshot 0 (no such table then: the read fails)"},
		// DuckDB 1.4.0, a 0.3 reader, reads at snapshot 0 (before, 0.3 was
		// held to 1.4.5's reading: the table's first snapshot, 1).
		{formats.V0_3, "inlined-read-at-snapshot-zero", "ducklake_inlined_data_1_4 (schema version 4) read as of snapshot 10 (i int32 #1, j_renamed varchar #2, k float64 #3) by format 1.0 readers, as of snapshot 0 (no such table then: the read fails) by format 0.3 readers"},
		{formats.V0_4, "inlined-read-at-first-snapshot", "ducklake_inlined_data_1_3 (schema version 3) read as of snapshot 6"},
		{formats.V1_1, "", ""},
	} {
		t.Run(tc.target.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.duckdb")
			_, err := Catalog(ctx, src, out, tc.target, opts)
			if tc.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data}); err != nil {
					t.Fatalf("compare with the %s conversion: %v, want equivalent", tc.target, err)
				}
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("converted (%v), want refused for %s", err, tc.code)
			}
			found := false
			for _, f := range refused.Findings {
				if f.Code == tc.code && strings.Contains(f.Detail, tc.detail) {
					found = true
				}
			}
			if !found {
				t.Fatalf("refused for %v, want %s naming %q", refused.Findings, tc.code, tc.detail)
			}

			// Written without the reader checks, the proof must not pass it.
			faithful := filepath.Join(t.TempDir(), "faithful.duckdb")
			if _, err := Catalog(ctx, src, faithful, tc.target, Options{AllowInlined: true, DataPath: data, faithful: true}); err != nil {
				if errors.Is(err, ErrRefused) {
					return // refused for what the target cannot hold at all (0.2: flushed-partial-files)
				}
				t.Fatal(err)
			}
			rep, err := compare.Catalogs(ctx, src, faithful, compare.Options{DataPath: data})
			if !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatalf("compare with the faithful %s conversion: %v, want not equivalent", tc.target, err)
			}
			var unreadable, rows, threeColumns bool
			for _, d := range rep.Differences {
				if d.Table == "main.inl_flushed" && d.Kind == "unreadable" && strings.Contains(d.String(), "delete-files-two-columns-only") {
					// Its delete file of three columns, partial_max NULL,
					// written by 1.0's ducklake_flush_inlined_data, carried
					// as is: DuckDB 1.4.0 refuses it (review rv16-c F2).
					threeColumns = true
				}
				if d.Table != "main.inl" {
					continue
				}
				switch {
				case tc.target == formats.V0_3 && d.Kind == "unreadable" && *d.Snapshot <= 24 && (d.Through == nil || *d.Through >= 24) && strings.Contains(d.String(), "inlined-read-at-snapshot-zero"):
					unreadable, rows = true, true // every off-version inlined table fails in DuckDB 1.4.0
				case d.Kind == "unreadable" && *d.Snapshot <= 24 && (d.Through == nil || *d.Through >= 24) && strings.Contains(d.String(), "ducklake_inlined_data_1_4"):
					unreadable = true // j is not in _1_4
				case d.Kind == "rows" && *d.Snapshot <= 10 && (d.Through == nil || *d.Through >= 10):
					rows = true // k of _1_3's row reads NULL
				}
			}
			if tc.target == formats.V0_3 && !threeColumns {
				t.Errorf("want main.inl_flushed unreadable for its 3-column delete file (delete-files-two-columns-only)")
			}
			if !unreadable || !rows {
				var all []string
				for _, d := range rep.Differences {
					all = append(all, d.String())
				}
				t.Errorf("want main.inl unreadable at snapshot 24 and its rows different at 10; got:\n%s", strings.Join(all, "\n"))
			}
		})
	}
}

// TestInlinedSchemaVersionRowNull: a ducklake_schema_versions row of table
// 1 and schema version 4 whose begin_snapshot is NULL makes the 1.0
// reader's lookup of ducklake_inlined_data_1_4's schema fail (it reads the
// NULL as a number), as compare's model has it, while 0.4 reads it at the
// table's first snapshot: the conversion to 0.4 is refused naming _1_4
// (0.4, not 0.3: DuckDB 1.4.0, a 0.3 reader, reads at snapshot 0).
// Before, the converter fell back to the first snapshot for the NULL, the
// snapshot 0.3 reads too, and saw no difference. Without the row, 1.0 does
// fall back to the first snapshot, and _1_4 is not named.
func TestInlinedSchemaVersionRowNull(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "16_data_inlining")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name   string
		sql    string
		detail string // "": _1_4 not named
	}{
		{"begin_snapshot NULL", `UPDATE ducklake_schema_versions SET begin_snapshot = NULL WHERE table_id = 1 AND schema_version = 4`,
			"ducklake_inlined_data_1_4 (schema version 4) read as of snapshot -1 (no snapshot: the read fails) by format 1.0 readers, as of snapshot 1 (i int32 #1, j varchar #2) by format 0.4 readers"},
		{"no row", `DELETE FROM ducklake_schema_versions WHERE table_id = 1 AND schema_version = 4`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "src.duckdb")
			copyFile(t, vs[len(vs)-1], src)
			execOn(t, src, "DROP TABLE ducklake_inlined_delete_1")
			execOn(t, src, tc.sql)
			_, err := Catalog(ctx, src, filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_4, Options{AllowInlined: true, DataPath: data})
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("converted (%v), want refused (ducklake_inlined_data_1_3 is read differently in every case)", err)
			}
			var named []string
			for _, f := range refused.Findings {
				if f.Code == "inlined-read-at-first-snapshot" && strings.Contains(f.Detail, "ducklake_inlined_data_1_4") {
					named = append(named, f.Detail)
				}
			}
			switch {
			case tc.detail == "" && len(named) > 0:
				t.Errorf("refused naming _1_4: %q, want it not named", named)
			case tc.detail != "" && (len(named) != 1 || !strings.Contains(named[0], tc.detail)):
				t.Errorf("refused naming _1_4 in %q, want %q", named, tc.detail)
			}
		})
	}
}

// TestInlinedLookupsThatReadAlike: two cases where the source's and the
// target's lookups land on snapshots with other columns, yet both readers
// read the inlined table alike, so nothing is refused: every snapshot at
// which the table exists has the inlined table's own schema version (the
// readers have it cached: the 0.4 migration fixture, to 0.1 and 0.2), and
// a flushed (empty) inlined table from which no reader selects a missing
// column (16_data_inlining emptied, to 0.4). An emptied table whose column
// was renamed, from which the 0.4 reader selects the old name, is dropped
// with a note, not refused (TestInlinedEmptyDropped).
func TestInlinedLookupsThatReadAlike(t *testing.T) {
	ctx := context.Background()
	mig := filepath.Join(testlakes.Lake(t, "migrations", "v04"), "source.duckdb")
	lake := testlakes.Lake(t, "lakes", "16_data_inlining")
	vs := versionCatalogs(t, lake)
	flushed := filepath.Join(t.TempDir(), "flushed.duckdb")
	copyFile(t, vs[len(vs)-1], flushed)
	tables := []string{"ducklake_inlined_data_1_2", "ducklake_inlined_data_1_3", "ducklake_inlined_data_1_4", "ducklake_inlined_data_2_6", "ducklake_inlined_data_4_8", "ducklake_inlined_data_5_11"}
	stmts := []string{"DROP TABLE ducklake_inlined_delete_1"}
	for _, tb := range tables {
		stmts = append(stmts, "DELETE FROM "+tb)
	}
	execOn(t, flushed, stmts...)
	withoutRename := filepath.Join(t.TempDir(), "norename.duckdb")
	copyFile(t, flushed, withoutRename)
	execOn(t, withoutRename, "DROP TABLE ducklake_inlined_data_1_4", "DELETE FROM ducklake_inlined_data_tables WHERE table_name = 'ducklake_inlined_data_1_4'")
	for _, tc := range []struct {
		name, src string
		target    *formats.Version
		refused   string // the inlined table still refused, "" for none
	}{
		{"cached, to 0.1", mig, formats.V0_1, ""},
		{"cached, to 0.2", mig, formats.V0_2, ""},
		{"flushed, to 0.4", withoutRename, formats.V0_4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Check(ctx, tc.src, tc.target, Options{AllowInlined: true, DataPath: filepath.Join(lake, "data")})
			var findings []Finding
			if res != nil {
				findings = res.Findings
			}
			var refused *RefusedError
			if errors.As(err, &refused) {
				findings = refused.Findings
			} else if err != nil {
				t.Fatal(err)
			}
			var inl []string
			for _, f := range findings {
				if strings.HasPrefix(f.Code, "inlined-read-at") {
					inl = append(inl, f.Detail)
				}
			}
			switch {
			case tc.refused == "" && len(inl) > 0:
				t.Errorf("refused for %q, want no inlined-read refusal", inl)
			case tc.refused != "" && (len(inl) != 1 || !strings.Contains(inl[0], tc.refused)):
				t.Errorf("inlined-read refusals %q, want one naming %s", inl, tc.refused)
			}
		})
	}
}

// TestInlinedEmptyDropped (review rv16-b F1): an inlined table without
// rows that the target's readers read with a column it lacks (0.3 and 0.4:
// the columns of the table's first snapshot, a column renamed since; 0.1
// and 0.2: snapshot 0, where the table does not exist) fails their read,
// where the 1.0 source's readers read nothing. DuckLake 0.4 and 1.0 keep
// such a table per table after an ALTER and a flush
// (testlakes.FlushedInlinedTables). It is dropped with its registration
// and noted, as the 1.0/1.1 name collisions are (dropInlinedTables), and
// the conversion is proved; with a row it is still refused. Before, every
// such conversion was refused.
func TestInlinedEmptyDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// 04_type_promotion's table 5 renames k to key at snapshot 32.
	renamed := []string{`CREATE TABLE ducklake_inlined_data_5_18(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, "key" BIGINT, v VARCHAR)`,
		`INSERT INTO ducklake_inlined_data_tables VALUES (5, 'ducklake_inlined_data_5_18', 18)`}
	for _, tc := range []struct {
		name, lake string
		stmts      []string // besides testlakes.FlushedInlinedTables[lake]
		target     *formats.Version
		code       string   // the note's (or the refusal's) code
		dropped    []string // the inlined tables dropped (none: refused)
	}{
		{"renamed column, to 0.4", "16_data_inlining", nil, formats.V0_4, "inlined-read-at-first-snapshot", []string{"ducklake_inlined_data_1_4"}},
		// DuckDB binds a column name in ASCII letter case only: a column
		// renamed from "X\u212A" (the Kelvin sign) to "xk" is renamed for
		// the 0.4 reader, which selects "X\u212A" from the emptied
		// ducklake_inlined_data_1_4 and fails. Before, the columns
		// compared with SQL lower() and strings.EqualFold were alike,
		// the table was kept and the conversion failed its proof.
		{"column renamed beyond ASCII letter case, to 0.4", "16_data_inlining", []string{
			"UPDATE ducklake_column SET column_name = 'X\u212A' WHERE table_id = 1 AND column_name = 'j'",
			"UPDATE ducklake_column SET column_name = 'xk' WHERE table_id = 1 AND column_name = 'j_renamed'",
			"ALTER TABLE ducklake_inlined_data_1_2 RENAME j TO \"X\u212A\"",
			"ALTER TABLE ducklake_inlined_data_1_3 RENAME j TO \"X\u212A\"",
			"ALTER TABLE ducklake_inlined_data_1_4 RENAME j_renamed TO xk"},
			formats.V0_4, "inlined-read-at-first-snapshot", []string{"ducklake_inlined_data_1_4"}},
		// 0.3 is held to DuckDB 1.4.0, which reads inlined tables at
		// snapshot 0 (16_data_inlining is refused for 0.3 besides: its
		// flush wrote a 3-column delete file, delete-files-two-columns-only).
		{"snapshot zero, to 0.3", "04_type_promotion", renamed, formats.V0_3, "inlined-read-at-snapshot-zero",
			[]string{"ducklake_inlined_data_1_4", "ducklake_inlined_data_2_9", "ducklake_inlined_data_3_13", "ducklake_inlined_data_4_15", "ducklake_inlined_data_5_18"}},
		{"renamed and retyped columns, to 0.4", "04_type_promotion", renamed, formats.V0_4, "inlined-read-at-first-snapshot", []string{"ducklake_inlined_data_5_18"}},
		{"snapshot zero, to 0.2", "04_type_promotion", renamed, formats.V0_2, "inlined-read-at-snapshot-zero",
			[]string{"ducklake_inlined_data_1_4", "ducklake_inlined_data_2_9", "ducklake_inlined_data_3_13", "ducklake_inlined_data_4_15", "ducklake_inlined_data_5_18"}},
		// ducklake_inlined_data_4_11 is kept: every snapshot reading
		// table 4 has schema version 11 (cached, read alike).
		{"snapshot zero, to 0.1", "02_add_drop_columns", nil, formats.V0_1, "inlined-read-at-snapshot-zero",
			[]string{"ducklake_inlined_data_1_5", "ducklake_inlined_data_2_8"}},
		{"renamed column with a row, to 0.4", "04_type_promotion", append(slices.Clone(renamed),
			`INSERT INTO ducklake_inlined_data_5_18 VALUES (1000, 32, NULL, 1, 'x')`), formats.V0_4, "inlined-read-at-first-snapshot", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake := testlakes.Lake(t, "lakes", tc.lake)
			vs := versionCatalogs(t, lake)
			data := filepath.Join(lake, "data")
			src := editedCopy(t, vs[len(vs)-1], append(slices.Clone(testlakes.FlushedInlinedTables[tc.lake]), tc.stmts...)...)
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, tc.target, Options{AllowInlined: true, DataPath: data})
			if len(tc.dropped) == 0 {
				var refused *RefusedError
				if !errors.As(err, &refused) || !slices.ContainsFunc(refused.Findings, func(f Finding) bool {
					return f.Code == tc.code && strings.Contains(f.Detail, "ducklake_inlined_data_5_18")
				}) {
					t.Fatalf("converted or refused otherwise (%v), want refused for %s naming ducklake_inlined_data_5_18", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, f := range res.Findings {
				if f.Code == tc.code {
					notes = append(notes, f.Detail)
				}
			}
			if len(notes) != 1 {
				t.Fatalf("notes %s: %q, want one", tc.code, notes)
			}
			d := dump(t, out)
			regs := query(t, out, "SELECT table_name FROM c.ducklake_inlined_data_tables")
			for _, name := range tc.dropped {
				if !strings.Contains(notes[0], name) {
					t.Errorf("note %q does not name %s", notes[0], name)
				}
				if _, ok := d[name]; ok {
					t.Errorf("%s is still in the %s catalog", name, tc.target)
				}
				if slices.ContainsFunc(regs, func(r []string) bool { return r[0] == name }) {
					t.Errorf("%s is still registered in the %s catalog", name, tc.target)
				}
			}
			if _, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data}); err != nil {
				t.Fatalf("compare with the %s conversion: %v, want equivalent", tc.target, err)
			}
		})
	}
}

// TestInlinedSystemNameCollision converts to 1.0 the last version of
// lakes-1.1-dev1's 26_v11_only_features, whose table 7 (sys_cols_inlined)
// has user columns row_id, begin_snapshot and end_snapshot and an inlined
// data table ducklake_inlined_data_7_10 (2 rows), made convertible
// otherwise (its epoch partitions removed, view column comments dropped
// with --allow-lossy). 1.0 names the inlined system columns like those user
// columns, so the table cannot be renamed, and a 1.0 reader selects
// row_id, begin_snapshot and end_snapshot from every registered inlined
// table (ReadInlinedData): it binds the user's columns, or fails where one
// is missing. With rows the conversion is refused; without, the inlined
// table is dropped with its registration (a 1.0 reader reads no rows of
// it, as a 1.1 reader reads none), and the proof passes. Before, the empty
// ones were refused too.
func TestInlinedSystemNameCollision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-1.1-dev1", "26_v11_only_features")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	base := []string{
		"DELETE FROM ducklake_partition_column", "DELETE FROM ducklake_partition_info",
		"DELETE FROM ducklake_file_partition_value", "UPDATE ducklake_data_file SET partition_id = NULL",
	}
	empty := "DELETE FROM ducklake_inlined_data_7_10"
	for _, tc := range []struct {
		name  string
		edits []string
		code  string // "": converts
	}{
		{"inlined rows: refused", nil, "inlined-system-name-collision"},
		// Rows deleted later are still rows: a reader at an earlier
		// snapshot reads them (time travel).
		{"only ended inlined rows: refused", []string{
			"UPDATE ducklake_inlined_data_7_10 SET _ducklake_begin_snapshot = 14, _ducklake_end_snapshot = 15"}, "inlined-system-name-collision"},
		{"no inlined rows: the table dropped", []string{empty}, ""},
		{"no inlined rows, only row_id collides: the table dropped", []string{empty,
			"UPDATE ducklake_column SET column_name = 'b' WHERE table_id = 7 AND column_name = 'begin_snapshot'",
			"UPDATE ducklake_column SET column_name = 'e' WHERE table_id = 7 AND column_name = 'end_snapshot'",
			"ALTER TABLE ducklake_inlined_data_7_10 RENAME begin_snapshot TO b",
			"ALTER TABLE ducklake_inlined_data_7_10 RENAME end_snapshot TO e"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := editedCopy(t, vs[len(vs)-1], append(slices.Clone(base), tc.edits...)...)
			opts := Options{AllowInlined: true, DataPath: data, Lossy: []string{"view-column-comments"}}
			out := filepath.Join(t.TempDir(), "1.0.duckdb")
			_, err := Catalog(ctx, src, out, formats.V1_0, opts)
			if tc.code != "" {
				if got, _ := codesOf(err); got != tc.code {
					t.Fatalf("refused for %q (%v), want %q", got, err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := dump(t, out)
			if _, ok := d["ducklake_inlined_data_7_10"]; ok {
				t.Errorf("the empty inlined table is still in the 1.0 catalog")
			}
			if got := query(t, out, "SELECT table_name FROM c.ducklake_inlined_data_tables"); len(got) > 0 {
				t.Errorf("registrations left: %v", got)
			}
			if _, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data}); err != nil {
				t.Fatalf("compare with the 1.0 conversion: %v, want equivalent", err)
			}
		})
	}
}

// TestReservedColumnNames converts to 1.1 the last version of lakes'
// 25_reserved_names_v11_hazards (format 1.0): table prefixed has a user
// column _ducklake_note (a data file), table prefixed_inlined a user
// column _ducklake_row_id and an inlined data table
// ducklake_inlined_data_3_4 (1 row), table plain_inlined an inlined table
// of 2 rows (so --allow-inlined). 1.1 writers refuse user columns starting
// with _ducklake_ (CREATE TABLE, ADD COLUMN, RENAME COLUMN), but its
// readers read them as 1.0 readers do, except in an inlined table, where
// _ducklake_row_id, _ducklake_begin_snapshot and _ducklake_end_snapshot
// are the system columns 1.1 selects by name, which the table cannot hold
// twice: refused with rows, dropped without. Before, every conversion of
// a catalog with a _ducklake_ column was refused.
func TestReservedColumnNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "25_reserved_names_v11_hazards")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name    string
		edits   []string
		code    string // "": converts
		detail  string // in the refusal
		dropped bool   // ducklake_inlined_data_3_4 is not in the output
	}{
		{"inlined rows with a _ducklake_row_id column: refused", nil, "reserved-column-names", "ducklake_inlined_data_3_4 column _ducklake_row_id (1 rows)", false},
		{"no inlined rows with it: the inlined table dropped", []string{"DELETE FROM ducklake_inlined_data_3_4"}, "", "", true},
		// A row deleted later is still read at the snapshots before.
		{"only an ended inlined row with it: refused", []string{
			"UPDATE ducklake_inlined_data_3_4 SET end_snapshot = begin_snapshot + 1"}, "reserved-column-names", "ducklake_inlined_data_3_4 column _ducklake_row_id (1 rows)", false},
		{"an inlined _ducklake_ column not named like a system column", []string{
			"UPDATE ducklake_column SET column_name = '_ducklake_x' WHERE table_id = 3 AND column_name = '_ducklake_row_id'",
			"ALTER TABLE ducklake_inlined_data_3_4 RENAME _ducklake_row_id TO _ducklake_x"}, "", "", false},
		{"a data file column named like the reader's internal row id column", []string{
			"UPDATE ducklake_column SET column_name = '_ducklake_internal_row_id' WHERE table_id = 2 AND column_name = '_ducklake_note'",
			"DELETE FROM ducklake_inlined_data_3_4"}, "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := editedCopy(t, vs[len(vs)-1], tc.edits...)
			out := filepath.Join(t.TempDir(), "1.1.duckdb")
			_, err := Catalog(ctx, src, out, formats.V1_1, Options{AllowInlined: true, DataPath: data})
			if tc.code != "" {
				var refused *RefusedError
				if got, _ := codesOf(err); got != tc.code || !errors.As(err, &refused) {
					t.Fatalf("refused for %q (%v), want %q", got, err, tc.code)
				}
				if d := refused.Findings[0].Detail; !strings.Contains(d, tc.detail) || strings.Contains(d, "_ducklake_note") {
					t.Errorf("refusal names %q, want %q and not the data file column _ducklake_note", d, tc.detail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := dump(t, out)["ducklake_inlined_data_3_4"]; ok == tc.dropped {
				t.Errorf("ducklake_inlined_data_3_4 in the 1.1 catalog: %v, want %v", ok, !tc.dropped)
			}
			if got := query(t, out, "SELECT count(*) FROM c.ducklake_column WHERE column_name LIKE '\\_ducklake\\_%' ESCAPE '\\'"); got[0][0] != "2" {
				t.Errorf("%s user columns starting with _ducklake_ in the 1.1 catalog, want 2", got[0][0])
			}
			if _, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data}); err != nil {
				t.Fatalf("compare with the 1.1 conversion: %v, want equivalent", err)
			}
		})
	}
}

// TestInlinedColumnNamesFoldASCIIOnly: a reader selects an inlined data
// table's columns by name, which DuckDB binds in ASCII letter case only:
// a column renamed from k to "K" (the Kelvin sign) is another name, which
// an inlined table holding k lacks (the read fails to bind), and the
// table's columns before and after the rename are not the same. Before,
// convert compared names lowered by DuckDB's lower() and strings.EqualFold,
// which fold the Kelvin sign to k: the two column lists were one, and the
// read was taken to bind.
func TestInlinedColumnNamesFoldASCIIOnly(t *testing.T) {
	ctx := context.Background()
	r := workRun(t, ctx)
	for _, q := range []string{
		`CREATE TABLE ducklake_table(table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT)`,
		`CREATE TABLE ducklake_column(column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, table_id BIGINT, column_order BIGINT, column_name VARCHAR, column_type VARCHAR, parent_column BIGINT)`,
		`CREATE TABLE ducklake_inlined_data_1_1(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, k DOUBLE)`,
		`INSERT INTO ducklake_table VALUES (1, 1, NULL)`,
		`INSERT INTO ducklake_column VALUES (1, 1, 5, 1, 1, 'k', 'float64', NULL), (1, 5, NULL, 1, 1, '` + "\u212a" + `', 'float64', NULL)`,
	} {
		if err := r.w.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	before, err := r.columnsAsOf(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	after, err := r.columnsAsOf(1, 6)
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Errorf("columns at snapshot 2 %s and at snapshot 6 %s: one list, want two (k is renamed to the Kelvin sign)", before, after)
	}
	for _, c := range []struct {
		snap    int64
		missing bool
	}{{2, false}, {6, true}} {
		got, err := r.selectsMissing("ducklake_inlined_data_1_1", 1, c.snap)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.missing {
			t.Errorf("selectsMissing at snapshot %d = %v, want %v", c.snap, got, c.missing)
		}
	}
}
