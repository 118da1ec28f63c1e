package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCheckRowIDStartFrozen02: DuckDB 1.3.1, format 0.2's first reader,
// fails every read of a table with a visible data file whose row_id_start
// is NULL (row-id-start-required, fixed in 1.3.2), which DuckDB 1.3.2's
// merge_adjacent_files writes. A publisher's frozen 0.2 catalog with such
// files (17_compaction's last version, its three merged files kept NULL)
// under fdl.json's 0.2 range >= 1.3.1 passed check silently, while the
// 1.0 catalogs with table-stats-need-column-stats or time_ns files are
// warned about; now a warning names the catalog, the tables and the data
// files and the check still passes, also from the kept content pass; with
// the range narrowed to >= 1.3.2 it is silent.
func TestCheckRowIDStartFrozen02(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts a catalog and checks a repository")
	}
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "17_compaction")
	st := copyLake(t, lake)
	root := st.Root()
	ids := versionIDs(t, root)
	id := ids[len(ids)-1]
	vdir := filepath.Join(root, "versions", id)
	frozen := filepath.Join(vdir, "ducklake.duckdb")
	// convert refuses the NULLs for 0.2: converted with numbers in their
	// place, then NULL again, as DuckDB 1.3.2 leaves them.
	src := filepath.Join(t.TempDir(), "src.duckdb")
	copyFile(t, frozen, src)
	nulls := queryDuckDB(t, src, `SELECT string_agg(data_file_id, ',' ORDER BY data_file_id) FROM ducklake_data_file WHERE row_id_start IS NULL`)
	if nulls != "24,32,33" {
		t.Fatalf("data files with a NULL row_id_start: %s, want 24,32,33", nulls)
	}
	execDuckDB(t, src, `UPDATE ducklake_data_file SET row_id_start = 1000000 * data_file_id WHERE row_id_start IS NULL`)
	out := filepath.Join(t.TempDir(), "0.2.duckdb")
	if _, err := convert.Catalog(ctx, src, out, formats.V0_2, convert.Options{DataPath: filepath.Join(root, "data")}); err != nil {
		t.Fatal(err)
	}
	execDuckDB(t, out, `UPDATE ducklake_data_file SET row_id_start = NULL WHERE data_file_id IN (`+nulls+`)`)
	if err := os.Remove(frozen); err != nil {
		t.Fatal(err)
	}
	copyFile(t, out, frozen)
	for _, name := range []string{"files.json", "dataset.json"} {
		if err := os.Remove(filepath.Join(vdir, name)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	testlakes.EditVersion(t, vdir, func(m map[string]any) {
		d := m["ducklake"].(map[string]any)
		d["format"] = "0.2"
		delete(d, "snapshots")
		m["parents"], m["seq"] = []any{}, 1
		delete(m, "changes")
		delete(m, "files")
		delete(m, "dataset")
	}, "catalog")
	for _, other := range ids[:len(ids)-1] {
		if err := os.RemoveAll(filepath.Join(root, "versions", other)); err != nil {
			t.Fatal(err)
		}
	}
	const admitting, narrowed = `[{"ducklake": "0.2", "duckdb": ">= 1.3.1, < 1.4.0"}]`, `[{"ducklake": "0.2", "duckdb": ">= 1.3.2, < 1.4.0"}]`
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{DigestCache: cache}
	// Cold, then from the kept content pass, then with the range narrowed
	// past the release that fails.
	for i, run := range []struct {
		formats string
		warn    bool
	}{{admitting, true}, {admitting, true}, {narrowed, false}} {
		setFormats(t, root, run.formats)
		rep, err := Check(ctx, st, opts)
		if err != nil {
			t.Fatalf("run %d: check: %v (findings %+v)", i+1, err, nonWarnings(rep))
		}
		warned := warningsContaining(rep, "row-id-start-required")
		if !run.warn {
			if len(warned) > 0 {
				t.Errorf("run %d: 0.2 declared for DuckDB >= 1.3.2, yet warned %q", i+1, warned)
			}
			continue
		}
		if len(warned) != 1 {
			t.Fatalf("run %d: want one row-id-start-required warning, got %q", i+1, warned)
		}
		for _, want := range []string{"versions/" + id + "/ducklake.duckdb", "DuckDB before 1.3.2", "main.rw (table id 3): data file", "(id 24)", "main.cpart (table id 4)", "(id 33)"} {
			if !strings.Contains(warned[0], want) {
				t.Errorf("run %d: warning %q lacks %q", i+1, warned[0], want)
			}
		}
	}
}
