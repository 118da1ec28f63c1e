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
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// TestWideDecimalInIntRefused holds conversions of a lake whose DECIMAL(20,2)
// column's data file stores it as INT64 (another writer's file, added with
// ducklake_add_data_files; footertest.BreakWideDecimal) to
// formats.FooterDecimalWideInInt: DuckDB 1.3.0 and 1.3.1 fail every read of
// the column. A 0.2 target (DuckDB 1.3.1-1.3.2) is refused, naming the
// quirk, the table, the column and the file, unless served to 1.3.2 and
// later; a 0.2 catalog converted before the file was rewritten is reported
// by the proof; 0.3-dev1 (DuckDB 1.3.2) and 0.3 convert and prove. Before,
// the 0.2 conversion was written without a finding and proved equivalent,
// though DuckDB 1.3.1 cannot read the table.
func TestWideDecimalInIntRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	l, err := footertest.NewWideDecimalLake(ctx, filepath.Join(dir, "lake"))
	if err != nil {
		t.Fatal(err)
	}
	before := filepath.Join(dir, "before-0.2.duckdb")
	if _, err := Catalog(ctx, l.Catalog, before, formats.V0_2, Options{DataPath: l.Data}); err != nil {
		t.Fatalf("convert to 0.2 before the file is rewritten: %v", err)
	}
	if err := l.BreakWideDecimal(ctx, before); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		readers string
		refused bool
	}{{"", true}, {">= 1.3.2", false}} {
		_, err := Check(ctx, l.Catalog, formats.V0_2, Options{DataPath: l.Data, Readers: map[string]string{"0.2": c.readers}})
		var refused *RefusedError
		if err != nil && !errors.As(err, &refused) {
			t.Fatal(err)
		}
		var got []string
		for _, f := range refusedFindings(refused) {
			if _, ok := formats.FooterQuirkNamed(f.Code); ok && f.Severity == Refuse {
				got = append(got, f.Code)
				if !strings.Contains(f.Detail, "decs") || !strings.Contains(f.Detail, "column d") || !strings.Contains(f.Detail, ".parquet") || !strings.Contains(f.Reason, "DuckDB 1.3.1") {
					t.Errorf("finding names no table, column, file or release: %s", f)
				}
			}
		}
		var want []string
		if c.refused {
			want = []string{formats.FooterDecimalWideInInt}
		}
		if !slices.Equal(got, want) {
			t.Errorf("0.2 served to %q: footer findings %v (%v), want %v", c.readers, got, err, want)
		}
	}
	wantOnlyFooterDifference(t, l.Catalog, before, l.Data, formats.FooterDecimalWideInInt, "main.decs")
	convertsAndProves(t, l.Catalog, l.Data, formats.V0_3)
}

// wantOnlyFooterDifference proves catalog b against a and wants it not
// equivalent for one reason: a footer difference of quirk on table's
// data file.
func wantOnlyFooterDifference(t *testing.T, a, b, data, quirk, table string) {
	t.Helper()
	rep, err := compare.Catalogs(context.Background(), a, b, compare.Options{DataPath: data})
	if !errors.Is(err, compare.ErrNotEquivalent) {
		t.Fatalf("proof of %s: %v; want not equivalent", filepath.Base(b), err)
	}
	var got []string
	for _, d := range rep.Differences {
		got = append(got, d.Kind+":"+d.Table)
		if d.Kind == compare.DiffFooter && !strings.Contains(d.Reason, "("+quirk+")") {
			t.Errorf("footer difference of another quirk than %s: %s", quirk, d)
		}
	}
	if !slices.Equal(got, []string{compare.DiffFooter + ":" + table}) {
		t.Errorf("differences %v, want the footer of %s's file: %v", got, table, rep.Differences)
	}
}
