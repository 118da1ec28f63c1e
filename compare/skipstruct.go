package compare

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// structSkipKey is what structSkipped's answer depends on: the data file
// and its deleted positions.
type structSkipKey struct {
	path string
	n    int
	sum  [32]byte
}

// structSkipFooter is what the quirk's model takes from a data file's
// footer: its row groups' row counts and the columns the quirk reaches.
type structSkipFooter struct {
	groups []int64
	cols   []formats.StructSkipColumn
}

// structSkipped applies formats.QuirkStructNullsAfterSkippedVector to a
// data file read with deleted positions (ascending) at snap, and the rows
// a partial file hides there (hiddenPositions): a reader with
// the quirk reads a STRUCT column NULL on rows after a wholly deleted
// vector (formats.SkippedVectorReads, StructSkipColumns, StructSkipSQL),
// which the proof does not model row by row: the file is unreadable. The
// answer is kept per file and delete state.
func (r *Reader) structSkipped(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, deleted []int64) error {
	q := formats.QuirkStructNullsAfterSkippedVector
	if !r.readsWith(q) || !hasStructColumn(cols) {
		return nil
	}
	// The rows a partial file hides at snap are filtered out in the scan
	// (_ducklake_internal_snapshot_id <= snap pushed into it): a vector
	// that filter empties is skipped as a wholly deleted one is.
	hidden, err := r.hiddenPositions(ctx, f, snap)
	if err != nil {
		return fmt.Errorf("%s: data file %s: %w", q.Info().Name, oneline.Name(r.relPath(f.Path)), err)
	}
	deleted = unionSorted(deleted, hidden)
	if len(deleted) == 0 {
		return nil
	}
	key := structSkipKey{path: f.Path, n: len(deleted), sum: positionsSum(deleted)}
	detail, ok := r.structSkips[key]
	if !ok {
		var err error
		if detail, err = r.structSkipDetail(ctx, f, deleted); err != nil {
			return fmt.Errorf("%s: data file %s: %w", q.Info().Name, oneline.Name(r.relPath(f.Path)), err)
		}
		if r.structSkips == nil {
			r.structSkips = map[structSkipKey]string{}
		}
		r.structSkips[key] = detail
	}
	if detail == "" {
		return nil
	}
	return r.unreadable(q, t, "data file %s at snapshot %d: %s", oneline.Name(r.relPath(f.Path)), snap, detail)
}

// unionSorted merges two ascending position lists into one, without
// repeats.
func unionSorted(a, b []int64) []int64 {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]int64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var v int64
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			v, i = a[i], i+1
		case i == len(a) || b[j] < a[i]:
			v, j = b[j], j+1
		default:
			v, i, j = a[i], i+1, j+1
		}
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// hasStructColumn tells whether a table has a top-level STRUCT column, the
// only columns the quirk misreads.
func hasStructColumn(cols []*Column) bool {
	for _, c := range cols {
		if formats.TypeIs(c.Type, "struct") {
			return true
		}
	}
	return false
}

// structSkipDetail says where the quirk misreads a data file with these
// deleted positions ("" nowhere).
func (r *Reader) structSkipDetail(ctx context.Context, f DataFile, deleted []int64) (string, error) {
	kp, err := r.keyParam(ctx, f.encryptionKey)
	if err != nil {
		return "", err
	}
	if kp != "" {
		// Neither the footer's row groups nor its schema can be read:
		// every run of a vector's worth of deletes before a kept row.
		w := formats.SkippedVectorReads(nil, deleted, f.RecordCount)
		if len(w) == 0 {
			return "", nil
		}
		return fmt.Sprintf("positions %d-%d are deleted and %d on kept, and the table has a STRUCT column (the file is encrypted: its row groups and rows are not read)", w[0].SkipStart, w[0].ReadStart-1, w[0].ReadStart), nil
	}
	foot, ok := r.skipFooters[f.Path]
	if !ok {
		if foot.groups, err = r.rowGroups(ctx, f.Path); err != nil {
			return "", err
		}
		rows, err := r.parquetSchemaRows(ctx, f.Path)
		if err != nil {
			return "", err
		}
		if foot.cols, err = formats.StructSkipColumns(rows); err != nil {
			return "", err
		}
		if r.skipFooters == nil {
			r.skipFooters = map[string]structSkipFooter{}
		}
		r.skipFooters[f.Path] = foot // data files never change
	}
	cols := foot.cols
	if len(cols) == 0 {
		return "", nil
	}
	windows := formats.SkippedVectorReads(foot.groups, deleted, f.RecordCount)
	if len(windows) == 0 {
		return "", nil
	}
	if err := r.readable(ctx, f.Path); err != nil {
		return "", err
	}
	from := fmt.Sprintf("read_parquet(%s, file_row_number = true, hive_partitioning = false)", parquetsql.Path(f.Path))
	res, err := r.conn.QueryContext(ctx, formats.StructSkipSQL(from, cols, windows))
	if err != nil {
		return "", err
	}
	defer res.Close()
	for res.Next() {
		var i int
		hit := make([]bool, len(cols))
		dst := []any{&i}
		for j := range hit {
			dst = append(dst, &hit[j])
		}
		if err := res.Scan(dst...); err != nil {
			return "", err
		}
		for j, h := range hit {
			if h {
				w := windows[i]
				return fmt.Sprintf("column %s: positions %d-%d, whole vectors of a row group, are deleted and hold a NULL struct, and the next vector (positions %d-%d) a non-NULL one, which the reader can read NULL",
					cols[j].Column, w.SkipStart, w.ReadStart-1, w.ReadStart, w.ReadEnd-1), nil
			}
		}
	}
	return "", res.Err()
}

// rowGroups reads the row counts of a data file's row groups from its
// footer, in file order. They are read in Go (parquetfooter.RowGroupRows):
// DuckDB's parquet_metadata fails on a footer with a TIMESTAMP_NS bound
// before 1677-09-22.
func (r *Reader) rowGroups(ctx context.Context, path string) ([]int64, error) {
	if err := r.readable(ctx, path); err != nil {
		return nil, err
	}
	out, err := parquetfooter.RowGroupRows(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read row groups: %w", err)
	}
	return out, nil
}

// parquetSchemaRows reads a data file's parquet_schema rows as the quirk's model
// takes them.
func (r *Reader) parquetSchemaRows(ctx context.Context, path string) ([]formats.ParquetSchemaRow, error) {
	if err := r.readable(ctx, path); err != nil {
		return nil, err
	}
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT name, coalesce(num_children, 0), repetition_type, concat_ws(' ', converted_type, logical_type::VARCHAR) FROM parquet_schema(%s)`, parquetsql.Path(path)))
	if err != nil {
		return nil, fmt.Errorf("read parquet schema: %w", err)
	}
	defer rows.Close()
	var out []formats.ParquetSchemaRow
	for rows.Next() {
		var s formats.ParquetSchemaRow
		var rep sql.NullString
		if err := rows.Scan(&s.Name, &s.Children, &rep, &s.Annotation); err != nil {
			return nil, err
		}
		s.Repetition = rep.String
		out = append(out, s)
	}
	return out, rows.Err()
}
