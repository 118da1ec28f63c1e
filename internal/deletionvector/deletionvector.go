// Package deletionvector reads the bitmap of an Iceberg deletion-vector-v1
// blob (a Puffin delete file's positions) without trusting its counts:
// compare reads them to prove, convert to rewrite them as Parquet delete
// files, and a tampered or corrupt file must be an error, not a panic or
// an allocation of gigabytes.
package deletionvector

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// SmallCount is how many positions a vector may hold before its reader
// holds it to its data file's row count (8 MiB of int64 positions): a
// well-framed bitmap of a few bytes (run containers) can claim 2^32
// positions a bucket, which listed would exhaust memory. Genuine vectors
// hold at most their data file's rows.
const SmallCount = 1 << 20

// ReadBitmap reads a portable 64-bit Roaring bitmap: a little-endian count
// of 32-bit buckets, then each bucket's key and 32-bit bitmap. The Roaring
// library trusts what it reads: a count of 0x3030303030303030 ("00000000")
// panicked in make (roaring64 ReadFrom sizes its slices by the count before
// it reads a bucket), and a count below that but past the bytes there would
// allocate gigabytes. So the count is checked against the bytes (a bucket
// takes at least 12: its key, and a 32-bit bitmap's cookie and container
// count), and a panic of the library on other corrupt bytes is an error
// naming the bitmap as corrupt.
func ReadBitmap(vec []byte) (bm *roaring64.Bitmap, err error) {
	if len(vec) >= 8 && binary.LittleEndian.Uint64(vec) > uint64(len(vec)-8)/12 {
		n := binary.LittleEndian.Uint64(vec)
		return nil, fmt.Errorf("deletion vector bitmap is corrupt: %d buckets in %d bytes", n, len(vec))
	}
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, fmt.Errorf("deletion vector bitmap is corrupt (%v)", r)
		}
	}()
	bm = roaring64.New()
	if _, err := bm.ReadFrom(bytes.NewReader(vec)); err != nil {
		return nil, fmt.Errorf("deletion vector bitmap: %w", err)
	}
	// ReadFrom does not check the containers it reads: one whose runs or
	// cardinality do not match its values panicked when iterated
	// (FuzzDecodeDV). Validate does; an empty bucket, which it also
	// refuses, reads as no positions, as before.
	if err := bm.Validate(); err != nil && err.Error() != "empty container" {
		return nil, fmt.Errorf("deletion vector bitmap is corrupt: %w", err)
	}
	return bm, nil
}

// TooMany is the error of a vector claiming more positions than its data
// file has rows (Rows: its record_count, or its Parquet footer's row count
// where that is smaller): it cannot be genuine, and listed it could
// exhaust memory.
type TooMany struct {
	Positions uint64
	Rows      int64
	What      string // whose rows: "record_count" or "Parquet row count"
}

func (e *TooMany) Error() string {
	return fmt.Sprintf("deletion vector claims %d positions, more than the %d rows of its data file (%s): not read", e.Positions, e.Rows, e.What)
}

// Check holds a vector's cardinality to its data file's rows: nil at or
// below SmallCount or rows; else a *TooMany.
func Check(cardinality uint64, rows int64, what string) error {
	if cardinality <= SmallCount || (rows >= 0 && cardinality <= uint64(rows)) {
		return nil
	}
	return &TooMany{Positions: cardinality, Rows: rows, What: what}
}
