package duckfile

import (
	"path/filepath"
	"strings"
)

// AttachFailure is why DuckDB's ATTACH of a database file failed, as far
// as the file is not at fault or is no DuckDB file at all. DuckDB gives no
// error codes through database/sql, so it is told by the message.
type AttachFailure int

const (
	// AttachOther: any other failure (a truncated or corrupt file...).
	AttachOther AttachFailure = iota
	// AttachLocked: another process holds the file open read-write.
	AttachLocked
	// AttachNotDuckDB: the file is not a DuckDB database.
	AttachNotDuckDB
	// AttachNewerStorage: the file was saved by a newer DuckDB.
	AttachNewerStorage
)

// ClassifyAttach tells a failed ATTACH of the file at path by DuckDB's
// message msg, read without the path (WithoutPath): the file's name and
// its folders' are a publisher's choice, and may spell any of DuckDB's
// phrases.
func ClassifyAttach(msg, path string) AttachFailure {
	msg = WithoutPath(msg, path)
	switch {
	case strings.Contains(msg, "Could not set lock on file"):
		return AttachLocked
	case strings.Contains(msg, "not a valid DuckDB database file"),
		// A file that is no DuckDB database, named like a data file
		// (.parquet, .csv, .json, ...): DuckDB opens it as a view in an
		// in-memory database, which READ_ONLY refuses. It was taken for a
		// truncated or corrupt catalog.
		strings.Contains(msg, "Cannot launch in-memory database in read-only mode"):
		return AttachNotDuckDB
	case strings.Contains(msg, "newer version of DuckDB"):
		return AttachNewerStorage
	}
	return AttachOther
}

// WithoutPath is DuckDB's message msg about the file at path with every
// quoting of that path left out: in double or single quotes, as given and
// absolute and clean (DuckDB quotes a relative path, or one with "." or
// ".." in it, so). What is left is DuckDB's own words, whose phrases tell
// what failed: a file's name and its folders' (a publisher's choice) may
// spell any of them ("not a valid DuckDB database file", "Corrupt
// database file", ...). Only a quoted path is left out, so that a short
// one ("d") does not take letters out of DuckDB's words.
func WithoutPath(msg, path string) string {
	if path == "" {
		return msg
	}
	forms := []string{path}
	if abs, err := filepath.Abs(path); err == nil && abs != path {
		forms = append(forms, abs)
	}
	for _, f := range forms {
		for _, q := range []string{`"`, "'"} {
			msg = strings.ReplaceAll(msg, q+f+q, q+q)
		}
	}
	return msg
}
