package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// DuckLake's change feed (ducklake_table_insertions and
// ducklake_table_deletions, and ducklake_table_changes over them; every
// release line, GetTableInsertions and GetTableDeletions in
// src/storage/ducklake_metadata_manager.cpp) reads a data file's rows as
// inserted at its begin_snapshot and as deleted at its end_snapshot,
// selecting the rows by those two columns alone, not by what any snapshot
// sees. Comparing what every snapshot sees pins a file's begin_snapshot
// (compared in its "data file" entry) but not its end_snapshot where
// snapshot ids are missing (expired): a file seen at 7 and not at 9 may end
// at 8 or 9, and the feed reports its rows deleted at that snapshot. Nor
// does it see a data file row no snapshot sees (begin_snapshot equal to
// end_snapshot, or both between two snapshots the catalog holds), whose rows
// the feed reports inserted and deleted. So every data file row that ends
// is described at the first snapshot the catalog holds at or after its end
// (prevSnapshot < end <= snapshot): once, whatever the history's length.

// endedEntries describes the data file rows of table t whose end_snapshot
// lies after the catalog's snapshot before snap and at or before snap, by
// path: their snapshots, first row id, record count and size (several rows
// of one path in one value, sorted).
func (r *Reader) endedEntries(ctx context.Context, t Table, snap int64) (map[string]string, error) {
	all, err := r.allTableFiles(ctx, t)
	if err != nil {
		return nil, err
	}
	prev, err := r.prevSnapshot(ctx, snap)
	if err != nil {
		return nil, err
	}
	ends := all.endOrder()
	i := sort.Search(len(ends), func(i int) bool { return *all.data[ends[i]].end > prev })
	var out map[string][]string
	for ; i < len(ends) && *all.data[ends[i]].end <= snap; i++ {
		row := all.data[ends[i]]
		f := row.file
		if out == nil {
			out = map[string][]string{}
		}
		key := "data file ended " + r.relPath(f.Path)
		out[key] = append(out[key], fmt.Sprintf("begin_snapshot=%d end_snapshot=%d row_id_start=%s records=%d size=%d",
			f.BeginSnapshot, *row.end, optInt(f.RowIDStart), f.RecordCount, f.SizeBytes))
	}
	e := make(map[string]string, len(out))
	for k, v := range out {
		slices.Sort(v)
		e[k] = strings.Join(v, "; ")
	}
	return e, nil
}

// endOrder returns the indexes of the data file rows that have an
// end_snapshot, by end_snapshot (computed once per table's rows).
func (all *tableFiles) endOrder() []int32 {
	if all.ends != nil {
		return *all.ends
	}
	var ends []int32
	for i, row := range all.data {
		if row.end != nil {
			ends = append(ends, int32(i))
		}
	}
	slices.SortStableFunc(ends, func(a, b int32) int {
		x, y := *all.data[a].end, *all.data[b].end
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	all.ends = &ends
	return ends
}

// prevSnapshot is the largest snapshot id the catalog holds below snap,
// math.MinInt64 when there is none.
func (r *Reader) prevSnapshot(ctx context.Context, snap int64) (int64, error) {
	if r.meta.snapshots == nil {
		if _, err := r.Snapshots(ctx); err != nil {
			return 0, err
		}
	}
	snaps := *r.meta.snapshots
	i := sort.Search(len(snaps), func(i int) bool { return snaps[i].ID >= snap })
	if i == 0 {
		return math.MinInt64, nil
	}
	return snaps[i-1].ID, nil
}
