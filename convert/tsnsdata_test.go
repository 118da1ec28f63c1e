package convert

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// tsNSEarlyLake copies 01_primitive_types with main.prim's data files
// rewritten by DuckDB so that ts_ns holds ts (a TIMESTAMP_NS before
// 1677-09-22, which DuckDB reads, compares and hashes but cannot render as
// text) in the rows where pick is true, with the files' sizes, footers and
// ts_ns statistics updated in a copy of the catalog. It returns the catalog
// copy and the copied data folder. (compare's tests build the same lake for
// the proof alone; compare must not import convert.)
func tsNSEarlyLake(t *testing.T, ts, pick string) (catalog, data string) {
	t.Helper()
	lake := filepath.Join(testlakes.Dir(t, "lakes"), "01_primitive_types")
	cats := versionCatalogs(t, lake)
	src := cats[len(cats)-1]
	data = filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(data, os.DirFS(filepath.Join(lake, "data"))); err != nil {
		t.Fatal(err)
	}
	ids := query(t, src, `SELECT '{' || string_agg('"' || column_name || '": ' || column_id, ', ') || '}' FROM c.ducklake_column WHERE table_id = 1 AND end_snapshot IS NULL AND parent_column IS NULL`)[0][0]
	db := testduck.Open(t, "")
	text := func(ns int64) string { return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.999999999") }
	var edits []string
	tableLo := int64(math.MaxInt64)
	for _, f := range query(t, src, `SELECT data_file_id, path FROM c.ducklake_data_file WHERE table_id = 1 AND end_snapshot IS NULL`) {
		file := filepath.Join(data, "main", "prim", f[1])
		tmp := file + ".new"
		if _, err := db.Exec(`COPY (SELECT * REPLACE (CASE WHEN ` + pick + ` THEN TIMESTAMP_NS '` + ts + `' ELSE ts_ns END AS ts_ns) FROM read_parquet('` + file + `')) TO '` + tmp + `' (FORMAT parquet, FIELD_IDS ` + ids + `)`); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var lo, hi int64
		if err := db.QueryRow(`SELECT epoch_ns(min(ts_ns)), epoch_ns(max(ts_ns)) FROM read_parquet('`+file+`')`).Scan(&lo, &hi); err != nil {
			t.Fatal(err)
		}
		edits = append(edits, fmt.Sprintf("UPDATE ducklake_data_file SET file_size_bytes = %d, footer_size = %d WHERE data_file_id = %s", len(b), binary.LittleEndian.Uint32(b[len(b)-8:]), f[0]),
			fmt.Sprintf("UPDATE ducklake_file_column_stats SET min_value = '%s', max_value = '%s' WHERE data_file_id = %s AND column_id = 22", text(lo), text(hi), f[0]))
		tableLo = min(tableLo, lo)
	}
	edits = append(edits, fmt.Sprintf("UPDATE ducklake_table_column_stats SET min_value = '%s' WHERE table_id = 1 AND column_id = 22", text(tableLo)))
	return editedCopy(t, src, edits...), data
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
