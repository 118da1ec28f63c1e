package compare

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestDiskCheckFIFO: a data file replaced by a FIFO is a difference ("not
// a regular file"), found with stat: opening it would block until a writer
// came (check hung on one).
func TestDiskCheckFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.parquet")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		problem string
		err     error
	}
	done := make(chan result, 1)
	go func() {
		problem, err := NewDiskCheck().Check(p, 100, nil, "parquet")
		done <- result{problem, err}
	}()
	select {
	case res := <-done:
		if res.err != nil || !strings.Contains(res.problem, p+" is not a regular file") {
			t.Errorf("Check = %q, %v; want a problem naming the file", res.problem, res.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Check opened the FIFO: still blocked after 30 s")
	}
}
