package compare

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCatalogsFindUnreadableValues: a B whose metadata holds a value DuckLake's
// readers cannot read where A's readers can (formats.ReaderValueRules) is a
// difference naming catalog B, the table, the column and the row: an id read
// as unsigned made negative or NULL, a partition transform in another letter
// case, a column_order tie. Before, each was proved equivalent (mutation
// test, session 22: F1-2, F1-3, F3).
func TestCatalogsFindUnreadableValues(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, lake, stmt string
		want             []string
	}{
		{"negative data file id", "06_deletes", `UPDATE ducklake_data_file SET data_file_id = -1 WHERE data_file_id = 0`,
			[]string{"ducklake_data_file.data_file_id of row"}},
		// A NULL next_catalog_id or next_file_id: the catalog is not
		// opened at all (TestCatalogsNullRequiredField).
		{"negative parent column", "06_deletes", `UPDATE ducklake_column SET parent_column = -1 WHERE rowid = 0`,
			[]string{"ducklake_column.parent_column of row 0"}},
		{"transform in upper case", "08_partitioning", `UPDATE ducklake_partition_column SET transform = 'IDENTITY' WHERE rowid = 9`,
			[]string{"ducklake_partition_column.transform of row 9"}},
		{"bucket of no buckets", "08_partitioning", `UPDATE ducklake_partition_column SET transform = 'bucket(0)' WHERE rowid = 3`,
			[]string{"ducklake_partition_column.transform of row 3"}},
		{"column_order tie", "06_deletes", `UPDATE ducklake_column SET column_order = 2 WHERE rowid = 0`,
			[]string{"ducklake_column.column_order of row 1 is a value DuckLake's readers cannot read: two columns", "B: ties with row 0: {'column_id': 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			b := tamper(t, catalog, tc.stmt)
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			for _, w := range append(tc.want, "catalog B ("+b+")") {
				if !hasDifference(rep, "unreadable", w) {
					var all []string
					for _, d := range rep.Differences {
						all = append(all, d.String())
					}
					t.Fatalf("no unreadable difference containing %q; got:\n%s", w, strings.Join(all, "\n"))
				}
			}
			// The same value in A too is no difference of the conversion.
			a := tamper(t, catalog, tc.stmt)
			if rep, err := Catalogs(ctx, a, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}); rep == nil || hasDifference(rep, "unreadable", tc.want[0]) {
				t.Errorf("A with the same value: %v", err)
			}
		})
	}
}

// TestNameMapParentLoadedAfterChild: DuckLake's readers build a name
// mapping from its rows ORDER BY mapping_id, parent_column NULLS FIRST,
// attaching each entry to one loaded before it, and fail the read of every
// table with a name-mapped file when an entry's parent comes later
// (formats.NameMapParentAfterChild). DuckLake numbers the entries parent
// first, so its own catalogs never do; a B with the same tree numbered
// otherwise was proved equivalent (the proof's reader builds the tree
// after reading every row, and compares mappings as trees). A is
// 19_add_data_files with a third level under mapping 12 (zz under col2.b,
// numbered after it), B the same with col2 renumbered 10: zz (parent 1)
// then loads before b (parent 10).
func TestNameMapParentLoadedAfterChild(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "19_add_data_files")
	opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
	a := tamper(t, catalog, `INSERT INTO ducklake_name_mapping VALUES (12, 6, 'zz', 99, 1, false)`)
	same := filepath.Join(t.TempDir(), "same.duckdb")
	copyFile(t, a, same)
	if rep, err := Catalogs(ctx, a, same, opts); err != nil {
		t.Fatalf("A against its copy: %v\n%v", err, rep)
	}
	renumber := []string{
		`UPDATE ducklake_name_mapping SET column_id = 10 WHERE mapping_id = 12 AND column_id = 0`,
		`UPDATE ducklake_name_mapping SET parent_column = 10 WHERE mapping_id = 12 AND parent_column = 0`,
	}
	b := tamper(t, a, renumber...)
	rep, err := Catalogs(ctx, a, b, opts)
	if !errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("want ErrNotEquivalent, got %v", err)
	}
	for _, w := range []string{"ducklake_name_mapping.parent_column of row", "Parent column N not found", "parent row"} {
		if !hasDifference(rep, "unreadable", w) {
			t.Fatalf("no unreadable difference containing %q; got %v", w, rep.Differences)
		}
	}
	// The same numbering in A too is the lake's, not the conversion's.
	if rep, err := Catalogs(ctx, tamper(t, a, renumber...), b, opts); err != nil || rep == nil || hasDifference(rep, "unreadable", "ducklake_name_mapping") {
		t.Errorf("A with the same numbering: %v", err)
	}
}

// TestConformanceLakesReadableValues: no version of any conformance lake
// (what DuckLake releases wrote) breaks a rule of formats.ReaderValueRules:
// the rules name only what their readers cannot read.
func TestConformanceLakesReadableValues(t *testing.T) {
	ctx := context.Background()
	// The readers read the catalogs alone (no data file): their databases
	// come from a pool, not one started for each.
	engines := readerDBs
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			if filepath.Base(lake) == "zz_storage_v2_unreadable" {
				continue
			}
			cats, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
			for _, cat := range cats {
				r, err := Open(ctx, cat, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: engines})
				if err != nil {
					t.Fatalf("%s: %v", cat, err)
				}
				v, err := formats.ReaderValueViolations(ctx, r.conn, "cat", "main", r.has)
				r.Close()
				if err != nil || len(v) > 0 {
					t.Errorf("%s: %v %+v", cat, err, v)
				}
			}
		}
	}
}

// TestReaderValuesBThenA: readerValues reads B's metadata values first;
// when B's read fails, A's same read is tried (bThenA). B failing alone
// is "B cannot be read where A can" (exit 3); both failing is could not
// compare (exit 4), the message saying A's read fails too. A's read
// failing after B's answered (a value B breaks, which A's values might
// excuse) is A's failure: could not compare. The failures are injected
// at the point "compare/reader-values" of the catalogs named.
func TestReaderValuesBThenA(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	const injected = "injected: the metadata values cannot be read"
	for _, tc := range []struct {
		name       string
		breakB     string // a statement giving B a value its readers cannot read
		failA      bool
		failB      bool
		wantB      bool // "B cannot be read where A can"; else could not compare
		wantBothRd bool // the message says A's same read fails too
	}{
		{name: "B fails, A reads", failB: true, wantB: true},
		{name: "both fail", failA: true, failB: true, wantBothRd: true},
		{name: "B breaks a value, A's read fails", failA: true,
			breakB: `UPDATE ducklake_data_file SET data_file_id = -1 WHERE data_file_id = 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := catalog, filepath.Join(t.TempDir(), "b.duckdb")
			copyFile(t, catalog, b)
			if tc.breakB != "" {
				execCatalog(t, b, tc.breakB)
			}
			var calls []string
			ctx := faults.With(context.Background(), func(p faults.Point) error {
				if p.Name != "compare/reader-values" {
					return nil
				}
				side := map[string]string{a: "A", b: "B"}[p.Path]
				calls = append(calls, side)
				if (side == "A" && tc.failA) || (side == "B" && tc.failB) {
					return errors.New(injected)
				}
				return nil
			})
			rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
			if err == nil || !strings.Contains(err.Error(), injected) {
				t.Fatalf("want a failure naming %q, got %v (reads: %v)", injected, err, calls)
			}
			if want := []string{"B", "A"}; !slices.Equal(calls, want) {
				t.Errorf("reads %v, want %v", calls, want)
			}
			if tc.wantB {
				wantBCannotBeRead(t, rep, err, "read the metadata values of "+b+": "+injected)
				return
			}
			wantIncomparable(t, err)
			if got := strings.Contains(err.Error(), "the same read of A fails too"); got != tc.wantBothRd {
				t.Errorf("says A's same read fails too: %v, want %v: %v", got, tc.wantBothRd, err)
			}
		})
	}
}
