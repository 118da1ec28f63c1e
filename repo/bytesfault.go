package repo

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/formats"
)

// bytesFault says whether err, a failed read of the catalog copy path
// whose sha256 was verified (a first parent's frozen catalog,
// parentHistory), is a fault of those bytes, which every reader of them
// with this build meets: the shard that checks that version reads the
// same bytes and reports it as the version's own. It is where the copy is
// shorter than its DuckDB header says, or DuckDB says the file is corrupt
// (a block whose checksum does not match), is no DuckDB database, or is
// saved by a newer DuckDB (duckfile.ClassifyAttach; read in its message
// with the copy's path left out, as the copy is named after the catalog),
// and any DuckDB error of a type that is about what was read (a table
// that is not there, a value that does not convert); and where the readers' own checks of what they read refuse
// it (no DuckLake catalog, a layout or format they do not know, an object
// named like a DuckLake table, a NULL field DuckLake requires, ...). Not
// the bytes' fault, as this machine failed and another may not: DuckDB's
// other errors of compare.Environmental's types (a full disk, a read that
// failed, permissions, out of memory, interrupted, failing inside), a
// file of ours (*fs.PathError), cancellation, a lock another process
// holds, and any error none of the above names: the child's history is
// then unverified in its shard, where counting a fault of the bytes twice
// (the parent's shard reports it too) is the lesser harm.
func bytesFault(err error, path string) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if truncated(path) {
		return true
	}
	if de, ok := errors.AsType[*duckdb.Error](err); ok {
		// DuckDB's message quotes the copy's path, named after the
		// catalog's own (the publisher's choice): its phrases are read
		// in the rest alone.
		if strings.Contains(duckfile.WithoutPath(de.Msg, path), corruptBlock) {
			return true
		}
		switch duckfile.ClassifyAttach(de.Msg, path) {
		case duckfile.AttachNotDuckDB, duckfile.AttachNewerStorage:
			return true
		}
		return !compare.Environmental(err)
	}
	if _, ours := errors.AsType[*fs.PathError](err); ours {
		return false
	}
	if oe, ok := errors.AsType[*compare.OpenError](err); ok {
		return oe.Cause != compare.OpenLocked && oe.Cause != compare.OpenNoFile
	}
	for _, refused := range []error{formats.ErrNullField, formats.ErrNotBaseTable, formats.ErrInlinedRegistration, formats.ErrMetadataRows,
		formats.ErrUnknownVersion, formats.ErrTooNew, formats.ErrInconsistentLayout} {
		if errors.Is(err, refused) {
			return true
		}
	}
	return false
}

// corruptBlock is how DuckDB says a block's checksum does not match ("IO
// Error: Corrupt database file: computed checksum ...").
const corruptBlock = "Corrupt database file"

// truncated says whether the DuckDB file at path is shorter than its
// header says (and does not end where DuckDB's own truncation of free
// blocks ends one): its blocks past the end fail every reader with an IO
// error. A file that cannot be read, or has no DuckDB header, is not.
func truncated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false
	}
	h, err := duckfile.Read(f)
	return errors.Is(err, duckfile.ErrTruncated) || (err == nil && h.Cut(st.Size()))
}
