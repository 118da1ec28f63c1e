package compare

import (
	"slices"
	"testing"
)

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
	endFile := feedDel{begin: 8, end: ptr(8), partial: true, pos: hidden, snaps: []int64{8, 8, 8, 8, 8, 8}}
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
		// 8, A's readers report all ten: the rewrite adds a partial
		// deletion file of rows 4-9 at 8, begun and ended there.
		{"merged file rewritten, ended", merged(ptr(8)), withEnd(newSide(feedDel{begin: 2, pos: hidden}, endFile), 8), true},
		// Without it (convert before proof v60) B's feed leaves them out.
		{"merged file rewritten, ended, without the end's file", merged(ptr(8)), withEnd(newSide(feedDel{begin: 2, pos: hidden}), 8), false},
		// Or with them stored at another snapshot.
		{"merged file rewritten, ended, the end's file at 7", merged(ptr(8)),
			withEnd(newSide(feedDel{begin: 2, pos: hidden}, feedDel{begin: 8, end: ptr(8), partial: true, pos: hidden, snaps: []int64{7, 7, 7, 7, 7, 7}}), 8), false},
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

// TestMergedEndFeed: a 0.3 merged file rewritten with --rewrite-deletes
// that ends (docs/compare.md, Known limits, case (3)). convert writes no
// delete file for the stretch where the split list shows every row, so at
// the file's end_snapshot B's readers subtract the chain's last file and
// leave out its rows; the partial deletion file of those rows, begun and
// ended at the end, that the rewrite adds (mergedChain, convert's
// writeEndDeletes) gives A's feed in every range that starts after the
// chain's first file, and changes no range B already read as A. A plain
// delete file begun where the split list shows every row, holding the
// file's own deletions then (none here), would not: every range that
// starts after it, the file's end or later included, then reports the
// chain's hidden rows again.
func TestMergedEndFeed(t *testing.T) {
	// 10 rows from snapshot 2, the first 4 shown from 2, all from 5
	// (split list '2:4|5:10'), the file ended at 8.
	end := int64(8)
	a := &feedSide{files: map[string][]feedFile{"f": {{records: 10, begin: 2, end: &end, splits: []feedSplit{{2, 4}, {5, 10}}}}}}
	chain := a.files["f"][0].mergedChain()
	if len(chain) != 2 || chain[0].begin != 2 || len(chain[0].pos) != 6 || chain[0].partial ||
		chain[1].begin != 8 || *chain[1].end != 8 || !chain[1].partial || !slices.Equal(chain[1].pos, chain[0].pos) || !slices.Equal(chain[1].snaps, []int64{8, 8, 8, 8, 8, 8}) {
		t.Fatalf("the rewrite's chain is %+v, want a file begun at 2 hiding rows 4-9 and a partial one of them at 8", chain)
	}
	side := func(dels ...feedDel) *feedSide {
		return &feedSide{newLine: true, files: map[string][]feedFile{"f": {{records: 10, begin: 2, end: &end, dels: dels}}}}
	}
	now, before := side(chain...), side(chain[0])
	final := side(chain[0], feedDel{begin: 5, end: &end})
	same := func(b *feedSide, s, e int64) bool {
		var ga, gb feedAgg
		a.events(a.files["f"], s, e, ga.add)
		b.events(b.files["f"], s, e, gb.add)
		return ga == gb
	}
	var hurt [][2]int64
	for s := int64(1); s <= 10; s++ {
		for e := s; e <= 10; e++ {
			// A range from 2 or before that holds 2 reports the chain's
			// rows at 2 (hidden, not deleted), whatever B writes.
			if got, want := same(now, s, e), s > 2 || e < 2; got != want {
				t.Errorf("[%d, %d]: B's feed is A's: %v, want %v", s, e, got, want)
			}
			if same(before, s, e) && !same(now, s, e) {
				t.Errorf("[%d, %d]: the end's file changed a range read as A", s, e)
			}
			if same(before, s, e) && !same(final, s, e) {
				hurt = append(hurt, [2]int64{s, e})
			}
		}
	}
	// [6, 6], [9, 10] and every range after: B reports rows 4-9 deleted at
	// 2 again, with a file begun at 5 the file subtracted from the chain's.
	if !slices.Contains(hurt, [2]int64{6, 6}) || !slices.Contains(hurt, [2]int64{9, 10}) {
		t.Errorf("a plain file begun at 5 changed no range read as A after it: %v", hurt)
	}
}
