package convert

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/duckdb/duckdb-go/v2"
)

// A DuckDB database file starts with three 4 KiB headers: the main header
// (magic "DUCK" at byte 8), then two database headers, of which the one with
// the higher iteration is current. Each database header holds, after its
// 8-byte checksum, iteration, meta block, free list, block count and block
// allocation size (all 8-byte little-endian). The blocks follow the headers,
// so a complete file is at least 3*4 KiB + block count * block size long.
const (
	duckdbHeaderSize = 4096
	duckdbMinBlock   = 4096
	duckdbMaxBlock   = 1 << 30
)

// checkComplete fails with ErrNotCatalog when a DuckDB file is shorter than
// its current header says: a truncated copy, whatever the cut. DuckDB
// itself reads blocks lazily and reports a cut only when a query reaches it,
// as a raw IO error. Files too short for the headers, or without DuckDB's
// magic, are left for DuckDB to diagnose.
func checkComplete(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open catalog %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open catalog %s: %w", path, err)
	}
	head := make([]byte, 3*duckdbHeaderSize)
	if _, err := io.ReadFull(f, head); err != nil || string(head[8:12]) != "DUCK" {
		return nil
	}
	var iteration, want uint64
	for _, off := range []int{duckdbHeaderSize, 2 * duckdbHeaderSize} {
		h := head[off+8:]
		it, blocks, blockSize := binary.LittleEndian.Uint64(h), binary.LittleEndian.Uint64(h[24:]), binary.LittleEndian.Uint64(h[32:])
		if blockSize < duckdbMinBlock || blockSize > duckdbMaxBlock || blocks > uint64(1)<<40/blockSize {
			continue // not a header this check understands
		}
		if it >= iteration {
			iteration, want = it, uint64(len(head))+blocks*blockSize
		}
	}
	if size := uint64(info.Size()); want > size {
		return fmt.Errorf("open catalog %s: %w: truncated or corrupt: %d bytes, its DuckDB header says %d", path, ErrNotCatalog, size, want)
	}
	return nil
}

// sourceReadError turns a DuckDB IO error met while reading the attached
// source (a block past a cut, a checksum mismatch) into ErrNotCatalog; other
// errors are wrapped as they are.
func sourceReadError(src, doing string, err error) error {
	var de *duckdb.Error
	if errors.As(err, &de) && de.Type == duckdb.ErrorTypeIO {
		return fmt.Errorf("%s %s: %w: unreadable DuckDB file (truncated or corrupt): %s", doing, src, ErrNotCatalog, firstLine(de.Msg))
	}
	return fmt.Errorf("%s %s: %w", doing, src, err)
}
