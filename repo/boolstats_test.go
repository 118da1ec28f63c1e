package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCheckBooleanStatsPublishedBefore: a 0.4 catalog that backfill
// published from a 1.0 source with a BOOLEAN column carried DuckLake 1.5's
// '0'/'1' statistics, which DuckDB 1.5.0/1.5.1 compare as text with 'true'
// (boolean-stats-compared-as-text) and so skip every file under WHERE b =
// true; check passed it. Now backfill writes 'false'/'true' and check
// passes, and the catalog as it was published before ('0'/'1') fails check
// with a difference naming the format, table, column and data file.
func TestCheckBooleanStatsPublishedBefore(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	st := copyLake(t, testlakes.Lake(t, "lakes", "01_primitive_types"))
	root := st.Root()
	opts := Options{Formats: []string{"0.4"}}
	if _, err := Backfill(ctx, st, opts); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	if rep, err := Check(ctx, st, opts); err != nil || !rep.OK {
		t.Fatalf("check after backfill: %v", err)
	}
	ids := versionIDs(t, root)
	cat := filepath.Join(root, "versions", ids[len(ids)-1], "catalogs", "0.4.duckdb")
	if err := os.Chmod(cat, 0o644); err != nil {
		t.Fatal(err)
	}
	execCatalog(t, cat,
		formats.BooleanTextStats.SpellSQL("c.", "ducklake_file_column_stats", false),
		formats.BooleanTextStats.SpellSQL("c.", "ducklake_table_column_stats", false))
	_, err := Check(ctx, st, opts)
	if !errors.Is(err, ErrDifferences) {
		t.Fatalf("check of the catalog with '0'/'1': %v, want differences", err)
	}
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("check error %T", err)
	}
	for _, w := range []string{"boolean-stats-compared-as-text", "format 0.4 readers", "main.prim", "column b (id 2)", "(data_file_id 0)"} {
		if !strings.Contains(ce.First.Detail, w) {
			t.Errorf("first finding %q lacks %q", ce.First.Detail, w)
		}
	}
}
