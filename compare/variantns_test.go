package compare

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// variantNSLake is testlakes.VariantTimestampNSEarly on the last version of
// lakes' 13_variant.
func variantNSLake(t *testing.T, top, nested map[int]string) (catalog, data string) {
	t.Helper()
	lake, src := lastVersion(t, "lakes", "13_variant")
	return testlakes.VariantTimestampNSEarly(t, src, filepath.Join(lake, "data"), top, nested)
}

// TestVariantTimestampNSEarlyData proves lakes whose VARIANT column holds
// TIMESTAMP_NS values before 1677-09-22 (DuckDB reads, compares and
// hashes them, writes them into Parquet, but cannot render them as text),
// itself and inside an object, against copies with one such value
// changed: the proof lists the first differing rows. Before, the digest
// stopped on DuckDB's "Date out of range in timestamp_ns conversion"
// ("catalogs could not be compared"), as it hashes a VARIANT by its text.
func TestVariantTimestampNSEarlyData(t *testing.T) {
	const early = "1677-09-21 12:00:00"
	a, dataA := variantNSLake(t, map[int]string{1: early}, map[int]string{4: early})
	for _, tc := range []struct {
		name         string
		top, nested  map[int]string
		onlyA, onlyB []string // in the differing rows of each side; none when equivalent
	}{
		{"same rows", map[int]string{1: early}, map[int]string{4: early}, nil, nil},
		{"B's value differs in nanoseconds", map[int]string{1: early + ".000000007"}, map[int]string{4: early},
			[]string{"'id': 1, 'v': 1677-09-21 12:00:00}"}, []string{"'id': 1, 'v': 1677-09-21 12:00:00.000000007}"}},
		{"B's early value is in another row", map[int]string{2: early}, map[int]string{4: early},
			[]string{"'id': 1, 'v': 1677-09-21 12:00:00}"}, []string{"'id': 1, 'v': 42}"}},
		{"B's object holds another early value", map[int]string{1: early}, map[int]string{4: early + ".5"},
			[]string{"'id': 4, 'v': VARIANT "}, []string{"'id': 4, 'v': VARIANT "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// B's own catalog: the file written again is another size.
			b, dataB := variantNSLake(t, tc.top, tc.nested)
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: dataA, DataPathB: dataB, Engines: readerDBs})
			if tc.onlyA == nil {
				if err != nil {
					t.Fatalf("%v\n%v", err, rep.Differences)
				}
				return
			}
			if err == nil {
				t.Fatal("equivalent; want the rows of main.variant_tbl to differ")
			}
			var rows *RowDiff
			for _, tr := range rep.Tables {
				if tr.Rows != nil {
					rows = tr.Rows
				}
			}
			if rows == nil {
				t.Fatalf("no differing rows listed: %v (%v)", rep.Differences, err)
			}
			t.Logf("only A: %q; only B: %q", rows.OnlyA, rows.OnlyB)
			has := func(got []string, want string) bool {
				return slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) })
			}
			for _, w := range tc.onlyA {
				if !has(rows.OnlyA, w) {
					t.Errorf("no row only in A with %q: %q", w, rows.OnlyA)
				}
			}
			for _, w := range tc.onlyB {
				if !has(rows.OnlyB, w) {
					t.Errorf("no row only in B with %q: %q", w, rows.OnlyB)
				}
			}
		})
	}
}
