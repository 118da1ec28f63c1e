package compare

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// dvBlob serialises positions as an Iceberg deletion-vector-v1 blob.
func dvBlob(t *testing.T, pos ...uint64) []byte {
	t.Helper()
	return dvFrame(t, roaring64.BitmapOf(pos...))
}

// dvFrame frames a bitmap as a deletion-vector-v1 blob: length, magic and
// bitmap, CRC-32.
func dvFrame(t *testing.T, bm *roaring64.Bitmap) []byte {
	t.Helper()
	var vec bytes.Buffer
	if _, err := bm.WriteTo(&vec); err != nil {
		t.Fatal(err)
	}
	body := append(slices.Clone(dvMagic), vec.Bytes()...)
	out := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	out = append(out, body...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
}

// container writes a Puffin file with one blob per (snapshot, positions);
// snapshot < 0 leaves the ducklake-snapshot-id property out.
func container(t *testing.T, blobs map[int64][]uint64) string {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(puffinMagic)
	type blobMeta struct {
		Type       string            `json:"type"`
		Offset     int               `json:"offset"`
		Length     int               `json:"length"`
		Properties map[string]string `json:"properties"`
	}
	var metas []blobMeta
	keys := make([]int64, 0, len(blobs))
	for k := range blobs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, s := range keys {
		b := dvBlob(t, blobs[s]...)
		props := map[string]string{"referenced-data-file": "x.parquet"}
		if s >= 0 {
			props["ducklake-snapshot-id"] = itoa(s)
		}
		metas = append(metas, blobMeta{"deletion-vector-v1", buf.Len(), len(b), props})
		buf.Write(b)
	}
	footer, err := json.Marshal(map[string]any{"blobs": metas})
	if err != nil {
		t.Fatal(err)
	}
	buf.Write(puffinMagic)
	buf.Write(footer)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	buf.Write([]byte{0, 0, 0, 0})
	buf.Write(puffinMagic)
	p := filepath.Join(t.TempDir(), "d.puffin")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPuffinDeletes(t *testing.T) {
	bare := filepath.Join(t.TempDir(), "bare.puffin")
	if err := os.WriteFile(bare, dvBlob(t, 1, 5, 1<<33), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := puffinDeletes(bare, 0, nil)
	if err != nil || !slices.Equal(got, []int64{1, 5, 1 << 33}) {
		t.Fatalf("bare blob: %v %v", got, err)
	}

	// Cumulative per-snapshot blobs: a position counts from the first blob holding it.
	p := container(t, map[int64][]uint64{3: {1}, 4: {1, 7}, 6: {1, 7, 9}})
	for snap, want := range map[int64][]int64{2: {}, 3: {1}, 5: {1, 7}, 9: {1, 7, 9}} {
		got, err := puffinDeletes(p, snap, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("snapshot %d: got %v %v, want %v", snap, got, err, want)
		}
	}

	if _, err := puffinDeletes(container(t, map[int64][]uint64{-1: {1}, 3: {2}}), 5, nil); err == nil || !strings.Contains(err.Error(), "mixes") {
		t.Errorf("mixed container accepted: %v", err)
	}

	bad := dvBlob(t, 1)
	bad[len(bad)-1] ^= 0xff
	if _, err := decodeDV(bad); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("bad checksum accepted: %v", err)
	}
}
