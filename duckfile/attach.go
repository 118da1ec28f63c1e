package duckfile

import "strings"

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

// ClassifyAttach tells an ATTACH failure by DuckDB's message.
func ClassifyAttach(msg string) AttachFailure {
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
