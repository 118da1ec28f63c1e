package convert

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
	prefix := "src." + quote(schema) + "."
	var parts []string
	for _, t := range []string{"ducklake_data_file", "ducklake_delete_file"} {
		dirs := "NULL, NULL, NULL, NULL FROM " + prefix + t + " f"
		if folders == 2 {
			dirs = `s.path, s.path_is_relative, t.path, t.path_is_relative
			FROM ` + prefix + t + ` f
			` + datapath.FolderJoins(prefix)
		}
		parts = append(parts, "SELECT f.path, f.path_is_relative, "+dirs)
	}
	rows, err := conn.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
	if err != nil {
		return nil, fmt.Errorf("list the data and delete files: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var stored sql.NullString
		var rel, sRel, tRel sql.NullBool
		var sPath, tPath sql.NullString
		if err := rows.Scan(&stored, &rel, &sPath, &sRel, &tPath, &tRel); err != nil {
			return nil, fmt.Errorf("list the data and delete files: %w", err)
		}
		// A file recorded by absolute path is read there, whatever its
		// folders; one recorded relative, under its folders.
		joined, foldersRelative := datapath.Join("", datapath.Folder{Path: sPath, Relative: sRel}, datapath.Folder{Path: tPath, Relative: tRel})
		p := joined + stored.String
		switch {
		case rel.Valid && !rel.Bool:
			p = stored.String
		case foldersRelative:
			if _, why := datapath.Under(true, p); why != "" {
				out = append(out, filepath.Join(dataPath, filepath.FromSlash(p)))
			}
			continue
		}
		if filepath.IsAbs(p) {
			out = append(out, filepath.FromSlash(p))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the data and delete files: %w", err)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
