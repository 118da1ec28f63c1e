package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataLookAlikes: a data file, or a folder above it under data_dir,
// with a sibling named like it in another letter case or with trailing
// dots or spaces (DUCKLAKE-….PARQUET beside ducklake-….parquet, main/WHOLE/
// beside main/whole/) holding other bytes passed check (exit 0): check and
// readers of the folder open the file the catalog names, but a file system
// that ignores case (macOS's, Windows') or drops trailing dots (Windows),
// and a web server on one, gives readers either, and a copy onto one keeps
// one of the two, whichever came last. It is a difference now, as such a
// look-alike in a version folder or the repository's root is, also in a
// check that reuses a clean pass kept before the look-alike came.
func TestDataLookAlikes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const table = "data/main/whole"
	for _, tc := range []struct {
		name string
		// alike makes the look-alike in root, given a data file of table
		// (relative to root), and returns it (relative to the data folder).
		alike func(t *testing.T, root, file string) string
	}{
		{"a file in another letter case", func(t *testing.T, root, file string) string {
			return copyAs(t, root, file, filepath.Join(filepath.Dir(file), strings.ToUpper(filepath.Base(file))))
		}},
		{"a file with a trailing dot", func(t *testing.T, root, file string) string {
			return copyAs(t, root, file, file+".")
		}},
		{"a table folder in another letter case", func(t *testing.T, root, file string) string {
			copyAs(t, root, file, filepath.Join("data/main/WHOLE", filepath.Base(file)))
			return "main/WHOLE/" + filepath.Base(file)
		}},
		// Hive partitions city=Paris/ and city=paris/ each hold their
		// own files: merged, readers still get each.
		{"a table folder in another letter case holding other files", func(t *testing.T, root, file string) string {
			copyAs(t, root, file, filepath.Join("data/main/WHOLE", "other.parquet"))
			return ""
		}},
		{"nothing", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, root := smallLake(t)
			files, err := filepath.Glob(filepath.Join(root, table, "*.parquet"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no data file in %s (%v)", table, err)
			}
			file, _ := filepath.Rel(root, files[0])
			// A clean pass kept first: the look-alike, added after, is
			// found by a warm check too.
			opts := Options{Formats: []string{"1.0"}, Cache: t.TempDir()}
			if _, err := Check(ctx, st, opts); err != nil {
				t.Fatalf("Check before = %v, want ok", err)
			}
			var alike string
			if tc.alike != nil {
				alike = tc.alike(t, root, file)
			}
			rep, err := Check(ctx, st, opts)
			if alike == "" {
				if err != nil {
					t.Fatalf("Check = %v, want ok", err)
				}
				return
			}
			if !errors.Is(err, ErrDifferences) || rep == nil {
				t.Fatalf("Check = %v, want %v naming %s", err, ErrDifferences, alike)
			}
			found := false
			for _, f := range rep.Findings {
				if f.Kind == KindDifference && strings.Contains(f.Detail, alike) && strings.Contains(f.Detail, "named like it but for letter case") {
					found = true
				}
			}
			if !found {
				t.Errorf("findings %+v, want a difference naming %s as named like a data file or folder", rep.Findings, alike)
			}
		})
	}
}

// copyAs copies root's file (relative) to rel with other bytes (its
// bytes reversed) and returns rel's first part that differs from file,
// relative to the data folder, slash-separated.
func copyAs(t *testing.T, root, file, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), b, 0o644); err != nil {
		t.Fatal(err)
	}
	fp, rp := strings.Split(filepath.ToSlash(file), "/"), strings.Split(filepath.ToSlash(rel), "/")
	for i := range rp {
		if rp[i] != fp[i] {
			return strings.Join(rp[1:i+1], "/")
		}
	}
	t.Fatalf("%s is %s", rel, file)
	return ""
}
