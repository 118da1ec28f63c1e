package compare

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// Reserved field ids of DuckLake's internal columns in data files (§5.4).
const (
	rowIDFieldID    = 2147483540
	snapshotFieldID = 2147483539
)

// RowIDColumn is the name of the row-id column Scan adds when asked.
const RowIDColumn = "__fdl_row_id"

// ScanOptions tune the SQL a scan produces.
type ScanOptions struct {
	// RowIDs adds the row id (§5.7) as a last column named RowIDColumn.
	RowIDs bool
	// deletes says how a data file's deleted positions apply: digests read
	// a file without its deletes once and subtract its deleted rows.
	deletes deleteMode
	// positions adds the physical row position as a last column named
	// positionColumn (data files only; digests group deleted rows by it).
	positions bool
	// shape builds a data file's query as a shape shared by files read
	// together (see runWholes): the path is filesPlaceholder, the row-id
	// start startPlaceholder, and the file's index in the list
	// (indexPlaceholder) is a last column named fileColumn.
	shape bool
}

// positionColumn is the name of the physical-position column of positions.
const positionColumn = "__fdl_pos"

// deleteMode is how fileSQL applies a data file's deleted positions.
type deleteMode int

const (
	deletesApplied deleteMode = iota // the rows not deleted (what a reader sees)
	deletesIgnored                   // every row, deleted or not
	deletesOnly                      // only the deleted rows
)

// Part is the SQL of one source of a table's rows at a snapshot: one data
// file (with its deletes applied) or the table's inlined rows. Digests are
// built per part so that they can be cached per file.
type Part struct {
	Kind   string // "file" or "inlined"
	FileID int64
	Path   string
	SQL    string
}

// Scan builds the SQL that returns a table's rows at a snapshot, one part
// per data file plus the inlined rows. Every part yields the table's columns
// (names and types as at snap) in column order.
func (r *Reader) Scan(ctx context.Context, t Table, snap int64, opts ScanOptions) ([]Part, error) {
	cols, err := r.Columns(ctx, t.ID, snap)
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%s in %s at snapshot %d has no columns", t.Shown(), oneline.Name(r.path), snap)
	}
	if err := r.statsFailure(ctx, t); err != nil {
		return nil, err
	}
	files, err := r.files(ctx, t, snap)
	if err != nil {
		return nil, err
	}
	var parts []Part
	for _, f := range files {
		q, err := r.fileSQL(ctx, t, f, cols, snap, opts)
		if err != nil {
			return nil, fmt.Errorf("%s at snapshot %d, data file %s: %w", t.Shown(), snap, oneline.Name(f.Path), err)
		}
		parts = append(parts, Part{Kind: "file", FileID: f.ID, Path: f.Path, SQL: q})
	}
	inl, err := r.inlinedSQL(ctx, t, cols, snap, opts)
	if err != nil {
		return nil, fmt.Errorf("%s at snapshot %d, inlined data: %w", t.Shown(), snap, err)
	}
	parts = append(parts, inl...)
	return parts, nil
}

// Query is the whole table at a snapshot as one SQL statement.
func (r *Reader) Query(ctx context.Context, t Table, snap int64, opts ScanOptions) (string, error) {
	parts, err := r.Scan(ctx, t, snap, opts)
	if err != nil {
		return "", err
	}
	if len(parts) == 0 {
		return r.emptySQL(ctx, t, snap, opts)
	}
	qs := make([]string, len(parts))
	for i, p := range parts {
		qs[i] = "(" + p.SQL + ")"
	}
	return strings.Join(qs, "\nUNION ALL BY NAME\n"), nil
}

// emptySQL is a typed query with no rows, for tables without data.
func (r *Reader) emptySQL(ctx context.Context, t Table, snap int64, opts ScanOptions) (string, error) {
	cols, err := r.Columns(ctx, t.ID, snap)
	if err != nil {
		return "", err
	}
	sel := make([]string, 0, len(cols)+1)
	for _, c := range cols {
		dt, err := c.DuckType()
		if err != nil {
			return "", fmt.Errorf("%s: %w", t.Shown(), err)
		}
		sel = append(sel, "CAST(NULL AS "+dt+") AS "+ident(c.Name))
	}
	if opts.RowIDs {
		sel = append(sel, "CAST(NULL AS BIGINT) AS "+RowIDColumn)
	}
	return "SELECT " + strings.Join(sel, ", ") + " WHERE false", nil
}

// fileSQL builds the query of one data file at a snapshot (§5.4–5.7): the
// projection of the file's columns onto the table's (project*), the row id,
// the partial-file filter and the deletes.
func (r *Reader) fileSQL(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions) (string, error) {
	base, where, err := r.fileBase(ctx, t, f, cols, snap, opts)
	if err != nil {
		return "", err
	}
	del, err := r.deleteFilter(ctx, t, f, snap, opts.deletes)
	if err != nil {
		return "", err
	}
	if opts.deletes == deletesApplied {
		var deleted []int64
		if del != "" {
			if deleted, err = r.deletedPositions(ctx, t, f, snap); err != nil {
				return "", err
			}
		}
		if err := r.structSkipped(ctx, t, f, cols, snap, deleted); err != nil {
			return "", err
		}
	}
	return withWhere(base, where, del), nil
}

// withWhere adds to a file's base query its filters and a delete filter
// ("": none).
func withWhere(base string, where []string, del string) string {
	if del != "" {
		where = append(slices.Clip(where), del)
	}
	if len(where) > 0 {
		base += " WHERE " + strings.Join(where, " AND ")
	}
	return base
}

// fileBase is fileSQL without the deletes: the query's SELECT and FROM,
// and its filters of a partial file.
func (r *Reader) fileBase(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions) (base string, where []string, err error) {
	if err := r.exists(f.Path); err != nil {
		return "", nil, err
	}
	kp, err := r.keyParam(ctx, f.encryptionKey)
	if err != nil {
		return "", nil, err
	}
	var root *pnode
	if kp == "" {
		if root, err = r.parquetSchema(ctx, f.Path); err != nil {
			return "", nil, err
		}
	} else if err := r.checkEncryptedNested(ctx, t, cols); err != nil {
		return "", nil, err
	}
	if q := formats.QuirkNestedDefaultsDropped; root != nil && f.MappingID == nil && r.readsWith(q) {
		if field := nestedFieldsMissing(root, cols, !root.allFieldIDs()); field != "" {
			return "", nil, r.unreadable(q, t, "data file %s lacks %s, a field of the table's column below a list element or map key or value", oneline.Name(r.relPath(f.Path)), field)
		}
	}
	if q := formats.QuirkRemapListsUnreserved; root != nil && f.MappingID == nil && r.readsWith(q) {
		if field := remappedNestedList(root, cols, !root.allFieldIDs()); field != "" {
			return "", nil, r.unreadable(q, t, "data file %s has %s, a nested list element or map key or value in a column DuckDB 1.3.0 remaps", oneline.Name(r.relPath(f.Path)), field)
		}
	}
	if err := r.timeNSUnreadable(ctx, t, f, root, cols, kp); err != nil {
		return "", nil, err
	}
	src, start := parquetsql.Path(f.Path), "NULL"
	if f.RowIDStart != nil {
		start = fmt.Sprintf("%d", *f.RowIDStart)
	}
	if opts.shape {
		src, start = filesPlaceholder, startPlaceholder
	}
	var p projection
	switch {
	case f.MappingID != nil:
		p, err = r.projectByMapping(ctx, t, f, src, root, cols, kp)
	case root != nil && !root.allFieldIDs():
		p, err = r.projectUnmapped(src, root, cols, kp)
	default:
		p, err = projectByFieldID(src, root, cols, kp)
	}
	if err != nil {
		return "", nil, err
	}
	if opts.RowIDs {
		p.sel = append(p.sel, rowIDExpr(start, p.rowCol)+" AS "+RowIDColumn)
	}
	if opts.positions {
		p.sel = append(p.sel, "file_row_number AS "+positionColumn)
	}
	if opts.shape {
		p.sel = append(p.sel, indexPlaceholder+" AS "+fileColumn)
	}
	if where, err = partialFilter(f, p.snapCol, snap); err != nil {
		return "", nil, err
	}
	return "SELECT " + strings.Join(p.sel, ", ") + " FROM " + p.from, where, nil
}

// rowIDExpr is a file row's id (§5.7): the stored row id when the file has
// one, else row_id_start + position (start: the file's row_id_start as SQL).
func rowIDExpr(start, rowCol string) string {
	e := fmt.Sprintf("CAST(%s + file_row_number AS BIGINT)", start)
	if rowCol != "" {
		e = fmt.Sprintf("COALESCE(%s, %s)", rowCol, e)
	}
	return e
}

// partialFilter keeps the rows of a partial file visible at snap: by the
// per-row snapshot column (partial_max, 'partial_max:N') or by position
// (split lists 's:n|...').
func partialFilter(f DataFile, snapCol string, snap int64) ([]string, error) {
	bySnapshot := func(what string) ([]string, error) {
		if snapCol == "" {
			return nil, fmt.Errorf("partial file (%s) has no _ducklake_internal_snapshot_id column", what)
		}
		return []string{fmt.Sprintf("%s <= %d", snapCol, snap)}, nil
	}
	switch {
	case f.PartialMax != nil && *f.PartialMax > snap:
		return bySnapshot(fmt.Sprintf("partial_max %d", *f.PartialMax))
	case f.PartialInfo != nil && *f.PartialInfo != "":
		info := *f.PartialInfo
		if rest, ok := strings.CutPrefix(info, "partial_max:"); ok {
			n, err := partialMaxInfo(info, rest)
			if err != nil {
				return nil, err
			}
			if n > snap {
				return bySnapshot(info)
			}
			return nil, nil
		}
		limit, _, err := splitLimit(info, snap)
		if err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("file_row_number < %d", limit)}, nil
	}
	return nil, nil
}

// deleteFilter applies the positions deleted at snap as opts.deletes says:
// excluded (what a reader sees), ignored, or the only rows kept ("" when
// nothing is filtered).
func (r *Reader) deleteFilter(ctx context.Context, t Table, f DataFile, snap int64, mode deleteMode) (string, error) {
	deleted, err := r.deletedPositions(ctx, t, f, snap)
	if err != nil || mode == deletesIgnored {
		return "", err
	}
	if len(deleted) == 0 {
		if mode == deletesOnly {
			return "false", nil
		}
		return "", nil
	}
	set, err := r.positionSet(ctx, deleted)
	if err != nil {
		return "", err
	}
	op := "NOT IN"
	if mode == deletesOnly {
		op = "IN"
	}
	return "file_row_number " + op + " (" + set + ")", nil
}

// positionSet returns a subquery yielding the positions: a literal list
// when short, else a temporary table named after the positions' hash (so
// the part's SQL still determines its rows, and digests can be reused).
func (r *Reader) positionSet(ctx context.Context, pos []int64) (string, error) {
	if len(pos) <= r.maxInlinePositions {
		return "SELECT unnest(" + int64List(pos) + "::BIGINT[])", nil
	}
	name := "fdl_del_" + positionsHash(pos)[:24]
	if !r.tempTables[name] {
		if _, err := r.conn.ExecContext(ctx, "CREATE TEMP TABLE IF NOT EXISTS "+name+" AS SELECT unnest(?::BIGINT[]) AS pos", pos); err != nil {
			return "", fmt.Errorf("stage %d deleted positions: %w", len(pos), err)
		}
		r.tempTables[name] = true
	}
	return "SELECT pos FROM " + name, nil
}

func int64List(v []int64) string {
	b := make([]byte, 0, 2+8*len(v))
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return string(append(b, ']'))
}

// positionsHash is the sha256 (hex) of positions written "p1,p2,...,":
// it names a set of positions (millions, in big lakes: no fmt per value).
func positionsHash(pos []int64) string {
	h := sha256.New()
	buf := make([]byte, 0, 4096)
	for _, p := range pos {
		buf = append(strconv.AppendInt(buf, p, 10), ',')
		if len(buf) > 4000 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// Rows runs the query of a table ("schema.table") at a snapshot on the
// reader's connection. Close the rows before using the reader again. The
// rows stream on the reader's one metadata thread (see scanning).
func (r *Reader) Rows(ctx context.Context, table string, snap int64, opts ScanOptions) (*sql.Rows, error) {
	t, err := r.Table(ctx, table, snap)
	if err != nil {
		return nil, err
	}
	q, err := r.Query(ctx, t, snap, opts)
	if err != nil {
		return nil, err
	}
	// The table's query names its files deep inside: all are made readable.
	if err := r.readableAll(ctx); err != nil {
		return nil, err
	}
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read %s at snapshot %d of %s: %w", table, snap, oneline.Name(r.path), err)
	}
	return rows, nil
}
