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

// TestDeltaByteArrayRefused holds conversions of a lake whose UUID
// column's data file lists DELTA_BYTE_ARRAY among its chunk's encodings
// (as parquet-mr's V2 pages encode a FIXED_LEN_BYTE_ARRAY; here only the
// footer says so, footertest.BreakDeltaByteArray) to
// formats.FooterDeltaByteArray: DuckDB 1.3 and 1.4 fail every read of
// such a column, 1.5.0 and later read it. A 0.3 target is refused, naming
// the quirk, the table, the column and the file; a 0.3 catalog converted
// before the file was rewritten is reported by the proof; 0.4 converts
// and proves. Before, the 0.3 conversion was written without a finding and
// proved equivalent, though no DuckDB 1.4 reads the table.
func TestDeltaByteArrayRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	l, err := footertest.NewUUIDLake(ctx, filepath.Join(dir, "lake"))
	if err != nil {
		t.Fatal(err)
	}
	before := filepath.Join(dir, "before-0.3.duckdb")
	if _, err := Catalog(ctx, l.Catalog, before, formats.V0_3, Options{DataPath: l.Data}); err != nil {
		t.Fatalf("convert to 0.3 before the file is rewritten: %v", err)
	}
	if err := l.BreakDeltaByteArray(ctx, before); err != nil {
		t.Fatal(err)
	}
	_, err = Check(ctx, l.Catalog, formats.V0_3, Options{DataPath: l.Data})
	var refused *RefusedError
	if err != nil && !errors.As(err, &refused) {
		t.Fatal(err)
	}
	var got []string
	for _, f := range refusedFindings(refused) {
		if _, ok := formats.FooterQuirkNamed(f.Code); ok && f.Severity == Refuse {
			got = append(got, f.Code)
			if !strings.Contains(f.Detail, "ids") || !strings.Contains(f.Detail, "column u") || !strings.Contains(f.Detail, ".parquet") || !strings.Contains(f.Reason, "DuckDB 1.4.0") {
				t.Errorf("finding names no table, column, file or release: %s", f)
			}
		}
	}
	if want := []string{formats.FooterDeltaByteArray}; !slices.Equal(got, want) {
		t.Errorf("0.3: footer findings %v (%v), want %v", got, err, want)
	}
	wantOnlyFooterDifference(t, l.Catalog, before, l.Data, formats.FooterDeltaByteArray, "main.ids")
	convertsAndProves(t, l.Catalog, l.Data, formats.V0_4)
}
