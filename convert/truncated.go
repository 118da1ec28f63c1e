package convert

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// checkComplete fails with ErrNotCatalog when a DuckDB file is shorter than
// its current header says and does not end where DuckDB's own truncation of
// free blocks ends a file (duckfile.Header.Cut): a truncated copy. DuckDB
// itself reads blocks lazily and reports a cut only when a query reaches it,
// as a raw IO error. Files too short for the headers, or without DuckDB's
// magic, are left for DuckDB to diagnose.
func checkComplete(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open catalog %s: %w", oneline.Name(path), err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open catalog %s: %w", oneline.Name(path), err)
	}
	h, err := duckfile.Read(f)
	switch {
	case errors.Is(err, duckfile.ErrTruncated):
		return fmt.Errorf("open catalog %s: %w: truncated or corrupt: %w", oneline.Name(path), ErrNotCatalog, err)
	case err != nil:
		return nil // not DuckDB, or unreadable: DuckDB says which
	case h.Cut(info.Size()):
		return fmt.Errorf("open catalog %s: %w: truncated or corrupt: %d bytes, its DuckDB header says %d", oneline.Name(path), ErrNotCatalog, info.Size(), h.Length())
	}
	return nil
}

// sourceReadError turns a DuckDB IO error met while reading the attached
// source (a block past a cut, a checksum mismatch) into ErrNotCatalog; other
// errors are wrapped as they are.
func sourceReadError(src, doing string, err error) error {
	var de *duckdb.Error
	if errors.As(err, &de) && de.Type == duckdb.ErrorTypeIO {
		// Keep what the error was wrapped with (e.g. the table being read).
		context, _ := strings.CutSuffix(err.Error(), de.Error())
		return fmt.Errorf("%s %s: %w: unreadable DuckDB file (truncated or corrupt): %s%s", doing, src, ErrNotCatalog, context, oneline.First(de.Msg))
	}
	return fmt.Errorf("%s %s: %w", doing, src, err)
}
