package compare

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// changeFeedCase is a pair of catalogs made from one by SQL (nil: the
// catalog itself), and the files difference expected between them ("":
// equivalent).
type changeFeedCase struct {
	name   string
	a, b   []string
	differ string
}

// runChangeFeedCases proves each case's pair.
func runChangeFeedCases(t *testing.T, archive, lakeName string, cases []changeFeedCase) {
	lake, catalog := lastVersion(t, archive, lakeName)
	data := filepath.Join(lake, "data")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := catalog
			if tc.a != nil {
				a = tamper(t, catalog, tc.a...)
			}
			b := tamper(t, catalog, tc.b...)
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: data, Engines: readerDBs})
			if tc.differ == "" {
				if err != nil {
					t.Fatalf("want equivalent: %v\n%v", err, rep)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "files", tc.differ) {
				t.Fatalf("want a files difference %q, got %v\n%v", tc.differ, err, rep)
			}
			if testing.Verbose() {
				for _, d := range rep.Differences {
					t.Log(d.String())
				}
			}
		})
	}
}

// TestChangeFeedDataFileEnds: DuckLake's change feed
// (ducklake_table_insertions, ducklake_table_deletions and
// ducklake_table_changes over them, every release line) lists a data file
// whose begin_snapshot is in the range asked for, and reports its rows
// deleted at its end_snapshot, whether or not any snapshot sees the file.
// So a data file row no snapshot sees (begin_snapshot = end_snapshot), or a
// file's end_snapshot moved within a run of snapshot ids the catalog no
// longer holds (expired), changes the feed while every plain read stays
// the same. Both are differences (earlier releases of this tool proved
// them equivalent).
func TestChangeFeedDataFileEnds(t *testing.T) {
	// A copy of data file 0 that no snapshot sees: the feed lists its rows
	// as deleted and inserted again (update_preimage, update_postimage) at
	// snapshot 2.
	const ghost = `INSERT INTO ducklake_data_file SELECT * REPLACE (
		(SELECT max(data_file_id) + 1 FROM ducklake_data_file) AS data_file_id, 2 AS begin_snapshot, 2 AS end_snapshot)
		FROM ducklake_data_file WHERE data_file_id = 0`
	const expire8 = `DELETE FROM ducklake_snapshot WHERE snapshot_id = 8; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 8`
	runChangeFeedCases(t, "lakes", "06_deletes", []changeFeedCase{
		{"file no snapshot sees", nil, []string{ghost}, "data file ended"},
		{"same on both sides", []string{ghost}, []string{ghost}, ""},
		// A copy of main.whole's data file 8 ending at 5, before the
		// table's first snapshot (6): no snapshot shows the table then,
		// and the feed of main.whole lists its rows all the same.
		{"file ending before its table's first snapshot", nil, []string{`INSERT INTO ducklake_data_file SELECT * REPLACE (
			(SELECT max(data_file_id) + 1 FROM ducklake_data_file) AS data_file_id, 5 AS begin_snapshot, 5 AS end_snapshot)
			FROM ducklake_data_file WHERE data_file_id = 8`}, "data file ended"},
		// Snapshot 8 expired on both sides: data file 8 (main.whole, seen
		// at 7, not at 9) ends at 9 in A, at 8 in B, which the feed reports
		// as its rows' deletion snapshot.
		{"end moved within expired snapshots", []string{expire8}, []string{expire8, `UPDATE ducklake_data_file SET end_snapshot = 8 WHERE data_file_id = 8`}, "data file ended"},
		{"expired snapshots alike", []string{expire8}, []string{expire8}, ""},
		// Data file 8 (ended at 9) claims 2^40 rows in B: the feed's
		// deletions at its end were listed up to record_count, which ran
		// for hours; they are held to the file's Parquet rows (those the
		// readers' feed reads) and the entry names the claim.
		{"ended file claiming 2^40 rows", nil, []string{`UPDATE ducklake_data_file SET record_count = 1099511627776 WHERE data_file_id = 8`}, "data file ended"},
	})
}

// TestChangeFeedGhostPartitions: the feed reads the rows of a data file no
// snapshot sees with its partition values (and name mapping), which its
// "data file ended" entry now names: a copy of lakes/08_partitioning's data
// file 0 (region=eu) seen by no snapshot, whose partition value is us in B
// only, was proved equivalent before.
func TestChangeFeedGhostPartitions(t *testing.T) {
	const ghost = `INSERT INTO ducklake_data_file SELECT * REPLACE (
		(SELECT max(data_file_id) + 1 FROM ducklake_data_file) AS data_file_id, 4 AS begin_snapshot, 4 AS end_snapshot)
		FROM ducklake_data_file WHERE data_file_id = 0;
		INSERT INTO ducklake_file_partition_value SELECT * REPLACE ((SELECT max(data_file_id) FROM ducklake_data_file) AS data_file_id)
		FROM ducklake_file_partition_value WHERE data_file_id = 0`
	runChangeFeedCases(t, "lakes", "08_partitioning", []changeFeedCase{
		{"partition value of a file no snapshot sees", []string{ghost}, []string{ghost, `UPDATE ducklake_file_partition_value SET partition_value = 'us'
			WHERE data_file_id = (SELECT max(data_file_id) FROM ducklake_data_file)`}, "data file ended"},
	})
}

// TestChangeFeedInlinedEnds: the same for inlined rows, which the feed
// selects by begin_snapshot and end_snapshot alone too
// (ReadInlinedDataInsertions, ReadInlinedDataDeletions).
func TestChangeFeedInlinedEnds(t *testing.T) {
	const ghost = `INSERT INTO ducklake_inlined_data_1_2 SELECT * REPLACE (3 AS begin_snapshot, 3 AS end_snapshot) FROM ducklake_inlined_data_1_2 WHERE row_id = 0`
	const expire4 = `DELETE FROM ducklake_snapshot WHERE snapshot_id = 4; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 4`
	const ghostRow = `INSERT INTO ducklake_inlined_data_1_2 VALUES (7, 3, 3, 100, 'ghost')`
	const ghostExpired = `INSERT INTO ducklake_inlined_data_1_2 VALUES (8, 4, 5, 7, 'x')`
	runChangeFeedCases(t, "lakes", "16_data_inlining", []changeFeedCase{
		{"row no snapshot sees", nil, []string{ghost}, "inlined rows ended"},
		// Snapshot 4 expired on both sides: row 2's first version (seen
		// at 3, not at 5) ends at 4 in A, at 5 in B.
		{"end moved within expired snapshots", []string{expire4}, []string{expire4, `UPDATE ducklake_inlined_data_1_2 SET end_snapshot = 5 WHERE row_id = 2 AND begin_snapshot = 3`}, "inlined rows ended"},
		{"expired snapshots alike", []string{expire4}, []string{expire4}, ""},
		// A row no snapshot sees (3 to 3) with other values in B:
		// ducklake_table_insertions(2, 3) and ducklake_table_deletions(3,
		// 4) return them (proved equivalent before).
		{"values of a row no snapshot sees", []string{ghostRow}, []string{strings.Replace(ghostRow, "100", "101", 1)}, "inlined rows ended"},
		{"values of a row no snapshot sees, alike", []string{ghostRow}, []string{ghostRow}, ""},
		// The same for a row begun at expired snapshot 4, ended at 5.
		{"values of a row begun at an expired snapshot", []string{expire4, ghostExpired}, []string{expire4, strings.Replace(ghostExpired, "'x'", "'y'", 1)}, "inlined rows ended"},
	})
}

// TestChangeFeedDeletes: the change feed's delete side
// (ducklake_table_deletions; feeddeletes.go) reads every delete file row
// and inlined file deletion by its begin_snapshot (and a partial deletion
// file's stored per-position snapshots), whether or not any snapshot sees
// it. A delete file no snapshot sees, or a begin moved among expired
// snapshot ids, changes the rows (or snapshot_id) the feed reports while
// every plain read stays the same: a difference naming the data file, the
// range, the row id and the snapshot (earlier releases of this tool proved
// such catalogs equivalent).
func TestChangeFeedDeletes(t *testing.T) {
	// Format 0.3 (v1.4-andium rules): data file 0's chain of delete files
	// 3 (begin 3), 5 (begin 4), 6 (begin 5) and 13 (begin 15).
	const copy5 = `INSERT INTO ducklake_delete_file SELECT * REPLACE (
		(SELECT max(delete_file_id) + 1 FROM ducklake_delete_file) AS delete_file_id, 4 AS begin_snapshot, 4 AS end_snapshot)
		FROM ducklake_delete_file WHERE delete_file_id = 5`
	const expire4 = `DELETE FROM ducklake_snapshot WHERE snapshot_id = 4; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 4`
	runChangeFeedCases(t, "lakes-0.3", "06_deletes", []changeFeedCase{
		// The feed reports file 5's rows (less file 3's) at 4 twice.
		{"0.3 delete file no snapshot sees", nil, []string{copy5}, "change feed deletions of"},
		// Snapshot 4 expired on both sides: file 5 (seen by no snapshot
		// then) begins at 4 in A, at 5 in B, where file 6 then reports
		// its rows less file 3's, not less file 5's.
		{"0.3 begin moved within expired snapshots", []string{expire4}, []string{expire4, `UPDATE ducklake_delete_file SET begin_snapshot = 5 WHERE delete_file_id = 5`}, "change feed deletions of"},
		{"0.3 expired snapshots alike", []string{expire4}, []string{expire4}, ""},
		// A delete file row no snapshot sees, naming no file: the feed's
		// readers fail on B only.
		{"0.3 missing delete file no snapshot sees", nil, []string{strings.Replace(copy5, "4 AS end_snapshot)", "4 AS end_snapshot, 'gone-delete.parquet' AS path)", 1)}, "fails on one side only"},
	})
	// Format 1.0 (v1.5-variegata/main rules): data file 1's partial
	// deletion file 6 (begin 3); a copy of it begun and ended at 2 (file
	// 1 begins at 2) repeats every row it reports in ranges ending at 2 or
	// later.
	runChangeFeedCases(t, "lakes", "06_deletes", []changeFeedCase{
		{"1.0 partial deletion file no snapshot sees", nil, []string{`INSERT INTO ducklake_delete_file SELECT * REPLACE (
			(SELECT max(delete_file_id) + 1 FROM ducklake_delete_file) AS delete_file_id, 2 AS begin_snapshot, 2 AS end_snapshot)
			FROM ducklake_delete_file WHERE delete_file_id = 6`}, "change feed deletions of"},
	})
	// Format 1.0, inlined file deletions of data file 4 (rows 0, 1, 29
	// at 9): with snapshot 9 expired on both sides, row 29's deletion
	// begins at 9 in A, at 10 in B.
	const expire9 = `DELETE FROM ducklake_snapshot WHERE snapshot_id = 9; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 9`
	runChangeFeedCases(t, "lakes", "16_data_inlining", []changeFeedCase{
		{"inlined file deletion begun within expired snapshots", []string{expire9}, []string{expire9, `UPDATE ducklake_inlined_delete_1 SET begin_snapshot = 10 WHERE file_id = 4 AND row_id = 29`}, "change feed deletions of"},
	})
}

// TestFeedRules: the delete side of the change feed per release line, on
// inputs written by hand, against what GetTableDeletions and
// DuckLakeDeleteFilter::Initialize give for the range (read from
// v1.4-andium and v1.5-variegata; feeddeletes.go).
func TestFeedRules(t *testing.T) {
	end := func(v int64) *int64 { return &v }
	// A chain of cumulative 2-column delete files (a 0.3 writer's).
	chain := feedFile{rowIDStart: 100, records: 5, dels: []feedDel{
		{begin: 2, pos: []int64{0, 1}}, {begin: 4, pos: []int64{0, 1, 3}}}}
	// One partial deletion file holding the same deletions (a 1.0 writer's).
	partial := feedFile{rowIDStart: 100, records: 5, dels: []feedDel{
		{begin: 2, partial: true, pos: []int64{0, 1, 3}, snaps: []int64{2, 2, 4}}}}
	// A file ending at 6 with a delete file begun at 2 and inlined
	// deletions at 5.
	ended := feedFile{rowIDStart: 0, records: 3, end: end(6), dels: []feedDel{{begin: 2, pos: []int64{0}}}}
	inlined := ended
	inlined.inl = []feedEvent{{2, 5}}
	for _, tc := range []struct {
		name    string
		f       feedFile
		newLine bool
		s, e    int64
		want    []feedEvent
	}{
		{"1.4 chain", chain, false, 1, 5, []feedEvent{{100, 2}, {101, 2}, {103, 4}}},
		{"1.4 chain, range after the first file", chain, false, 3, 5, []feedEvent{{103, 4}}},
		// v1.5: the later file less the file begun last before S (none)
		// repeats rows 100 and 101 at 4.
		{"1.5 chain", chain, true, 1, 5, []feedEvent{{100, 2}, {100, 4}, {101, 2}, {101, 4}, {103, 4}}},
		// S = 3: both files begun by E; the first less itself, the second
		// less the first.
		{"1.5 chain, range after the first file", chain, true, 3, 5, []feedEvent{{103, 4}}},
		{"1.5 partial", partial, true, 1, 5, []feedEvent{{100, 2}, {101, 2}, {103, 4}}},
		{"1.5 partial, range after its begin", partial, true, 3, 5, []feedEvent{{103, 4}}},
		{"1.4 ended", ended, false, 1, 9, []feedEvent{{0, 2}, {1, 6}, {2, 6}}},
		{"1.5 ended", ended, true, 1, 9, []feedEvent{{0, 2}, {1, 6}, {2, 6}}},
		// With an inlined deletion in the range the ending file gives that
		// alone (less the previous delete file), and the delete file's
		// entry gets it too.
		{"1.5 ended with inlined deletions", inlined, true, 1, 9, []feedEvent{{0, 2}, {2, 5}, {2, 5}}},
		// The delete file begun before S less itself (the file begun last
		// before S): its inlined deletion alone.
		{"1.5 delete file begun before the range", inlined, true, 5, 5, []feedEvent{{2, 5}}},
		{"1.5 inlined deletions only", feedFile{records: 3, inl: []feedEvent{{1, 5}}}, true, 5, 5, []feedEvent{{1, 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			side := &feedSide{newLine: tc.newLine}
			var got []feedEvent
			side.events([]feedFile{tc.f}, tc.s, tc.e, func(row, snap int64) { got = append(got, feedEvent{row, snap}) })
			slices.SortFunc(got, func(a, b feedEvent) int {
				if c := cmp.Compare(a.row, b.row); c != 0 {
					return c
				}
				return cmp.Compare(a.snap, b.snap)
			})
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// The partial file under v1.5 gives the chain's feed under v1.4 for
	// every range; the chain under v1.5 does not.
	old, cur := &feedSide{}, &feedSide{newLine: true}
	if d, ok := diffFeeds(old, cur, []feedFile{chain}, []feedFile{partial}); ok {
		t.Errorf("0.3 chain and 1.0 partial file differ: %+v", d)
	}
	if d, ok := diffFeeds(old, cur, []feedFile{chain}, []feedFile{chain}); !ok || d.row != 100 || d.snap != 4 || d.na != 0 || d.nb != 1 {
		t.Errorf("0.3 chain read by v1.5: got %+v %v, want row 100 at 4 (0 and 1 times)", d, ok)
	}
}
