package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
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
// lies after endedSince (the catalog's snapshot before snap, where the
// table was shown then) and at or before snap, by
// path: their snapshots, first row id, record count, size, name mapping and
// partition values (several rows of one path in one value, sorted).
func (r *Reader) endedEntries(ctx context.Context, t Table, snap int64) (map[string]string, error) {
	all, err := r.allTableFiles(ctx, t)
	if err != nil {
		return nil, err
	}
	prev, err := r.endedSince(ctx, t, snap)
	if err != nil {
		return nil, err
	}
	ends := all.endOrder()
	i := sort.Search(len(ends), func(i int) bool { return *all.data[ends[i]].end > prev })
	var out map[string][]string
	var parts map[int64]string
	for ; i < len(ends) && *all.data[ends[i]].end <= snap; i++ {
		row := all.data[ends[i]]
		f := row.file
		if out == nil {
			out = map[string][]string{}
			if parts, err = r.partitionValues(ctx); err != nil {
				return nil, err
			}
		}
		// The name mapping and partition values the change feed reads
		// the file's rows with (the same text as its "data file" entry's,
		// which pins them only where a snapshot sees the file).
		mapping := "<none>"
		if f.MappingID != nil {
			if m, err := r.mappingText(ctx, *f.MappingID); err != nil {
				mapping = "<unreadable>" // no path: alike where both fail
			} else {
				mapping = m
			}
		}
		// The releases that read row_id_start as a number read it in
		// the change feed too, seen or not (row-id-start-required).
		rowIDStart := optInt(f.RowIDStart)
		if f.RowIDStart == nil && r.rowIDStartRequired() {
			rowIDStart = fmt.Sprintf("NULL (unreadable: %s read it as a number in the change feed over its begin or end: %s)", r.format.ReadersWith(formats.QuirkRowIDStartRequired), formats.QuirkRowIDStartRequired.Info().Name)
		}
		key := "data file ended " + r.relPath(f.Path)
		out[key] = append(out[key], fmt.Sprintf("begin_snapshot=%d end_snapshot=%d row_id_start=%s records=%d size=%d mapping=%s partition_values=%s",
			f.BeginSnapshot, *row.end, rowIDStart, f.RecordCount, f.SizeBytes, mapping, parts[f.ID]))
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

// endedSince is the end_snapshot after which the rows of table t that end
// are described at snap (endedEntries, inlinedBegins): the catalog's
// snapshot before snap (prevSnapshot), or none where the table row
// visible at snap begins after it. A row that ends while no snapshot shows
// the table (a data file or inlined row ending before the table's first
// snapshot, which the change feed still lists by its begin_snapshot) is
// then described at the table's first snapshot; a rename describes the
// table's ended rows again, alike on both sides where they are the same.
func (r *Reader) endedSince(ctx context.Context, t Table, snap int64) (int64, error) {
	prev, err := r.prevSnapshot(ctx, snap)
	if err != nil || t.BeginSnapshot <= prev {
		return prev, err
	}
	return math.MinInt64, nil
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
