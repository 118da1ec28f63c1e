package duckpool

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Reach is what a sandboxed database may open on the file system: DuckDB's
// allowed_directories and allowed_paths, after which OpenWithin turns
// enable_external_access off. Then any statement of its users, theirs or
// an extension's, that opens another file (read_text('/etc/hostname'), a
// COPY ... TO, an ATTACH, an EXPORT DATABASE, a query log, a profile, an
// extension's INSTALL or LOAD) fails with DuckDB's "Permission Error:
// Cannot access file". DuckDB 1.5.6 refuses, once external access is off,
// to turn it on again or to change allowed_directories, allowed_paths or
// temp_directory (docs/compare.md, "The readers' sandbox"). DuckDB's own
// spilling to its temp_directory is not bounded by the reach.
type Reach struct {
	// Dirs are folders: every file under them may be read and written.
	Dirs []string
	// Files are single files (read and written), each with the
	// write-ahead log DuckDB looks for beside a database file it attaches
	// (<file>.wal).
	Files []string
	// Load are the extensions loaded before the sandbox closes, where
	// this DuckDB has them installed: a sandboxed database loads no
	// extension. What each LOAD said is kept (OpenWithin's answer).
	Load []string
}

// normal is the reach with absolute, clean paths (folders ending with a
// separator), each once, in order.
func (r Reach) normal() Reach {
	clean := func(paths []string, dir bool) []string {
		var out []string
		for _, p := range paths {
			if p == "" {
				continue
			}
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			p = filepath.Clean(p)
			if dir && !strings.HasSuffix(p, string(os.PathSeparator)) {
				p += string(os.PathSeparator)
			}
			out = append(out, p)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	load := slices.Clone(r.Load)
	slices.Sort(load)
	files := clean(r.Files, false)
	for _, f := range files {
		if !strings.HasSuffix(f, ".wal") {
			files = append(files, f+".wal")
		}
	}
	slices.Sort(files)
	return Reach{Dirs: clean(r.Dirs, true), Files: slices.Compact(files), Load: slices.Compact(load)}
}

// key tells apart reaches (of normal ones): databases of the same key are
// interchangeable.
func (r Reach) key() string {
	return "dirs\x00" + strings.Join(r.Dirs, "\x00") + "\x01files\x00" + strings.Join(r.Files, "\x00") + "\x01load\x00" + strings.Join(r.Load, "\x00")
}

// covers tells whether every folder and file of o (normal) is under one
// of r's folders (r normal).
func (r Reach) covers(o Reach) bool {
	under := func(p string) bool {
		for _, d := range r.Dirs {
			if strings.HasPrefix(p, d) || p+string(os.PathSeparator) == d {
				return true
			}
		}
		return false
	}
	for _, p := range slices.Concat(o.Dirs, o.Files) {
		if !under(p) {
			return false
		}
	}
	return true
}

// AddFiles adds files to the reach, each alone, but for a file whose name
// holds one of DuckDB's glob characters: DuckDB lists the folder to read
// it, even with its glob characters escaped, so the folder is added.
func (r *Reach) AddFiles(paths ...string) {
	for _, p := range paths {
		if strings.ContainsAny(filepath.Base(p), "*?[{") {
			r.Dirs = append(r.Dirs, filepath.Dir(p))
		} else {
			r.Files = append(r.Files, p)
		}
	}
}

// Holds tells whether the reach holds path: one of its files, or a path
// under one of its folders (lexically, as DuckDB checks).
func (r Reach) Holds(path string) bool {
	n := r.normal()
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	path = filepath.Clean(path)
	return slices.Contains(n.Files, path) || n.covers(Reach{Files: []string{path}})
}

// OpenWithin starts a private in-memory DuckDB database, as Open does,
// loads reach's extensions where installed, then sandboxes it to reach.
// It answers what each LOAD said (nil: loaded). Its configuration is not
// locked (lock_configuration): that freezes every setting, and its users
// change the number of threads between statements (AllThreads) and their
// time zone; the settings that bound the sandbox are one-way in DuckDB
// itself.
func OpenWithin(reach Reach) (*sql.DB, map[string]error, error) {
	reach = reach.normal()
	db, err := Open()
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("open duckdb: %w", err), db.Close())
	}
	defer conn.Close()
	loads := map[string]error{}
	for _, ext := range reach.Load {
		if _, err := conn.ExecContext(ctx, "LOAD "+sqlIdent(ext)); err != nil {
			loads[ext] = err
		} else {
			loads[ext] = nil
		}
	}
	q := fmt.Sprintf("SET allowed_directories = %s; SET allowed_paths = %s; SET enable_external_access = false", sqlList(reach.Dirs), sqlList(reach.Files))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("sandbox duckdb: %w", err), db.Close())
	}
	return db, loads, nil
}

// sqlList is a VARCHAR[] literal of the strings.
func sqlList(ss []string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + strings.ReplaceAll(s, "'", "''") + "'")
	}
	b.WriteString("]::VARCHAR[]")
	return b.String()
}

// sqlIdent quotes an identifier, doubling the quotes inside it.
func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
