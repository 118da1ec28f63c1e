package compare

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHivePartitionsFoundAsDuckDB: every DuckLake reader takes a name
// mapping's is_partition column from the data file's path as DuckDB's
// HivePartitioning::Parse finds it (MapColumns, v1.4-andium to main; Parse
// the same from DuckDB 1.3.0 to main): only a folder ended by a separator,
// never the file name; not a folder with two '=' in it; the first folder
// of a key wins. This reader took the first path segment name=value,
// whatever it was, so a file of lakes/19_add_data_files moved under a
// folder part_key=x=y (which DuckDB skips) read "x=y" for part_key and
// the proof stopped (could not compare) on a catalog every reader reads,
// and a file whose key is only in its file name read a value where every
// reader fails ("should have been read from hive partitions - but it was
// not found").
func TestHivePartitionsFoundAsDuckDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	want := hiveTableRows(t, catalog, filepath.Join(lake, "data"))

	t.Run("folder with two equal signs", func(t *testing.T) {
		cat, data := copyLake(t, catalog, filepath.Join(lake, "data"))
		moveHiveFile(t, cat, data, 15, "hive/part_key=1/part_key2=10/data_0.parquet", "hive/part_key=x=y/part_key=1/part_key2=10/data_0.parquet")
		if got := hiveTableRows(t, cat, data); !maps.Equal(got, want) {
			t.Errorf("rows %v, want %v (part_key=x=y is no partition folder)", got, want)
		}
		if _, err := Catalogs(ctx, catalog, cat, Options{DataPath: data, Engines: readerDBs}); !errors.Is(err, ErrNotEquivalent) {
			t.Errorf("compare with the moved file: %v, want not equivalent (the path differs)", err)
		}
		if _, err := Catalogs(ctx, cat, cat, Options{DataPath: data, Engines: readerDBs}); err != nil {
			t.Errorf("compare with itself: %v, want equivalent", err)
		}
	})
	t.Run("key in the file name only", func(t *testing.T) {
		cat, data := copyLake(t, catalog, filepath.Join(lake, "data"))
		moveHiveFile(t, cat, data, 16, "hive/part_key=2/part_key2=10/data_0.parquet", "hive/part_key=2/part_key2=10.parquet")
		r, snaps := openWithSnapshots(t, cat, data)
		last := snaps[len(snaps)-1].ID
		tbl, err := r.Table(ctx, "main.ext_hive", last)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.RowTexts(ctx, tbl, last, ScanOptions{})
		u, ok := AsUnreadable(err)
		if !ok {
			t.Fatalf("read: %v, want unreadable (every reader fails)", err)
		}
		if !strings.Contains(u.Error(), "part_key2") || !strings.Contains(u.Error(), "should have been read from hive partitions") {
			t.Errorf("read: %v, want it to name part_key2 and the readers' error", u)
		}
	})
}

// hiveTableRows reads main.ext_hive of a 19_add_data_files catalog at its
// last snapshot, as row texts.
func hiveTableRows(t *testing.T, catalog, data string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	r, snaps := openWithSnapshots(t, catalog, data)
	last := snaps[len(snaps)-1].ID
	tbl, err := r.Table(ctx, "main.ext_hive", last)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := r.RowTexts(ctx, tbl, last, ScanOptions{})
	if err != nil {
		t.Fatalf("read main.ext_hive: %v", err)
	}
	return rows
}

// moveHiveFile moves data file id of table ext_hive (from, relative to its
// table folder) to to, on disk and in the catalog.
func moveHiveFile(t *testing.T, catalog, data string, id int64, from, to string) {
	t.Helper()
	dir := filepath.Join(data, "main", "ext_hive")
	if _, err := os.Stat(filepath.Join(dir, from)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
	execCatalog(t, catalog, "UPDATE ducklake_data_file SET path = "+sqlString(to)+" WHERE data_file_id = "+itoa(id)+" AND path = "+sqlString(from))
}
