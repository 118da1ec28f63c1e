package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestNestedDefaultsDropped130: DuckDB 1.3.0, the only release that opens
// format 0.1, drops the default of a list element and of a map value
// (multi_file_column_mapper.cpp MapColumnList/MapColumnMap at v1.3.0), so
// table fevo of 12_nested_types, whose data file 6 lacks lst.element.k and
// mp.value.k (added later), fails every read there ("Binder Error: Missing
// target value k for remap"). It was converted to 0.1 and proved
// equivalent (review finding). Now convert refuses it for 0.1 naming the
// table, file and field, the proof reads fevo in a 0.1 catalog as
// unreadable at those snapshots, and 0.2 (DuckDB 1.3.1+) is still proved.
func TestNestedDefaultsDropped130(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "12_nested_types")
	vs := versionCatalogs(t, lake)
	src, data := vs[len(vs)-1], filepath.Join(lake, "data")

	refusedAt130(t, src, data, []string{"list-map-struct-fields-missing-fail", "fevo", "data_file_id 6", "lst.element.k"},
		"main.fevo unreadable naming lst.element.k", func(d compare.Difference) bool {
			return d.Kind == "unreadable" && d.Table == "main.fevo" && strings.Contains(d.Reason, "lst.element.k") && strings.Contains(d.Reason, "list-map-struct-fields-missing-fail")
		})
}

// TestStructWithoutFileFields130: DuckDB 1.3.0's ConstructMapExpression
// ("no columns to map - emit the default value directly", removed in
// v1.3.1) reads a top-level struct that the file has but none of whose
// fields it has as the struct of the fields' defaults on every row, also
// where the file's struct is NULL. Table sevo of 12_nested_types, with its
// field j dropped together with i at snapshot 10 (only k, added at 6, is
// left) and a data file written at snapshot 5 holding a NULL col1, reads
// {k: NULL} there in 0.1 and NULL in 0.2 and 1.0: refused for 0.1, a rows
// difference in the proof, and 0.2 still proved.
func TestStructWithoutFileFields130(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "12_nested_types")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	dir := t.TempDir()
	file := filepath.Join(dir, "null-col1.parquet")
	execOn(t, editedCopy(t, vs[len(vs)-1]), fmt.Sprintf(`COPY (SELECT CAST(NULL AS STRUCT(i INTEGER, j INTEGER)) AS col1)
		TO %s (FORMAT parquet, FIELD_IDS {col1: {__duckdb_field_id: 1, i: 2, j: 3}})`, literal(file)))
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	src := editedCopy(t, without130Failure(t, vs[len(vs)-1]),
		"UPDATE ducklake_column SET end_snapshot = 10 WHERE table_id = 2 AND column_id = 3",
		fmt.Sprintf(`INSERT INTO ducklake_data_file BY NAME SELECT 100 AS data_file_id, 2 AS table_id, 5 AS begin_snapshot, %s AS path, false AS path_is_relative,
			'parquet' AS file_format, 1 AS record_count, %d AS file_size_bytes, 1000 AS row_id_start`, literal(file), st.Size()))

	refusedAt130(t, src, data, []string{"struct-without-file-fields-not-null", "sevo", "data_file_id 100", "col1"},
		"rows of main.sevo from snapshot 10", func(d compare.Difference) bool {
			return d.Kind == "rows" && d.Table == "main.sevo" && d.Snapshot != nil && *d.Snapshot >= 10
		})
}

// refusedAt130 holds src, a catalog DuckDB 1.3.0 (format 0.1) reads
// differently from the newer lines, to what each 0.1 quirk test expects:
// convert refuses it for 0.1 naming every string of names, the proof finds
// a difference matching want (described by what) between src and its
// faithful 0.1 conversion, and its 0.2 conversion (DuckDB 1.3.1+) is
// proved equivalent.
func refusedAt130(t *testing.T, src, data string, names []string, what string, want func(compare.Difference) bool) {
	t.Helper()
	ctx := context.Background()
	_, err := Check(ctx, src, formats.V0_1, Options{DataPath: data})
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Errorf("convert to 0.1: %v, want refused", err)
	} else {
		for _, name := range names {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("convert to 0.1: %v, want it to name %q", err, name)
			}
		}
	}

	out := filepath.Join(t.TempDir(), "faithful-0.1.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_1, Options{faithful: true}); err != nil {
		t.Fatalf("faithful 0.1: %v", err)
	}
	rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
	if !errors.Is(err, compare.ErrNotEquivalent) {
		t.Errorf("compare with the faithful 0.1 conversion: %v, want not equivalent", err)
	} else if !slices.ContainsFunc(rep.Differences, want) {
		t.Errorf("differences %v: want %s", rep.Differences, what)
	}

	out2 := filepath.Join(t.TempDir(), "0.2.duckdb")
	if _, err := Catalog(ctx, src, out2, formats.V0_2, Options{DataPath: data}); err != nil {
		t.Fatalf("convert to 0.2: %v", err)
	}
	if _, err := compare.Catalogs(ctx, src, out2, compare.Options{DataPath: data}); err != nil {
		t.Errorf("compare with the 0.2 conversion: %v, want equivalent", err)
	}
}
