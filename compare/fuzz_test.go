package compare

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/fdl-formats/fdl-formats/internal/deletionvector"
)

// The fuzz targets below feed the proof's parsers of a repository's files
// and catalog values arbitrary input: a Puffin delete file (a deletion
// vector or a container), a partial_file_info value and a DuckDB type.
// None may panic. Their seeds run with the ordinary tests (no DuckDB);
// `go test ./compare -run '^$' -fuzz '^FuzzPuffinPositions$' -fuzztime 10m`
// runs one for longer.

// wrapDV frames a serialised bitmap as a deletion-vector-v1 blob with the
// right length and checksum, so that the fuzzer reaches the bitmap reader.
func wrapDV(vec []byte) []byte {
	body := append(slices.Clone(dvMagic), vec...)
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
}

func bitmapBytes(pos ...uint64) []byte {
	var b bytes.Buffer
	if _, err := roaring64.BitmapOf(pos...).WriteTo(&b); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// puffinFile is a Puffin container of the blobs with a footer of the
// given metadata (offsets as given, not checked).
func puffinFile(blobs [][]byte, meta string) []byte {
	var b bytes.Buffer
	b.Write(puffinMagic)
	for _, x := range blobs {
		b.Write(x)
	}
	b.Write(puffinMagic)
	b.WriteString(meta)
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(meta))))
	b.Write([]byte{0, 0, 0, 0})
	b.Write(puffinMagic)
	return b.Bytes()
}

func FuzzPuffinPositions(f *testing.F) {
	dv := wrapDV(bitmapBytes(1, 5, 1<<33))
	f.Add(dv, int64(0))
	meta, _ := json.Marshal(map[string]any{"blobs": []map[string]any{
		{"type": "deletion-vector-v1", "offset": 4, "length": len(dv), "properties": map[string]string{"ducklake-snapshot-id": "3"}}}})
	f.Add(puffinFile([][]byte{dv}, string(meta)), int64(5))
	f.Add(puffinFile([][]byte{dv}, `{"blobs":[{"type":"deletion-vector-v1","offset":9223372036854775807,"length":9223372036854775807}]}`), int64(5))
	f.Add(puffinFile([][]byte{dv}, `{"blobs":[{"type":"deletion-vector-v1","offset":4,"length":-1}]}`), int64(5))
	f.Add(puffinFile(nil, `{"blobs":[{"type":"other"}]}`), int64(0))
	f.Add([]byte("PFA1"), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, snap int64) {
		// Held to a data file of 2^16 rows: a well-framed vector of run
		// containers claims 2^32 positions a bucket.
		pos, err := puffinPositions(data, snap, func(n uint64) error { return deletionvector.Check(n, 1<<16, "record_count") })
		if err != nil {
			return
		}
		if !slices.IsSorted(pos) || len(slices.Compact(slices.Clone(pos))) != len(pos) {
			t.Fatalf("positions %v not sorted and unique", pos)
		}
	})
}

// FuzzDecodeDV: the bitmap of a deletion vector whose frame is right.
func FuzzDecodeDV(f *testing.F) {
	f.Add(bitmapBytes(1, 5, 1<<33))
	f.Add(bitmapBytes())
	f.Add(bitmapBytes(0, 1, 2, 3, 1<<40, 1<<40+1))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, vec []byte) {
		bm, err := decodeDV(wrapDV(vec))
		if err != nil || bm.GetCardinality() > 1<<20 {
			return
		}
		if pos, err := bitmapPositions(bm, nil); err == nil && (!slices.IsSorted(pos) || len(slices.Compact(slices.Clone(pos))) != len(pos)) {
			t.Fatalf("positions %v not sorted and unique", pos)
		}
	})
}

// FuzzPartialFileInfo: a data file's partial_file_info value.
func FuzzPartialFileInfo(f *testing.F) {
	for _, s := range []string{"1:10|3:20", "partial_max:7", "", "partial_max:", "1:10|", "-1:10", "9223372036854775808:1", "1:2:3"} {
		f.Add(s, int64(2))
	}
	f.Fuzz(func(t *testing.T, info string, snap int64) {
		limit, ok, err := splitLimit(info, snap)
		if (err == nil) != ok || limit < 0 {
			t.Fatalf("splitLimit(%q, %d) = %d, %t, %v", info, snap, limit, ok, err)
		}
		partialInfoParses(info, false)
		partialInfoParses(info, true)
	})
}

// FuzzParseType: a column's DuckDB type as DESCRIBE spells it; what parses
// hashes.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{"INTEGER", "DECIMAL(38, 2)", "STRUCT(a INTEGER, \"b c\" VARCHAR[])", "MAP(VARCHAR, DOUBLE[])[]",
		"TIMESTAMP WITH TIME ZONE", "INTEGER[3][]", "GEOMETRY('OGC:CRS84')", "UNION(a INTEGER, b VARCHAR)", "LIST", "STRUCT()", "MAP(INTEGER)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, _, err := rowHashes([]string{"c"}, []string{s}); err != nil && !strings.Contains(err.Error(), "column c: type ") {
			t.Fatalf("rowHashes(%q): %v does not name the column and type", s, err)
		}
	})
}
