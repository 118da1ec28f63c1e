package compare

import (
	"bytes"
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
func (r *Reader) puffinDeletes(d *DeleteFile, snap int64) ([]int64, error) {
	data, err := os.ReadFile(d.Path)
	if err != nil {
		return nil, err
	}
	if !r.format.Has(formats.CapPuffinContainers) && bytes.HasPrefix(data, puffinMagic) {
		return nil, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Magic bytes mismatch, deletion vector is corrupt! (format %s readers decode the whole file as one bare deletion vector; %s is a Puffin container)", r.format.Name, d.Path)}
	}
	// A file that is no deletion vector at all (a Parquet file whose
	// format column says puffin) fails DuckLakeDeletionVectorData::FromBlob
	// before its length is looked at.
	if !bytes.HasPrefix(data, puffinMagic) {
		switch {
		case len(data) < 12:
			return nil, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Blob is too small (length of %d bytes) to be a deletion-vector-v1", len(data))}
		case !bytes.Equal(data[4:8], dvMagic):
			return nil, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Magic bytes mismatch, deletion vector is corrupt! (format %s readers read %s, whose format column says puffin, as one bare deletion vector)", r.format.Name, d.Path)}
		}
	}
	return puffinPositions(data, snap)
}

// puffinDeletes reads the positions deleted at a snapshot from a Puffin
// delete file: either a bare deletion-vector-v1 blob (valid for the whole
// visibility of the delete-file row) or a Puffin container whose blobs carry
// ducklake-snapshot-id (cumulative; a position counts from the smallest blob
// snapshot containing it).
func puffinDeletes(path string, snap int64) ([]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return puffinPositions(data, snap)
}

// puffinPositions is puffinDeletes of a file's bytes.
func puffinPositions(data []byte, snap int64) ([]int64, error) {
	if !bytes.HasPrefix(data, puffinMagic) {
		bm, err := decodeDV(data)
		if err != nil {
			return nil, err
		}
		return bitmapPositions(bm)
	}
	n := len(data)
	if n < 16 || !bytes.Equal(data[n-4:], puffinMagic) {
		return nil, fmt.Errorf("puffin file has no footer magic")
	}
	size := int(binary.LittleEndian.Uint32(data[n-12 : n-8]))
	start := n - 12 - size
	if start < 8 || !bytes.Equal(data[start-4:start], puffinMagic) {
		return nil, fmt.Errorf("puffin footer size %d out of range", size)
	}
	if flags := binary.LittleEndian.Uint32(data[n-8 : n-4]); flags&1 != 0 {
		return nil, &UnsupportedError{What: "compressed Puffin footer"}
	}
	var footer puffinFooter
	if err := json.Unmarshal(data[start:n-12], &footer); err != nil {
		return nil, fmt.Errorf("puffin footer: %w", err)
	}
	type blob struct {
		snap int64
		bm   *roaring64.Bitmap
	}
	var blobs []blob
	withSnap, without := 0, 0
	for i, b := range footer.Blobs {
		if b.Type != "deletion-vector-v1" {
			return nil, &UnsupportedError{What: fmt.Sprintf("puffin blob type %q", b.Type)}
		}
		// Offset+Length is not summed: two values near int64's maximum
		// wrapped round to a negative end, passed, and the slice panicked.
		if b.Offset < 0 || b.Length < 0 || b.Offset > int64(n) || b.Length > int64(n)-b.Offset {
			return nil, fmt.Errorf("puffin blob %d (offset %d, length %d) out of range of the file's %d bytes", i, b.Offset, b.Length, n)
		}
		bm, err := decodeDV(data[b.Offset : b.Offset+b.Length])
		if err != nil {
			return nil, fmt.Errorf("puffin blob %d: %w", i, err)
		}
		s := int64(-1)
		if v, ok := b.Properties["ducklake-snapshot-id"]; ok {
			if s, err = strconv.ParseInt(v, 10, 64); err != nil {
				return nil, fmt.Errorf("puffin blob %d: ducklake-snapshot-id %q", i, v)
			}
			withSnap++
		} else {
			without++
		}
		blobs = append(blobs, blob{s, bm})
	}
	if withSnap > 0 && without > 0 {
		return nil, fmt.Errorf("puffin container mixes blobs with and without ducklake-snapshot-id")
	}
	if without > 0 {
		all := roaring64.New()
		for _, b := range blobs {
			all.Or(b.bm)
		}
		return bitmapPositions(all)
	}
	// Blobs are cumulative: the newest blob at or before snap holds every
	// position deleted by then.
	sort.Slice(blobs, func(i, j int) bool { return blobs[i].snap < blobs[j].snap })
	acc := roaring64.New()
	for _, b := range blobs {
		if b.snap <= snap {
			acc.Or(b.bm)
		}
	}
	return bitmapPositions(acc)
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

// readBitmap reads a portable 64-bit Roaring bitmap: a little-endian
// count of 32-bit buckets, then each bucket's key and 32-bit bitmap. The
// Roaring library trusts what it reads: a count of 0x3030303030303030
// ("00000000") panicked in make (roaring64 ReadFrom sizes its slices by
// the count before it reads a bucket), and a count below that but past
// the bytes there would allocate gigabytes. So the count is checked
// against the bytes (a bucket takes at least 12: its key, and a 32-bit
// bitmap's cookie and container count), and a panic of the library on
// other corrupt bytes is an error naming the bitmap as corrupt.
func readBitmap(vec []byte) (bm *roaring64.Bitmap, err error) {
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

// bitmapPositions lists a bitmap's positions, sorted and unique. A
// corrupt bitmap that Validate lets through (after an empty bucket) is an
// error, not a panic of the iterator.
func bitmapPositions(bm *roaring64.Bitmap) (out []int64, err error) {
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
	out = make([]int64, 0, min(bm.GetCardinality(), 1<<24)) // a corrupt count can claim any
	it := bm.Iterator()
	for it.HasNext() {
		out = append(out, int64(it.Next()))
	}
	return out, nil
}
