package compare

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// RenamedColumns lists, by table id, the columns (nested fields included)
// that were ever renamed up to a snapshot: those whose rows in
// ducklake_column, begun at or before snap, carry more than one name. Data
// files written before a rename carry the old name, which is what
// files.json's renamed_columns warns a reader without DuckLake of. Each
// column is named by its path at its latest rows (a nested field after its
// parents, "s.v1", so that three renamed fields v1 of three structs are
// told apart), sorted.
func (r *Reader) RenamedColumns(ctx context.Context, snap int64) (map[int64][]string, error) {
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`WITH RECURSIVE latest AS (
			SELECT table_id, column_id, arg_max(column_name, begin_snapshot) AS name,
				arg_max(parent_column, begin_snapshot) AS parent, count(DISTINCT column_name) > 1 AS renamed
			FROM cat.ducklake_column WHERE begin_snapshot <= %d GROUP BY table_id, column_id),
		paths AS (
			SELECT table_id, column_id, name AS path, parent, 0 AS depth FROM latest WHERE renamed
			UNION ALL
			SELECT p.table_id, p.column_id, l.name || '.' || p.path, l.parent, p.depth + 1
			FROM paths p JOIN latest l ON l.table_id = p.table_id AND l.column_id = p.parent
			WHERE p.depth < 1000)
		SELECT table_id, path FROM paths
		WHERE parent IS NULL OR NOT EXISTS (SELECT 1 FROM latest l WHERE l.table_id = paths.table_id AND l.column_id = paths.parent)
		ORDER BY table_id, path`, snap))
	if err != nil {
		return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", oneline.Name(r.path), snap, err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", oneline.Name(r.path), snap, err)
		}
		out[id] = append(out[id], name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the column names of %s up to snapshot %d: %w", oneline.Name(r.path), snap, err)
	}
	return out, nil
}

// ColumnsReadOtherwiseByName lists, by table id, the columns (nested
// fields included, named by their path as RenamedColumns names them) that
// a reader of the Parquet files without DuckLake, taking fields by name
// (read_parquet(..., union_by_name = true), what files.json's readers are
// told they may do unless a file has deletes or the table renamed
// columns), reads otherwise than DuckLake's readers in a data file visible
// at snap:
//
//   - a column added with a default after the file was written: the file
//     has no field for it, and DuckLake's readers read its
//     initial_default (ALTER TABLE ... ADD COLUMN c ... DEFAULT 7), where
//     by name it is NULL; not a column with fields, whose initial_default
//     no reader takes (TransformColumnType: NULL, as by name;
//     TestColumnsReadOtherwiseByNameNested);
//   - a column added under the name an earlier, dropped column had: the
//     file holds the dropped column's values under that name, which
//     DuckLake's readers never read for the new column (field ids differ:
//     NULL, or its initial_default), where by name they are read as the
//     new column's.
//
// The files are, for the first case, those that give DuckLake's readers
// no field for the column, by what their footers hold: a file registered
// with ducklake_add_data_files (a name mapping), whenever it was
// registered, when its mapping names no field of its footer for the
// column (its mapping has no entry for the column's id, or the entry's
// source is not in the footer: DuckLake then reads initial_default,
// CreateColumnFromFieldId); a file DuckLake wrote (no mapping) begun
// before the column's first snapshot whose footer has no field of the
// column's id (a file merged or rewritten after the column came holds it;
// DuckLake writes every column into a file begun later). For the second
// case they are the files without a name mapping begun before the
// column's first snapshot whose footer has no field of its id and one of
// the dropped column's, and the files with a name mapping whose footer
// has a field of the column's name (its path) that the mapping does not
// give the column (DuckLake reads another field, or the default, where a
// reader by name reads that one). An encrypted file, one whose footer
// cannot be read or one without field ids counts by the catalog alone: its
// begin_snapshot (for the second case, begun in the dropped column's
// life), or, for the first case, its mapping's entries; with a mapping,
// not at all for the second. Each entry says which case, how many files
// and the first of them (shownByName).
func (r *Reader) ColumnsReadOtherwiseByName(ctx context.Context, snap int64) (map[int64][]string, error) {
	type candidate struct {
		table, column, first  int64
		path                  string
		names                 []string // path's names, parents first
		init                  sql.NullString
		old, oldBegin, oldEnd sql.NullInt64
	}
	var cands []candidate
	err := r.eachRow(ctx, fmt.Sprintf(`WITH RECURSIVE cols AS (
			SELECT table_id, column_id, min(begin_snapshot) AS first_begin,
				max(coalesce(end_snapshot, 9223372036854775807)) AS last_end,
				arg_max(column_name, begin_snapshot) AS name, arg_max(parent_column, begin_snapshot) AS parent,
				arg_max(initial_default, begin_snapshot) AS init,
				bool_or(begin_snapshot <= %[1]d AND (end_snapshot IS NULL OR end_snapshot > %[1]d)) AS live
			FROM cat.ducklake_column WHERE begin_snapshot <= %[1]d GROUP BY table_id, column_id),
		files AS (
			SELECT table_id, begin_snapshot, %[2]s AS mapped FROM cat.ducklake_data_file
			WHERE begin_snapshot <= %[1]d AND (end_snapshot IS NULL OR end_snapshot > %[1]d)),
		found AS (
			SELECT c.table_id, c.column_id, c.name, c.parent, c.first_begin, c.init, NULL::BIGINT AS old_id, NULL::BIGINT AS old_begin, NULL::BIGINT AS old_end
			FROM cols c
			WHERE c.live AND c.init IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM cols k WHERE k.table_id = c.table_id AND k.parent = c.column_id AND k.live)
				AND (c.parent IS NULL OR EXISTS (SELECT 1 FROM cols p WHERE p.table_id = c.table_id AND p.column_id = c.parent AND p.first_begin < c.first_begin))
				AND EXISTS (SELECT 1 FROM files f WHERE f.table_id = c.table_id AND (f.begin_snapshot < c.first_begin OR f.mapped))
			UNION ALL
			SELECT c.table_id, c.column_id, c.name, c.parent, c.first_begin, NULL, o.column_id, o.first_begin, o.last_end
			FROM cols c JOIN cols o ON o.table_id = c.table_id AND o.column_id <> c.column_id AND o.parent IS NOT DISTINCT FROM c.parent
				AND lower(o.name) = lower(c.name) AND NOT o.live AND o.last_end <= c.first_begin
			WHERE c.live AND EXISTS (SELECT 1 FROM files f WHERE f.table_id = c.table_id AND (f.begin_snapshot < c.first_begin OR f.mapped))),
		paths AS (
			SELECT table_id, column_id, name AS path, name AS npath, parent, first_begin, init, old_id, old_begin, old_end, 0 AS depth FROM found
			UNION ALL
			SELECT p.table_id, p.column_id, l.name || '.' || p.path, l.name || chr(0) || p.npath, l.parent, p.first_begin, p.init, p.old_id, p.old_begin, p.old_end, p.depth + 1
			FROM paths p JOIN cols l ON l.table_id = p.table_id AND l.column_id = p.parent
			WHERE p.depth < 1000)
		SELECT table_id, column_id, path, npath, first_begin, init, old_id, old_begin, old_end FROM paths
		WHERE parent IS NULL OR NOT EXISTS (SELECT 1 FROM cols l WHERE l.table_id = paths.table_id AND l.column_id = paths.parent)
		ORDER BY table_id, path, old_id`, snap, r.col("ducklake_data_file", "ducklake_data_file", "mapping_id")+" IS NOT NULL"), func(rows *sql.Rows) error {
		var c candidate
		var npath string
		if err := rows.Scan(&c.table, &c.column, &c.path, &npath, &c.first, &c.init, &c.old, &c.oldBegin, &c.oldEnd); err != nil {
			return err
		}
		c.names = strings.Split(npath, "\x00")
		cands = append(cands, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s up to snapshot %d: %w", oneline.Name(r.path), snap, err)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	tables, err := r.Tables(ctx, snap)
	if err != nil {
		return nil, err
	}
	byID := map[int64]Table{}
	for _, t := range tables {
		byID[t.ID] = t
	}
	filesOf := map[int64][]DataFile{}
	out := map[int64][]string{}
	for _, c := range cands {
		t, ok := byID[c.table]
		if !ok {
			continue
		}
		files, ok := filesOf[c.table]
		if !ok {
			if files, err = r.files(ctx, t, snap); err != nil {
				return nil, err
			}
			filesOf[c.table] = files
		}
		n := 0
		var named []string // the first shownByName files counted
		count := func(f DataFile) {
			if n++; len(named) < shownByName {
				named = append(named, oneline.Name(r.relPath(f.Path)))
			}
		}
		for _, f := range files {
			if f.MappingID != nil {
				var counts bool
				if c.old.Valid {
					counts, err = r.mappedNameOther(ctx, f, c.column, c.names)
				} else {
					counts, err = r.mappedFileLacks(ctx, f, c.column)
				}
				if err != nil {
					return nil, err
				}
				if counts {
					count(f)
				}
				continue
			}
			if f.BeginSnapshot >= c.first {
				continue
			}
			var root *pnode
			if f.encryptionKey == nil {
				// A footer that cannot be read is the disk check's to
				// report: the file counts by the catalog.
				root, _ = r.parquetSchema(ctx, f.Path)
			}
			if root == nil || !anyFieldID(root) {
				// By the catalog alone.
				if !c.old.Valid || (f.BeginSnapshot >= c.oldBegin.Int64 && f.BeginSnapshot < c.oldEnd.Int64) {
					count(f)
				}
				continue
			}
			if hasFieldID(root, c.column) || (c.old.Valid && !hasFieldID(root, c.old.Int64)) {
				continue
			}
			count(f)
		}
		if n == 0 {
			continue
		}
		which := strings.Join(named, ", ")
		if n > len(named) {
			which += fmt.Sprintf(" and %d more", n-len(named))
		}
		if c.old.Valid {
			out[c.table] = append(out[c.table], fmt.Sprintf("%s (added at snapshot %d under the name of a dropped column (column_id %d, snapshots %d-%d) whose values %d file(s) hold under it (%s), which a reader by name reads as this column's)",
				c.path, c.first, c.old.Int64, c.oldBegin.Int64, c.oldEnd.Int64, n, which))
		} else {
			out[c.table] = append(out[c.table], fmt.Sprintf("%s (added at snapshot %d with default %s, which DuckLake reads for it in %d file(s) without it (%s), a reader by name NULL)",
				c.path, c.first, c.init.String, n, which))
		}
	}
	return out, nil
}

// shownByName is how many files an entry of ColumnsReadOtherwiseByName
// names (relative to the data folder where they are in it) before "and N
// more".
const shownByName = 3

// mappedFileLacks tells whether DuckLake's readers read the column of id
// column from a file with a name mapping (f.MappingID) as its
// initial_default: the mapping has no entry for the id (a column added
// after the file was registered, or registered with allow_missing =>
// true), or its entry's source is not in the file's footer. DuckLake maps
// each field id to the entry's source name and DuckDB takes the file's
// field of that name, or the column's default where there is none
// (DuckLakeMultiFileReader's MapColumns, "__ducklake_unknown_identifier";
// CreateColumnFromFieldId). A partition entry is read from the file's
// path; an encrypted file, or one whose footer cannot be read, counts by
// its mapping alone; a path through a list or map is taken as held.
func (r *Reader) mappedFileLacks(ctx context.Context, f DataFile, column int64) (bool, error) {
	m, root, err := r.mappedFooter(ctx, f)
	if err != nil {
		return false, err
	}
	path := mappingPath(m, column)
	if path == nil {
		return true, nil
	}
	if path[len(path)-1].isPartition || root == nil {
		return false, nil // counts by its mapping
	}
	sources := make([]string, len(path))
	for i, e := range path {
		sources[i] = e.source
	}
	found, known := footerField(root, sources)
	return known && !found, nil
}

// mappedNameOther tells whether a reader by name reads, for the column of
// id column named names (its path, parents first), a field of a file with
// a name mapping (f.MappingID) that DuckLake's readers do not read for it:
// the footer has a field of that path, and the mapping's entry for the id
// has another source path, or there is none (DuckLake then reads the
// column's default). An encrypted file, or one whose footer cannot be
// read, does not count.
func (r *Reader) mappedNameOther(ctx context.Context, f DataFile, column int64, names []string) (bool, error) {
	m, root, err := r.mappedFooter(ctx, f)
	if err != nil || root == nil {
		return false, err
	}
	if found, known := footerField(root, names); !found || !known {
		return false, nil
	}
	path := mappingPath(m, column)
	switch {
	case path == nil || len(path) != len(names):
		return true, nil
	case path[len(path)-1].isPartition:
		return false, nil // read from the file's folders
	}
	return !sourcesAre(path, names), nil
}

// sourcesAre tells whether a name mapping's path has the sources names
// (as many, parents first), as DuckDB compares names: in ASCII letter case
// only.
func sourcesAre(path []*mapEntry, names []string) bool {
	if len(path) != len(names) {
		return false
	}
	for i, e := range path {
		if !formats.NamesEqual(e.source, names[i]) {
			return false
		}
	}
	return true
}

// mappedFooter is the name mapping of a file registered with one
// (f.MappingID) and its footer's schema, nil for an encrypted file or one
// whose footer cannot be read (the disk check's to report).
func (r *Reader) mappedFooter(ctx context.Context, f DataFile) (*mapEntry, *pnode, error) {
	m, err := r.nameMapping(ctx, *f.MappingID)
	if err != nil || f.encryptionKey != nil {
		return m, nil, err
	}
	root, err := r.parquetSchema(ctx, f.Path)
	if err != nil {
		return m, nil, nil
	}
	return m, root, nil
}

// footerField tells whether a Parquet schema holds a field at the path of
// names (parents first, matched in any letter case against the Parquet
// reader's names, as DuckDB matches a name mapping's sources and
// union_by_name's columns: childByName); known is false where
// the path goes through a list or a map, which it does not follow.
func footerField(root *pnode, names []string) (found, known bool) {
	n := root
	for _, name := range names {
		if n != root && n.Kind != "struct" {
			return false, false
		}
		c := n.childByName(name)
		if c == nil {
			return false, true
		}
		n = c
	}
	return true, true
}

// mappingPath is the chain of a name mapping's entries from the top to
// the one whose target is the field id (nil: none).
func mappingPath(m *mapEntry, id int64) []*mapEntry {
	for _, e := range m.children {
		if e.target == id {
			return []*mapEntry{e}
		}
		if p := mappingPath(e, id); p != nil {
			return append([]*mapEntry{e}, p...)
		}
	}
	return nil
}

// hasFieldID tells whether a Parquet schema holds a field of the id, at
// any depth.
func hasFieldID(n *pnode, id int64) bool {
	if n.FieldID != nil && *n.FieldID == id {
		return true
	}
	return slices.ContainsFunc(n.Children, func(c *pnode) bool { return hasFieldID(c, id) })
}

// anyFieldID tells whether a Parquet schema holds any field id.
func anyFieldID(n *pnode) bool {
	return n.FieldID != nil || slices.ContainsFunc(n.Children, anyFieldID)
}
