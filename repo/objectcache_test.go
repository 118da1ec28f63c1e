package repo

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPruneObjects(t *testing.T) {
	now := time.Now()
	hours := func(h int) time.Time { return now.Add(-time.Duration(h) * time.Hour) }
	type file struct {
		name string
		size int
		mod  time.Time
	}
	// Two repositories' folders; sizes in bytes; validators beside data files.
	files := []file{
		{"a/data/old.parquet", 100, hours(5)},
		{"a/data/old.parquet" + validatorSuffix, 10, hours(5)},
		{"a/data/mid.parquet", 100, hours(3)},
		{"a/data/mid.parquet" + validatorSuffix, 10, hours(3)},
		{"b/data/used.parquet", 100, hours(9)}, // used by this run, however old
		{"b/data/recent.parquet", 100, now},    // another run's, within the grace
		{"b/data/.download-123", 50, hours(2)}, // a killed run's temporary file
		{"b/data/.download-456", 50, now},      // a running download
		{"b/data/gone.parquet" + validatorSuffix, 10, hours(1)},
	}
	for _, tc := range []struct {
		name string
		max  int64
		left []string
	}{
		{"within the bound: only debris goes", 1000, []string{
			"a/data/mid.parquet", "a/data/mid.parquet" + validatorSuffix, "a/data/old.parquet", "a/data/old.parquet" + validatorSuffix,
			"b/data/.download-456", "b/data/recent.parquet", "b/data/used.parquet"}},
		{"the least recently used first", 300, []string{
			"a/data/mid.parquet", "a/data/mid.parquet" + validatorSuffix,
			"b/data/.download-456", "b/data/recent.parquet", "b/data/used.parquet"}},
		{"never the used or recent ones", 1, []string{
			"b/data/.download-456", "b/data/recent.parquet", "b/data/used.parquet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range files {
				p := filepath.Join(dir, filepath.FromSlash(f.name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, make([]byte, f.size), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, f.mod, f.mod); err != nil {
					t.Fatal(err)
				}
			}
			used := map[string]bool{filepath.Join(dir, "b", "data", "used.parquet"): true}
			pruneObjects(dir, tc.max, used, nil)
			var left []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					left = append(left, filepath.ToSlash(rel))
				}
				return nil
			})
			slices.Sort(left)
			if !slices.Equal(left, tc.left) {
				t.Errorf("left\n%v\nwant\n%v", left, tc.left)
			}
		})
	}
}
