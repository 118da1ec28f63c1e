package convert

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// twoColumnDeletesCheck applies formats.QuirkDeleteFilesTwoColumns: where
// some reader of the target accepts only delete files of two columns
// (file_path, pos: DuckLake on DuckDB 1.3, formats 0.1 and 0.2, and the
// DuckLake DuckDB 1.4.0 pins, a 0.3 reader) while the source's reader
// reads a third (a partial deletion file's snapshots, Iceberg's row), a
// delete file with a third column fails every read of its table for that
// reader: the conversion is refused naming the delete file. It runs on the
// source, before the steps, and leaves out the partial deletion files of a
// 0.4+ source (partial_max set, or found by content:
// formats.IsPartialDeleteFile, as the 3-column files with partial_max NULL
// that 1.0's ducklake_flush_inlined_data writes), which the 0.4 -> 0.3 step
// refuses or rewrites as 2-column files (partial-delete-files), and Puffin
// files (deletion-vectors): what is left is carried as it is. The files are read from
// the local data folder; without one nothing is checked here, and the
// proof reports the table unreadable.
func (r *run) twoColumnDeletesCheck(source, target *formats.Version) error {
	q := formats.QuirkDeleteFilesTwoColumns
	if r.opts.faithful || r.opts.DataPath == "" || !target.ReadsWith(q) || formats.ReadAlike(source, target, q) {
		return nil
	}
	items, err := r.beforeSteps(func(b *beforeSteps) **itemsOutcome { return &b.threeColumns }, r.threeColumnDeleteFiles)
	if err != nil {
		return fmt.Errorf("%s: %w", q.Info().Name, err)
	}
	r.refuseQuirk("reader "+target.Name, q, source, target, "ducklake_delete_file", items)
	return nil
}

// threeColumnDeleteFiles lists the Parquet delete files of the working
// copy (partial_max NULL where the layout has it), in the local data
// folder, with other than two columns.
func (r *run) threeColumnDeleteFiles() ([]string, error) {
	if ok, err := r.w.hasTable(r.ctx, "ducklake_delete_file"); err != nil || !ok {
		return nil, err
	}
	// 0.1: no table paths, files are relative to data_path itself.
	dirs := `SELECT t.table_id, dp.value AS data_path, dp.value AS dir FROM (SELECT DISTINCT table_id FROM ducklake_table) t,
		(SELECT value FROM ducklake_metadata WHERE key = 'data_path'` + r.globalScope() + `) dp`
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_table", "path"); err != nil {
		return nil, err
	} else if ok {
		dirs = sqlTableDirs
	}
	notPartial := "true"
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_delete_file", "format"); err != nil {
		return nil, err
	} else if ok {
		notPartial = r.deleteFormatIs("d.format", formats.DeleteFormatParquet)
	}
	stepRewrites := false // the 0.4 -> 0.3 step takes the partial deletion files
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_delete_file", "partial_max"); err != nil {
		return nil, err
	} else if ok {
		notPartial += " AND d.partial_max IS NULL"
		stepRewrites = true
	}
	rows, err := r.w.fields(r.ctx, `SELECT d.table_id, coalesce(t.table_name, '?'), d.delete_file_id, coalesce(d.encryption_key, ''), CASE WHEN NOT d.path_is_relative THEN d.path WHEN starts_with(td.dir, td.data_path) THEN 'rel:' || substr(td.dir, length(td.data_path) + 1) || d.path ELSE '' END
		FROM ducklake_delete_file d LEFT JOIN (`+dirs+`) td USING (table_id)
		LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t USING (table_id)
		WHERE `+notPartial+` ORDER BY d.delete_file_id`)
	if err != nil {
		return nil, fmt.Errorf("read delete files: %w", err)
	}
	var out []string
	for _, row := range rows {
		f := row
		local := f[4]
		if rel, ok := strings.CutPrefix(local, "rel:"); ok {
			local = filepath.Join(r.opts.DataPath, filepath.FromSlash(rel))
		}
		if local == "" {
			continue // outside the data folder: the proof reports it
		}
		// Its columns alone: its footer where the data folder lacks it.
		schema, err := r.schemaPath(local, f[3])
		if err != nil {
			return nil, fmt.Errorf("delete file %s: %w", oneline.Name(local), err)
		}
		if schema == "" {
			continue // missing: the proof reports it
		}
		names, types, err := parquetsql.Describe(r.ctx, r.w.conn, "SELECT * FROM "+readParquetSQL(schema, f[3]))
		if err != nil {
			continue // unreadable: the proof reports it
		}
		if stepRewrites && formats.IsPartialDeleteFile(names, types) {
			continue // a partial deletion file with partial_max NULL: partial-delete-files takes it (partialDeleteFiles)
		}
		if n := len(names); n != 2 {
			out = append(out, fmt.Sprintf("table %s %s: delete_file_id %s %s has %d columns", f[0], f[1], f[2], oneline.Name(local), n))
		}
	}
	return out, nil
}
