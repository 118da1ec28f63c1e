package compare

import (
	"errors"
	"io/fs"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/formats"
)

// OpenCause says why a catalog file could not be opened at all.
type OpenCause int

const (
	// OpenNoFile: the path names no file that can be read (missing, or
	// not accessible).
	OpenNoFile OpenCause = iota + 1
	// OpenLocked: another process holds the file open read-write, and so
	// DuckDB's lock on it ("Could not set lock on file").
	OpenLocked
	// OpenNotDuckDB: a folder, or a file that is not a DuckDB database.
	OpenNotDuckDB
	// OpenNotDuckLake: a DuckDB database without a ducklake_metadata table.
	OpenNotDuckLake
	// OpenNullFields: a catalog with NULLs where DuckLake's writers always
	// write a value (formats.CheckRequired), so no DuckLake catalog.
	OpenNullFields
)

// OpenError is a catalog that could not be opened at all (Open): no file,
// a file another DuckDB process holds, not a DuckDB file, or a DuckDB
// database without DuckLake's tables, or one with NULLs where DuckLake
// requires values. It is not a reader's failure on a
// DuckLake catalog (a truncated file, a corrupt block, a write-ahead log
// beside it, an object named like a DuckLake table): the proof compares
// nothing read. Catalogs still reports it as before (a "catalog"
// difference when the other catalog reads, ErrIncomparable when neither
// does), as a published catalog that cannot be opened differs from its
// source for its readers; a caller comparing two files it was given (the
// compare command) finds it with errors.As and reports the file instead.
// Its text is the error it wraps.
type OpenError struct {
	Path  string
	Cause OpenCause
	Err   error
}

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// Reason says in a few words why the catalog could not be opened.
func (e *OpenError) Reason() string {
	switch e.Cause {
	case OpenNoFile:
		if errors.Is(e.Err, fs.ErrNotExist) {
			return "no such file"
		}
		return "the file cannot be read"
	case OpenLocked:
		return "another process holds it open read-write (its lock on the file)"
	case OpenNotDuckDB:
		return "not a DuckDB database file"
	case OpenNotDuckLake:
		return "not a DuckLake catalog (no ducklake_metadata table)"
	case OpenNullFields:
		if nf, ok := errors.AsType[*formats.NullFieldError](e.Err); ok {
			return nf.Detail()
		}
		return "not a DuckLake catalog (a NULL where DuckLake requires a value)"
	}
	return "cannot be opened"
}

// attachFailure is the cause of a failed ATTACH of the catalog at path
// that is not about the catalog's bytes as DuckLake reads them
// (duckfile.ClassifyAttach, which reads DuckDB's message without the
// path); 0 for any other (a truncated or corrupt file, a newer storage
// version).
func attachFailure(msg, path string) OpenCause {
	switch duckfile.ClassifyAttach(msg, path) {
	case duckfile.AttachLocked:
		return OpenLocked
	case duckfile.AttachNotDuckDB:
		return OpenNotDuckDB
	}
	return 0
}

// openFailed wraps err, the failure to open catalog path, in an OpenError
// of cause c; err as it is when c is 0.
func openFailed(path string, c OpenCause, err error) error {
	if c == 0 {
		return err
	}
	return &OpenError{Path: path, Cause: c, Err: err}
}
