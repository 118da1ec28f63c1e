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
	// Four repositories' mirrors (100 bytes of data each), their markers,
	// and debris.
	files := []agedFile{
		{"old/data/a.parquet", 90, hours(1)}, // files keep their download times
		{"old/data/a.parquet" + validatorSuffix, 10, hours(1)},
		{"old" + lastUsedSuffix, 0, hours(5)},
		{"mid/data/a.parquet", 100, hours(9)},
		{"mid" + lastUsedSuffix, 0, hours(3)},
		{"cur/data/a.parquet", 100, hours(9)}, // this run's, however old
		{"cur" + lastUsedSuffix, 0, hours(9)},
		{"recent/data/a.parquet", 100, hours(9)}, // another run's, within the grace
		{"recent" + lastUsedSuffix, 0, now},
		{"nomarker/data/a.parquet", 100, hours(7)}, // a mirror of a release without markers
		{"nomarker/data/.download-1", 5, hours(2)}, // left in place by such a release
		{"nomarker/data/gone.parquet" + validatorSuffix, 10, hours(7)},
		{"nomarker/data/a.parquet.etag", 10, hours(7)}, // an earlier release's validator
		{"cur.tmp/.download-2", 50, hours(2)},          // a killed run's download
		{"cur.tmp/.download-3", 50, now},               // a running download
	}
	all := []string{"cur.last-used", "cur.tmp/.download-3", "cur/data/a.parquet",
		"mid.last-used", "mid/data/a.parquet", "nomarker/data/a.parquet",
		"old.last-used", "old/data/a.parquet", "old/data/a.parquet" + validatorSuffix,
		"recent.last-used", "recent/data/a.parquet"}
	without := func(drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(all), func(s string) bool {
			return slices.ContainsFunc(drop, func(d string) bool { return s == d+lastUsedSuffix || len(s) > len(d) && s[:len(d)+1] == d+"/" })
		})
	}
	for _, tc := range []struct {
		name string
		max  int64
		left []string
	}{
		{"within the bound: only debris goes", 1000, all},
		{"the least recently used mirror first", 400, without("nomarker")},
		{"then the next", 300, without("nomarker", "old")},
		{"never the run's own or a recent one", 1, without("nomarker", "old", "mid")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeAged(t, dir, files)
			pruneObjects(dir, filepath.Join(dir, "cur"), tc.max, nil)
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

// TestMarkInUse: a run keeps its mirror's last-used marker fresh while it
// lives, not only at its start and on cache hits: a cold run downloading or
// proving for longer than dataCacheGrace had its mirror removed by another
// run's prune (review finding).
func TestMarkInUse(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "mirror"+lastUsedSuffix)
	old := time.Now().Add(-2 * dataCacheGrace)
	touch(marker)
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	stop := markInUse(marker, 10*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.Stat(marker)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(st.ModTime()) < dataCacheGrace {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the marker was not refreshed while the run lived")
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	stop() // idempotent
	if err := os.Chtimes(marker, old, old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if st, _ := os.Stat(marker); time.Since(st.ModTime()) < dataCacheGrace {
		t.Error("the marker was refreshed after stop")
	}
}

// TestPruneObjectsCatalogs: a repository's cached frozen catalogs
// (<hash>.catalogs/) count towards the bound with its mirror and go with
// it, however recently they were downloaded; a folder of them whose mirror
// is gone is removed once old.
func TestPruneObjectsCatalogs(t *testing.T) {
	now := time.Now()
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	sum := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	files := []agedFile{
		{"old/data/a.parquet", 50, ago(5 * time.Hour)},
		{"old" + lastUsedSuffix, 0, ago(5 * time.Hour)},
		{"old" + catalogsSuffix + "/" + sum, 100, ago(10 * time.Minute)},
		{"old" + catalogsSuffix + "/" + sum + validatorSuffix, 10, ago(10 * time.Minute)},
		{"cur/data/a.parquet", 10, ago(5 * time.Hour)},
		{"cur" + lastUsedSuffix, 0, now},
		{"cur" + catalogsSuffix + "/" + sum, 10, now},
		{"gone" + catalogsSuffix + "/" + sum, 10, ago(3 * time.Hour)}, // its mirror removed by a prune killed halfway
	}
	cur := []string{"cur" + catalogsSuffix + "/" + sum, "cur.last-used", "cur/data/a.parquet"}
	for _, tc := range []struct {
		name  string
		max   int64
		left  []string
		total int64
	}{
		{"counted with their mirror", 1000, append(slices.Clone(cur), "old"+catalogsSuffix+"/"+sum, "old"+catalogsSuffix+"/"+sum+validatorSuffix, "old.last-used", "old/data/a.parquet"), 180},
		// 60 bytes of data files alone are within 100: only the catalogs
		// put the cache above its bound.
		{"removed with their mirror", 100, cur, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeAged(t, dir, files)
			total := pruneObjects(dir, filepath.Join(dir, "cur"), tc.max, nil)
			var left []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, p)
					left = append(left, filepath.ToSlash(rel))
				}
				return nil
			})
			slices.Sort(left)
			if !slices.Equal(left, tc.left) || total != tc.total {
				t.Errorf("left %d bytes\n%v\nwant %d bytes\n%v", total, left, tc.total, tc.left)
			}
		})
	}
}

// agedFile is a file of a cache folder: its path (slash-separated), size
// and modification time.
type agedFile struct {
	name string
	size int
	mod  time.Time
}

// writeAged writes files under dir, each of its size and time.
func writeAged(t *testing.T, dir string, files []agedFile) {
	t.Helper()
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
}
