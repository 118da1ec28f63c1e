package compare

import "testing"

// TestFeedExcusedOnlyChains: a difference of the change feed's delete
// side is excused (noted, not a difference) only where B holds A's
// deletions as a chain of cumulative plain delete files. A B whose
// partial deletion file stores other snapshots than A's feed, or whose
// chain stops before A's last deletions, has a really different feed.
func TestFeedExcusedOnlyChains(t *testing.T) {
	oldSide := func(dels ...feedDel) *feedSide {
		return &feedSide{files: map[string][]feedFile{"f": {{records: 10, dels: dels}}}}
	}
	newSide := func(dels ...feedDel) *feedSide {
		s := oldSide(dels...)
		s.newLine = true
		return s
	}
	partial := feedDel{begin: 3, partial: true, pos: []int64{0, 1}, snaps: []int64{3, 7}}
	// A 0.3 merged file of 10 rows from snapshot 2, its first 4 rows
	// shown from 2, all from 5 (split list '2:4|5:10'), with dels and an
	// end; convert's --rewrite-deletes hides rows 4-9 from 2 to 5 with a
	// delete file begun at 2 and keeps a delete file of the file's own
	// begun after.
	merged := func(end *int64, dels ...feedDel) *feedSide {
		return &feedSide{files: map[string][]feedFile{"f": {{records: 10, begin: 2, end: end, dels: dels, splits: []feedSplit{{2, 4}, {5, 10}}}}}}
	}
	hidden := []int64{4, 5, 6, 7, 8, 9}
	own := feedDel{id: 1, begin: 6, pos: []int64{0}}
	cases := []struct {
		name   string
		a, b   *feedSide
		excuse bool
	}{
		{"0.3 chain kept", oldSide(feedDel{begin: 3, pos: []int64{0}}, feedDel{begin: 7, pos: []int64{0, 1}}),
			newSide(feedDel{begin: 3, pos: []int64{0}}, feedDel{begin: 7, pos: []int64{0, 1}}), true},
		{"partial file as a chain", newSide(partial),
			newSide(feedDel{begin: 3, pos: []int64{0}}, feedDel{begin: 7, pos: []int64{0, 1}}), true},
		// B's partial file says rows 0 and 1 went at snapshots 1 and 2,
		// A's feed at 5: B's readers report them there.
		{"partial file with other snapshots", oldSide(feedDel{begin: 5, pos: []int64{0, 1}}),
			newSide(feedDel{begin: 5, partial: true, pos: []int64{0, 1}, snaps: []int64{1, 2}}), false},
		// B's chain never deletes row 1.
		{"chain stopping early", newSide(partial), newSide(feedDel{begin: 3, pos: []int64{0}}), false},
		// A 1.0 chain hiding rows 0-2, then 1-2 (as convert writes a 0.3
		// merged file's hidden rows), kept by a 0.3 downgrade: A's readers
		// report row 1 again at 7.
		{"chain kept down", newSide(feedDel{begin: 3, pos: []int64{0, 1, 2}}, feedDel{begin: 7, pos: []int64{1, 2}}),
			oldSide(feedDel{begin: 3, pos: []int64{0, 1, 2}}, feedDel{begin: 7, pos: []int64{1, 2}}), true},
		// B's chain (0.3) deletes row 0 only: not A's chain.
		{"chain not kept down", newSide(feedDel{begin: 3, pos: []int64{0, 1, 2}}, feedDel{begin: 7, pos: []int64{1, 2}}),
			oldSide(feedDel{begin: 3, pos: []int64{0}}), false},
		// A's partial deletion file, which v1.4's rules read whole.
		{"partial file down", newSide(partial), oldSide(feedDel{begin: 3, pos: []int64{0, 1}}), false},
		// B's readers report rows 4-9 deleted at 2, rows 0.3 had not
		// shown yet.
		{"merged file rewritten", merged(nil, own), newSide(feedDel{begin: 2, pos: hidden}, own), true},
		// At the end B's readers subtract the chain's file begun at 2 (no
		// file marks snapshot 5), so rows 4-9 are not reported deleted at
		// 8; A's readers report all ten.
		{"merged file rewritten, ended", merged(ptr(8)), withEnd(newSide(feedDel{begin: 2, pos: hidden}), 8), true},
		// B hides rows 4-9 from snapshot 1 (expired, say; no read of a
		// snapshot of the file shows it), not 2 as the rewrite does.
		{"merged chain begun early", merged(nil, own), newSide(feedDel{begin: 1, pos: hidden}, own), false},
		// B has a delete file no snapshot sees (begun and ended at 7),
		// which B's readers report: the rewrite writes none.
		{"merged chain with a file no snapshot sees", merged(nil, own),
			newSide(feedDel{begin: 2, pos: hidden}, own, feedDel{begin: 7, end: ptr(7), pos: []int64{0, 1}}), false},
		// B drops the file's own delete file begun at 6 and deletes row
		// 0 at 5.
		{"merged chain with its own deletion moved", merged(nil, own),
			newSide(feedDel{begin: 2, pos: hidden}, feedDel{begin: 5, pos: []int64{0}}), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, differ := diffFeeds(tc.a, tc.b, tc.a.files["f"], tc.b.files["f"])
			if !differ {
				t.Fatalf("want the feeds to differ")
			}
			note, ok := feedExcused(tc.a, tc.b, "main.t", "f", d)
			if ok != tc.excuse {
				t.Fatalf("excused %v (%q), want %v", ok, note, tc.excuse)
			}
		})
	}
}

// withEnd ends side's data file at end.
func withEnd(side *feedSide, end int64) *feedSide {
	side.files["f"][0].end = &end
	return side
}
