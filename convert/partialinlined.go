package convert

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// partialDeletesWithInlinedCheck applies formats.QuirkPartialDeletesWholeWithInlined
// when the source's and the target's readers differ in it (0.4 written
// from 1.0/1.1, or a 0.4 source written as 1.0/1.1): DuckDB 1.5.0 and
// 1.5.1 read every position of a partial deletion file as deleted at a
// snapshot where its data file also has inlined deletions, newer readers
// only those deleted by that snapshot. It refuses each data file, delete
// file and the snapshots where a position of the file is deleted only
// later (its rows name a later snapshot), the file and the data
// file are visible and an inlined deletion of the data file is: there the
// rows read differ. Writing 0.4, --rewrite-deletes replaces those partial
// deletion files by chains of 2-column delete files (no per-row snapshots
// to drop), which every reader reads alike; a 0.4 source read as its
// readers read it has no such rewrite here, and stays refused.
func (r *run) partialDeletesWithInlinedCheck(step string, source, target *formats.Version) error {
	q := formats.QuirkPartialDeletesWholeWithInlined
	if source.ReadsAsSourceWith(q) == target.ReadsWith(q) || !target.Has(formats.CapInlinedDeletes) || !target.Has(formats.CapPartialDeleteFiles) {
		return nil // formats before 0.4 read neither: their own checks refuse or rewrite them
	}
	info := q.Info()
	who, other := "format "+target.Name+" readers", source.Name
	if source.ReadsAsSourceWith(q) {
		who, other = "format "+source.Name+" readers (the source's)", target.Name
	}
	// The check finds them, the rewrite (run right after it, on the same
	// working copy) takes what it found.
	var found []partialWithInlined
	c := check{code: info.Name, table: "ducklake_delete_file",
		custom: func(r *run) ([]string, error) {
			var err error
			found, err = partialDeletesWithInlined(r)
			items := make([]string, len(found))
			for i, f := range found {
				items[i] = f.String()
			}
			return items, err
		},
		readsData: true,
		reason:    fmt.Sprintf("%s read this differently from format %s readers: %s (%s)", who, other, info.Behaviour, info.Source)}
	if target.ReadsWith(q) {
		c.rewrite = func(r *run) error {
			if len(found) == 0 {
				return nil
			}
			ids := make([]string, len(found))
			for i, f := range found {
				ids[i] = strconv.FormatInt(f.deleteFile, 10)
			}
			return rewritePartialDeletesWhere(r, "d.delete_file_id IN ("+strings.Join(ids, ", ")+")")
		}
		c.rewritten = "partial deletion files of data files with inlined deletions rewritten as one cumulative 2-column delete file per snapshot, written beside them under the data folder, which format " + target.Name + " readers read with the inlined deletions as every reader does"
	}
	if err := r.runCheck(step, c); err != nil {
		return fmt.Errorf("%s: %w", info.Name, err)
	}
	return nil
}

// partialWithInlined is a partial deletion file whose data file has
// inlined deletions visible at snapshots where the file deletes positions
// only later.
type partialWithInlined struct {
	tableID              int64
	table                string
	dataFile, deleteFile int64
	dataPath, deletePath string
	snapshots            []int64
}

func (p partialWithInlined) String() string {
	return fmt.Sprintf("table %d %s: data file %d (%s) with partial deletion file %d (%s) and inlined deletions, read differently at snapshots %s",
		p.tableID, p.table, p.dataFile, oneline.Name(p.dataPath), p.deleteFile, oneline.Name(p.deletePath), snapshotRanges(p.snapshots))
}

// partialDeletesWithInlined lists, per table with a
// ducklake_inlined_delete_<table_id> table, the partial deletion files
// (by content, partialDeleteFiles: partial_max may be NULL) and the
// snapshots at which the quirk changes the rows read: the data file and
// the delete file are visible, an inlined deletion of the data file
// (begin_snapshot at or before the snapshot) is, and the delete file
// deletes a position after the snapshot (the last its rows name). Every query reads the working copy in a 0.4+ layout.
func partialDeletesWithInlined(r *run) ([]partialWithInlined, error) {
	_, dynamic, err := r.w.layout(r.ctx)
	if err != nil {
		return nil, err
	}
	var out []partialWithInlined
	for _, t := range dynamic {
		rest, ok := strings.CutPrefix(t, "ducklake_inlined_delete_")
		if !ok {
			continue
		}
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			continue
		}
		partial, err := r.partialDeleteFiles()
		if err != nil {
			return nil, err
		}
		rows, err := r.w.conn.QueryContext(r.ctx, fmt.Sprintf(`SELECT f.data_file_id, coalesce(f.path, ''), d.delete_file_id, coalesce(d.path, ''),
				coalesce((SELECT any_value(table_name ORDER BY begin_snapshot DESC) FROM ducklake_table WHERE table_id = %[1]d), '?'),
				string_agg(s.snapshot_id::VARCHAR, ',' ORDER BY s.snapshot_id)
			FROM ducklake_snapshot s
			JOIN ducklake_data_file f ON f.table_id = %[1]d AND s.snapshot_id >= f.begin_snapshot AND (f.end_snapshot IS NULL OR s.snapshot_id < f.end_snapshot)
			JOIN ducklake_delete_file d ON d.table_id = %[1]d AND d.data_file_id = f.data_file_id
			JOIN (%[3]s) p ON p.delete_file_id = d.delete_file_id AND s.snapshot_id < p.last_snapshot
				AND s.snapshot_id >= d.begin_snapshot AND (d.end_snapshot IS NULL OR s.snapshot_id < d.end_snapshot)
			WHERE EXISTS (SELECT 1 FROM %[2]s i WHERE i.file_id = f.data_file_id AND i.begin_snapshot <= s.snapshot_id)
			GROUP BY f.data_file_id, f.path, d.delete_file_id, d.path
			ORDER BY f.data_file_id, d.delete_file_id`, id, quote(t), partial.values("*")))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t, err)
		}
		for rows.Next() {
			p := partialWithInlined{tableID: id}
			var snaps string
			if err := rows.Scan(&p.dataFile, &p.dataPath, &p.deleteFile, &p.deletePath, &p.table, &snaps); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read %s: %w", t, err)
			}
			for _, s := range strings.Split(snaps, ",") {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					rows.Close()
					return nil, fmt.Errorf("read %s: snapshot %q", t, s)
				}
				p.snapshots = append(p.snapshots, n)
			}
			out = append(out, p)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", t, err)
		}
	}
	return out, nil
}

// snapshotRanges writes ascending snapshot ids as runs of consecutive ids
// ("6-14", "3, 6-8").
func snapshotRanges(ids []int64) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.FormatInt(ids[i], 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
