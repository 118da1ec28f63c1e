package compare

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// NullRowIDStartFiles lists the data files whose row_id_start is NULL
// ("schema.table (table id N): data file path (id M)"), in table and
// data_file_id order, where only the first releases of the catalog's
// format fail every read of such a table while the file is visible
// (formats.QuirkRowIDStartRequired among its EarlyQuirks and not its
// Quirks; 0.2: DuckDB 1.3.1); nil for other formats (a 0.1 catalog B is
// reported by the proof, and convert refuses both). Every such file is
// listed, as convert's refusal lists them: one no snapshot sees fails
// those releases' change feed over its begin or end. check warns of them
// in a frozen catalog, which this tool did not write and the proof reads
// as its source, as DuckDB 1.3.2 reads it.
func (r *Reader) NullRowIDStartFiles(ctx context.Context) ([]string, error) {
	q := formats.QuirkRowIDStartRequired
	if r.format == nil || r.format.ReadsWith(q) || !r.format.EarlyReadsWith(q) || r.empty("ducklake_data_file") {
		return nil, nil
	}
	type nullFile struct {
		table, id int64
		path      string
	}
	var files []nullFile
	err := r.eachRow(ctx, `SELECT table_id, data_file_id, path FROM cat.ducklake_data_file
		WHERE row_id_start IS NULL AND table_id IS NOT NULL AND data_file_id IS NOT NULL AND path IS NOT NULL
		ORDER BY table_id, data_file_id`, func(rows *sql.Rows) error {
		var f nullFile
		if err := rows.Scan(&f.table, &f.id, &f.path); err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the data files of %s whose row_id_start is NULL: %w", oneline.Name(r.path), err)
	}
	if len(files) == 0 {
		return nil, nil
	}
	names, err := r.tableNames(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = fmt.Sprintf("%s: data file %s (id %d)", tableLabel(names, f.table), oneline.Name(f.path), f.id)
	}
	return out, nil
}
