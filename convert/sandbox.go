package convert

import (
	"context"
	"database/sql"
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
// A file that resolves elsewhere through a symbolic link (itself, or a
// folder above it) is listed where it leads too, as DuckDB checks that
// against the sandbox: each file recorded by absolute path, and, when the
// data folder holds a link (links), every file. Without a data folder no
// data file is read, and none is listed. tables are the source's DuckLake
// tables with their columns, as openSource listed them: whether the
// schemas and tables have folders of their own is read there, not asked
// of duckdb_columns() again (a statement that binds every view of every
// attached database).
func outsidePaths(ctx context.Context, conn *sql.Conn, schema string, tables []table, dataPath string, links bool) ([]string, error) {
	if dataPath == "" {
		return nil, nil
	}
	folders := 0
	for _, t := range tables {
		if t.schema == schema && (t.name == "ducklake_table" || t.name == "ducklake_schema") && slices.Contains(t.columns, "path") {
			folders++
		}
	}
	files, err := storedFiles(ctx, conn, "src."+quote(schema)+".", folders == 2)
	if err != nil {
		return nil, err
	}
	var out []string
	// target adds where a link leads, when p leads elsewhere.
	target := func(p string) {
		if real, err := filepath.EvalSymlinks(p); err == nil && real != filepath.Clean(p) {
			out = append(out, real)
		}
	}
	for _, f := range files {
		// A file recorded by absolute path is read there, whatever its
		// folders; one recorded relative, under its folders.
		p := f.folder + f.path
		switch {
		case f.rel.Valid && !f.rel.Bool:
			p = f.path
		case f.foldersRelative:
			local := filepath.Join(dataPath, filepath.FromSlash(p))
			_, why := datapath.Under(true, p)
			if why != "" {
				out = append(out, local)
			}
			if why != "" || links {
				target(local)
			}
			continue
		}
		if filepath.IsAbs(p) {
			out = append(out, filepath.FromSlash(p))
			target(filepath.FromSlash(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// holdsLinks tells whether the folder dir holds a symbolic link
// (datapath.HoldsLinks: where they lead must be in the conversion's
// reach). A run's conversions (Engines) walk a folder once: the files a
// backfill writes into it are no links.
func (e *Engines) holdsLinks(dir string) bool {
	if e != nil {
		e.linksMu.Lock()
		defer e.linksMu.Unlock()
		if found, ok := e.links[dir]; ok {
			return found
		}
	}
	found := datapath.HoldsLinks(dir)
	if e != nil {
		if e.links == nil {
			e.links = map[string]bool{}
		}
		e.links[dir] = found
	}
	return found
}
