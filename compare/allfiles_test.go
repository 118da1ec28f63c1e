package compare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestAllFiles: for the last version of each conformance lake, AllFiles
// names exactly the files Files lists at some snapshot, each existing with
// the size the catalog records.
func TestAllFiles(t *testing.T) {
	ctx := context.Background()
	for _, archive := range []string{"lakes", "lakes-0.3"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			name := filepath.Base(lake)
			if name == "zz_storage_v2_unreadable" || (testing.Short() && !matchesAny(name, "06_,16_,17_,24_")) {
				continue
			}
			t.Run(archive+"/"+name, func(t *testing.T) {
				cats, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
				if len(cats) == 0 {
					t.Skip("no versions")
				}
				last := cats[len(cats)-1] // UUIDv7 folders sort by time
				r, err := Open(ctx, last, ReaderOptions{DataPath: filepath.Join(lake, "data")})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				all, err := r.AllFiles(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]int64{}
				for _, f := range all {
					got[f.Path] = f.SizeBytes
				}
				want := map[string]int64{}
				eachTable(t, r, func(s Snapshot, tb Table) {
					files, err := r.Files(ctx, tb, s.ID)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range files {
						want[f.Path] = f.SizeBytes
						if f.Delete != nil {
							want[f.Delete.Path] = f.Delete.SizeBytes
						}
					}
				})
				for p, size := range want {
					if g, ok := got[p]; !ok || g != size {
						t.Errorf("%s (%d bytes) visible at a snapshot: AllFiles has %d, %v", p, size, g, ok)
					}
				}
				for p, size := range got {
					if _, ok := want[p]; !ok {
						t.Errorf("AllFiles lists %s, visible at no snapshot", p)
					}
					if strings.Contains(p, "://") {
						continue
					}
					if st, err := os.Stat(p); err != nil || st.Size() != size {
						t.Errorf("%s: %v, want a file of %d bytes", p, err, size)
					}
				}
			})
		}
	}
}

// TestUnderDataPath: a file is under the data path only when recorded
// relative all the way, with no ".." and no empty part.
func TestUnderDataPath(t *testing.T) {
	const dp = "/repo/data/"
	for _, tc := range []struct {
		name     string
		path     string
		relative bool
		want     string // the relative path, or "" when outside
		reason   string
	}{
		{"relative", dp + "main/t/f.parquet", true, "main/t/f.parquet", ""},
		{"dot part", dp + "main/./t/f.parquet", true, "main/t/f.parquet", ""},
		{"absolute", "/elsewhere/f.parquet", false, "", "absolute"},
		{"absolute inside the data path", dp + "main/t/f.parquet", false, "", "absolute"},
		{"climbing out", dp + "main/t/../../../x/f.parquet", true, "", ".."},
		{"climbing in and back", dp + "main/t/../t/f.parquet", true, "", ".."},
		{"leading slash", dp + "main/t//x/f.parquet", true, "", "empty part"},
		{"url", dp + "main/t/s3://b/f.parquet", true, "", "empty part"},
		{"not under it", "/other/f.parquet", true, "", "not under"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel, reason := StoredFile{Path: tc.path, Relative: tc.relative}.UnderDataPath(dp)
			if rel != tc.want || (tc.reason == "") != (reason == "") || !strings.Contains(reason, tc.reason) {
				t.Errorf("UnderDataPath = %q, %q; want %q and a reason with %q", rel, reason, tc.want, tc.reason)
			}
		})
	}
}
