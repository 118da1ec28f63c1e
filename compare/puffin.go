package compare

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/deletionvector"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

var (
	puffinMagic = []byte("PFA1")
	dvMagic     = []byte{0xD1, 0xD3, 0x39, 0x64}
)

type puffinFooter struct {
	Blobs []struct {
		Type       string            `json:"type"`
		Offset     int64             `json:"offset"`
		Length     int64             `json:"length"`
		Properties map[string]string `json:"properties"`
	} `json:"blobs"`
}

// puffinDeletes reads a Puffin delete file as the real reader of r's
// format does. Only 1.0+ readers get here: formats before 1.0 (DuckLake of
// DuckDB 1.3-1.5.1) have no Puffin reader and open every delete file as
// Parquet, whatever its format column says (deleteFormat, notParquet). 1.0
// (v1.5-variegata's ScanDeletionVectorFile, every DuckDB 1.5.x) decodes the
// whole file as one bare deletion-vector-v1 blob, so a Puffin container
// fails its magic check; 1.1 (main's DuckLakePuffinReader) reads both. A
// failure is a DeleteFileError: the catalog's readers cannot read the table.
func (r *Reader) puffinDeletes(ctx context.Context, d *DeleteFile, f DataFile, snap int64) ([]int64, error) {
	data, err := r.puffinData(ctx, d)
	if err != nil {
		return nil, err
	}
	return puffinPositions(data, snap, r.vectorBound(ctx, f))
}

// puffinData reads Puffin delete file d's bytes, failing as the real
// reader of r's format fails on them (puffinDeletes).
func (r *Reader) puffinData(ctx context.Context, d *DeleteFile) ([]byte, error) {
	if err := r.readable(ctx, d.Path); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(d.Path)
	if err != nil {
		return nil, err
	}
	if !r.format.Has(formats.CapPuffinContainers) && bytes.HasPrefix(data, puffinMagic) {
		return nil, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Magic bytes mismatch, deletion vector is corrupt! (format %s readers decode the whole file as one bare deletion vector; %s is a Puffin container)", r.format.Name, oneline.Name(d.Path))}
	}
	// A file that is no deletion vector at all (a Parquet file whose
	// format column says puffin) fails DuckLakeDeletionVectorData::FromBlob
	// before its length is looked at.
	if !bytes.HasPrefix(data, puffinMagic) {
		switch {
		case len(data) < 12:
			return nil, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Blob is too small (length of %d bytes) to be a deletion-vector-v1", len(data))}
		case !bytes.Equal(data[4:8], dvMagic):
			return nil, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Magic bytes mismatch, deletion vector is corrupt! (format %s readers read %s, whose format column says puffin, as one bare deletion vector)", r.format.Name, oneline.Name(d.Path))}
		}
	}
	return data, nil
}

// vectorBound holds a deletion vector of data file f to f's rows before
// its positions are listed (deletionvector.Check): its record_count, and
// past deletionvector.SmallCount positions its Parquet row count too (a
// tampered record_count claims any), read once per reader. A genuine
// vector holds at most the file's rows and reads as before; one claiming
// more is an error naming the data file (its callers name the delete
// file, table and catalog). Positions past the file's rows are kept, as
// before (TestDeletesOutOfRange): only their number is held.
func (r *Reader) vectorBound(ctx context.Context, f DataFile) func(uint64) error {
	return func(n uint64) error {
		err := deletionvector.Check(n, f.RecordCount, "record_count")
		if err == nil && n > deletionvector.SmallCount {
			if rows, ok := r.partialFileRows(ctx, f); ok {
				err = deletionvector.Check(n, rows, "Parquet row count")
			}
		}
		if err != nil {
			return fmt.Errorf("data file %s (id %d): %w", oneline.Name(f.Path), f.ID, err)
		}
		return nil
	}
}

// puffinDeletes reads the positions deleted at a snapshot from a Puffin
// delete file: either a bare deletion-vector-v1 blob (valid for the whole
// visibility of the delete-file row) or a Puffin container whose blobs carry
// ducklake-snapshot-id (cumulative; a position counts from the smallest blob
// snapshot containing it). bound, when set, is asked about the number of
// positions before they are listed (Reader.vectorBound).
func puffinDeletes(path string, snap int64, bound func(uint64) error) ([]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return puffinPositions(data, snap, bound)
}

// puffinPositions is puffinDeletes of a file's bytes.
func puffinPositions(data []byte, snap int64, bound func(uint64) error) ([]int64, error) {
	blobs, snapped, err := puffinBlobs(data)
	if err != nil {
		return nil, err
	}
	acc := roaring64.New()
	for _, b := range blobs {
		// Blobs with snapshots are cumulative: the newest blob at or
		// before snap holds every position deleted by then.
		if !snapped || b.snap <= snap {
			acc.Or(b.bm)
		}
	}
	return bitmapPositions(acc, bound)
}

// puffinBlob is a deletion vector of a Puffin delete file, with its
// ducklake-snapshot-id (-1 without one).
type puffinBlob struct {
	snap int64
	bm   *roaring64.Bitmap
}

// puffinBlobs decodes a Puffin delete file: a bare deletion-vector-v1 blob
// (one blob, no snapshot), or a Puffin container whose blobs carry
// ducklake-snapshot-id (snapped; sorted by it) or none.
func puffinBlobs(data []byte) (_ []puffinBlob, snapped bool, _ error) {
	if !bytes.HasPrefix(data, puffinMagic) {
		bm, err := decodeDV(data)
		if err != nil {
			return nil, false, err
		}
		return []puffinBlob{{-1, bm}}, false, nil
	}
	n := len(data)
	if n < 16 || !bytes.Equal(data[n-4:], puffinMagic) {
		return nil, false, fmt.Errorf("puffin file has no footer magic")
	}
	size := int(binary.LittleEndian.Uint32(data[n-12 : n-8]))
	start := n - 12 - size
	if start < 8 || !bytes.Equal(data[start-4:start], puffinMagic) {
		return nil, false, fmt.Errorf("puffin footer size %d out of range", size)
	}
	if flags := binary.LittleEndian.Uint32(data[n-8 : n-4]); flags&1 != 0 {
		return nil, false, &UnsupportedError{What: "compressed Puffin footer"}
	}
	var footer puffinFooter
	if err := json.Unmarshal(data[start:n-12], &footer); err != nil {
		return nil, false, fmt.Errorf("puffin footer: %w", err)
	}
	var blobs []puffinBlob
	withSnap, without := 0, 0
	for i, b := range footer.Blobs {
		if b.Type != "deletion-vector-v1" {
			return nil, false, &UnsupportedError{What: fmt.Sprintf("puffin blob type %q", b.Type)}
		}
		// Offset+Length is not summed: two values near int64's maximum
		// wrapped round to a negative end, passed, and the slice panicked.
		if b.Offset < 0 || b.Length < 0 || b.Offset > int64(n) || b.Length > int64(n)-b.Offset {
			return nil, false, fmt.Errorf("puffin blob %d (offset %d, length %d) out of range of the file's %d bytes", i, b.Offset, b.Length, n)
		}
		bm, err := decodeDV(data[b.Offset : b.Offset+b.Length])
		if err != nil {
			return nil, false, fmt.Errorf("puffin blob %d: %w", i, err)
		}
		s := int64(-1)
		if v, ok := b.Properties["ducklake-snapshot-id"]; ok {
			if s, err = strconv.ParseInt(v, 10, 64); err != nil {
				return nil, false, fmt.Errorf("puffin blob %d: ducklake-snapshot-id %q", i, v)
			}
			withSnap++
		} else {
			without++
		}
		blobs = append(blobs, puffinBlob{s, bm})
	}
	if withSnap > 0 && without > 0 {
		return nil, false, fmt.Errorf("puffin container mixes blobs with and without ducklake-snapshot-id")
	}
	sort.SliceStable(blobs, func(i, j int) bool { return blobs[i].snap < blobs[j].snap })
	return blobs, without == 0 && withSnap > 0, nil
}

// decodeDV decodes an Iceberg deletion-vector-v1 blob: a big-endian length
// of magic+vector, the magic, a portable 64-bit Roaring bitmap and a
// big-endian CRC-32 of magic+vector.
func decodeDV(b []byte) (*roaring64.Bitmap, error) {
	if len(b) < 12 {
		return nil, fmt.Errorf("deletion vector of %d bytes is too short", len(b))
	}
	l := int(binary.BigEndian.Uint32(b[:4]))
	if l < 4 || 4+l+4 > len(b) {
		return nil, fmt.Errorf("deletion vector length %d does not fit %d bytes", l, len(b))
	}
	body := b[4 : 4+l]
	if !bytes.Equal(body[:4], dvMagic) {
		return nil, fmt.Errorf("deletion vector has bad magic %x", body[:4])
	}
	if want, got := binary.BigEndian.Uint32(b[4+l:4+l+4]), crc32.ChecksumIEEE(body); want != got {
		return nil, fmt.Errorf("deletion vector checksum %08x, computed %08x", want, got)
	}
	return readBitmap(body[4:])
}

// readBitmap reads a deletion vector's bitmap without trusting its counts
// (deletionvector.ReadBitmap).
func readBitmap(vec []byte) (*roaring64.Bitmap, error) {
	return deletionvector.ReadBitmap(vec)
}

// bitmapPositions lists a bitmap's positions, sorted and unique. A
// corrupt bitmap that Validate lets through (after an empty bucket) is an
// error, not a panic of the iterator. bound, when set, is asked about the
// number of positions first: a few bytes of run containers claim 2^32
// positions a bucket, and listed they exhausted memory.
func bitmapPositions(bm *roaring64.Bitmap, bound func(uint64) error) (out []int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("deletion vector bitmap is corrupt (%v)", r)
		}
	}()
	// Positions are row numbers (int64, not negative): one past int64's
	// maximum would read back negative, out of order.
	if !bm.IsEmpty() && bm.Maximum() > math.MaxInt64 {
		return nil, fmt.Errorf("deletion vector holds position %d, past int64's maximum", bm.Maximum())
	}
	n := bm.GetCardinality()
	if bound != nil {
		if err := bound(n); err != nil {
			return nil, err
		}
	}
	out = make([]int64, 0, min(n, 1<<24)) // a corrupt count can claim any
	it := bm.Iterator()
	for it.HasNext() {
		out = append(out, int64(it.Next()))
	}
	return out, nil
}
