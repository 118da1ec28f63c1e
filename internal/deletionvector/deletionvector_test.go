package deletionvector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// serialized is the portable serialisation of a 64-bit Roaring bitmap of
// the positions.
func serialized(t *testing.T, pos ...uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := roaring64.BitmapOf(pos...).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadBitmap: the bitmap of a deletion vector is read as written; a
// bucket count the bytes cannot hold is refused before the library reads
// it (naming the count and the bytes), as is a container whose values
// are not in order (Validate); an empty bucket reads as no positions
// (mutation test, session 23: each of these held with the check removed
// or loosened).
func TestReadBitmap(t *testing.T) {
	// A 32-bit bitmap of one array container with values 1 and 5, its
	// values swapped: well framed, not sorted.
	unsorted := serialized(t, 1, 5)
	n := len(unsorted)
	unsorted[n-4], unsorted[n-2] = unsorted[n-2], unsorted[n-4]
	// One bucket (key 0) holding an empty 32-bit bitmap: its cookie
	// (12346, no run containers) and a container count of 0.
	emptyBucket := binary.LittleEndian.AppendUint64(nil, 1)
	emptyBucket = binary.LittleEndian.AppendUint32(emptyBucket, 0)
	emptyBucket = binary.LittleEndian.AppendUint32(emptyBucket, 12346)
	emptyBucket = binary.LittleEndian.AppendUint32(emptyBucket, 0)
	for _, tc := range []struct {
		name string
		vec  []byte
		want []uint64 // the positions read
		err  string   // else a phrase of the error
	}{
		{"positions in two buckets", serialized(t, 1, 5, 1<<33), []uint64{1, 5, 1 << 33}, ""},
		{"one position", serialized(t, 7), []uint64{7}, ""},
		{"no bucket", serialized(t), nil, ""},
		{"an empty bucket", emptyBucket, nil, ""},
		{"a count alone", binary.LittleEndian.AppendUint64(nil, 1), nil, "deletion vector bitmap is corrupt: 1 buckets in 8 bytes"},
		{"a count past the bytes", append(binary.LittleEndian.AppendUint64(nil, 2), make([]byte, 20)...), nil, "deletion vector bitmap is corrupt: 2 buckets in 28 bytes"},
		{"a count of ASCII zeros", []byte("0000000000000000"), nil, "deletion vector bitmap is corrupt: 3472328296227680304 buckets in 16 bytes"},
		{"values out of order", unsorted, nil, "deletion vector bitmap is corrupt: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bm, err := ReadBitmap(tc.vec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ReadBitmap = %v, %v; want an error saying %q", bm, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := bm.ToArray(); !slices.Equal(got, tc.want) {
				t.Errorf("positions %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCheck: a vector's cardinality is held to its data file's rows only
// past SmallCount, up to and including the rows; a negative row count
// (a tampered record_count) holds it to SmallCount.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		cardinality uint64
		rows        int64
		ok          bool
	}{
		{SmallCount, 0, true},
		{SmallCount, -1, true},
		{SmallCount + 1, SmallCount + 1, true},
		{SmallCount + 1, SmallCount, false},
		{SmallCount + 1, 0, false},
		{SmallCount + 1, -1, false},
		{1 << 32, -1 << 62, false},
	} {
		err := Check(tc.cardinality, tc.rows, "record_count")
		var tm *TooMany
		switch {
		case tc.ok && err != nil:
			t.Errorf("Check(%d, %d) = %v, want nil", tc.cardinality, tc.rows, err)
		case !tc.ok && (!errors.As(err, &tm) || tm.Positions != tc.cardinality || tm.Rows != tc.rows || tm.What != "record_count"):
			t.Errorf("Check(%d, %d) = %v, want a *TooMany naming both", tc.cardinality, tc.rows, err)
		}
	}
}
