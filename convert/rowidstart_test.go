package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestRowIDStartRequired13: the DuckLake builds of DuckDB 1.3.0 (format
// 0.1) and 1.3.1 (2d890446, format 0.2's first release) read every visible
// data file's row_id_start as a number, so a NULL one fails every read of
// its table (row-id-start-required; ae083ac7, in 1.3.2, reads it after an
// IsNull check). lakes/17_compaction (1.0) has three merged data files with
// a NULL row_id_start (tables rw and cpart). Converted to 0.1 and 0.2 they
// were copied and the proofs passed. Now convert refuses them for both
// targets, naming the tables and data files, and the proof reports the
// faithful copies unreadable, while a 0.2 catalog read as a source (DuckDB
// 1.3.2) and a 0.3 copy (DuckDB 1.4) read them.
func TestRowIDStartRequired13(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "17_compaction")
	data := filepath.Join(lake, "data")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	const code = "row-id-start-required"
	for _, target := range []*formats.Version{formats.V0_1, formats.V0_2} {
		t.Run("convert to "+target.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), target.Name+".duckdb")
			_, err := Catalog(ctx, src, out, target, Options{DataPath: data})
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("converted to %s: want a refusal naming %s, got %v", target.Name, code, err)
			}
			var got []string
			for _, f := range refused.Findings {
				if f.Code == code {
					got = append(got, f.Detail)
					if f.Severity != Refuse || f.Table != "ducklake_data_file" {
						t.Errorf("want a refusal on ducklake_data_file, got %+v", f)
					}
				}
			}
			if len(got) != 1 {
				t.Fatalf("want one %s finding, got %v (err %v)", code, got, err)
			}
			for _, want := range []string{"table 3 rw data_file_id 24", "table 4 cpart data_file_id 32", "table 4 cpart data_file_id 33"} {
				if !strings.Contains(got[0], want) {
					t.Errorf("the refusal does not name %q: %s", want, got[0])
				}
			}
		})
	}
	// The catalogs the old convert wrote: the faithful copies.
	faithful := map[string]string{}
	for _, target := range []*formats.Version{formats.V0_1, formats.V0_2, formats.V0_3} {
		out := filepath.Join(t.TempDir(), target.Name+".duckdb")
		if _, err := Catalog(ctx, src, out, target, Options{DataPath: data, faithful: true}); err != nil {
			t.Fatalf("faithful %s: %v", target.Name, err)
		}
		faithful[target.Name] = out
	}
	for _, tc := range []struct {
		name       string
		a, b       string
		unreadable bool
	}{
		{"1.0 source, 0.1 copy", src, faithful["0.1"], true},
		{"1.0 source, 0.2 copy (held to DuckDB 1.3.1)", src, faithful["0.2"], true},
		{"0.2 source (DuckDB 1.3.2), 0.2 copy", faithful["0.2"], editedCopy(t, faithful["0.2"]), true},
		{"0.2 source (DuckDB 1.3.2), 0.3 copy", faithful["0.2"], faithful["0.3"], false},
		{"1.0 source, 0.3 copy", src, faithful["0.3"], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := compare.Catalogs(ctx, tc.a, tc.b, compare.Options{DataPath: data})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var tables, other []string
			for _, d := range rep.Differences {
				switch {
				case d.Kind == "unreadable" && strings.Contains(d.Reason, code):
					if !slices.Contains(tables, d.Table) {
						tables = append(tables, d.Table)
					}
				case d.Kind == "stats" && strings.Contains(d.Reason, "files-without-column-stats-pruned"):
					// The faithful copies lack the rows convert writes for
					// those readers (another quirk, not this test's).
				default:
					other = append(other, d.String())
				}
			}
			if len(other) > 0 {
				t.Errorf("other differences:\n%s", strings.Join(other, "\n"))
			}
			slices.Sort(tables)
			want := []string(nil)
			if tc.unreadable {
				want = []string{"main.cpart", "main.rw"}
			}
			if !slices.Equal(tables, want) {
				t.Errorf("tables unreadable for %s: %v, want %v", code, tables, want)
			}
		})
	}
}

// TestRowIDStartRequiredUnseenFile: the change feed of DuckDB 1.3.0's and
// 1.3.1's DuckLake (GetTableInsertions, GetTableDeletions in 2d890446) reads
// the row_id_start of every data file begun, or ended, in its range as a
// number too, whether or not a snapshot sees the file, so a data file no
// snapshot sees (begin_snapshot at its end_snapshot) with a NULL
// row_id_start fails ducklake_table_insertions and
// ducklake_table_deletions over ranges holding its snapshot. Here
// 17_compaction's data file 24 (table rw) begins and ends at 27 and the
// other merged files have numbers: convert converted it to 0.1 and 0.2
// (the refusal left out files no snapshot sees) and the proof found the
// copy equivalent (its "data file ended" entry said row_id_start NULL on
// both sides). Now convert refuses it and the proof reports the entry.
func TestRowIDStartRequiredUnseenFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "17_compaction")
	data := filepath.Join(lake, "data")
	vs := versionCatalogs(t, lake)
	src := editedCopy(t, vs[len(vs)-1],
		`UPDATE ducklake_data_file SET end_snapshot = begin_snapshot WHERE data_file_id = 24 AND begin_snapshot = 27`,
		`UPDATE ducklake_data_file SET row_id_start = 100000 * data_file_id WHERE data_file_id IN (32, 33)`)
	const code = "row-id-start-required"
	for _, target := range []*formats.Version{formats.V0_1, formats.V0_2} {
		_, err := Check(ctx, src, target, Options{DataPath: data})
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Fatalf("%s: want a refusal naming %s, got %v", target.Name, code, err)
		}
		var got []string
		for _, f := range refused.Findings {
			if f.Code == code {
				got = append(got, f.Detail)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], "data_file_id 24 ") || strings.Contains(got[0], "data_file_id 32") {
			t.Errorf("%s: want a %s refusal naming data file 24 alone, got %q (err %v)", target.Name, code, got, err)
		}
	}
	out := filepath.Join(t.TempDir(), "0.2.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_2, Options{DataPath: data, faithful: true}); err != nil {
		t.Fatal(err)
	}
	rep, err := compare.Catalogs(ctx, src, out, compare.Options{DataPath: data})
	if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rep.Differences, func(d compare.Difference) bool {
		return d.Table == "main.rw" && strings.Contains(d.Item, "data file ended") && strings.Contains(d.B, code)
	}) {
		t.Errorf("the faithful 0.2 copy: no %s difference of main.rw's data file no snapshot sees: %v", code, rep.Differences)
	}
}
