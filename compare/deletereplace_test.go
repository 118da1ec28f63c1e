package compare

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// replacedDeletes is version 6 of selfCarryLake, which deletes again from
// its data files (DuckLake 1.0 replaces the delete file of each data file
// deleted from before, one catalog row for one, keeping its
// begin_snapshot), and version 5 before it, over a private copy of the
// data folder, with the edits of version 6 that the carrying tests try:
// none, and the replacing file of data file 0 (a partial file deleting one
// position at the snapshot the replaced 2-column file deleted it, one more
// later) written again with the same rows, with another position at the
// first deletion's snapshot, with the later deletion stamped earlier or
// the first one later, with a NULL snapshot (refused), and another column
// of its row changed. note is what says why nothing is carried ("":
// carried).
func replacedDeletes(t *testing.T) (data, earlier, later string, cases []replacedCase) {
	t.Helper()
	cats, shared := selfCarryLake(t)
	data = filepath.Join(t.TempDir(), "data")
	copyTree(t, shared, data) // files are written beside the lake's own
	earlier, later = cats[4], cats[5]
	const rowOf = "SELECT %s FROM ducklake_delete_file WHERE data_file_id = 0"
	oldID, newID := queryInt(t, earlier, fmt.Sprintf(rowOf, "delete_file_id")), queryInt(t, later, fmt.Sprintf(rowOf, "delete_file_id"))
	begin := queryInt(t, later, fmt.Sprintf(rowOf, "begin_snapshot"))
	if oldID < 0 || newID < 0 || oldID == newID || begin != queryInt(t, earlier, fmt.Sprintf(rowOf, "begin_snapshot")) {
		t.Fatalf("version 6 does not replace data file 0's delete file (%d -> %d)", oldID, newID)
	}
	matches, err := filepath.Glob(filepath.Join(data, "*", "*", queryString(t, later, fmt.Sprintf(rowOf, "path"))))
	if err != nil || len(matches) != 1 {
		t.Fatalf("the replacing delete file: %v (%v)", matches, err)
	}
	replacing := matches[0]
	var second int64 // the later deletion's snapshot
	queryRow(t, later, fmt.Sprintf("SELECT max(_ducklake_internal_snapshot_id) FROM read_parquet(%s)", sqlString(replacing)), &second)
	if second <= begin+1 {
		t.Fatalf("the replacing file's deletions at %d and %d: want two snapshots apart", begin, second)
	}
	n := 0
	// rewritten writes the replacing file's rows as sel selects them
	// (file_path, pos, snap) into a new file and points the row at it.
	rewritten := func(sel string) []string {
		n++
		name := fmt.Sprintf("rewritten-%d-delete.parquet", n)
		out := filepath.Join(filepath.Dir(replacing), name)
		return []string{
			fmt.Sprintf("COPY (SELECT %s FROM read_parquet(%s) ORDER BY 2) TO %s (FORMAT parquet)", sel, sqlString(replacing), sqlString(out)),
			fmt.Sprintf("UPDATE ducklake_delete_file SET path = %s WHERE delete_file_id = %d", sqlString(name), newID),
		}
	}
	const snap = "_ducklake_internal_snapshot_id"
	cases = []replacedCase{
		{name: "unchanged"},
		{name: "the same positions rewritten", edits: rewritten("file_path, pos, " + snap)},
		{
			name:  "another position at the first deletion's snapshot",
			edits: rewritten(fmt.Sprintf("file_path, CASE WHEN %s = %d THEN pos + 1 ELSE pos END AS pos, %s", snap, begin, snap)),
			note:  "deletes 1 positions at snapshot",
		},
		{
			name:  "the later deletion stamped earlier",
			edits: rewritten(fmt.Sprintf("file_path, pos, CASE WHEN %[1]s = %[2]d THEN %[3]d ELSE %[1]s END AS %[1]s", snap, second, begin+1)),
			note:  fmt.Sprintf("deletes 2 positions at snapshot %d", begin+1),
		},
		{
			name:  "the first deletion stamped later",
			edits: rewritten(fmt.Sprintf("file_path, pos, CASE WHEN %[1]s = %[2]d THEN %[2]d + 1 ELSE %[1]s END AS %[1]s", snap, begin)),
			note:  fmt.Sprintf("deletes 0 positions at snapshot %d", begin),
		},
		{
			name:  "a NULL snapshot",
			edits: rewritten(fmt.Sprintf("file_path, pos, CASE WHEN %[1]s = %[2]d THEN NULL ELSE %[1]s END AS %[1]s", snap, second)),
			note:  "snapshot_id cannot be NULL",
		},
		{
			name:  "another column",
			edits: []string{fmt.Sprintf("UPDATE ducklake_delete_file SET format = NULL WHERE delete_file_id = %d", newID)},
			note:  "ducklake_delete_file: the rows visible",
		},
	}
	return data, earlier, later, cases
}

// replacedCase is an edit of replacedDeletes' later catalog.
type replacedCase struct {
	name  string
	edits []string
	note  string // "": carried
}

// TestSelfCarryAcrossReplacedDeletes reads alone the version of a history
// that deletes again from its data files carrying the clean self-read of
// the version before (replacedDeletes). Unchanged, it carries every
// snapshot of that read: the replacing files delete what the replaced ones
// did at each of them. Where the replacing file deletes otherwise at an
// earlier snapshot, is refused, or another column of its row changed,
// nothing is carried, the note says why, and the read reports what the
// whole walk reports (a refused file: at every snapshot it is seen, not
// only the latest).
func TestSelfCarryAcrossReplacedDeletes(t *testing.T) {
	ctx := context.Background()
	data, earlier, later, cases := replacedDeletes(t)
	opts := Options{DataPath: data, Engines: readerDBs, CarryMinWork: -1}
	first, err := Self(ctx, earlier, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := later
			if len(tc.edits) > 0 {
				l = tamper(t, later, tc.edits...)
			}
			whole, errWhole := Self(ctx, l, opts)
			o := opts
			o.SelfCarry = carryAll(earlierRead(t, earlier, first))
			rep, err := Self(ctx, l, o)
			if (err == nil) != (errWhole == nil) || (err != nil && !errors.Is(err, ErrCatalogDiffers)) {
				t.Fatalf("carrying: %v; walked whole: %v", err, errWhole)
			}
			checkCarriedAsWhole(t, tc.note, len(first.Snapshots), rep, whole)
		})
	}
}

// TestCarryAcrossReplacedDeletes proves the version of a history that
// deletes again (replacedDeletes), edited on side A, against the version
// as written (B), carrying the kept proof of the version before against a
// copy of itself. Unchanged, every snapshot of that proof is carried;
// where A's replacing file deletes otherwise than the file it replaces at
// an earlier snapshot (so otherwise than B there), is refused, or another
// column of its row changed, nothing is carried and the proof reports
// what the whole walk reports: the differences at the earlier snapshots
// too, not a false equivalence there.
func TestCarryAcrossReplacedDeletes(t *testing.T) {
	ctx := context.Background()
	data, earlier, later, cases := replacedDeletes(t)
	cache := newTestCache(t)
	opts := Options{DataPath: data, Engines: readerDBs, DigestCache: cache, CarryMinWork: -1}
	b0 := tamper(t, earlier)
	first, err := Catalogs(ctx, earlier, b0, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := tamper(t, later, tc.edits...)
			b := tamper(t, later)
			whole, errWhole := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
			o := opts
			o.Carry = []Carry{{A: earlier, B: b0}}
			rep, err := Catalogs(ctx, a, b, o)
			if (err == nil) != (errWhole == nil) || (err != nil && !errors.Is(err, ErrNotEquivalent)) {
				t.Fatalf("carrying: %v; walked whole: %v", err, errWhole)
			}
			checkCarriedAsWhole(t, tc.note, len(first.Snapshots), rep, whole)
		})
	}
}

// checkCarriedAsWhole checks a carrying read or proof (rep) against the
// whole walk's: carried the snapshots of the earlier one (n) when note is
// "", else none with a note naming note; the same verdict, differences
// and snapshots.
func checkCarriedAsWhole(t *testing.T, note string, n int, rep, whole *Report) {
	t.Helper()
	if note == "" {
		if rep.Carried == nil || rep.Carried.Snapshots != n {
			t.Errorf("carried %+v, want the %d snapshots of the earlier read (note %q)", rep.Carried, n, rep.CarryNote)
		}
	} else if rep.Carried != nil || !strings.Contains(rep.CarryNote, note) {
		t.Errorf("carried %+v, note %q, want none and a note naming %q", rep.Carried, rep.CarryNote, note)
	}
	if rep.Equivalent != whole.Equivalent || !slices.Equal(differenceTexts(rep.Differences), differenceTexts(whole.Differences)) {
		t.Errorf("carrying: %v %v\nwalked whole: %v %v", rep.Equivalent, differenceTexts(rep.Differences), whole.Equivalent, differenceTexts(whole.Differences))
	}
	if !slices.Equal(rep.Snapshots, whole.Snapshots) {
		t.Errorf("snapshots %v, whole %v", rep.Snapshots, whole.Snapshots)
	}
}

// differenceTexts is each difference as reported.
func differenceTexts(ds []Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// TestReplacedDeletesReadAsTheWalkReads: the replaced and replacing delete
// files are read by the reader's own model, quirks included. Version 6 of
// replacedDeletes replaces 2-column files with 3-column partial ones: a
// reader whose format's readers read two columns only
// (formats.QuirkDeleteFilesTwoColumns, the 0.1-0.3 readers) refuses the
// replacing files, so nothing is carried; the same reader without the
// quirk carries.
func TestReplacedDeletesReadAsTheWalkReads(t *testing.T) {
	ctx := context.Background()
	data, earlier, later, _ := replacedDeletes(t)
	sum, err := fileSHA256(earlier)
	if err != nil {
		t.Fatal(err)
	}
	for _, two := range []bool{false, true} {
		r := openForTest(t, later, data)
		if err := r.ReadEveryTable(ctx); err != nil {
			t.Fatal(err)
		}
		r.twoColumnDeletes = two
		_, why, err := r.restrictedTo(ctx, earlier, sum, true)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: "read two columns only"}[two]; (want == "") != (why == "") || !strings.Contains(why, want) {
			t.Errorf("two columns only %v: why %q, want %q", two, why, want)
		}
		// Without replacements allowed, the rows differ either way.
		if _, why, err := r.restrictedTo(ctx, earlier, sum, false); err != nil || !strings.Contains(why, "ducklake_delete_file") {
			t.Errorf("two columns only %v, no replacements: why %q (%v)", two, why, err)
		}
	}
}

// TestCarryReplacedOnOneSide proves the version of a history that deletes
// again (replacedDeletes) against itself with data file 0's replacement
// undone in B (B names the replaced 2-column file, A the replacing
// partial one): both delete the same positions at every earlier snapshot
// and differ at the latest. A carries across its replacement, B restricts
// exactly, and the proof reports what the whole walk reports.
func TestCarryReplacedOnOneSide(t *testing.T) {
	ctx := context.Background()
	data, earlier, later, _ := replacedDeletes(t)
	cache := newTestCache(t)
	opts := Options{DataPath: data, Engines: readerDBs, DigestCache: cache, CarryMinWork: -1}
	b0 := tamper(t, earlier)
	if _, err := Catalogs(ctx, earlier, b0, opts); err != nil {
		t.Fatal(err)
	}
	a := tamper(t, later)
	b := tamper(t, later,
		"ATTACH "+sqlString(earlier)+" AS e (READ_ONLY)",
		"DELETE FROM ducklake_delete_file WHERE data_file_id = 0",
		"INSERT INTO ducklake_delete_file SELECT * FROM e.ducklake_delete_file WHERE data_file_id = 0",
		"DETACH e")
	whole, errWhole := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
	if whole == nil || whole.Equivalent {
		t.Fatalf("walked whole: %v (want a difference at the latest snapshot)", errWhole)
	}
	o := opts
	o.Carry = []Carry{{A: earlier, B: b0}}
	rep, err := Catalogs(ctx, a, b, o)
	if (err == nil) != (errWhole == nil) {
		t.Fatalf("carrying: %v; walked whole: %v", err, errWhole)
	}
	if rep.Carried == nil {
		t.Errorf("not carried: %s", rep.CarryNote)
	}
	if !slices.Equal(differenceTexts(rep.Differences), differenceTexts(whole.Differences)) {
		t.Errorf("carrying: %v\nwalked whole: %v", differenceTexts(rep.Differences), differenceTexts(whole.Differences))
	}
}
