package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCheckTimeNSFrozen: DuckDB 1.5.2-1.5.5, the first readers of format
// 1.0, fail every read of a table whose data file holds a time_ns column's
// field as a Parquet TIME, what DuckDB 1.5.6 writes (time-ns-files-
// unreadable, fixed in 1.5.6). A publisher's frozen 1.0 catalog with such
// a file (01_primitive_types with main.prim's tm made time_ns,
// testlakes.TimeNS) under fdl.json's 1.0 range >= 1.5.2 passed check
// silently; now a warning names the version's catalog, the table, the
// column and the data files and the check still passes, also from the
// kept content pass; with the range narrowed to >= 1.5.6 it is silent.
func TestCheckTimeNSFrozen(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a repository")
	}
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	ids := versionIDs(t, lake)
	id := ids[len(ids)-1]
	catalog, data := testlakes.TimeNS(t, filepath.Join(lake, "versions", id, "ducklake.duckdb"), filepath.Join(lake, "data"), "TIME_NS")
	st := repoWithFrozen(t, lake, id, catalog, data)
	root := st.Root()
	prim, err := os.ReadDir(filepath.Join(data, "main", "prim"))
	if err != nil || len(prim) == 0 {
		t.Fatalf("main.prim's data files: %v (%d)", err, len(prim))
	}

	opts := Options{Formats: []string{"1.0"}, DigestCache: openTestCache(t)}
	fdl, admitting, narrowed := narrowed10(t, root, "1.5.6")
	// Cold, then from the kept content pass, then with the range narrowed
	// past the releases that fail.
	for i, run := range []struct {
		fdl  string
		warn bool
	}{{string(admitting), true}, {string(admitting), true}, {narrowed, false}} {
		if err := os.WriteFile(fdl, []byte(run.fdl), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Check(ctx, st, opts)
		if err != nil {
			t.Fatalf("run %d: check: %v", i+1, err)
		}
		if bad := nonWarnings(rep); len(bad) > 0 {
			t.Fatalf("run %d: check found %v", i+1, bad)
		}
		warned := warningsContaining(rep, "time-ns-files-unreadable")
		if !run.warn {
			if len(warned) > 0 {
				t.Errorf("run %d: 1.0 declared for DuckDB >= 1.5.6, yet warned %q", i+1, warned)
			}
			continue
		}
		if len(warned) != 1 {
			t.Fatalf("run %d: want one time-ns-files-unreadable warning, got %q; findings %+v", i+1, warned, rep.Findings)
		}
		want := []string{"versions/" + id + "/ducklake.duckdb (format 1.0)", "main.prim.tm: data file", "DuckDB before 1.5.6", ">= 1.5.2 (fdl.json)"}
		for _, f := range prim {
			want = append(want, "main/prim/"+f.Name())
		}
		for _, w := range want {
			if !strings.Contains(warned[0], w) {
				t.Errorf("run %d: warning %q lacks %q", i+1, warned[0], w)
			}
		}
	}
}
