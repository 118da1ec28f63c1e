package duckpool

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
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
// spilling goes to a folder of the database's own in Spill, outside the
// reach, and is bounded by MaxSpill.
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
	// Spill is the folder in which the database spills what does not fit
	// in its memory (DuckDB's temp_directory): OpenWithin names a folder
	// of the database's own in it ("fdl-spill-<owner>-<random>",
	// SpillPrefix), which DuckDB makes at its first spill and removes when
	// the database closes. Empty: os.TempDir(). Every database the tool
	// opens spills so (Open: in os.TempDir()), not in DuckDB's default
	// (see open).
	Spill string
	// MaxSpill bounds, in bytes, what the database may spill
	// (max_temp_directory_size). 0: the pool's (Pool.SpillAtMost), else
	// MaxSpill.
	MaxSpill int64
}

// SpillPrefix starts the name of each database's spill folder (Reach.Spill,
// Open). A run killed before its databases closed leaves them;
// the commands that sweep their work folder sweep these too.
const SpillPrefix = "fdl-spill-"

// MaxSpill bounds what one database may spill (max_temp_directory_size),
// sandboxed or not (Open). DuckDB's default is 90% of the spill disk's
// free space for each database, so a run's databases together could fill
// it. A database spills only past its memory limit (DuckDB's default, 80%
// of the machine's memory); a statement that would spill more fails with
// DuckDB's "Out of Memory Error: failed to offload data block", naming
// the setting.
const MaxSpill = 8 << 30

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
	spill := r.Spill
	if spill != "" {
		if abs, err := filepath.Abs(spill); err == nil {
			spill = abs
		}
		spill = filepath.Clean(spill)
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
	return Reach{Dirs: clean(r.Dirs, true), Files: slices.Compact(files), Load: slices.Compact(load), Spill: spill, MaxSpill: max(r.MaxSpill, 0)}
}

// withPatterns is paths (sorted, each once) with, for each path holding
// DuckDB's glob characters, the pattern compare and convert hand DuckDB
// for it (parquetsql.Escape): DuckDB checks that pattern against the
// reach before it globs, so a data file in a folder named "lake [v2]" was
// refused ("Cannot access file .../lake [[]v2]/..."). The pattern, as a
// path, names a folder or file whose name is the escaped spelling
// (literally "lake [[]v2]"), beside the one meant: that much the reach
// widens. Only the settings get them (OpenWithin): a reach compared with
// another (covers, key) holds the paths themselves.
func withPatterns(paths []string) []string {
	out := slices.Clone(paths)
	for _, p := range paths {
		if e := parquetsql.Escape(p); e != p {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// key tells apart reaches (of normal ones): databases of the same key are
// interchangeable.
func (r Reach) key() string {
	return "dirs\x00" + strings.Join(r.Dirs, "\x00") + "\x01files\x00" + strings.Join(r.Files, "\x00") + "\x01load\x00" + strings.Join(r.Load, "\x00") + "\x01spill\x00" + r.Spill + "\x00" + strconv.FormatInt(r.MaxSpill, 10)
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

// AddFiles adds files to the reach, each alone, also one whose name holds
// DuckDB's glob characters: DuckDB checks the escaped pattern it is read
// by (parquetsql.Path) against the reach before it globs, and the reach
// names that pattern too (withPatterns), so DuckDB opens the file without
// listing its folder. Before, such a file brought its whole folder.
func (r *Reach) AddFiles(paths ...string) {
	r.Files = append(r.Files, paths...)
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
// loads reach's extensions where installed, gives it a spill folder of its
// own in reach.Spill (bounded by MaxSpill), then sandboxes it to reach.
// It answers what each LOAD said (nil: loaded). Its configuration is not
// locked (lock_configuration): that freezes every setting, and its users
// change the number of threads between statements (AllThreads) and their
// time zone; the settings that bound the sandbox are one-way in DuckDB
// itself.
func OpenWithin(reach Reach) (*sql.DB, map[string]error, error) {
	reach = reach.normal()
	// temp_directory cannot change once the sandbox is closed: start sets
	// it when the database starts.
	db, err := start(reach.Spill)
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
	// The spill's bound goes with the sandbox's settings: one statement
	// on the connection the LOADs use, not one more connection (open).
	q := fmt.Sprintf("%s; SET allowed_directories = %s; SET allowed_paths = %s; SET enable_external_access = false",
		spillBound(reach.MaxSpill), sqlList(withPatterns(reach.Dirs)), sqlList(withPatterns(reach.Files)))
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
		b.WriteString(sqlString(s))
	}
	b.WriteString("]::VARCHAR[]")
	return b.String()
}

// sqlString is a string literal of s.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sqlIdent quotes an identifier, doubling the quotes inside it.
func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
