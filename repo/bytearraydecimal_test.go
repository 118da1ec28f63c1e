package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// TestCheckByteArrayDecimalPublished: a repository whose data file stores
// a DECIMAL(4,2) column as BYTE_ARRAY, its zero as a zero-length value
// (another writer's file; footertest.BreakByteArrayDecimal), with a 0.3
// catalog published (converted without the data folder, as an earlier
// release of this tool backfilled it). DuckDB 1.4 reads that zero as -0.01
// (formats.FooterDecimalByteArray), whatever fdl.json serves 0.3 to, and
// check fails the catalog naming the quirk. Before, check exited 0: the
// proof reads the file with DuckDB 1.5.6, which reads 0.00 for both
// catalogs.
func TestCheckByteArrayDecimalPublished(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	st := brokenLake(t, footertest.NewByteArrayDecimalLake, (*footertest.Lake).BreakByteArrayDecimal, `[{"ducklake": "0.3", "duckdb": ">= 1.4.4, < 1.5.0"}, {"ducklake": "1.0"}]`)
	root := st.Root()
	opts := Options{Formats: []string{"0.3"}}
	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	id := m.Versions[0].ID
	dst := filepath.Join(root, "versions", id, "catalogs", "0.3.duckdb")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "versions", id, "ducklake.duckdb")
	if _, err := convert.Catalog(ctx, src, dst, formats.V0_3, convert.Options{}); err != nil {
		t.Fatalf("convert to 0.3 without the data folder: %v", err)
	}
	_, err = Check(ctx, st, opts)
	if err == nil || !strings.Contains(err.Error(), formats.FooterDecimalByteArray) {
		t.Errorf("check of a 0.3 catalog DuckDB 1.4 misreads: %v, want %s", err, formats.FooterDecimalByteArray)
	}
}
