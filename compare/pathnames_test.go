package compare

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDiskCheckNamesPathQuoted: a data file whose path holds a line break
// (DuckLake records paths as text) and that cannot be opened fails with a
// message naming it Go-quoted, one line; the error is still the system's
// *fs.PathError (errors.As) and fs.ErrNotExist (errors.Is), which the
// callers tell a missing file by.
func TestDiskCheckNamesPathQuoted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a\n::error::x.parquet")
	_, err := NewDiskCheck().Check(path, 1, nil, "parquet")
	var pe *fs.PathError
	if !errors.Is(err, ErrIncomparable) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != path {
		t.Fatalf("Check = %v, want ErrIncomparable wrapping the *fs.PathError of %q", err, path)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "open "+strconv.Quote(path)+": ") {
		t.Errorf("message %q, want one line naming %s", msg, strconv.Quote(path))
	}
}
