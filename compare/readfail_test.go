package compare

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/internal/faults"
)

// TestBCannotBeReadWhereACan: a catalog B whose readers fail where A's
// read (a NULL where a value is needed, a struct column with no
// fields, a data file only B names that does not exist) differs from A
// (ErrNotEquivalent, a "catalog" difference naming what failed in B), not
// "could not compare": the operator has no input to restore. A failing,
// or a data file both name missing, stays ErrIncomparable.
func TestBCannotBeReadWhereACan(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name, sql string
		onA       bool // tamper A, B the untouched catalog
		missing   string
		want      string // "" : ErrIncomparable
	}{
		{name: "column_order NULL", sql: `UPDATE ducklake_column SET column_order = NULL WHERE rowid = 0`, want: `column_order`},
		{name: "struct of no fields", sql: `UPDATE ducklake_column SET column_type = 'struct' WHERE rowid = (SELECT min(rowid) FROM ducklake_column WHERE parent_column IS NULL AND end_snapshot IS NULL AND column_type NOT IN ('struct', 'list', 'map'))`, want: `has no fields`},
		{name: "snapshot time NULL", sql: `UPDATE ducklake_snapshot SET snapshot_time = NULL WHERE rowid = 0`, want: `snapshot_time`},
		{name: "data file only B names", sql: `UPDATE ducklake_data_file SET path = path || 'x' WHERE rowid = 0`, want: `which does not exist and which A does not name`},
		{name: "A fails", sql: `UPDATE ducklake_column SET column_order = NULL WHERE rowid = 0`, onA: true},
		{name: "data file both name missing", missing: "main/d/ducklake-01a229fa-0fa7-702b-8d35-9500e7cd79f4.parquet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := catalog, filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, b)
			if tc.sql != "" {
				if tc.onA {
					a = tamper(t, catalog, tc.sql)
				} else {
					b = tamper(t, catalog, tc.sql)
				}
			}
			dp := data
			if tc.missing != "" {
				dp = filepath.Join(t.TempDir(), "data")
				copyTree(t, data, dp)
				if err := os.Remove(filepath.Join(dp, tc.missing)); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: dp, Engines: readerDBs})
			if tc.want == "" {
				wantIncomparable(t, err)
				return
			}
			wantBCannotBeRead(t, rep, err, tc.want)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %q: %v", tc.want, err)
			}
		})
	}
}

// TestReadFailSideByType: whether a failure is B's (not equivalent, exit 3)
// or not (could not compare, exit 4) is the side of the read that failed,
// not what its message names. B's reader failing is B's also when its
// message quotes A's catalog path, or when one catalog's path holds the
// other's (relative paths: compare ducklake.duckdb out/ducklake.duckdb);
// A's reader failing stays could not compare, also when its message quotes
// B's path. Paths are relative to the test's working folder; {A} and {B}
// in the SQL are the other catalog's path as given.
func TestReadFailSideByType(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	const (
		// No difference is found before the read fails.
		nullOrder = `UPDATE ducklake_column SET column_order = NULL WHERE rowid = 0`
		// A top-level column named as the other catalog's path, made a
		// struct of no fields: the failure quotes the name.
		quoteA = `UPDATE ducklake_column SET column_type = 'struct', column_name = '{A}' WHERE rowid = (SELECT min(rowid) FROM ducklake_column WHERE parent_column IS NULL AND end_snapshot IS NULL AND column_type NOT IN ('struct', 'list', 'map'))`
		quoteB = `UPDATE ducklake_column SET column_type = 'struct', column_name = '{B}' WHERE rowid = (SELECT min(rowid) FROM ducklake_column WHERE parent_column IS NULL AND end_snapshot IS NULL AND column_type NOT IN ('struct', 'list', 'map'))`
	)
	for _, tc := range []struct {
		name       string
		a, b       string // catalog paths, relative to the working folder
		sqlA, sqlB string
		quotes     string // the other catalog's path, which the failure quotes
		want       string // "" : could not compare
		differs    bool   // A's change is a difference found before A's read fails
	}{
		{name: "B fails, B's path holds A's", a: "ducklake.duckdb", b: "out/ducklake.duckdb", sqlB: nullOrder, want: "column_order"},
		{name: "B fails, A's path holds B's", a: "frozen/ducklake.duckdb", b: "ducklake.duckdb", sqlB: nullOrder, want: "column_order"},
		{name: "B fails, its message quotes A's path", a: "a.duckdb", b: "b.duckdb", sqlB: quoteA, quotes: "a.duckdb (id", want: "has no fields"},
		{name: "A fails, B's path holds A's", a: "ducklake.duckdb", b: "out/ducklake.duckdb", sqlA: nullOrder},
		{name: "A fails, A's path holds B's", a: "frozen/ducklake.duckdb", b: "ducklake.duckdb", sqlA: nullOrder},
		{name: "A fails, its message quotes B's path", a: "a.duckdb", b: "b.duckdb", sqlA: quoteB, quotes: "b.duckdb (id", differs: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			for _, side := range []struct{ path, sql string }{{tc.a, tc.sqlA}, {tc.b, tc.sqlB}} {
				copyFile(t, catalog, side.path)
				if side.sql != "" {
					execCatalog(t, side.path, strings.NewReplacer("{A}", tc.a, "{B}", tc.b).Replace(side.sql))
				}
			}
			rep, err := Catalogs(context.Background(), tc.a, tc.b, Options{DataPath: data, Engines: readerDBs})
			if err == nil || !strings.Contains(err.Error(), tc.quotes) {
				t.Fatalf("want a failure quoting %q, got %v", tc.quotes, err)
			}
			switch {
			case tc.want == "" && tc.differs:
				// A's failure stops the comparison after the
				// difference found before it (not equivalent, with
				// what stopped it): not B's failure.
				if rep == nil || !strings.Contains(rep.Incomparable, tc.quotes) || hasDifference(rep, "catalog", "B cannot be read where A can") {
					t.Fatalf("want the comparison stopped by A's failure, got %v", err)
				}
			case tc.want == "":
				wantIncomparable(t, err)
			default:
				wantBCannotBeRead(t, rep, err, tc.want)
			}
		})
	}
}

// TestReadFailSides: bOnlyFailure decides by the side marks in the error's
// tree, whatever the message says, and still keeps I/O, environmental and
// cancelled failures of B as could not compare.
func TestReadFailSides(t *testing.T) {
	const b = "/lake/b.duckdb"
	gone := &fs.PathError{Op: "open", Path: "/lake/data/x.parquet", Err: fs.ErrNotExist}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" : not B's alone
	}{
		{"B's read", markB(errors.New("read schemas of /lake/a.duckdb at snapshot 1: a schema has a NULL id or name")), "read schemas of /lake/a.duckdb at snapshot 1: a schema has a NULL id or name"},
		{"B's read, wrapped", incomparable(fmt.Errorf("snapshot 2: table main.t: %w", markB(errors.New("boom")))), "snapshot 2: table main.t: boom"},
		{"A's read naming B", markA(errors.New("read columns of " + b)), ""},
		{"both", errors.Join(markA(errors.New("a")), markB(errors.New("b"))), ""},
		{"both, nested", markB(fmt.Errorf("x: %w", markA(errors.New("a")))), ""},
		{"not marked", errors.New("read columns of " + b), ""},
		{"B's, a file", markB(fmt.Errorf("data file x of main.t in %s: %w", b, gone)), ""},
		{"B's, a file only B names", markB(&bReadFailure{err: fmt.Errorf("catalog B names x, which does not exist and which A does not name: %w", gone)}), "catalog B names x, which does not exist and which A does not name: " + gone.Error()},
		{"B's, environmental", markB(errors.New("read columns of " + b + ": IO Error: disk")), ""},
		// DuckDB's type decides where the driver gives one, whatever the
		// message holds; the text only where it gives none (Invalid).
		{"B's, DuckDB's IO error", markB(fmt.Errorf("read x of %s: %w", b, &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: Could not read enough bytes"})), ""},
		{"B's, DuckDB's out of memory", markB(fmt.Errorf("read x: %w", &duckdb.Error{Type: duckdb.ErrorTypeOutOfMemory, Msg: "Out of Memory Error: failed to allocate"})), ""},
		{"B's, DuckDB's conversion error", markB(fmt.Errorf("read x: %w", &duckdb.Error{Type: duckdb.ErrorTypeConversion, Msg: "Conversion Error: value: IO Error: disk"})), "read x: Conversion Error: value: IO Error: disk"},
		{"B's, DuckDB's untyped interrupt", markB(fmt.Errorf("read x: %w", &duckdb.Error{Type: duckdb.ErrorTypeInvalid, Msg: "Interrupt Error: stopped"})), ""},
		{"B's, DuckDB's invalid error", markB(fmt.Errorf("read x: %w", &duckdb.Error{Type: duckdb.ErrorTypeInvalid, Msg: "Invalid Error: TProtocolException: Invalid data"})), "read x: Invalid Error: TProtocolException: Invalid data"},
		{"B's, DuckDB's invalid error quoting IO Error", markB(fmt.Errorf("read x: %w", &duckdb.Error{Type: duckdb.ErrorTypeInvalid, Msg: "Invalid Error: value: IO Error: disk"})), "read x: Invalid Error: value: IO Error: disk"},
		{"B's, a name quoting IO Error", markB(errors.New("table 3 in " + b + ": column 2 (IO Error: disk) has unknown parent 0")), "table 3 in " + b + ": column 2 (IO Error: disk) has unknown parent 0"},
		{"B's, cancelled", markB(fmt.Errorf("read: %w", context.Canceled)), ""},
		{"nil", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			what, ok := bOnlyFailure(tc.err)
			if ok != (tc.want != "") || what != tc.want {
				t.Fatalf("bOnlyFailure = %q, %v; want %q", what, ok, tc.want)
			}
		})
	}
}

// TestReadFailBFirst: the checks that read B before A, or B alone
// (footerQuirkDifferences' file list, earlyTableStats' table names,
// valueCountZero, stringTableStats), mark a failure of B's read as B's,
// and as both catalogs' when A's same read fails too (bThenA): B's alone
// is "B cannot be read where A can" (exit 3), both could not compare
// (exit 4: A cannot be read either). No catalog value reaches those
// failures any more: the values that did (a path_is_relative, a
// data_file_id, an inlined data table's table_id made text) are refused
// when the catalog is opened (formats.TypeDiffs, TestRetypedMetadataSides),
// so bThenA is tried on the failures directly.
func TestReadFailBFirst(t *testing.T) {
	errB, errA := errors.New("list the files of B: boom"), errors.New("list the files of A: boom")
	if err := bThenA(nil, func() error { t.Fatal("A read without a failure of B"); return nil }); err != nil {
		t.Fatalf("bThenA(nil) = %v", err)
	}
	if what, ok := bOnlyFailure(bThenA(errB, func() error { return nil })); !ok || what != errB.Error() {
		t.Fatalf("B's failure alone: bOnlyFailure = %q, %v; want %q, true", what, ok, errB)
	}
	both := bThenA(errB, func() error { return errA })
	if a, b := failedSides(both); !a || !b {
		t.Fatalf("A's read failing too: sides A %v, B %v; want both", a, b)
	}
	if _, ok := bOnlyFailure(both); ok {
		t.Fatalf("A's read failing too is B's alone: %v", both)
	}
	if !strings.Contains(both.Error(), "the same read of A fails too") {
		t.Errorf("the failure does not say A's read fails too: %v", both)
	}
}

// TestRetypedMetadataSides: a metadata column of another type than its
// format's (what once reached the reads of B before A with a value that
// does not cast) is refused when the catalog is opened, on the side it is
// in: in B alone, B cannot be read while A can (exit 3, a catalog
// difference naming the column and both types); in both, could not
// compare (exit 4).
func TestRetypedMetadataSides(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	stamp04 := `UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`
	for _, tc := range []struct {
		name, want string // want: what B's failure names
		sql        []string
		toB        []string // B's alone, before sql: its format
	}{
		{name: "path_is_relative, B in 0.4", want: `ducklake_schema.path_is_relative is VARCHAR, format 0.4 has BOOLEAN`, toB: []string{stamp04}, sql: []string{
			`ALTER TABLE ducklake_schema ALTER path_is_relative TYPE VARCHAR`, `UPDATE ducklake_schema SET path_is_relative = 'x'`}},
		{name: "data_file_id", want: `ducklake_file_column_stats.data_file_id is VARCHAR, format 1.0 has BIGINT`, sql: []string{
			`ALTER TABLE ducklake_file_column_stats ALTER data_file_id TYPE VARCHAR`,
			`UPDATE ducklake_file_column_stats SET value_count = 0, data_file_id = 'x' WHERE data_file_id = '0' AND column_id = 1`}},
		{name: "inlined table_id, 0.4", want: `ducklake_inlined_data_tables.table_id is VARCHAR, format 0.4 has BIGINT`, sql: []string{stamp04,
			`ALTER TABLE ducklake_inlined_data_tables ALTER table_id TYPE VARCHAR`,
			`INSERT INTO ducklake_inlined_data_tables VALUES ('x', 'ducklake_inlined_data_9_9', 1)`}},
	} {
		for _, both := range []bool{true, false} {
			name := tc.name + ", B only"
			if both {
				name = tc.name + ", both"
			}
			t.Run(name, func(t *testing.T) {
				a, b := catalog, tamper(t, catalog, append(slices.Clone(tc.toB), tc.sql...)...)
				if both {
					a = tamper(t, catalog, tc.sql...)
				}
				rep, err := Catalogs(context.Background(), a, b, Options{DataPath: data, Engines: readerDBs})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("want a failure naming %q, got %v", tc.want, err)
				}
				if both {
					wantIncomparable(t, err)
					return
				}
				// Not equivalent (exit 3): B's own refusal, could not
				// compare, is quoted in the difference.
				if !errors.Is(err, ErrNotEquivalent) || rep == nil || rep.Incomparable != "" {
					t.Fatalf("want not equivalent, got %v", err)
				}
				if !hasDifference(rep, "catalog", "B cannot be read while A can") || !hasDifference(rep, "catalog", tc.want) {
					t.Fatalf("want a catalog difference naming %q: %+v", tc.want, rep.Differences)
				}
			})
		}
	}
}

// wantIncomparable fails the test unless err is "could not compare"
// (exit 4), not "not equivalent".
func wantIncomparable(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrIncomparable) || errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("want could not compare, got %v", err)
	}
}

// wantBCannotBeRead fails the test unless err is "not equivalent" (exit 3)
// and rep holds the one catalog difference "B cannot be read where A can"
// naming what, the comparison not stopped.
func wantBCannotBeRead(t *testing.T, rep *Report, err error, what string) {
	t.Helper()
	if !errors.Is(err, ErrNotEquivalent) || errors.Is(err, ErrIncomparable) {
		t.Fatalf("want not equivalent, got %v", err)
	}
	if !hasDifference(rep, "catalog", "B cannot be read where A can") || !hasDifference(rep, "catalog", what) || rep.Incomparable != "" {
		t.Fatalf("want a catalog difference naming %q: %+v", what, rep.Differences)
	}
}

// TestReadFailEnvironmentalByType: whether B's failure is the machine's
// or DuckDB's (could not compare, exit 4) or B's catalog's (exit 3) is the
// type DuckDB gives the error, not what its message says. A failure of B
// whose message quotes a value or path of B holding "IO Error" is B's:
// DuckDB's or the driver's conversion error quoting a value, a struct column of
// that name with no fields, B's catalog in a folder of that name. Until
// session 24 these were exit 4 (or, after differences found before, the
// comparison stopped without saying that B failed). A data file of that
// name that only B names and that does not exist was B's already (told by
// its own type, bReadFailure). DuckDB's IO error from a read of B (a real
// one, injected at B's read of its metadata values) stays exit 4, its
// *duckdb.Error kept in the error's chain.
func TestReadFailEnvironmentalByType(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	ioErr := realIOError(t)
	for _, tc := range []struct {
		name   string
		folder string // B's catalog's folder, under the test's
		sql    []string
		inject error  // failing B's read of its metadata values
		want   string // what B's failure names; "" : could not compare
	}{
		// A value of B that does not cast (DuckDB's conversion error, the
		// driver's scan of a non-boolean path_is_relative), quoting "IO
		// Error", reached B's reads through a retyped metadata column,
		// refused since when the catalog is opened (TestRetypedMetadataSides);
		// the side of DuckDB's typed errors is TestReadFailSides'.
		{name: "struct of no fields named IO Error", want: `IO Error: disk (id 3) has no fields`, sql: []string{
			`UPDATE ducklake_column SET column_type = 'struct', column_name = 'IO Error: disk' WHERE rowid = (SELECT min(rowid) FROM ducklake_column WHERE parent_column IS NULL AND end_snapshot IS NULL AND column_type NOT IN ('struct', 'list', 'map'))`}},
		{name: "B's folder named IO Error", folder: "IO Error", want: `column_order`, sql: []string{
			`UPDATE ducklake_column SET column_order = NULL WHERE rowid = 0`}},
		{name: "data file named IO Error only B names", want: `IO Error.parquet, which does not exist and which A does not name`, sql: []string{
			`UPDATE ducklake_data_file SET path = 'IO Error.parquet' WHERE rowid = 0`}},
		{name: "DuckDB's IO error", inject: ioErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := filepath.Join(t.TempDir(), tc.folder, "b.duckdb")
			copyFile(t, catalog, b)
			execCatalog(t, b, tc.sql...)
			ctx := faults.With(context.Background(), func(p faults.Point) error {
				if p.Name == "compare/reader-values" && p.Path == b {
					return tc.inject
				}
				return nil
			})
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data, Engines: readerDBs})
			if err == nil || !strings.Contains(err.Error(), "IO Error") {
				t.Fatalf("want a failure holding %q, got %v", "IO Error", err)
			}
			if tc.want == "" {
				wantIncomparable(t, err)
				var de *duckdb.Error
				if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeIO {
					t.Errorf("DuckDB's IO error is not in the chain: %#v", err)
				}
				return
			}
			wantBCannotBeRead(t, rep, err, tc.want)
		})
	}
}

// realIOError is DuckDB's error for a read of a Parquet file that is not
// there: a *duckdb.Error of type IO, as DuckDB and the driver make it.
func realIOError(t *testing.T) error {
	t.Helper()
	ctx := context.Background()
	db, err := helperDBs.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer helperDBs.Discard(db) //nolint:errcheck // a test's database
	_, err = db.ExecContext(ctx, "SELECT * FROM read_parquet("+sqlString(filepath.Join(t.TempDir(), "gone.parquet"))+")")
	var de *duckdb.Error
	if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeIO {
		t.Fatalf("want DuckDB's IO error, got %#v", err)
	}
	return err
}

// TestReadFailGateIsNoBFailure: a gate that cannot make a file readable
// (a copy a remote repository's cache could not download again) fails a
// read of B first as often as one of A, but it is the files' failure, not
// B's: never "B cannot be read where A can" (a difference), whichever side
// asked.
func TestReadFailGateIsNoBFailure(t *testing.T) {
	err := markB(fmt.Errorf("read data file x: %w", gateFailed(errors.New("data file x: download: connection reset"))))
	if what, ok := bOnlyFailure(err); ok {
		t.Errorf("a gate's failure on a read of B is B's: %q", what)
	}
	if _, ok := bOnlyFailure(markB(errors.New("Invalid Input Error: not a catalog"))); !ok {
		t.Error("a read of B that fails alone is no longer B's")
	}
}
