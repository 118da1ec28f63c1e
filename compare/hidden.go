package compare

import (
	"context"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/deletionvector"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// hiddenPositions returns the positions of a data file that a partial file's
// own rule hides at a snapshot (§5.5): past the split list's limit (merged
// files of 0.1-0.3), or whose stored snapshot id is later than the snapshot
// (partial_max, 'partial_max:N'). A file converted from one rule to the
// other, or to delete files hiding the same rows, then describes the same
// invisible positions (fileEntries).
func (r *Reader) hiddenPositions(ctx context.Context, f DataFile, snap int64) ([]int64, error) {
	partialMax := f.PartialMax
	if f.PartialInfo != nil && !partialInfoParses(*f.PartialInfo, r.format.Has(formats.CapPartialMaxInfo)) {
		// The format's reader cannot parse it: its table is reported
		// unreadable (refusal), not compared.
		return nil, nil
	}
	if f.PartialInfo != nil && *f.PartialInfo != "" {
		info := *f.PartialInfo
		rest, ok := strings.CutPrefix(info, "partial_max:")
		if !ok {
			limit, _, err := splitLimit(info, snap)
			if err != nil {
				return nil, err
			}
			// Past deletionvector.SmallCount positions, the rows hidden
			// are held to the file's Parquet row count: a tampered
			// record_count claims any (2^40 listed ran out of memory), and
			// rows past the file's last hide nothing. It stays a files
			// difference (recordCounts); a genuine file's record_count is
			// its row count, and reads as before.
			end := f.RecordCount
			if end-limit > deletionvector.SmallCount {
				if n, ok := r.partialFileRows(ctx, f); ok && n < end {
					end = n
				}
			}
			var out []int64
			for p := limit; p < end; p++ {
				out = append(out, p)
			}
			return out, nil
		}
		n, err := partialMaxInfo(info, rest)
		if err != nil {
			return nil, err
		}
		partialMax = &n
	}
	if partialMax == nil || *partialMax <= snap {
		return nil, nil
	}
	kp, err := r.keyParam(ctx, f.encryptionKey)
	if err != nil {
		return nil, err
	}
	if err := r.readable(ctx, f.Path); err != nil {
		return nil, err
	}
	q := fmt.Sprintf(`SELECT file_row_number FROM read_parquet(%s, file_row_number = true, hive_partitioning = false%s) WHERE NOT coalesce("_ducklake_internal_snapshot_id" <= %d, false) ORDER BY 1`,
		parquetsql.Path(f.Path), kp, snap)
	pos, err := r.int64s(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read snapshot ids of partial file %s: %w", oneline.Name(f.Path), err)
	}
	return pos, nil
}
