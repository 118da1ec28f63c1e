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

// TestVariantDecimal2 holds conversions of a lake whose VARIANT column
// DuckDB 1.5.6 shreds on DECIMAL(4,2) (lakes' 13_variant, its first data
// file written again so) to formats.FooterVariantDecimal2: DuckDB 1.5.0
// and 1.5.1, format 0.4's readers, fail every read of the column. A 0.4
// target is refused, naming the quirk, the table and the file, served to
// 1.5.1 alone too; a 0.4 catalog converted without the data folder (no
// footer read) is not proved equivalent: the proof reports the file; 1.1
// converts and proves. Before, the 0.4 conversion was written without a
// finding and proved equivalent, though none of its readers reads the
// table.
func TestVariantDecimal2(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "13_variant")
	cats := versionCatalogs(t, lake)
	catalog, data := testlakes.VariantRewritten(t, cats[len(cats)-1], filepath.Join(lake, "data"),
		"CASE WHEN id = 5 THEN v ELSE (id / 100)::DECIMAL(4,2)::VARIANT END")
	for _, readers := range []string{"", ">= 1.5.1"} {
		_, err := Check(ctx, catalog, formats.V0_4, Options{DataPath: data, Readers: map[string]string{"0.4": readers}})
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Fatalf("0.4 served to %q: %v; want refused", readers, err)
		}
		var got []string
		for _, f := range refused.Findings {
			if f.Code == formats.FooterVariantDecimal2 && f.Severity == Refuse {
				got = append(got, f.Detail)
				if !strings.Contains(f.Detail, "variant_tbl") || !strings.Contains(f.Detail, ".parquet") || !strings.Contains(f.Reason, "DuckDB 1.5.") {
					t.Errorf("finding names no table, file or release: %s", f)
				}
			}
		}
		if len(got) != 1 {
			t.Errorf("0.4 served to %q: %d findings %s (%v), want one", readers, len(got), formats.FooterVariantDecimal2, err)
		}
	}
	out := filepath.Join(t.TempDir(), "out.duckdb")
	if _, err := Catalog(ctx, catalog, out, formats.V0_4, Options{}); err != nil {
		t.Fatalf("convert to 0.4 without the data folder: %v", err)
	}
	rep, err := compare.Catalogs(ctx, catalog, out, compare.Options{DataPath: data})
	if !errors.Is(err, compare.ErrNotEquivalent) {
		t.Fatalf("proof of the 0.4 catalog: %v; want not equivalent", err)
	}
	var kinds []string
	for _, d := range rep.Differences {
		kinds = append(kinds, d.Kind+":"+d.Table)
		if d.Kind == compare.DiffFooter && !strings.Contains(d.Reason, "("+formats.FooterVariantDecimal2+")") {
			t.Errorf("footer difference of another quirk: %s", d)
		}
	}
	if !slices.Equal(kinds, []string{compare.DiffFooter + ":main.variant_tbl"}) {
		t.Errorf("differences %v, want the footer of main.variant_tbl's file: %v", kinds, rep.Differences)
	}
	convertsAndProves(t, catalog, data, formats.V1_1)
}
