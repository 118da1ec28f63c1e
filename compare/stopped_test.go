package compare

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDifferenceBeforeReadError: a delete file longer than its catalog
// records is a difference the disk check finds before the comparison
// reads the file and fails on it (no Parquet footer where the record puts
// it): Catalogs returns ErrNotEquivalent naming the file, as for any
// proved difference, not ErrIncomparable (before, the read error hid the
// difference and check exited 4, "restore an input", for a published
// file that does not match its catalog). A file that is missing, where
// nothing was found before the read failed, is still incomparable.
func TestDifferenceBeforeReadError(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, path string)
		want  error
	}{
		{"delete file longer than recorded", func(t *testing.T, p string) {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("longer"); err != nil {
				t.Fatal(err)
			}
		}, ErrNotEquivalent},
		{"delete file missing", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, ErrIncomparable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			// The delete file of main.del the last version adds.
			del := filepath.Join(data, "main", "del", "ducklake-01a229fa-2ac7-72d4-9938-39ccd8231a6c-delete.parquet")
			tc.spoil(t, del)
			rep, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Catalogs = %v, want %v", err, tc.want)
			}
			if tc.want != ErrNotEquivalent {
				return
			}
			if errors.Is(err, ErrIncomparable) || rep == nil || rep.Incomparable == "" {
				t.Errorf("Catalogs = %v (incomparable %q): want not equivalent, the read error noted", err, rep.Incomparable)
			}
			name := filepath.Base(del)
			if !strings.Contains(err.Error(), name) || len(rep.Differences) == 0 || !strings.Contains(rep.Differences[0].Item, name) {
				t.Errorf("Catalogs = %v, differences %v: want the first naming %s", err, rep.Differences, name)
			}
		})
	}
}
