package repo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// TestFooterQuirksFollowDeclaredRange: a lake whose data files' Parquet
// footers some DuckDB releases of 0.3's and 0.4's ranges fail on or
// misread (formats.FooterQuirks) is refused for those formats while
// fdl.json serves them to those releases, and backfilled and checked once
// it serves them only from the fixing releases on (0.4 from 1.5.1), where
// those releases fail to read (they open the catalog all the same, and
// fail as on no catalog at all). Both were backfilled before, the catalogs
// unreadable in the first releases. 0.3 stays refused: its table cjk's
// file is misread by DuckDB 1.4.0 without an error, whatever 0.3 is served
// to (TestFooterMisreadOutsideServedRange).
func TestFooterQuirksFollowDeclaredRange(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	st := quirksLake(t)
	root := st.Root()
	opts := Options{Formats: []string{"0.3", "0.4"}}
	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"0.3", "0.4"} {
		if got := states(m, f); !slices.Equal(got, []State{Refused}) {
			t.Errorf("%s served to its whole range: %v, want refused", f, got)
		}
	}
	setFormats(t, root, `[{"ducklake": "0.3", "duckdb": ">= 1.4.4, < 1.5.0"}, {"ducklake": "0.4", "duckdb": ">= 1.5.1, < 1.5.2"}, {"ducklake": "1.0"}]`)
	if m, err = Plan(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]State{"0.3": Refused, "0.4": Missing} {
		if got := states(m, f); !slices.Equal(got, []State{want}) {
			t.Errorf("%s served from the fix on: %v, want %s", f, got, want)
		}
	}
	for _, c := range m.Versions[0].Cells {
		if c.Format != "0.3" {
			continue
		}
		reasons := strings.Join(c.Reasons, "; ")
		if !strings.Contains(reasons, formats.FooterStringStatsMissingBound) || strings.Contains(reasons, formats.FooterStringStatsInvalidUTF8) {
			t.Errorf("0.3 served from 1.4.4 refused for %s, want %s alone", reasons, formats.FooterStringStatsMissingBound)
		}
	}
	if _, err := Backfill(ctx, st, opts); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	if rep, err := Check(ctx, st, opts); err != nil || !rep.OK {
		t.Fatalf("check: %v", err)
	}
	// Served to the first releases again: the published catalog fails.
	setFormats(t, root, `[{"ducklake": "0.3", "duckdb": ">= 1.4.4, < 1.5.0"}, {"ducklake": "0.4"}, {"ducklake": "1.0"}]`)
	_, err = Check(ctx, st, opts)
	if err == nil || !strings.Contains(err.Error(), formats.FooterGeoCRSNull) {
		t.Errorf("check with 0.4 served to DuckDB 1.5.0: %v, want its footer quirks", err)
	}
}

// TestFooterMisreadOutsideServedRange: a footer quirk that makes some
// DuckDB releases return other rows without an error
// (string-stats-without-min-max-empty: DuckDB 1.4.0 skips a VARCHAR row
// group without bounds under a filter) counts for every release that
// opens the format, whatever fdl.json serves it to: the range is the
// publisher's promise, while a DuckDB opens the newest format it can
// (resolve, the FDL rule), so DuckDB 1.4.0 still opens a 0.3 catalog
// served to DuckDB >= 1.4.1 and reads it wrong. Before, such a cell was
// backfilled and such a catalog checked (exit 0).
func TestFooterMisreadOutsideServedRange(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	// Table cjk's data file, as DuckDB writes it, has a VARCHAR column
	// chunk without bounds; nothing is broken on purpose.
	l, err := footertest.NewLake(ctx, filepath.Join(t.TempDir(), "lake"), false)
	if err != nil {
		t.Fatal(err)
	}
	st := copyLake(t, filepath.Dir(l.Data))
	root := st.Root()
	setFormats(t, root, `[{"ducklake": "0.3", "duckdb": ">= 1.4.1, < 1.5.0"}, {"ducklake": "1.0"}]`)
	opts := Options{Formats: []string{"0.3"}}
	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := states(m, "0.3"); !slices.Equal(got, []State{Refused}) {
		t.Errorf("0.3 served to DuckDB >= 1.4.1: %v, want refused (DuckDB 1.4.0 opens it all the same)", got)
	}
	// A 0.3 catalog published all the same (converted without the data
	// folder, so without reading footers, as an earlier release of this
	// tool backfilled it): DuckDB 1.4.0 is sent to it, and check fails it.
	id := m.Versions[0].ID
	dst := filepath.Join(root, "versions", id, "catalogs", "0.3.duckdb")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "versions", id, "ducklake.duckdb")
	if _, err := convert.Catalog(ctx, src, dst, formats.V0_3, convert.Options{}); err != nil {
		t.Fatalf("convert to 0.3 without the data folder: %v", err)
	}
	res, err := Resolve(ctx, st, ResolveOptions{DuckDB: "1.4.0"})
	if err != nil {
		t.Fatal(err)
	}
	if res.File == nil || res.File.Key != "versions/"+id+"/catalogs/0.3.duckdb" {
		t.Fatalf("DuckDB 1.4.0 opens %+v, want catalogs/0.3.duckdb", res.File)
	}
	_, err = Check(ctx, st, opts)
	if err == nil || !strings.Contains(err.Error(), formats.FooterStringStatsMissingBound) {
		t.Errorf("check of a 0.3 catalog DuckDB 1.4.0 misreads: %v, want %s", err, formats.FooterStringStatsMissingBound)
	}
}
