// Package testbin keeps programs the tests build (a pinned S3 server, the
// real older DuckDBs' probes) in the user cache, built once and shared by
// concurrent test binaries.
package testbin

import (
	"os"
	"path/filepath"
)

// Cached returns <user cache>/fdl-formats-test/<folder>/<name>. When that
// file is missing it runs build with a private folder, in which build must
// write <name>, and renames the result into place, so that a concurrent
// test binary never runs a half-written file.
func Cached(folder, name string, build func(dir string) error) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "fdl-formats-test", folder)
	bin := filepath.Join(dir, name)
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := build(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(tmp, name), bin); err != nil {
		return "", err
	}
	return bin, nil
}
