package compare

import (
	"errors"
	"io"
	"testing"
)

type failingReaderAt struct{ err error }

func (f failingReaderAt) ReadAt([]byte, int64) (int, error) { return 0, f.err }

type bytesAt []byte

func (b bytesAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestFooterSizeReadErrors: a file that cannot be read (an I/O error of a
// disk or mount) is a readError, which checkOnDisk reports as
// ErrIncomparable (exit 4: restore the file), while bytes without a footer
// are a difference (exit 3).
func TestFooterSizeReadErrors(t *testing.T) {
	eio := errors.New("input/output error")
	for _, tc := range []struct {
		name     string
		f        io.ReaderAt
		size     int64
		format   string
		want     int64
		readErr  bool
		wantFail bool
	}{
		{"parquet", bytesAt("xxxx\x07\x00\x00\x00PAR1xx"[:12]), 12, "parquet", 7, false, false},
		{"no magic", bytesAt("xxxxxxxxxxxx"), 12, "parquet", 0, false, true},
		{"too short", bytesAt("PAR1"), 4, "parquet", 0, false, true},
		{"i/o error", failingReaderAt{eio}, 100, "parquet", 0, true, true},
		{"puffin i/o error", failingReaderAt{eio}, 100, "puffin", 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := footerSize(tc.f, tc.size, tc.format)
			var re *readError
			if errors.As(err, &re) != tc.readErr {
				t.Errorf("footerSize: %v, read error %v, want %v", err, !tc.readErr, tc.readErr)
			}
			if (err != nil) != tc.wantFail || got != tc.want {
				t.Errorf("footerSize = %d, %v; want %d, failure %v", got, err, tc.want, tc.wantFail)
			}
			if tc.readErr && !errors.Is(err, eio) {
				t.Errorf("the read error %v does not wrap the I/O error", err)
			}
		})
	}
}
