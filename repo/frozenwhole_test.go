package repo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/duckblocks"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/faults"
)

// TestCheckReadsFrozenCatalogWhole: a frozen catalog whose bytes are the
// ones version.json hashes (a writer that hashed a damaged file) but that
// has a block DuckDB cannot read, found by DuckDB's layout for every table
// that keeps rows in a block, or that is cut by its last block, makes the
// version invalid (exit 6), whether or not a published catalog's proof
// reads the file: every DuckLake reader loads every table and fails.
// Before, with only the source's format declared, check passed the blocks
// of seven of these tables (ducklake_file_column_stats,
// ducklake_file_partition_value, ducklake_partition_column,
// ducklake_table_stats, ducklake_table_column_stats,
// ducklake_snapshot_changes, ducklake_tag) and called the others
// unverifiable (exit 4); with a published catalog, a difference of the
// published file (exit 3).
func TestCheckReadsFrozenCatalogWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, st := demoRepo(ctx, t)
	id := versionIDs(t, golden)[2]
	frozen := "versions/" + id + "/ducklake.duckdb"
	// For the published case: the newest version's 1.1 catalog, proved.
	if rep, err := Backfill(ctx, st, Options{Versions: []string{"3"}, Formats: []string{"1.1"}, Jobs: 2}); err != nil || rep.Counts[Written] != 1 {
		t.Fatalf("Backfill: %v, want the 1.1 catalog written", err)
	}
	sourceOnly := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`
	published := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]}`
	blocks, blockSize, err := duckblocks.Offsets(filepath.Join(golden, frozen))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ducklake_partition_column", "ducklake_tag", "ducklake_table_stats", "ducklake_data_file"} {
		if _, ok := blocks[want]; !ok {
			t.Fatalf("the demo's frozen catalog keeps no block of %s: %v", want, blocks)
		}
	}
	// flip flips a byte of table's first block, past the block's checksum
	// (its first 8 bytes): the checksum no longer matches.
	flip := func(table string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) { flipByte(t, path, blocks[table]) }
	}
	type damage struct {
		name   string
		mutate func(t *testing.T, path string)
		block  string // the damaged block's location, as DuckDB names it ("" for none)
		fdl    string
	}
	var cases []damage
	for _, table := range slices.Sorted(maps.Keys(blocks)) {
		cases = append(cases, damage{"block of " + table, flip(table), fmt.Sprint(blocks[table] - duckblocks.PastChecksum), sourceOnly})
	}
	cases = append(cases,
		damage{"without its last block", func(t *testing.T, path string) {
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, st.Size()-blockSize); err != nil {
				t.Fatal(err)
			}
		}, "", sourceOnly},
		damage{"block of ducklake_partition_column, 1.1 published", flip("ducklake_partition_column"), fmt.Sprint(blocks["ducklake_partition_column"] - duckblocks.PastChecksum), published},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			writeFile(t, filepath.Join(root, "fdl.json"), tc.fdl)
			if tc.fdl == sourceOnly {
				if err := os.RemoveAll(filepath.Join(root, "versions", id, "catalogs")); err != nil {
					t.Fatal(err)
				}
			}
			tc.mutate(t, filepath.Join(root, frozen))
			testlakes.EditVersion(t, filepath.Join(root, "versions", id), nil) // the damaged bytes hashed
			rep, err := Check(ctx, st, Options{Versions: []string{"3"}, Jobs: 2})
			if !errors.Is(err, ErrInvalidVersion) {
				t.Fatalf("Check = %v, want an invalid version", err)
			}
			if rep.Counts[KindDifference] > 0 || rep.Counts[KindUnverifiable] > 0 {
				t.Errorf("counts %v, want invalid findings alone", rep.Counts)
			}
			if tc.fdl == published && (len(rep.Proofs) != 1 || rep.Proofs[0].OK) {
				t.Errorf("proofs %+v, want the 1.1 catalog's, failed", rep.Proofs)
			}
			found := false
			for _, f := range nonWarnings(rep) {
				if f.Kind == KindInvalid && f.Version == id && strings.Contains(f.Detail, frozen+" is not a sound DuckDB file") &&
					(tc.block == "" || strings.Contains(f.Detail, "Corrupt database file") && strings.Contains(f.Detail, "in block at location "+tc.block)) {
					found = true
				}
			}
			if !found {
				t.Errorf("no invalid finding naming %s (block at %q): %+v", frozen, tc.block, nonWarnings(rep))
			}
		})
	}
}

// TestCheckReadsFrozenCatalogOnce: check reads each frozen catalog whole
// once per run, whether the version has proofs (which take the content
// pass's answer, also when each runs with a reader of its own) or none,
// and a frozen catalog this build read whole is not read whole again by a
// later run (kept in the digest cache under its sha256): after a data file
// is touched (the content passes and proofs run again) none is, and a
// warm run opens none. Before, a version without proofs was never read
// whole.
func TestCheckReadsFrozenCatalogOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, _ := publishedLake(t)
	for _, tc := range []struct {
		name     string
		formats  []string
		versions []string
		jobs     int
	}{
		// One version, two proofs: with 2 jobs each task runs alone.
		{"with proofs", []string{"0.4", "1.0", "1.1"}, []string{"3"}, 2},
		{"with proofs, one job", []string{"0.4", "1.0", "1.1"}, []string{"3"}, 1},
		{"source format alone", []string{"1.0"}, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Formats: tc.formats, Versions: tc.versions, Jobs: tc.jobs, DigestCache: cache}
			// counted runs Check and counts the whole reads and the opens
			// of frozen catalogs (their private copies).
			counted := func(t *testing.T) (whole, opens int) {
				var mu sync.Mutex
				cctx := faults.With(ctx, func(p faults.Point) error {
					if !strings.HasSuffix(p.Path, "ducklake.duckdb") {
						return nil // a published catalog's copy
					}
					mu.Lock()
					defer mu.Unlock()
					switch p.Name {
					case "compare/read-whole":
						whole++
					case "compare/open":
						opens++
					}
					return nil
				})
				if _, err := Check(cctx, st, opts); err != nil {
					t.Fatalf("Check: %v", err)
				}
				return whole, opens
			}
			versions := len(tc.versions)
			if versions == 0 {
				versions = len(versionIDs(t, root))
			}
			if whole, _ := counted(t); whole != versions {
				t.Errorf("cold: frozen catalogs read whole %d times, want %d (each once)", whole, versions)
			}
			if whole, opens := counted(t); whole != 0 || opens != 0 {
				t.Errorf("warm: frozen catalogs read whole %d times, opened %d times, want none", whole, opens)
			}
			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(filepath.Join(root, warmDelFile), later, later); err != nil {
				t.Fatal(err)
			}
			whole, opens := counted(t)
			if opens == 0 {
				t.Fatal("a data file touched: no frozen catalog opened, want the content passes again")
			}
			if whole != 0 {
				t.Errorf("a data file touched: frozen catalogs read whole %d times, want none", whole)
			}
		})
	}
}
