package convert

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// tsNSEarlyLake is testlakes.TimestampNSEarly on the last version of
// lakes' 01_primitive_types.
func tsNSEarlyLake(t *testing.T, ts, pick string) (catalog, data string) {
	t.Helper()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	cats := versionCatalogs(t, lake)
	return testlakes.TimestampNSEarly(t, cats[len(cats)-1], filepath.Join(lake, "data"), ts, pick)
}

// TestTimestampNSEarlyDataConverted converts a lake whose TIMESTAMP_NS
// column holds 1677-09-21 12:00:00 (a value DuckDB reads but cannot render
// as text) to 0.4 and 1.1 and proves the result equivalent, and a B whose
// statistics of that column are edited not equivalent, with the min/max
// difference rendered. Before, the proof stopped on DuckDB's render error.
func TestTimestampNSEarlyDataConverted(t *testing.T) {
	t.Parallel()
	catalog, data := tsNSEarlyLake(t, "1677-09-21 12:00:00", "id = 1")
	for _, tc := range []struct {
		aTo  *formats.Version // A is the source converted to aTo; nil for the source
		to   *formats.Version // B is the source converted to to
		edit string           // on B
		want string           // in its minmax difference; "" for equivalent
	}{
		{to: formats.V0_4},
		{to: formats.V1_1},
		// 0.4 readers scan A, 1.1 readers fold B's (edited) statistics.
		{aTo: formats.V0_4, to: formats.V1_1, edit: "UPDATE ducklake_table_column_stats SET min_value = '1677-09-21 13:00:00' WHERE table_id = 1 AND column_id = 22",
			want: "min 1677-09-21 12:00:00, max 2200-01-01 00:00:00.000000001 by a scan"},
	} {
		t.Run(tc.to.Name+" "+tc.edit, func(t *testing.T) {
			ctx := context.Background()
			out := filepath.Join(t.TempDir(), "out.duckdb")
			if _, err := Catalog(ctx, catalog, out, tc.to, Options{DataPath: data}); err != nil {
				t.Fatalf("convert to %s: %v", tc.to.Name, err)
			}
			if tc.edit != "" {
				execOn(t, out, tc.edit)
			}
			a := catalog
			if tc.aTo != nil {
				a = filepath.Join(t.TempDir(), "a.duckdb")
				if _, err := Catalog(ctx, catalog, a, tc.aTo, Options{DataPath: data}); err != nil {
					t.Fatalf("convert to %s: %v", tc.aTo.Name, err)
				}
			}
			rep, err := compare.Catalogs(ctx, a, out, compare.Options{DataPath: data})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%v\n%v", err, rep.Differences)
				}
				return
			}
			if !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			var got []string
			for _, d := range rep.Differences {
				got = append(got, d.String())
			}
			if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "column ts_ns") && strings.Contains(s, tc.want) }) {
				t.Errorf("want a minmax difference of ts_ns with %q, got:\n%s\n(%v)", tc.want, strings.Join(got, "\n"), err)
			}
		})
	}
}

// TestTimestampNSEarlyNestedConverted converts a lake whose TIMESTAMP_NS
// values nested in STRUCT, LIST and MAP columns (and deeper) hold
// 1677-09-21 12:00:00 to 0.4 and 1.1 and proves the result equivalent.
func TestTimestampNSEarlyNestedConverted(t *testing.T) {
	t.Parallel()
	catalog, data := nestedEarlyLake(t)
	convertsAndProves(t, catalog, data, formats.V0_4, formats.V1_1)
}

// TestTimestampNSEarlyStructDeletesConverted converts a lake whose table
// has STRUCT columns, TIMESTAMP_NS values (top-level and nested) of
// 1677-09-21 12:00:00 and deletes in the data file holding them to
// formats whose readers have QuirkStructNullsAfterSkippedVector (0.2,
// 0.3, 0.4), and proves each conversion: the struct-skip checks of
// convert and of the proof read the file's row groups from its footer.
// Before, both read them with DuckDB's parquet_metadata, which renders
// every statistics bound and fails on the early TIMESTAMP_NS one ("Date
// out of range in timestamp_ns conversion"): the conversion stopped.
func TestTimestampNSEarlyStructDeletesConverted(t *testing.T) {
	t.Parallel()
	catalog, data := nestedEarlyLake(t)
	testlakes.DeleteRows(t, catalog, data, 0, []int64{2}) // data file 0 holds id 1, the early row, which stays
	convertsAndProves(t, catalog, data, formats.V0_2, formats.V0_3, formats.V0_4)
}

// TestTimestampNSEarlyFooterQuirkRefused: the data file of
// 01_primitive_types whose ts_ns holds 1677-09-21 12:00:00 gets a VARCHAR
// bound that is not valid UTF-8 (its footer patched), which DuckDB
// 1.3.0-1.4.3 fail on: a conversion to 0.3, whose readers include them,
// is refused naming the file's column s, and the proof of a faithful 0.3
// conversion reports it. Before, the footer checks read the file's chunks
// with DuckDB's parquet_metadata, which fails on the early TIMESTAMP_NS
// bound; the file was left out as unreadable and the conversion passed.
func TestTimestampNSEarlyFooterQuirkRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	catalog, data := tsNSEarlyLake(t, "1677-09-21 12:00:00", "id = 1")
	files, err := filepath.Glob(filepath.Join(data, "main", "prim", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	db := testduck.Open(t, "")
	patched := 0
	for _, f := range files {
		var early int64
		if err := db.QueryRow(`SELECT count(*) FROM read_parquet(` + parquetsql.Path(f) + `) WHERE ts_ns < TIMESTAMP_NS '1677-09-22 00:00:00'`).Scan(&early); err != nil {
			t.Fatal(err)
		}
		if early == 0 {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// "héllo" to "h\xC3(llo" in the footer: s's max bound.
		start := len(b) - 8 - int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		if !bytes.Contains(b[start:], []byte("héllo")) {
			t.Fatalf("%s: no bound héllo in the footer", f)
		}
		copy(b[start:], bytes.ReplaceAll(b[start:], []byte("héllo"), []byte("h\xC3(llo")))
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		patched++
	}
	if patched != 1 {
		t.Fatalf("%d data files hold the early value, want 1", patched)
	}
	_, err = Check(ctx, catalog, formats.V0_3, Options{DataPath: data})
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("convert to 0.3: %v, want refused", err)
	}
	if !slices.ContainsFunc(refused.Findings, func(f Finding) bool {
		return f.Code == formats.FooterStringStatsInvalidUTF8 && strings.Contains(f.Detail, "prim") && strings.Contains(f.Detail, "column s:")
	}) {
		t.Errorf("convert to 0.3: %v, want %s refused for column s of main.prim", err, formats.FooterStringStatsInvalidUTF8)
	}
	out := filepath.Join(t.TempDir(), "faithful-0.3.duckdb")
	if _, err := Catalog(ctx, catalog, out, formats.V0_3, Options{faithful: true, DataPath: data}); err != nil {
		t.Fatalf("faithful 0.3: %v", err)
	}
	rep, err := compare.Catalogs(ctx, catalog, out, compare.Options{DataPath: data})
	if !errors.Is(err, compare.ErrNotEquivalent) || !slices.ContainsFunc(rep.Differences, func(d compare.Difference) bool {
		return d.Kind == compare.DiffFooter && d.Table == "main.prim" && strings.Contains(d.Reason, "column s:") && strings.Contains(d.Reason, formats.FooterStringStatsInvalidUTF8)
	}) {
		t.Errorf("compare with the faithful 0.3 conversion: %v %v, want a %s difference of main.prim column s", err, rep.Differences, compare.DiffFooter)
	}
}

// nestedEarlyLake is 01_primitive_types with every nested TIMESTAMP_NS
// column holding 1677-09-21 12:00:00 in the row id = 1
// (testlakes.TimestampNSEarlyNested): its catalog and data folder.
func nestedEarlyLake(t *testing.T) (catalog, data string) {
	t.Helper()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	cats := versionCatalogs(t, lake)
	ts := map[string]string{}
	for _, c := range testlakes.NestedTimestampNSColumns {
		ts[c] = "1677-09-21 12:00:00"
	}
	return testlakes.TimestampNSEarlyNested(t, cats[len(cats)-1], filepath.Join(lake, "data"), "id = 1", ts)
}

// convertsAndProves converts catalog (its data in data) to each target and
// proves every output equivalent to it.
func convertsAndProves(t *testing.T, catalog, data string, targets ...*formats.Version) {
	t.Helper()
	for _, to := range targets {
		t.Run(to.Name, func(t *testing.T) {
			ctx := context.Background()
			out := filepath.Join(t.TempDir(), "out.duckdb")
			if _, err := Catalog(ctx, catalog, out, to, Options{DataPath: data}); err != nil {
				t.Fatalf("convert to %s: %v", to.Name, err)
			}
			if rep, err := compare.Catalogs(ctx, catalog, out, compare.Options{DataPath: data}); err != nil {
				t.Fatalf("%v\n%v", err, rep.Differences)
			}
		})
	}
}

// TestVariantTimestampNSEarlyConverted converts a lake whose VARIANT
// column holds a TIMESTAMP_NS of 1677-09-21 12:00:00, itself and inside an
// object (shredded: the file's footer holds such a bound), to 0.4 and 1.1
// and proves the result equivalent. It passed before the VARIANT's hash
// was mended too: the proof of a conversion, whose data files both sides
// read under the same plan, scans them without hashing their rows
// (compare.Timings.Checked); TestVariantTimestampNSEarlyData hashes them.
func TestVariantTimestampNSEarlyConverted(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "13_variant")
	cats := versionCatalogs(t, lake)
	const early = "1677-09-21 12:00:00"
	catalog, data := testlakes.VariantTimestampNSEarly(t, cats[len(cats)-1], filepath.Join(lake, "data"), map[int]string{1: early}, map[int]string{4: early})
	convertsAndProves(t, catalog, data, formats.V0_4, formats.V1_1)
}
