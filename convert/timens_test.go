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

// TestTimeNSRefusedFor04: 01_primitive_types (1.0) with main.prim's tm
// made time_ns and its files written again by DuckDB 1.5.6
// (testlakes.TimeNS) is refused for 0.4, whose readers (DuckDB 1.5.0 and
// 1.5.1) fail on every file holding a Parquet TIME field of a time_ns
// column (time-ns-files-unreadable), naming both data files; it still
// converts to 1.1 and proves equivalent, and that 1.1 catalog is refused
// for 1.0, whose first releases (DuckDB 1.5.2-1.5.5) fail too. With tm
// stored as text, as DuckDB wrote TIME_NS before, it converts to 0.4 and
// proves equivalent. Before,
// the 0.4 conversion of the Parquet TIMEs was written and proved
// equivalent.
func TestTimeNSRefusedFor04(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	cats := versionCatalogs(t, lake)
	src, data := testlakes.TimeNS(t, cats[len(cats)-1], filepath.Join(lake, "data"), "TIME_NS")
	ctx := context.Background()
	code := formats.QuirkTimeNSFilesUnreadable.Info().Name
	_, err := Catalog(ctx, src, filepath.Join(t.TempDir(), "0.4.duckdb"), formats.V0_4, Options{DataPath: data})
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("converted to 0.4 (%v), want refused for %s", err, code)
	}
	i := slices.IndexFunc(refused.Findings, func(f Finding) bool { return f.Code == code })
	if i < 0 || !strings.Contains(refused.Findings[i].Detail, "data_file_id 0 ") || !strings.Contains(refused.Findings[i].Detail, "data_file_id 1 ") ||
		!strings.Contains(refused.Findings[i].Detail, "holds tm (column_id 18), of type time_ns at snapshot 2, as a Parquet TIME") {
		t.Fatalf("refused for %v, want %s naming data files 0 and 1 and tm", refused.Findings, code)
	}
	out := filepath.Join(t.TempDir(), "1.1.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V1_1, Options{DataPath: data}); err != nil {
		t.Fatalf("convert to 1.1: %v", err)
	}
	proveEquivalent(t, src, out, data)
	// Back down to 1.0, whose first releases (DuckDB 1.5.2-1.5.5) fail too.
	_, err = Catalog(ctx, out, filepath.Join(t.TempDir(), "1.0.duckdb"), formats.V1_0, Options{DataPath: data})
	if !errors.As(err, &refused) || !slices.ContainsFunc(refused.Findings, func(f Finding) bool { return f.Code == code }) {
		t.Fatalf("converted 1.1 to 1.0 (%v), want refused for %s", err, code)
	}
	src, data = testlakes.TimeNS(t, cats[len(cats)-1], filepath.Join(lake, "data"), "VARCHAR")
	out = filepath.Join(t.TempDir(), "0.4.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_4, Options{DataPath: data}); err != nil {
		t.Fatalf("convert tm stored as text to 0.4: %v", err)
	}
	proveEquivalent(t, src, out, data)
}
