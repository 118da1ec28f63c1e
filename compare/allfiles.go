package compare

import (
	"context"
	"database/sql"
	"fmt"
)

// StoredFile is a data or delete file a catalog references at some snapshot.
type StoredFile struct {
	// Path is resolved like DataFile.Path (the data path override applied).
	Path      string `json:"path"`
	SizeBytes int64  `json:"file_size_bytes"`
	// Delete is true for a delete file.
	Delete bool `json:"delete,omitempty"`
}

// AllFiles lists every data and delete file any snapshot of the catalog
// references, each once, with the size the catalog records: what a reader
// of the whole history needs at hand (a remote repository's local cache
// fetches these before a proof). Each file is resolved against its table's
// and schema's folders as they were at the snapshot that added it.
func (r *Reader) AllFiles(ctx context.Context) ([]StoredFile, error) {
	part := func(table string, del bool) string {
		return fmt.Sprintf(`SELECT %t, f.path, %s, f.file_size_bytes, %s, %s, %s, %s
		FROM cat.%s f
		LEFT JOIN cat.ducklake_table t ON t.table_id = f.table_id AND f.begin_snapshot >= t.begin_snapshot AND (f.begin_snapshot < t.end_snapshot OR t.end_snapshot IS NULL)
		LEFT JOIN cat.ducklake_schema s ON s.schema_id = t.schema_id AND f.begin_snapshot >= s.begin_snapshot AND (f.begin_snapshot < s.end_snapshot OR s.end_snapshot IS NULL)`,
			del, r.col(table, "f", "path_is_relative"),
			r.col("ducklake_schema", "s", "path"), r.col("ducklake_schema", "s", "path_is_relative"),
			r.col("ducklake_table", "t", "path"), r.col("ducklake_table", "t", "path_is_relative"), table)
	}
	q := part("ducklake_data_file", false) + " UNION ALL " + part("ducklake_delete_file", true)
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list the files of %s: %w", r.path, err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var out []StoredFile
	for rows.Next() {
		var f StoredFile
		var stored string
		var rel, sRel, tRel sql.NullBool
		var sPath, tPath sql.NullString
		if err := rows.Scan(&f.Delete, &stored, &rel, &f.SizeBytes, &sPath, &sRel, &tPath, &tRel); err != nil {
			return nil, fmt.Errorf("list the files of %s: %w", r.path, err)
		}
		f.Path = r.resolve(r.tableDir(sPath, sRel, tPath, tRel), stored, !rel.Valid || rel.Bool)
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	return out, rows.Err()
}
