package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// TestByteArrayDecimalRefused holds conversions of a lake whose
// DECIMAL(4,2) column's data file stores it as BYTE_ARRAY, its zero as a
// zero-length value (another writer's file, added with
// ducklake_add_data_files; footertest.BreakByteArrayDecimal), to
// formats.FooterDecimalByteArray: every DuckDB before 1.5.5 reads that
// zero as -0.01, so the readers of 0.1-0.4 and DuckDB 1.5.2-1.5.4 of 1.0
// return another row than the proof's DuckDB 1.5.6 reads. A 0.3 target is
// refused, naming the quirk, the table, the column and the file, also when
// served to DuckDB >= 1.4.4 only (the releases read wrong rows without an
// error, and every release that opens 0.3 opens it); a 0.3 catalog
// converted before the file was rewritten is reported by the proof; 1.1
// (DuckDB 2.0) converts and proves. Before, the 0.3 conversion was written
// without a finding and proved equivalent, and check passed a repository
// publishing it, though DuckDB 1.4 reads another row.
func TestByteArrayDecimalRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	l, err := footertest.NewByteArrayDecimalLake(ctx, filepath.Join(dir, "lake"))
	if err != nil {
		t.Fatal(err)
	}
	before := filepath.Join(dir, "before-0.3.duckdb")
	if _, err := Catalog(ctx, l.Catalog, before, formats.V0_3, Options{DataPath: l.Data}); err != nil {
		t.Fatalf("convert to 0.3 before the file is rewritten: %v", err)
	}
	if err := l.BreakByteArrayDecimal(ctx, before); err != nil {
		t.Fatal(err)
	}
	for _, readers := range []string{"", ">= 1.4.4"} {
		_, err := Check(ctx, l.Catalog, formats.V0_3, Options{DataPath: l.Data, Readers: map[string]string{"0.3": readers}})
		var refused *RefusedError
		if err != nil && !errors.As(err, &refused) {
			t.Fatal(err)
		}
		var got []string
		for _, f := range refusedFindings(refused) {
			if _, ok := formats.FooterQuirkNamed(f.Code); ok && f.Severity == Refuse {
				got = append(got, f.Code)
				if !strings.Contains(f.Detail, "amounts") || !strings.Contains(f.Detail, "column a") || !strings.Contains(f.Detail, ".parquet") || !strings.Contains(f.Reason, "DuckDB 1.4.0") {
					t.Errorf("finding names no table, column, file or release: %s", f)
				}
			}
		}
		if want := []string{formats.FooterDecimalByteArray}; !slices.Equal(got, want) {
			t.Errorf("0.3 served to %q: footer findings %v (%v), want %v", readers, got, err, want)
		}
	}
	wantOnlyFooterDifference(t, l.Catalog, before, l.Data, formats.FooterDecimalByteArray, "main.amounts")
	convertsAndProves(t, l.Catalog, l.Data, formats.V1_1)
}
