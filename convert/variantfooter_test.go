package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestVariantFooterQuirks holds conversions of a lake whose VARIANT column
// DuckDB 1.5.6 shreds on a type some of format 0.4's readers (DuckDB 1.5.0
// and 1.5.1) read wrong (lakes' 13_variant, its first data file written
// again so) to the footer quirk: on DECIMAL(4,2)
// (formats.FooterVariantDecimal2: they fail every read of the column) and
// on BLOB (formats.FooterVariantBlobBase64: they return base64 VARCHARs).
// A 0.4 target is refused, naming the quirk, the table and the file,
// served to 1.5.1 alone too; a 0.4 catalog converted without the data
// folder (no footer read) is not proved equivalent: the proof reports the
// file; 1.1 converts and proves. Before, the 0.4 conversion was written
// without a finding and proved equivalent, though its readers fail on the
// table or read other values.
func TestVariantFooterQuirks(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "13_variant")
	cats := versionCatalogs(t, lake)
	for _, c := range []struct{ quirk, value string }{
		{formats.FooterVariantDecimal2, "(id / 100)::DECIMAL(4,2)::VARIANT"},
		{formats.FooterVariantBlobBase64, "('\\x01' || id)::BLOB::VARIANT"},
	} {
		t.Run(c.quirk, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			// Row 5, a VARIANT null, stays (testlakes.VariantRewritten).
			catalog, data := testlakes.VariantRewritten(t, cats[len(cats)-1], filepath.Join(lake, "data"), "CASE WHEN id = 5 THEN v ELSE "+c.value+" END")
			for _, readers := range []string{"", ">= 1.5.1"} {
				_, err := Check(ctx, catalog, formats.V0_4, Options{DataPath: data, Readers: map[string]string{"0.4": readers}})
				var refused *RefusedError
				if !errors.As(err, &refused) {
					t.Fatalf("0.4 served to %q: %v; want refused", readers, err)
				}
				var got []string
				for _, f := range refused.Findings {
					if _, ok := formats.FooterQuirkNamed(f.Code); ok && f.Severity == Refuse {
						got = append(got, f.Code)
						if !strings.Contains(f.Detail, "variant_tbl") || !strings.Contains(f.Detail, ".parquet") || !strings.Contains(f.Reason, "DuckDB 1.5.") {
							t.Errorf("finding names no table, file or release: %s", f)
						}
					}
				}
				if !slices.Equal(got, []string{c.quirk}) {
					t.Errorf("0.4 served to %q: footer findings %v (%v), want %s", readers, got, err, c.quirk)
				}
			}
			out := filepath.Join(t.TempDir(), "out.duckdb")
			if _, err := Catalog(ctx, catalog, out, formats.V0_4, Options{}); err != nil {
				t.Fatalf("convert to 0.4 without the data folder: %v", err)
			}
			wantOnlyFooterDifference(t, catalog, out, data, c.quirk, "main.variant_tbl")
			convertsAndProves(t, catalog, data, formats.V1_1)
		})
	}
}
