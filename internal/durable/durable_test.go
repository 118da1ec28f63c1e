package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestSync(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SyncFile(file); err != nil {
		t.Errorf("SyncFile: %v", err)
	}
	if err := SyncDir(dir); err != nil {
		t.Errorf("SyncDir: %v", err)
	}
	// A folder that is gone is an error, not silently ignored.
	if err := SyncDir(filepath.Join(dir, "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SyncDir(missing) = %v, want fs.ErrNotExist", err)
	}
}
