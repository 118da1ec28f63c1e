package compare

import (
	"context"
	"errors"
	"path/filepath"
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
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: data})
			if tc.differ == "" {
				if err != nil {
					t.Fatalf("want equivalent: %v\n%v", err, rep)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "files", tc.differ) {
				t.Fatalf("want a files difference %q, got %v\n%v", tc.differ, err, rep)
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
	})
}

// TestChangeFeedInlinedEnds: the same for inlined rows, which the feed
// selects by begin_snapshot and end_snapshot alone too
// (ReadInlinedDataInsertions, ReadInlinedDataDeletions).
func TestChangeFeedInlinedEnds(t *testing.T) {
	const ghost = `INSERT INTO ducklake_inlined_data_1_2 SELECT * REPLACE (3 AS begin_snapshot, 3 AS end_snapshot) FROM ducklake_inlined_data_1_2 WHERE row_id = 0`
	const expire4 = `DELETE FROM ducklake_snapshot WHERE snapshot_id = 4; DELETE FROM ducklake_snapshot_changes WHERE snapshot_id = 4`
	runChangeFeedCases(t, "lakes", "16_data_inlining", []changeFeedCase{
		{"row no snapshot sees", nil, []string{ghost}, "inlined rows ended"},
		// Snapshot 4 expired on both sides: row 2's first version (seen
		// at 3, not at 5) ends at 4 in A, at 5 in B.
		{"end moved within expired snapshots", []string{expire4}, []string{expire4, `UPDATE ducklake_inlined_data_1_2 SET end_snapshot = 5 WHERE row_id = 2 AND begin_snapshot = 3`}, "inlined rows ended"},
		{"expired snapshots alike", []string{expire4}, []string{expire4}, ""},
	})
}
