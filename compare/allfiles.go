package compare

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/datapath"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// StoredFile is a data or delete file a catalog references at some snapshot.
type StoredFile struct {
	// Path is resolved like DataFile.Path (the data path override applied).
	Path      string `json:"path"`
	SizeBytes int64  `json:"file_size_bytes"`
	// Delete is true for a delete file.
	Delete bool `json:"delete,omitempty"`
	// Split is true for a data file whose partial_file_info is a merge
	// split list (0.1-0.3 merged files): a conversion out of those formats
	// reads its rows to tell the snapshots apart.
	Split bool `json:"split,omitempty"`
	// ID is the file's data_file_id, or its delete_file_id for a delete
	// file; DataFileID is the data file a delete file belongs to.
	ID         int64 `json:"id"`
	DataFileID int64 `json:"data_file_id,omitempty"`
	// Table is the file's table (schema.table): the earliest name it had
	// while the file was visible; empty when the catalog has no such table
	// row.
	Table string `json:"table,omitempty"`
	// Stored is the path as the catalog records it.
	Stored string `json:"stored_path"`
	// Format is how the format's reader opens the file: "parquet" for a
	// data file, a delete file's "parquet" or "puffin" (deleteFormat).
	Format string `json:"format,omitempty"`
	// Relative is true when Path is the data path followed by relative
	// parts only: the file's own path and its schema's and table's folders
	// (where the format has them) are all recorded relative. A file
	// recorded by absolute path, or under a schema or table folder recorded
	// by absolute path, is not.
	Relative bool `json:"relative"`
}

// UnderDataPath tells whether a file is under the data path it resolves
// against (dataPath, as the reader's DataPath): recorded relative all the
// way (Relative), and its relative path (schema and table folders and the
// file's own path) without ".." or empty parts. It returns the path
// relative to dataPath, or why the file is not under it. Any "..", even
// one that stays inside lexically, is refused: a local reader resolves it
// through symbolic links and a web reader by cutting the URL, so the two
// could open different files. An empty part comes from a part recorded
// with a leading "/" or holding "://", which some readers take as absolute.
// The converter notes the same files as files-outside-data-path: both
// apply internal/datapath's rule.
func (f StoredFile) UnderDataPath(dataPath string) (rel, reason string) {
	if !f.Relative {
		return datapath.Under(false, "")
	}
	rel, ok := strings.CutPrefix(f.Path, dataPath)
	if !ok {
		return "", "not under the data path " + dataPath
	}
	return datapath.Under(true, rel)
}

// OutsideDataPathError lists the data and delete files a catalog names
// outside its data path (see StoredFile.UnderDataPath).
type OutsideDataPathError struct {
	// Catalog is the catalog's file.
	Catalog string
	// Files describes each file: kind, id, table, stored and resolved
	// path, and why it is outside (StoredFile.DescribeOutside).
	Files []string
}

func (e *OutsideDataPathError) Error() string {
	const shown = 3
	msg := fmt.Sprintf("%s names %d data or delete file(s) outside its data path: %s", oneline.Name(e.Catalog), len(e.Files), strings.Join(e.Files[:min(len(e.Files), shown)], "; "))
	if n := len(e.Files) - shown; n > 0 {
		msg += fmt.Sprintf("; and %d more", n)
	}
	return msg
}

// Outside parts files into those under dataPath (inside) and an
// *OutsideDataPathError naming the others, nil when every file is under
// it. catalog names the catalog in the error.
func Outside(files []StoredFile, dataPath, catalog string) (inside []StoredFile, outside *OutsideDataPathError) {
	var out []string
	inside = make([]StoredFile, 0, len(files))
	for _, f := range files {
		if _, why := f.UnderDataPath(dataPath); why != "" {
			out = append(out, f.DescribeOutside(why))
			continue
		}
		inside = append(inside, f)
	}
	if len(out) == 0 {
		return inside, nil
	}
	return inside, &OutsideDataPathError{Catalog: catalog, Files: out}
}

// DescribeOutside names a file outside the data path for a report: kind,
// id, table, the path as stored and resolved, and why (from
// UnderDataPath).
func (f StoredFile) DescribeOutside(why string) string {
	what := fmt.Sprintf("data file %d", f.ID)
	if f.Delete {
		what = fmt.Sprintf("delete file %d (of data file %d)", f.ID, f.DataFileID)
	}
	table := f.Table
	if table == "" {
		table = "a dropped table"
	}
	return fmt.Sprintf("%s of %s is outside the data path (data_dir): path %q (resolved %s), %s", what, table, f.Stored, oneline.Name(f.Path), why)
}

// AllFiles lists every data and delete file any snapshot of the catalog
// references, each once (by resolved path), with the size the catalog
// records: what a reader of the whole history needs at hand (a remote
// repository's local cache fetches these before a proof). Each file is
// resolved against every table and schema folder recorded while it was
// visible (see StoredFiles).
func (r *Reader) AllFiles(ctx context.Context) ([]StoredFile, error) {
	all, err := r.StoredFiles(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []StoredFile
	for _, f := range all {
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// StoredFiles lists every row of ducklake_data_file and
// ducklake_delete_file, data files first, each by id: AllFiles without
// merging rows that name the same path. A file is resolved against every
// table and schema folder recorded while it was visible (a reader resolves
// it against the folder of the snapshot it reads): one entry per folder. The list is read once per reader
// (the catalog is read-only), so that the users of a shared reader (a
// version's frozen catalog: the listing of its files, its content pass)
// ask DuckDB once; each call returns its own copy.
func (r *Reader) StoredFiles(ctx context.Context) ([]StoredFile, error) {
	if r.stored == nil {
		files, err := r.readStoredFiles(ctx)
		if err != nil {
			return nil, err
		}
		r.stored = &files
	}
	return slices.Clone(*r.stored), nil
}

func (r *Reader) readStoredFiles(ctx context.Context) ([]StoredFile, error) {
	if err := faults.At(ctx, "compare/list", r.path); err != nil {
		return nil, err
	}
	part := func(table string, del bool) string {
		id, dataID := "f.data_file_id", "NULL::BIGINT"
		if del {
			id, dataID = "f.delete_file_id", "f.data_file_id"
		}
		split, format := "false", "NULL"
		if del {
			format = r.col(table, "f", "format")
		} else {
			split = "coalesce(" + r.col(table, "f", "partial_file_info") + " NOT LIKE 'partial_max:%', false)"
		}
		return fmt.Sprintf(`SELECT %t, %s, %s, s.schema_name, t.table_name, f.path, %s, f.file_size_bytes, %s, %s, %s, %s, t.begin_snapshot, s.begin_snapshot, %s, %s
		FROM cat.%s f
		`+datapath.FolderJoins("cat.")+``,
			del, id, dataID, r.col(table, "f", "path_is_relative"),
			r.col("ducklake_schema", "s", "path"), r.col("ducklake_schema", "s", "path_is_relative"),
			r.col("ducklake_table", "t", "path"), r.col("ducklake_table", "t", "path_is_relative"), split, format, table)
	}
	q := part("ducklake_data_file", false) + " UNION ALL " + part("ducklake_delete_file", true) + " ORDER BY 1, 2, 13 NULLS FIRST, 14 NULLS FIRST"
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list the files of %s: %w", oneline.Name(r.path), err)
	}
	defer rows.Close()
	var out []StoredFile
	// A file whose table or schema folder changed while it was visible
	// comes once per folder (datapath.FolderJoins): one entry per path,
	// relative only if every row giving that path is (a folder recorded by
	// absolute path that resolves to the same place is still absolute).
	type entry struct {
		del  bool
		id   int64
		path string
	}
	seen := map[entry]int{}
	for rows.Next() {
		var f StoredFile
		var dataID sql.NullInt64
		var schema, table sql.NullString
		var rel, sRel, tRel sql.NullBool
		var sPath, tPath sql.NullString
		var tBegin, sBegin sql.NullInt64
		var format sql.NullString
		if err := rows.Scan(&f.Delete, &f.ID, &dataID, &schema, &table, &f.Stored, &rel, &f.SizeBytes, &sPath, &sRel, &tPath, &tRel, &tBegin, &sBegin, &f.Split, &format); err != nil {
			return nil, fmt.Errorf("list the files of %s: %w", oneline.Name(r.path), err)
		}
		f.Format = "parquet"
		if f.Delete {
			f.Format = r.deleteFormat(format)
		}
		f.DataFileID = dataID.Int64
		if schema.Valid && table.Valid {
			f.Table = schema.String + "." + table.String
		}
		// A NULL path_is_relative, which the real readers fail on (the
		// proof reports the table unreadable, refused.go), locates the
		// file as relative, as datapath.Join does for folders.
		relative := !rel.Valid || rel.Bool
		dir, dirRelative := r.tableDir(sPath, sRel, tPath, tRel)
		f.Path = r.resolve(dir, f.Stored, relative)
		f.Relative = relative && dirRelative
		e := entry{f.Delete, f.ID, f.Path}
		if i, ok := seen[e]; ok {
			out[i].Relative = out[i].Relative && f.Relative
			continue
		}
		seen[e] = len(out)
		out = append(out, f)
	}
	return out, rows.Err()
}
