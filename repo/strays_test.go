package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestStrayCatalogFiles: a DuckDB file or write-ahead log in a version
// folder other than the frozen catalog version.json names (and catalogs/)
// is a violation naming the version and the file, whatever catalog.path
// says: the spec's layout names ducklake.duckdb as the catalog as made and
// readers fall back to it by name, so with catalog.path set to another
// file a ducklake.duckdb beside it (another version's catalog) was ignored
// and check exited 0.
func TestStrayCatalogFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		frozen   string // catalog.path ("" keeps ducklake.duckdb)
		mutate   func(t *testing.T, v, other string)
		want     []string // keys relative to the version folder, in order; none means check passes
		detailOf string   // a phrase of the first violation's detail
	}{
		{"renamed frozen catalog alone", "frozen.duckdb", nil, nil, ""},
		{"another version's catalog at ducklake.duckdb", "frozen.duckdb", func(t *testing.T, v, other string) {
			copyFile(t, filepath.Join(other, "ducklake.duckdb"), filepath.Join(v, "ducklake.duckdb"))
		}, []string{"ducklake.duckdb"}, "fall back to ducklake.duckdb"},
		{"junk ducklake.duckdb.wal beside it", "frozen.duckdb", func(t *testing.T, v, other string) {
			copyFile(t, filepath.Join(other, "ducklake.duckdb"), filepath.Join(v, "ducklake.duckdb"))
			writeFile(t, filepath.Join(v, "ducklake.duckdb.wal"), "junk")
		}, []string{"ducklake.duckdb", "ducklake.duckdb.wal"}, "never hashed or proved"},
		{"a lone wal", "frozen.duckdb", func(t *testing.T, v, _ string) {
			writeFile(t, filepath.Join(v, "ducklake.duckdb.wal"), "junk")
		}, []string{"ducklake.duckdb.wal"}, "write-ahead log in the version folder"},
		{"a checkpoint log", "", func(t *testing.T, v, _ string) {
			writeFile(t, filepath.Join(v, "ducklake.duckdb.checkpoint.wal"), "junk")
		}, []string{"ducklake.duckdb.checkpoint.wal"}, "a DuckDB checkpoint log in the version folder: DuckDB reads one only beside the catalog's main write-ahead log"},
		{"an old catalog beside ducklake.duckdb", "", func(t *testing.T, v, other string) {
			copyFile(t, filepath.Join(other, "ducklake.duckdb"), filepath.Join(v, "old.duckdb"))
		}, []string{"old.duckdb"}, "not the frozen catalog (version.json names ducklake.duckdb)"},
		{"a catalog in a subfolder", "", func(t *testing.T, v, other string) {
			if err := os.Mkdir(filepath.Join(v, "backup"), 0o755); err != nil {
				t.Fatal(err)
			}
			copyFile(t, filepath.Join(other, "ducklake.duckdb"), filepath.Join(v, "backup", "ducklake.duckdb"))
		}, []string{"backup/ducklake.duckdb"}, "not the frozen catalog"},
		{"the frozen catalog's log in upper case", "", func(t *testing.T, v, _ string) {
			writeFile(t, filepath.Join(v, "ducklake.duckdb.WAL"), "junk")
		}, []string{"ducklake.duckdb.WAL"}, "in another letter case: on a file system that ignores case"},
		{"a name holding a newline is quoted, not a line of its own", "", func(t *testing.T, v, other string) {
			copyFile(t, filepath.Join(other, "ducklake.duckdb"), filepath.Join(v, "evil\ncheck: ok: all fine.duckdb"))
		}, []string{"evil\ncheck: ok: all fine.duckdb"}, `/evil\ncheck: ok: all fine.duckdb": a DuckDB file in the version folder`},
		{"a non-DuckDB file is left alone", "frozen.duckdb", func(t *testing.T, v, _ string) {
			writeFile(t, filepath.Join(v, "README.txt"), "notes")
		}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			ids := versionIDs(t, root)
			v, other := filepath.Join(root, "versions", ids[2]), filepath.Join(root, "versions", ids[1])
			if tc.frozen != "" {
				if err := os.Rename(filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, tc.frozen)); err != nil {
					t.Fatal(err)
				}
				testlakes.EditVersion(t, v, func(m map[string]any) { m["catalog"].(map[string]any)["path"] = tc.frozen })
			}
			if tc.mutate != nil {
				tc.mutate(t, v, other)
			}
			rep, err := Check(ctx, st, Options{Formats: []string{"1.0"}, Versions: []string{"3"}, Cache: t.TempDir()})
			got := nonWarnings(rep)
			if tc.frozen != "" && rep != nil && !slices.ContainsFunc(rep.Findings, func(f Finding) bool {
				return f.Kind == KindWarning && f.Version == ids[2] && strings.Contains(f.Detail, "catalog.path is "+tc.frozen+", not ducklake.duckdb: readers that open none of catalogs/ fall back")
			}) {
				t.Errorf("no warning that catalog.path is %s among %+v", tc.frozen, rep.Findings)
			}
			// The readers table agrees: a 1.0 reader falls back to
			// ducklake.duckdb, so it reads that version only from a catalog
			// there. It said "reads all" beside the warning.
			if tc.frozen != "" && len(tc.want) == 0 && rep != nil {
				unreadable := false
				for _, rr := range rep.Readers {
					unreadable = unreadable || (rr.Format == "1.0" && slices.ContainsFunc(rr.Unreadable, func(rv *ReaderVersion) bool { return rv.Version == ids[2] }))
				}
				if !unreadable || !slices.ContainsFunc(rep.Findings, func(f Finding) bool {
					return f.Kind == KindWarning && strings.Contains(f.Detail, "readers: DuckDB") && strings.Contains(f.Detail, "its frozen catalog is versions/"+ids[2]+"/"+tc.frozen+", not ducklake.duckdb")
				}) {
					t.Errorf("readers %+v, findings %+v: want version %s unreadable for 1.0 readers, naming its frozen catalog", rep.Readers, rep.Findings, ids[2])
				}
			}
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Check = %v (%+v), want nil", err, got)
				}
				return
			}
			if !errors.Is(err, ErrDifferences) {
				t.Fatalf("Check = %v, want ErrDifferences", err)
			}
			var ce *CheckError
			if !errors.As(err, &ce) || !strings.Contains(ce.Hint(), "breaks a repository rule") || strings.Contains(ce.Hint(), "restore") {
				t.Errorf("hint for a stray file: %v, want it to say the file breaks a rule, not to restore it", err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %+v, want %d about %v", got, len(tc.want), tc.want)
			}
			prefix := "versions/" + ids[2] + "/"
			for i, f := range got {
				if f.Key != prefix+tc.want[i] {
					t.Errorf("finding %d key %s, want %s", i, f.Key, prefix+tc.want[i])
				}
			}
			if !strings.Contains(got[0].Detail, tc.detailOf) || strings.Contains(got[0].Detail, "\n") {
				t.Errorf("detail %q, want it to say %q, on one line", got[0].Detail, tc.detailOf)
			}
		})
	}
}
