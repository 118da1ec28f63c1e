// Package datapath holds the one rule for whether a data or delete file a
// DuckLake catalog records is under the catalog's data path: the rule the
// repository's checks apply (compare.StoredFile.UnderDataPath) and the
// converter notes (files-outside-data-path), shared so that the two cannot
// drift apart; and the walk that tells whether a data folder holds
// symbolic links, whose targets a sandboxed reader or converter must reach
// (HoldsLinks).
package datapath

import (
	"database/sql"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"
)

// HoldsLinks tells whether the folder dir holds a symbolic link at any
// depth (a repository may link data files or folders elsewhere: where they
// lead must be in a sandboxed reader's or converter's reach). The walk
// stops at the first link; an unreadable folder holds no link that could
// be followed.
func HoldsLinks(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error { //nolint:errcheck // an unreadable folder is no link
		if err == nil && d.Type()&fs.ModeSymlink != 0 {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// Reasons Under gives for a file that is not under the data path.
const (
	ReasonAbsolute = "recorded by absolute path (path_is_relative is false for the file, its table or its schema)"
	ReasonDotDot   = "its relative path has a .. part (or one a web server decodes to .., such as %2e%2e)"
	ReasonEmpty    = "its relative path has an empty part (a part recorded with a leading / or holding ://)"
	ReasonDot      = "its relative path has a . part (or one a web server decodes to .), which a folder and a web server skip and S3 keeps as part of the key"
	ReasonChar     = "its relative path holds a ?, # or \\, which readers over HTTP or S3 (?, #) or on Windows (\\) resolve to another file than a local reader"
	ReasonEscape   = "its relative path holds a % not followed by two hex digits, which no reader over HTTP can ask for"
)

// Unsafe are the characters no path a catalog records may hold: DuckDB
// sends a path over HTTP as it is and its S3 client splits it, so "?" and
// "#" start a query or fragment there while a folder (and our web client)
// read them as part of the name; "\" is a folder separator to Windows and
// to web servers such as IIS, a plain character elsewhere. Either lets two
// readers open different files for one path. "%" is not among them: DuckDB
// writes hive partition folders with %-escapes (name=hello%20world), which
// folders and S3 read as named and which a web client asks for as DuckDB
// does (store/httpstore).
const Unsafe = "?#\\"

// ValidEscapes tells whether every "%" in p starts a %-escape (two hex
// digits): DuckDB sends p to a web server as it is, and the server refuses
// or misreads a bare "%".
func ValidEscapes(p string) bool {
	_, err := url.PathUnescape(p)
	return err == nil
}

// Under tells whether a file is under the data path it resolves against.
// relative is whether the file's path and its schema's and table's folders
// (where the format has them) are all recorded relative; rel is the file's
// path relative to the data path: those parts joined as the catalog
// records them. It returns rel cleaned, or why the file is not under the
// data path. Any "..", even one that stays inside lexically, is refused: a
// local reader resolves it through symbolic links and a web reader by
// cutting the URL, so the two could open different files. An empty part
// comes from a part recorded with a leading "/" or holding "://", which
// some readers take as absolute. A "." part is refused: a folder and a web
// server skip it, S3 keeps it in the key. A path holding a character of
// Unsafe is refused too.
func Under(relative bool, rel string) (clean, reason string) {
	if !relative {
		return "", ReasonAbsolute
	}
	if strings.ContainsAny(rel, Unsafe) {
		return "", ReasonChar
	}
	decoded, err := url.PathUnescape(rel)
	if err != nil {
		return "", ReasonEscape
	}
	// A web server decodes the path DuckDB sends as it is, so the rules
	// hold for the decoded path too: "%2e%2e" is a "..", "%3F" a "?".
	for _, p := range []string{rel, decoded} {
		if strings.ContainsAny(p, Unsafe) {
			return "", ReasonChar
		}
		for _, part := range strings.Split(p, "/") {
			switch part {
			case "..":
				return "", ReasonDotDot
			case ".":
				return "", ReasonDot
			case "":
				return "", ReasonEmpty
			}
		}
	}
	return path.Clean(rel), ""
}

// Folder is a schema's or table's folder as a catalog records it (its
// path and path_is_relative columns).
type Folder struct {
	Path     sql.NullString
	Relative sql.NullBool
}

// Join resolves a table's folder from the data path (base) and the folders
// recorded for its schema and table, in that order: a NULL folder adds
// nothing, one recorded relative (or with a NULL path_is_relative) is
// appended, and one recorded by absolute path replaces what came before.
// relative tells whether every folder given was relative. DuckLake's
// readers fail on a NULL path_is_relative beside a path (GetValue<bool>;
// the proof reports such a table unreadable, compare/refused.go); here it
// locates the folder where a reader taking it as relative would look, so
// that the files' rules (data_dir, outside the data path) still judge it.
func Join(base string, folders ...Folder) (dir string, relative bool) {
	dir, relative = base, true
	for _, f := range folders {
		if !f.Path.Valid {
			continue
		}
		if !f.Relative.Valid || f.Relative.Bool {
			dir += f.Path.String
		} else {
			dir, relative = f.Path.String, false
		}
	}
	return dir, relative
}

// FolderJoins is the SQL that joins a data or delete file row f (FROM
// <prefix>ducklake_data_file f, or ducklake_delete_file) with every row t of
// its table and s of its schema whose lifetime overlaps the file's (and the
// table row's): a reader resolves a file against the folders recorded at
// the snapshot it reads, so a file visible while its table's or schema's
// folder changed resolves against each of them. prefix names the catalog
// ("cat." or "").
func FolderJoins(prefix string) string {
	const forever = "9223372036854775807"
	return `LEFT JOIN ` + prefix + `ducklake_table t ON t.table_id = f.table_id
			AND t.begin_snapshot < COALESCE(f.end_snapshot, ` + forever + `) AND COALESCE(t.end_snapshot, ` + forever + `) > f.begin_snapshot
		LEFT JOIN ` + prefix + `ducklake_schema s ON s.schema_id = t.schema_id
			AND s.begin_snapshot < LEAST(COALESCE(f.end_snapshot, ` + forever + `), COALESCE(t.end_snapshot, ` + forever + `))
			AND COALESCE(s.end_snapshot, ` + forever + `) > GREATEST(f.begin_snapshot, t.begin_snapshot)`
}
