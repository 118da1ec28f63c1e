package compare

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// carryLake is the lakegen history of the carry tests (every third version
// also deletes, which rewrites the delete files of the data files deleted
// from before): its versions' catalogs, oldest first, and its data folder,
// shared read-only (historyLake; the tests change copies, tamper).
func carryLake(t *testing.T) (cats []string, data string) {
	t.Helper()
	return historyLake(t, lakegen.HistoryOptions{Versions: 7, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: 3})
}

// newTestCache is a digest cache of the test's own.
func newTestCache(t *testing.T) *digestcache.Cache {
	t.Helper()
	cache, err := digestcache.Open(t.TempDir(), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return cache
}

// TestCarryEarlierProof proves versions of a history one after the other,
// each against a copy of itself, carrying the proof of the version before:
// the snapshots the earlier pair covered are not walked where both catalogs
// restricted to them are the earlier ones, the versions that delete again
// included: their deletes replace the delete files of data files deleted
// from before with files deleting the same positions at the earlier
// snapshots (TestCarryAcrossReplacedDeletes).
func TestCarryEarlierProof(t *testing.T) {
	ctx := context.Background()
	cats, data := carryLake(t)
	cache := newTestCache(t)
	opts := Options{DataPath: data, Engines: readerDBs, DigestCache: cache, CarryMinWork: -1}
	var earlier []Carry
	carried, prevSnaps := 0, 0
	for i, a := range cats {
		b := tamper(t, a)
		o := opts
		o.Carry = earlier
		rep, err := Catalogs(ctx, a, b, o)
		if err != nil {
			t.Fatalf("version %d: %v", i+1, err)
		}
		switch {
		case i == 0:
			if rep.Carried != nil || rep.CarryNote != "" {
				t.Errorf("version 1: nothing to carry, got %+v, %q", rep.Carried, rep.CarryNote)
			}
		case rep.Carried == nil && rep.CarryNote == "":
			t.Errorf("version %d: neither carried nor a note", i+1)
		case rep.Carried != nil:
			carried++
			// Every snapshot of the earlier version, none of the later.
			if rep.Carried.Snapshots != prevSnaps {
				t.Errorf("version %d: %d of %d snapshots carried, want the earlier version's %d", i+1, rep.Carried.Snapshots, len(rep.Snapshots), prevSnaps)
			}
			if n := snapshotsWalked(rep); n != len(rep.Snapshots)-prevSnaps {
				t.Errorf("version %d: %d snapshots walked, want %d", i+1, n, len(rep.Snapshots)-prevSnaps)
			}
		default:
			t.Errorf("version %d: not carried: %s", i+1, rep.CarryNote)
		}
		earlier, prevSnaps = []Carry{{A: a, B: b}}, len(rep.Snapshots)
	}
	if carried != len(cats)-1 {
		t.Errorf("%d versions carried an earlier proof, want %d", carried, len(cats)-1)
	}
}

// snapshotsWalked counts the snapshots with a table result.
func snapshotsWalked(rep *Report) int {
	seen := map[int64]bool{}
	for _, tr := range rep.Tables {
		seen[tr.Snapshot] = true
	}
	return len(seen)
}

// TestCarryFindsOldDifferences plants, in one side of a later pair, a
// difference only an earlier snapshot shows (the walk of the latest
// snapshots cannot see it): the proof must find it, not carry the earlier
// pair's proof over it.
func TestCarryFindsOldDifferences(t *testing.T) {
	ctx := context.Background()
	cats, data := carryLake(t)
	// Versions 1 and 2: version 2 only appends.
	a0, a1 := cats[0], cats[1]
	for _, tc := range []struct {
		name, side string
		stmt       string
		kind       string
	}{
		// Snapshots 0 and 1 create the schema and the table, 2 and 3 insert
		// versions 1's and 2's files: the first file seen one snapshot
		// early, by the empty table of snapshot 1.
		{"data file begins earlier in B", "B", "UPDATE ducklake_data_file SET begin_snapshot = 1 WHERE data_file_id = 0", "files"},
		{"data file begins earlier in A", "A", "UPDATE ducklake_data_file SET begin_snapshot = 1 WHERE data_file_id = 0", "files"},
		// A copy of the first file, seen at snapshot 1 only.
		{"a file only at snapshot 1 in B", "B", "INSERT INTO ducklake_data_file SELECT * REPLACE (999 AS data_file_id, 1 AS begin_snapshot, 2 AS end_snapshot) FROM ducklake_data_file WHERE data_file_id = 0", "files"},
		{"a file only at snapshot 1 in A", "A", "INSERT INTO ducklake_data_file SELECT * REPLACE (999 AS data_file_id, 1 AS begin_snapshot, 2 AS end_snapshot) FROM ducklake_data_file WHERE data_file_id = 0", "files"},
		// An earlier snapshot's commit message.
		{"commit message of an old snapshot in B", "B", "UPDATE ducklake_snapshot_changes SET commit_message = 'edited' WHERE snapshot_id = 1", "schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := newTestCache(t)
			opts := Options{DataPath: data, Engines: readerDBs, DigestCache: cache, CarryMinWork: -1}
			b0 := tamper(t, a0)
			if _, err := Catalogs(ctx, a0, b0, opts); err != nil {
				t.Fatal(err)
			}
			a, b := a1, tamper(t, a1, tc.stmt)
			if tc.side == "A" {
				a, b = tamper(t, a1, tc.stmt), tamper(t, a1)
			}
			opts.Carry = []Carry{{A: a0, B: b0}}
			rep, err := Catalogs(ctx, a, b, opts)
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want not equivalent, got %v (carried %+v)", err, rep.Carried)
			}
			if !slices.ContainsFunc(rep.Differences, func(d Difference) bool { return d.Snapshot != nil && *d.Snapshot == 1 }) {
				t.Errorf("no difference at snapshot 1: %v", rep.Differences)
			}
			if rep.Carried != nil || !strings.Contains(rep.CarryNote, tc.side+" restricted to") {
				t.Errorf("carried %+v, note %q", rep.Carried, rep.CarryNote)
			}
			if !slices.ContainsFunc(rep.Differences, func(d Difference) bool { return d.Kind == tc.kind }) {
				t.Errorf("no %s difference: %v", tc.kind, rep.Differences)
			}
		})
	}
}

// TestRestrictedEqual checks the rule of each kind of catalog table on a
// later version of a lake edited after its copy: what no reader of the
// earlier snapshots sees may differ, anything else may not.
func TestRestrictedEqual(t *testing.T) {
	ctx := context.Background()
	cats, _ := carryLake(t)
	earlier, later := cats[0], cats[1]
	last := "(SELECT max(snapshot_id) FROM ducklake_snapshot)"
	for _, tc := range []struct {
		name  string
		stmts []string
		want  string // "" carries; else the table named
	}{
		{"as written", nil, ""},
		{"a data file ended after the earlier snapshots", []string{"UPDATE ducklake_data_file SET end_snapshot = " + last + " WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)"}, ""},
		{"a data file ended within the earlier snapshots", []string{"UPDATE ducklake_data_file SET end_snapshot = 2 WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)"}, "ducklake_data_file"},
		{"a row removed", []string{"DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 1"}, "ducklake_snapshot_changes"},
		{"a row added at an earlier snapshot", []string{"INSERT INTO ducklake_data_file SELECT * REPLACE (999 AS data_file_id, 1 AS begin_snapshot) FROM ducklake_data_file WHERE data_file_id = 0"}, "ducklake_data_file"},
		{"a row added after", []string{"INSERT INTO ducklake_data_file SELECT * REPLACE (999 AS data_file_id, " + last + " + 1 AS begin_snapshot) FROM ducklake_data_file WHERE data_file_id = 0"}, ""},
		{"a tag added after", []string{"INSERT INTO ducklake_tag VALUES (1, " + last + ", NULL, 'k', 'v')"}, ""},
		{"a tag added within", []string{"INSERT INTO ducklake_tag VALUES (1, 1, NULL, 'k', 'v')"}, "ducklake_tag"},
		{"statistics of a new file", []string{"INSERT INTO ducklake_file_column_stats SELECT * REPLACE (999999 AS data_file_id) FROM ducklake_file_column_stats LIMIT 1"}, ""},
		{"statistics added to an old file", []string{"INSERT INTO ducklake_file_column_stats SELECT * REPLACE (1000 AS column_id) FROM ducklake_file_column_stats WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_file_column_stats)"}, "ducklake_file_column_stats"},
		{"a metadata row added", []string{"INSERT INTO ducklake_metadata SELECT * REPLACE ('carry-test' AS key) FROM ducklake_metadata LIMIT 1"}, "ducklake_metadata"},
		{"the table statistics changed", []string{"UPDATE ducklake_table_stats SET record_count = record_count + 1"}, ""},
		// The catalog under proof is one a reader opens; the earlier one
		// is only attached: it may hold what the later lacks.
		{"a table gone", []string{"earlier: CREATE TABLE ducklake_zz (x INTEGER)"}, "ducklake_zz is gone"},
		{"an empty table with other columns", []string{"earlier: ALTER TABLE ducklake_tag ADD COLUMN x INTEGER"}, "ducklake_tag has other columns"},
		{"an inlined deletion table new", []string{"CREATE TABLE ducklake_inlined_delete_1 (file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)"}, "ducklake_inlined_delete_1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A statement prefixed "earlier: " edits the earlier catalog.
			stmts, e := tc.stmts, earlier
			if len(stmts) == 1 && strings.HasPrefix(stmts[0], "earlier: ") {
				stmts, e = nil, tamper(t, earlier, strings.TrimPrefix(stmts[0], "earlier: "))
			}
			r := checkRestricted(t, tamper(t, later, stmts...), e, tc.want)
			// The earlier catalog is detached again.
			if _, err := r.conn.ExecContext(ctx, "ATTACH "+sqlString(e)+" AS carry (READ_ONLY)"); err != nil {
				t.Errorf("attach again: %v", err)
			}
		})
	}
}

// TestCarryInlinedTables plants differences through inlined data tables,
// which readers reach by their registrations (of every schema version, at
// every snapshot, by name in any letter case) and whose system columns
// format 1.1 names with a prefix (a user column may be named
// begin_snapshot): the carried proof must find what the whole walk finds.
// A0 and B0 are A and B cut at snapshot 23 (for the 1.1 cases, both A).
func TestCarryInlinedTables(t *testing.T) {
	ctx := context.Background()
	cut := []string{
		"DELETE FROM ducklake_snapshot WHERE snapshot_id > 23",
		"DELETE FROM ducklake_snapshot_changes WHERE snapshot_id > 23",
	}
	engines := readerDBs
	dropSV11 := []string{
		"DELETE FROM ducklake_inlined_data_tables WHERE schema_version = 11",
		"DROP TABLE ducklake_inlined_data_5_11",
	}
	// A 1.1 user column named begin_snapshot, in the inlined data table of
	// table 2 (named then by the case); B holds a row more there, seen at
	// snapshot 18 only.
	userColumn := func(rename ...string) []string {
		return append(append([]string{
			"UPDATE ducklake_column SET column_name = 'begin_snapshot' WHERE table_id = 2 AND column_id = 1",
			"ALTER TABLE ducklake_inlined_data_2_6 RENAME COLUMN x TO begin_snapshot",
		}, dropSV11...), rename...)
	}
	for _, tc := range []struct {
		name, archive string
		a, b          []string // A's edits of the lake's last catalog; B's of A
		b0FromA       bool     // B0 is A cut (B's difference is at later snapshots only)
		bFromLake     []string // B is the lake's last catalog with these edits, not A's
		earlierFromB  bool     // A0 and B0 are both B cut
		cut           []string
	}{
		{
			// A registration of schema version 11 (no ducklake_schema_versions
			// row), new after snapshot 23, is read at snapshots 22 and 23 with
			// the table's columns as of its first snapshot: A's renamed column
			// is not in it (unreadable), B's is.
			name:    "a registration new after the earlier snapshots",
			archive: "lakes",
			a: []string{
				"UPDATE ducklake_column SET end_snapshot = 23 WHERE table_id = 5 AND column_id = 2",
				"INSERT INTO ducklake_column SELECT * REPLACE (23 AS begin_snapshot, NULL::BIGINT AS end_snapshot, 'w' AS column_name) FROM ducklake_column WHERE table_id = 5 AND column_id = 2",
				"ALTER TABLE ducklake_inlined_data_5_11 RENAME COLUMN v TO w",
				"DELETE FROM ducklake_inlined_data_5_11",
			},
			b:   []string{"ALTER TABLE ducklake_inlined_data_5_11 ADD COLUMN v VARCHAR"},
			cut: append(slices.Clone(cut), dropSV11...),
		},
		{
			// An empty inlined table of a table dropped at snapshot 24, which
			// lacks a system column in A only: A's readers fail at every
			// snapshot the table lives (12-23), all carried.
			name: "an empty inlined table without a system column", archive: "lakes-1.1-dev1", cut: cut,
			a: []string{
				"DELETE FROM ducklake_inlined_data_2_6",
				"UPDATE ducklake_table SET end_snapshot = 24 WHERE table_id = 2 AND end_snapshot IS NULL",
				"ALTER TABLE ducklake_inlined_data_2_6 DROP COLUMN _ducklake_end_snapshot",
			},
			bFromLake: []string{
				"DELETE FROM ducklake_inlined_data_2_6",
				"UPDATE ducklake_table SET end_snapshot = 24 WHERE table_id = 2 AND end_snapshot IS NULL",
			},
			earlierFromB: true,
		},
		{
			name: "a user column named begin_snapshot", archive: "lakes-1.1-dev1", b0FromA: true, cut: cut,
			a: userColumn(),
			b: []string{"INSERT INTO ducklake_inlined_data_2_6 VALUES (100, 18, 19, 999, 'planted')"},
		},
		{
			name: "the same, the table named in upper case", archive: "lakes-1.1-dev1", b0FromA: true, cut: cut,
			a: userColumn("ALTER TABLE ducklake_inlined_data_2_6 RENAME TO zz_tmp", `ALTER TABLE zz_tmp RENAME TO "DUCKLAKE_INLINED_DATA_2_6"`),
			b: []string{`INSERT INTO "DUCKLAKE_INLINED_DATA_2_6" VALUES (100, 18, 19, 999, 'planted')`},
		},
		{
			name: "the same, the table registered under another name", archive: "lakes-1.1-dev1", b0FromA: true, cut: cut,
			a: userColumn("ALTER TABLE ducklake_inlined_data_2_6 RENAME TO inl_2_6",
				"UPDATE ducklake_inlined_data_tables SET table_name = 'inl_2_6' WHERE table_name = 'ducklake_inlined_data_2_6'"),
			b: []string{"INSERT INTO inl_2_6 VALUES (100, 18, 19, 999, 'planted')"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, tc.archive, "16_data_inlining")
			data := filepath.Join(lake, "data")
			a := tamper(t, catalog, tc.a...)
			var b string
			if tc.bFromLake != nil {
				b = tamper(t, catalog, tc.bFromLake...)
			} else {
				b = tamper(t, a, tc.b...)
			}
			var a0, b0 string
			switch {
			case tc.b0FromA:
				a0 = tamper(t, a, tc.cut...)
				b0 = tamper(t, a, tc.cut...)
			case tc.earlierFromB:
				a0, b0 = tamper(t, b, tc.cut...), tamper(t, b, tc.cut...)
			default:
				a0, b0 = tamper(t, a, tc.cut...), tamper(t, b, tc.cut...)
			}
			if _, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: engines}); !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("the whole walk: want not equivalent, got %v", err)
			}
			cache := newTestCache(t)
			opts := Options{DataPath: data, DigestCache: cache, CarryMinWork: -1, Engines: engines}
			if _, err := Catalogs(ctx, a0, b0, opts); err != nil {
				t.Fatalf("the earlier pair: %v", err)
			}
			opts.Carry = []Carry{{A: a0, B: b0}}
			rep, err := Catalogs(ctx, a, b, opts)
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("carried: want not equivalent, got %v (carried %+v)", err, rep.Carried)
			}
			if rep.Carried != nil {
				t.Errorf("carried %+v", rep.Carried)
			}
		})
	}
}

// TestRestrictedEqualLookups checks what readers read whatever the
// snapshot: a ducklake_schema_versions row for a registered inlined data
// table that had none, though it begins after the earlier snapshots (so the
// restriction alone hides it), changes the schema the table's inlined rows
// are read with at every snapshot.
func TestRestrictedEqualLookups(t *testing.T) {
	_, catalog := lastVersion(t, "lakes", "16_data_inlining")
	earlier := tamper(t, catalog, "DELETE FROM ducklake_inlined_data_5_11")
	newSnapshot := "INSERT INTO ducklake_snapshot SELECT * REPLACE (1000 AS snapshot_id) FROM ducklake_snapshot WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)"
	for _, tc := range []struct {
		name  string
		stmts []string
		want  string
	}{
		{"a new snapshot only", []string{newSnapshot}, ""},
		{"a schema version row for a registration", []string{newSnapshot, "INSERT INTO ducklake_schema_versions (begin_snapshot, schema_version, table_id) VALUES (1000, 11, 5)"}, "ducklake_schema_versions rows of the inlined data tables"},
		{"a schema version row of its own", []string{newSnapshot, "INSERT INTO ducklake_schema_versions (begin_snapshot, schema_version, table_id) VALUES (1000, 12, 5)"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRestricted(t, tamper(t, earlier, tc.stmts...), earlier, tc.want)
		})
	}
	// A macro's parameters stored in another order, the rows the same: a
	// reader at any snapshot binds the arguments otherwise (readMacroRows).
	_, macros := lastVersion(t, "lakes", "10_macros")
	t.Run("macro parameters reordered", func(t *testing.T) {
		checkRestricted(t, tamper(t, macros, newSnapshot,
			"CREATE TEMP TABLE p AS SELECT * FROM ducklake_macro_parameters WHERE macro_id = 2",
			"DELETE FROM ducklake_macro_parameters WHERE macro_id = 2",
			"INSERT INTO ducklake_macro_parameters SELECT * FROM p ORDER BY column_id DESC"), macros, "storage order of the macros' parameters")
	})
}

// checkRestricted opens catalog as a comparison does (read whole) and
// runs restrictedEqual on its reader against the earlier catalog, digesting
// every table, then with its empty tables only counted in the earlier one:
// why must name want ("" carries) both times.
func checkRestricted(t *testing.T, catalog, earlier, want string) *Reader {
	t.Helper()
	ctx := context.Background()
	r := openForTest(t, catalog, "")
	if err := r.ReadEveryTable(ctx); err != nil {
		t.Fatal(err)
	}
	for _, emptyKnown := range []bool{false, true} {
		_, why, _, err := restrictedEqual(ctx, r.conn, earlier, r.catalogView(emptyKnown), false)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" && why != "" || want != "" && !strings.Contains(why, want) {
			t.Errorf("empty tables known %v: why %q, want %q", emptyKnown, why, want)
		}
	}
	return r
}

// TestCarrySkipsShortWalks: below CarryMinWork table and file visits the
// restriction costs more than the walk it would save, and the proof walks.
func TestCarrySkipsShortWalks(t *testing.T) {
	ctx := context.Background()
	cats, data := carryLake(t)
	cache := newTestCache(t)
	opts := Options{DataPath: data, Engines: readerDBs, DigestCache: cache}
	b0 := tamper(t, cats[0])
	if _, err := Catalogs(ctx, cats[0], b0, opts); err != nil {
		t.Fatal(err)
	}
	opts.Carry = []Carry{{A: cats[0], B: b0}}
	rep, err := Catalogs(ctx, cats[1], tamper(t, cats[1]), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Carried != nil || !strings.Contains(rep.CarryNote, "the walk is short") {
		t.Errorf("carried %+v, note %q", rep.Carried, rep.CarryNote)
	}
}

// TestRestrictedToKeepsAnswersByBytes: a reader keeps its answer per
// earlier catalog's bytes, so other bytes at the same path are checked
// again.
func TestRestrictedToKeepsAnswersByBytes(t *testing.T) {
	ctx := context.Background()
	cats, _ := carryLake(t)
	r := openForTest(t, cats[1], "")
	if err := r.ReadEveryTable(ctx); err != nil {
		t.Fatal(err)
	}
	earlier := tamper(t, cats[0])
	for i, tc := range []struct {
		edit []string
		want string
	}{
		{nil, ""},
		{[]string{"DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 1"}, "ducklake_snapshot_changes"},
		{nil, ""},
	} {
		copyFile(t, cats[0], earlier)
		if len(tc.edit) > 0 {
			execCatalog(t, earlier, tc.edit...)
		}
		sum, err := fileSHA256(earlier)
		if err != nil {
			t.Fatal(err)
		}
		_, why, err := r.restrictedTo(ctx, earlier, sum, false)
		if err != nil || !strings.Contains(why, tc.want) || (tc.want == "") != (why == "") {
			t.Errorf("step %d: why %q (%v), want %q", i+1, why, err, tc.want)
		}
	}
	if len(r.restricted) != 2 {
		t.Errorf("%d answers kept, want 2 (one per content)", len(r.restricted))
	}
}

// TestCarryFeedOfLatestTables: the change feed spans every snapshot, so a
// proof carrying an earlier one compares the feed of the tables of the
// latest snapshot both catalogs share even when the walk does not reach
// it (feedDeletesAt). That happens only where neither side's last
// snapshot is the other's (the latest snapshots are always walked): here A
// and B each gain one of their own after the earlier pair's, and a data
// file of the earlier snapshots ends at it, so the walk is empty and only
// the feed pins the end.
func TestCarryFeedOfLatestTables(t *testing.T) {
	ctx := context.Background()
	cats, data := carryLake(t)
	cache := newTestCache(t)
	opts := Options{DataPath: data, Engines: readerDBs, DigestCache: cache, CarryMinWork: -1}
	a0, b0 := cats[0], tamper(t, cats[0])
	if _, err := Catalogs(ctx, a0, b0, opts); err != nil {
		t.Fatal(err)
	}
	// A snapshot n after the earlier pair's last, at which the first
	// data file still open ends.
	endAt := func(n int) []string {
		return []string{
			fmt.Sprintf(`INSERT INTO ducklake_snapshot SELECT * REPLACE (snapshot_id + %d AS snapshot_id, snapshot_time + INTERVAL %d SECOND AS snapshot_time)
				FROM ducklake_snapshot WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)`, n, n),
			`UPDATE ducklake_data_file SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot)
				WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file WHERE end_snapshot IS NULL)`,
		}
	}
	opts.Carry = []Carry{{A: a0, B: b0}}
	rep, err := Catalogs(ctx, tamper(t, a0, endAt(1)...), tamper(t, a0, endAt(2)...), opts)
	if !errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("want not equivalent, got %v", err)
	}
	if rep.Carried == nil || rep.Carried.Snapshots != len(rep.Snapshots) {
		t.Fatalf("carried %+v of %d snapshots (%q), want all", rep.Carried, len(rep.Snapshots), rep.CarryNote)
	}
	if !slices.ContainsFunc(rep.Differences, func(d Difference) bool {
		return d.Kind == "files" && strings.HasPrefix(d.Item, "change feed deletions of ")
	}) {
		t.Errorf("no change feed difference: %v", rep.Differences)
	}
}
