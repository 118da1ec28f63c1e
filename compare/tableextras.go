package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// TableExtras is what a catalog records of a table at a snapshot beside
// its columns, and a reader's SQL sees: its partitioning
// (ducklake_partition_info and ducklake_partition_column: ALTER TABLE …
// SET PARTITIONED BY, RESET PARTITIONED BY), its sort hints
// (ducklake_sort_info and ducklake_sort_expression, formats 0.4 on: SET
// SORTED BY), its tags (ducklake_tag: COMMENT ON TABLE writes the key
// "comment") and its columns' and nested fields' tags
// (ducklake_column_tag: COMMENT ON COLUMN). The rows are the ones the
// schema description reads, once per reader.
type TableExtras struct {
	// Partitioning is the partition keys in key order; nil when the
	// table is not partitioned.
	Partitioning []PartitionKey
	// Sorting is the sort hint's keys in key order; nil without one.
	Sorting []SortKey
	// Tags are the table's tags by key, as its readers take them (a
	// row with a NULL value is none: tagRow.readerTag).
	Tags map[string]*string
	// ColumnTags are the columns' and nested fields' tags by column_id,
	// then key.
	ColumnTags map[int64]map[string]*string
}

// PartitionKey is one partition key: the column_id it partitions by (a
// format storing a position, 0.1, is read as the column_id there) and
// its transform, in lower case ("identity", "year", "bucket(4)").
type PartitionKey struct {
	ColumnID  int64
	Transform string
}

// SortKey is one key of a sort hint: the expression (a column's name as
// DuckLake writes it), its dialect, direction and null order as stored.
type SortKey struct {
	Expression, Dialect, Direction, NullOrder string
}

// sortRow is a row of ducklake_sort_info joined with its
// ducklake_sort_expression rows.
type sortRow struct {
	table, begin, end                       sql.NullInt64
	index                                   sql.NullInt64
	expression, dialect, direction, nullOrd sql.NullString
}

// TableExtras reads the partitioning, sort hints and tags visible at
// snap of every table, by table_id (a table with none has no entry): one
// pass over the rows the reader keeps, whatever the number of tables.
func (r *Reader) TableExtras(ctx context.Context, snap int64) (map[int64]*TableExtras, error) {
	out := map[int64]*TableExtras{}
	of := func(id int64) *TableExtras {
		if out[id] == nil {
			out[id] = &TableExtras{}
		}
		return out[id]
	}
	if !r.empty("ducklake_partition_column") && !r.empty("ducklake_partition_info") {
		rows, err := r.partitionRows(ctx)
		if err != nil {
			return nil, fmt.Errorf("read partitioning in %s: %w", oneline.Name(r.path), err)
		}
		for _, p := range rows {
			if !p.table.Valid || !visibleRow(p.begin, p.end, snap) {
				continue
			}
			if n := nullIn("partition_key_index", p.index, "column_id", p.column, "transform", p.transform); n != "" {
				return nil, fmt.Errorf("read partitioning of table_id %d in %s at snapshot %d: a partition column has a NULL %s", p.table.Int64, oneline.Name(r.path), snap, n)
			}
			col := p.column.Int64
			if !r.format.Has(formats.CapPartitionFieldIDs) {
				// 0.1: a position among the top-level columns.
				cols, err := r.Columns(ctx, p.table.Int64, snap)
				if err != nil {
					return nil, err
				}
				if col >= 0 && col < int64(len(cols)) {
					col = cols[col].ID
				}
			}
			x := of(p.table.Int64)
			x.Partitioning = append(x.Partitioning, PartitionKey{ColumnID: col, Transform: strings.ToLower(p.transform.String)})
		}
	}
	if r.has("ducklake_sort_info", "begin_snapshot") && r.has("ducklake_sort_expression", "expression") && !r.empty("ducklake_sort_info") && !r.empty("ducklake_sort_expression") {
		rows, err := readOnce(&r.meta.extras.sorts, func() ([]sortRow, error) { return r.readSortRows(ctx) })
		if err != nil {
			return nil, fmt.Errorf("read sort hints in %s: %w", oneline.Name(r.path), err)
		}
		for _, s := range rows {
			if !s.table.Valid || !visibleRow(s.begin, s.end, snap) {
				continue
			}
			x := of(s.table.Int64)
			x.Sorting = append(x.Sorting, SortKey{Expression: s.expression.String, Dialect: s.dialect.String, Direction: s.direction.String, NullOrder: s.nullOrd.String})
		}
	}
	tags, err := r.visibleTags(ctx, snap)
	if err != nil {
		return nil, err
	}
	for id, t := range tags {
		of(id).Tags = t
	}
	if !r.empty("ducklake_column_tag") {
		rows, err := r.tagRows(ctx, true)
		if err != nil {
			return nil, fmt.Errorf("read column tags in %s: %w", oneline.Name(r.path), err)
		}
		for _, g := range rows {
			if !g.owner.Valid || !visibleRow(g.begin, g.end, snap) || !g.readerTag() {
				continue
			}
			id, err := strconv.ParseInt(g.sub.String, 10, 64)
			if err != nil || !g.sub.Valid || !g.key.Valid {
				return nil, fmt.Errorf("read column tags of table_id %d in %s at snapshot %d: ducklake_column_tag has a tag with a NULL column_id or key", g.owner.Int64, oneline.Name(r.path), snap)
			}
			x := of(g.owner.Int64)
			if x.ColumnTags == nil {
				x.ColumnTags = map[int64]map[string]*string{}
			}
			if x.ColumnTags[id] == nil {
				x.ColumnTags[id] = map[string]*string{}
			}
			x.ColumnTags[id][g.key.String] = nullString(g.value)
		}
	}
	return out, nil
}

// visibleTags is the tags (ducklake_tag) visible at snap, by object_id
// (a schema's, a table's or a view's), then key: the rows with a value, as
// the readers take them (tagRow.readerTag).
func (r *Reader) visibleTags(ctx context.Context, snap int64) (map[int64]map[string]*string, error) {
	if r.empty("ducklake_tag") {
		return nil, nil
	}
	rows, err := r.tagRows(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("read tags in %s: %w", oneline.Name(r.path), err)
	}
	out := map[int64]map[string]*string{}
	for _, g := range rows {
		if !g.owner.Valid || !visibleRow(g.begin, g.end, snap) || !g.readerTag() {
			continue
		}
		if !g.key.Valid {
			return nil, fmt.Errorf("read tags in %s: ducklake_tag has a tag of object_id %d at snapshot %d with a NULL key", oneline.Name(r.path), g.owner.Int64, snap)
		}
		if out[g.owner.Int64] == nil {
			out[g.owner.Int64] = map[string]*string{}
		}
		out[g.owner.Int64][g.key.String] = nullString(g.value)
	}
	return out, nil
}

// readSortRows reads every sort key with its hint's visibility, by table
// and key index. A key belongs to the hint of its sort_id, whatever
// table_id it names: the readers join the two tables USING (sort_id).
func (r *Reader) readSortRows(ctx context.Context) ([]sortRow, error) {
	return scanAll(ctx, r, `SELECT i.table_id, i.begin_snapshot, i.end_snapshot, e.sort_key_index, e.expression, e.dialect, e.sort_direction, e.null_order FROM cat.ducklake_sort_info i
		JOIN cat.ducklake_sort_expression e ON e.sort_id = i.sort_id
		ORDER BY i.table_id, i.begin_snapshot, e.sort_key_index`, func(x *sortRow) []any {
		return []any{&x.table, &x.begin, &x.end, &x.index, &x.expression, &x.dialect, &x.direction, &x.nullOrd}
	})
}

// ViewExtras is what a catalog records of a view at a snapshot beside its
// SQL: its tags (ducklake_tag: COMMENT ON VIEW) and its columns' tags
// (ducklake_view_column_tag, format 1.1: COMMENT ON COLUMN of a view),
// by column name, then key.
type ViewExtras struct {
	Tags       map[string]*string
	ColumnTags map[string]map[string]*string
}

// viewColumnTagRows reads every row of ducklake_view_column_tag once per
// reader (format 1.1).
func (r *Reader) viewColumnTagRows(ctx context.Context) ([]tagRow, error) {
	return readOnce(&r.meta.extras.viewColTags, func() ([]tagRow, error) {
		return scanAll(ctx, r, `SELECT view_id, begin_snapshot, end_snapshot, column_name, key, value FROM cat.ducklake_view_column_tag`,
			func(x *tagRow) []any { return []any{&x.owner, &x.begin, &x.end, &x.sub, &x.key, &x.value} })
	})
}

// ViewExtras reads the tags of the views visible at snap, by
// View.DottedName (views without tags are left out).
func (r *Reader) ViewExtras(ctx context.Context, snap int64) (map[string]ViewExtras, error) {
	if r.empty("ducklake_view") {
		return nil, nil
	}
	views, err := r.viewRows(ctx)
	if err != nil {
		return nil, fmt.Errorf("read views of %s at snapshot %d: %w", oneline.Name(r.path), snap, err)
	}
	schemas, _, err := r.schemaRows(ctx)
	if err != nil {
		return nil, err
	}
	schemaName := map[int64]string{}
	for _, s := range schemas {
		if visibleRow(s.begin, s.end, snap) && s.id.Valid {
			schemaName[s.id.Int64] = s.name.String
		}
	}
	var colTags []tagRow
	if r.format.Has(formats.CapViewColumnComments) && !r.empty("ducklake_view_column_tag") {
		if colTags, err = r.viewColumnTagRows(ctx); err != nil {
			return nil, fmt.Errorf("read view column tags of %s: %w", oneline.Name(r.path), err)
		}
	}
	tags, err := r.visibleTags(ctx, snap)
	if err != nil {
		return nil, err
	}
	out := map[string]ViewExtras{}
	for _, v := range views {
		if !visibleRow(v.begin, v.end, snap) || !v.id.Valid {
			continue
		}
		name, ok := schemaName[v.schema.Int64]
		if !ok || !v.name.Valid {
			continue // Views leaves it out too
		}
		key := View{Schema: name, Name: v.name.String}.DottedName()
		x := ViewExtras{Tags: tags[v.id.Int64]}
		for _, g := range colTags {
			if !g.owner.Valid || g.owner.Int64 != v.id.Int64 || !visibleRow(g.begin, g.end, snap) {
				continue
			}
			if !g.sub.Valid || !g.key.Valid {
				return nil, fmt.Errorf("read view column tags of %s in %s at snapshot %d: ducklake_view_column_tag has a tag with a NULL column_name or key", oneline.Name(key), oneline.Name(r.path), snap)
			}
			if x.ColumnTags == nil {
				x.ColumnTags = map[string]map[string]*string{}
			}
			if x.ColumnTags[g.sub.String] == nil {
				x.ColumnTags[g.sub.String] = map[string]*string{}
			}
			x.ColumnTags[g.sub.String][g.key.String] = nullString(g.value)
		}
		if x.Tags != nil || x.ColumnTags != nil {
			out[key] = x
		}
	}
	return out, nil
}
