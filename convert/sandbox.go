package convert

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/fdl-formats/fdl-formats/internal/datapath"
)

// outsidePaths lists the local paths of the data and delete files the
// source catalog (attached as src, its metadata in schema) records outside
// the data folder: by absolute path, under a schema or table folder
// recorded by absolute path, or with a ".." part (the rule of
// filesOutsideDataPath). The checks read their footers and rows as DuckLake
// opens them, so a conversion's sandbox holds them (each file alone: reach).
// Without a data folder no data file is read, and none is listed.
func outsidePaths(ctx context.Context, conn *sql.Conn, schema, dataPath string) ([]string, error) {
	if dataPath == "" {
		return nil, nil
	}
	var folders int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_columns() WHERE database_name = 'src' AND schema_name = ?
		AND table_name IN ('ducklake_table', 'ducklake_schema') AND column_name = 'path'`, schema).Scan(&folders); err != nil {
		return nil, fmt.Errorf("list the data and delete files: %w", err)
	}
	files, err := storedFiles(ctx, conn, "src."+quote(schema)+".", folders == 2)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		// A file recorded by absolute path is read there, whatever its
		// folders; one recorded relative, under its folders.
		p := f.folder + f.path
		switch {
		case f.rel.Valid && !f.rel.Bool:
			p = f.path
		case f.foldersRelative:
			if _, why := datapath.Under(true, p); why != "" {
				out = append(out, filepath.Join(dataPath, filepath.FromSlash(p)))
			}
			continue
		}
		if filepath.IsAbs(p) {
			out = append(out, filepath.FromSlash(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
