package compare

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Column is a table column (or nested field) visible at a snapshot, as
// ducklake_column records it; field id = ID at every nesting level.
type Column struct {
	ID             int64   `json:"id"`
	Name           string  `json:"name"`
	Type           string  `json:"type"` // DuckLake type name as the format stores it
	InitialDefault *string `json:"initial_default,omitempty"`
	DefaultValue   *string `json:"default_value,omitempty"`
	NullsAllowed   bool    `json:"nulls_allowed"`
	// DefaultType is default_value_type (0.4+; nil where the format or
	// the row has none).
	DefaultType *string   `json:"default_value_type,omitempty"`
	Order       int64     `json:"order"`
	Children    []*Column `json:"children,omitempty"`
	// quirks are the reader quirks of the catalog's format (how its real
	// reader reads this column).
	quirks formats.ReaderQuirk
	// nullsNull: nulls_allowed is NULL, which every DuckLake reader fails
	// on (see refused.go).
	nullsNull bool
}

// Columns returns the top-level columns of a table at a snapshot, in
// column_order, with their nested fields. They are shared with later calls
// (see metaMemo): read them, do not modify them.
func (r *Reader) Columns(ctx context.Context, tableID, snap int64) ([]*Column, error) {
	return r.columnsAt(ctx, tableID, snap, false)
}

func (r *Reader) columnsAt(ctx context.Context, tableID, snap int64, topOnly bool) ([]*Column, error) {
	if topOnly {
		return r.readColumns(ctx, tableID, snap, true)
	}
	ec, err := r.epochColumnsOf(ctx, tableID, snap)
	if err != nil {
		return nil, err
	}
	return ec.cols, nil
}

// epochColumnsOf is the entry of table tableID's columns at snap, read
// once per columns epoch.
func (r *Reader) epochColumnsOf(ctx context.Context, tableID, snap int64) (*epochColumns, error) {
	e, err := r.epoch(ctx, snap, tableID, columnsEpoch...)
	if err != nil {
		return nil, err
	}
	key := [2]int64{tableID, e}
	if ec, ok := r.meta.columns[key]; ok {
		return ec, nil
	}
	cs, err := r.readColumns(ctx, tableID, snap, false)
	if err != nil {
		return nil, err
	}
	ec := &epochColumns{cols: cs}
	r.meta.columns[key] = ec
	return ec, nil
}

func (r *Reader) readColumns(ctx context.Context, tableID, snap int64, topOnly bool) ([]*Column, error) {
	if all := r.allColumnRows(ctx); all != nil && !all.tied[tableID] {
		var rows []columnRow
		for _, x := range all.tables[tableID] {
			if visibleRow(x.begin, x.end, snap) {
				rows = append(rows, x)
			}
		}
		return columnTree(rows, topOnly), nil
	}
	q := fmt.Sprintf(`SELECT %s
		FROM cat.ducklake_column c WHERE c.table_id = %d AND %s
		ORDER BY c.parent_column NULLS FIRST, c.column_order`, r.columnSelect(), tableID, visible("c", snap))
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read columns of table %d in %s at snapshot %d: %w", tableID, oneline.Name(r.path), snap, err)
	}
	defer rows.Close()
	var read []columnRow
	for rows.Next() {
		var x columnRow
		if err := r.scanColumnRow(rows, &x); err != nil {
			return nil, fmt.Errorf("read columns of table %d in %s: %w", tableID, oneline.Name(r.path), err)
		}
		read = append(read, x)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return columnTree(read, topOnly), nil
}

// columnRow is a row of ducklake_column as readColumns reads it: the
// column without its fields, its parent, and (allColumnRows) its
// snapshots.
type columnRow struct {
	c          Column
	parent     sql.NullInt64
	begin, end sql.NullInt64
}

// columnSelect is what readColumns selects of ducklake_column c, in the
// order scanColumnRow scans it.
func (r *Reader) columnSelect() string {
	return "c.column_id, c.column_name, c.column_type, c.initial_default, c.default_value, c.nulls_allowed, c.column_order, c.parent_column, " + r.col("ducklake_column", "c", "default_value_type")
}

// scanColumnRow scans columnSelect's values into x, then any more into
// more.
func (r *Reader) scanColumnRow(rows *sql.Rows, x *columnRow, more ...any) error {
	c := &x.c
	var initial, def, defType sql.NullString
	var nulls sql.NullBool
	if err := rows.Scan(append([]any{&c.ID, &c.Name, &c.Type, &initial, &def, &nulls, &c.Order, &x.parent, &defType}, more...)...); err != nil {
		return err
	}
	c.InitialDefault, c.DefaultValue, c.DefaultType = nullString(initial), nullString(def), nullString(defType)
	// A NULL nulls_allowed fails every real reader (refused.go); it
	// reads as true here only so that the rest of the walk goes on.
	c.NullsAllowed, c.nullsNull = !nulls.Valid || nulls.Bool, !nulls.Valid
	c.quirks = r.format.Quirks
	return nil
}

// allColumnRows reads every row of ducklake_column once per reader, by
// table_id, each table's in readColumns' order (its rows at a snapshot
// are those visible there, in that order): one statement for the
// columns of every table at every snapshot the reader is asked, where
// readColumns ran one per table and epoch. The same statement reads what
// readColumnRows asks of the table as a whole (lower(column_type),
// lower(trim(column_type)) and the column tree's condition as SQL
// computes them), which was a statement of its own. Rows of a NULL
// table_id are left out, as before: a catalog with one is refused at
// open (formats' required columns), and one such row failing to scan
// would send every table to its own query. Nil when they are not read so: the snapshot and id columns
// are not all BIGINT (a frozen catalog's stand-ins, compared in SQL as
// their own type), or the statement or a row's scan failed (a value
// readColumns may never read, of a row not visible where it reads);
// readColumns then reads the table's columns at the snapshot, and fails,
// as before, and readColumnRows reads by its own statement.
func (r *Reader) allColumnRows(ctx context.Context) *columnRows {
	var keys [][2]string
	for _, c := range []string{"table_id", "column_id", "column_order", "parent_column", "begin_snapshot", "end_snapshot"} {
		keys = append(keys, [2]string{"ducklake_column", c})
	}
	return r.meta.columnRows.get(ctx, r, keys, func() (*columnRows, error) {
		all := &columnRows{tables: map[int64][]columnRow{}, tied: map[int64]bool{}, whole: newColumnsWhole()}
		err := r.eachRow(ctx, `SELECT `+r.columnSelect()+`, c.table_id, c.begin_snapshot, c.end_snapshot, `+columnsWholeSelect+`
		FROM cat.ducklake_column c WHERE c.table_id IS NOT NULL
		ORDER BY c.table_id, c.parent_column NULLS FIRST, c.column_order`, func(rows *sql.Rows) error {
			var x columnRow
			var table sql.NullInt64
			var low, trim sql.NullString
			var inTree sql.NullBool
			if err := r.scanColumnRow(rows, &x, &table, &x.begin, &x.end, &low, &trim, &inTree); err != nil {
				return err
			}
			all.whole.add(table, x.begin, x.end, low, trim, inTree)
			if table.Valid {
				all.tables[table.Int64] = append(all.tables[table.Int64], x)
			}
			return nil
		})
		for id, rows := range all.tables {
			if tiedColumnRows(rows) {
				all.tied[id] = true
			}
		}
		return all, err
	})
}

// columnRows are every table's ducklake_column rows (allColumnRows).
type columnRows struct {
	tables map[int64][]columnRow
	// tied are the tables whose columns readColumns reads by its own
	// query (tiedColumnRows).
	tied map[int64]bool
	// whole: what readColumnRows asks of every row (nil once it took
	// it).
	whole *columnsWhole
}

// tiedColumnRows reports whether two rows of a table's (in
// allColumnRows' order) with one parent and column_order are visible at
// one snapshot: DuckDB's sort is not stable, so their order among the
// whole table's rows may differ from the order readColumns' own query
// of that snapshot gives them (and a tree built from them with it).
func tiedColumnRows(rows []columnRow) bool {
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].parent == rows[i].parent && rows[j].c.Order == rows[i].c.Order {
			j++
		}
		if j-i > 1 && overlapping(rows[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// overlapping reports whether two of rows are visible at one snapshot
// (visibleRow: from begin, before end; never without a begin): sorted by
// begin, a row overlaps an earlier one when it begins before the latest
// end so far (a group may hold a row for each of thousands of versions).
func overlapping(rows []columnRow) bool {
	var live []columnRow
	for _, x := range rows {
		if x.begin.Valid && (!x.end.Valid || x.end.Int64 > x.begin.Int64) {
			live = append(live, x)
		}
	}
	slices.SortFunc(live, func(a, b columnRow) int { return cmp.Compare(a.begin.Int64, b.begin.Int64) })
	for k := 1; k < len(live); k++ {
		if visibleTogether(live[k-1], live[k]) {
			return true
		}
		// The earlier row ending later stays the one to meet.
		if !live[k-1].end.Valid || live[k].end.Valid && live[k-1].end.Int64 > live[k].end.Int64 {
			live[k] = live[k-1]
		}
	}
	return false
}

// visibleTogether reports whether rows a and b are visible at some one
// snapshot (visibleRow).
func visibleTogether(a, b columnRow) bool {
	if !a.begin.Valid || !b.begin.Valid {
		return false
	}
	from := max(a.begin.Int64, b.begin.Int64)
	return (!a.end.Valid || from < a.end.Int64) && (!b.end.Valid || from < b.end.Int64)
}

// columnTree is the top-level columns of rows (a table's at a snapshot,
// in readColumns' order), fresh copies with their nested fields unless
// topOnly.
func columnTree(rows []columnRow, topOnly bool) []*Column {
	byID := map[int64]*Column{}
	var top []*Column
	type pending struct {
		c      *Column
		parent int64
	}
	var kids []pending
	for _, x := range rows {
		c := x.c
		cp := &c
		byID[c.ID] = cp
		if x.parent.Valid {
			kids = append(kids, pending{cp, x.parent.Int64})
		} else {
			top = append(top, cp)
		}
	}
	if topOnly {
		return top
	}
	for _, k := range kids {
		p, ok := byID[k.parent]
		if !ok {
			// A field whose parent is not visible: no reader loads
			// the catalog at snap (formats.ParentRefusal), which the
			// proof reports for every table there (loadRefusal). The
			// field is left out of what is described.
			continue
		}
		p.Children = append(p.Children, k.c)
	}
	for _, c := range byID {
		sort.SliceStable(c.Children, func(i, j int) bool { return c.Children[i].Order < c.Children[j].Order })
	}
	return top
}

// UnsupportedError names a feature this reader cannot read; it wraps ErrIncomparable.
type UnsupportedError struct{ What string }

func (e *UnsupportedError) Error() string { return "unsupported: " + e.What }
func (e *UnsupportedError) Unwrap() error { return ErrIncomparable }

// DuckType is the DuckDB type of a column, nested fields included. The
// column_type text is read as DuckLake's type parser reads it
// (DuckLakeTypes::FromString, the same in every release): a type name
// matches case-insensitively and is not trimmed, and a decimal is only
// "decimal(W,S)" with that lower-case prefix (formats.DecimalArgs). Letter
// case is ASCII only (StringUtil::CIEquals): formats.TypeIs. A text
// the parser refuses is an *UnsupportedError here; refusal (refused.go)
// reports the table as unreadable before its rows are asked for.
func (c *Column) DuckType() (string, error) {
	t := c.Type
	switch {
	case formats.TypeIs(t, "struct"):
		if len(c.Children) == 0 {
			return "", fmt.Errorf("struct column %s (id %d) has no fields", c.Name, c.ID)
		}
		parts := make([]string, len(c.Children))
		for i, ch := range c.Children {
			ct, err := ch.DuckType()
			if err != nil {
				return "", err
			}
			parts[i] = ident(ch.Name) + " " + ct
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")", nil
	case formats.TypeIs(t, "list"):
		if len(c.Children) != 1 {
			return "", fmt.Errorf("list column %s (id %d) has %d element fields", c.Name, c.ID, len(c.Children))
		}
		et, err := c.Children[0].DuckType()
		if err != nil {
			return "", err
		}
		return et + "[]", nil
	case formats.TypeIs(t, "map"):
		if len(c.Children) != 2 {
			return "", fmt.Errorf("map column %s (id %d) has %d fields", c.Name, c.ID, len(c.Children))
		}
		kt, err := c.Children[0].DuckType()
		if err != nil {
			return "", err
		}
		vt, err := c.Children[1].DuckType()
		if err != nil {
			return "", err
		}
		return "MAP(" + kt + ", " + vt + ")", nil
	}
	if d, ok := formats.ScalarDuckType(t); ok {
		return d, nil
	}
	return "", &UnsupportedError{What: fmt.Sprintf("column %s (id %d) has type %q", c.Name, c.ID, c.Type)}
}

// nested tells whether the column's type is one of the nested types, in
// any ASCII letter case (TransformColumnType's StringUtil::CIEquals; a
// type that is one of them only in Go's Unicode folding, "ſtruct", is
// none, and the readers refuse a column of it with fields).
func (c *Column) nested() bool {
	return formats.TypeIs(c.Type, "struct") || formats.TypeIs(c.Type, "list") || formats.TypeIs(c.Type, "map")
}

// defaultExpr is the value of a column missing from a file: its
// initial_default cast to the column type, or NULL (§5.4), as the format's
// reader parses it (readDefault).
func (c *Column) defaultExpr() (string, error) {
	dt, err := c.DuckType()
	if err != nil {
		return "", err
	}
	def := c.readDefault()
	if def == nil {
		return "CAST(NULL AS " + dt + ")", nil
	}
	return "CAST(" + formats.SQLText(*def) + " AS " + dt + ")", nil
}
