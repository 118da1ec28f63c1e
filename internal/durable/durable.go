// Package durable makes file system changes survive a crash: a file's
// bytes and a folder's new or removed names are synced to disk.
package durable

import (
	"errors"
	"os"
	"syscall"
)

// SyncFile flushes a file's contents to disk.
func SyncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// SyncDir flushes a folder's entries (names linked, renamed or removed in
// it) to disk. File systems that cannot sync a folder (EINVAL) are not an
// error: the change itself is still atomic; every other failure is.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
