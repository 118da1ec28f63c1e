package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
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

// TestDataLookAlikesUnicode: macOS's file systems (APFS, HFS+) and a web
// server on one ignore Unicode normalization as they ignore letter case:
// main/café/ with "é" composed (U+00E9) and main/café/ with it decomposed
// ("e", U+0301) are one folder there, and a copy onto one keeps one of two
// files of the same name. A data file beside such a look-alike (the folder
// or the file name in the other form) is named; one whose folders alike
// hold other files merge harmlessly. Before, foldName compared the bytes:
// no look-alike was found (session 41).
func TestDataLookAlikesUnicode(t *testing.T) {
	t.Parallel()
	const (
		composed   = "caf\u00e9"
		decomposed = "cafe\u0301"
	)
	for _, tc := range []struct {
		name   string
		files  []string // made in the data folder; the first is the catalog's
		alikes []string // the look-alikes named, relative to the data folder
	}{
		{"a table folder in the other form", []string{"main/" + composed + "/x.parquet", "main/" + decomposed + "/x.parquet"}, []string{"main/" + decomposed + "/x.parquet"}},
		{"a file name in the other form", []string{"main/t/" + composed + ".parquet", "main/t/" + decomposed + ".parquet"}, []string{"main/t/" + decomposed + ".parquet"}},
		{"in the other form and letter case", []string{"main/" + composed + "/x.parquet", "main/CAFE\u0301/x.parquet"}, []string{"main/CAFE\u0301/x.parquet"}},
		{"folders alike holding other files", []string{"main/" + composed + "/x.parquet", "main/" + decomposed + "/y.parquet"}, nil},
		{"nothing alike", []string{"main/" + composed + "/x.parquet", "main/cafe/x.parquet"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := t.TempDir()
			for _, f := range tc.files {
				writeFile(t, filepath.Join(data, filepath.FromSlash(f)), f)
			}
			r := &repository{dataPath: data + string(os.PathSeparator)}
			got := r.lookAlikeData([]compare.StoredFile{{Path: filepath.Join(data, filepath.FromSlash(tc.files[0])), ID: 7}})
			if len(got) != len(tc.alikes) {
				t.Fatalf("look-alikes %q, want %d naming %q", got, len(tc.alikes), tc.alikes)
			}
			for i, a := range tc.alikes {
				if want := fmt.Sprintf("data file 7 %s, and data_dir holds %s, named like it but for letter case, Unicode form", tc.files[0], a); !strings.HasPrefix(got[i], want) {
					t.Errorf("look-alike %q, want it to begin %q", got[i], want)
				}
			}
		})
	}
}
