package repo

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// TestFooterQuirksFollowDeclaredRange: a lake whose data files' Parquet
// footers some DuckDB releases of 0.3's and 0.4's ranges fail on or
// misread (formats.FooterQuirks) is refused for those formats while
// fdl.json serves them to those releases, and backfilled and checked once
// it serves them only from the fixing releases on (0.3 from 1.4.4, 0.4
// from 1.5.1). Both were backfilled before, the catalogs unreadable in the
// first releases.
func TestFooterQuirksFollowDeclaredRange(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves catalogs")
	}
	ctx := context.Background()
	l, err := footertest.NewLake(ctx, filepath.Join(t.TempDir(), "lake"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Break(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Reseal(); err != nil {
		t.Fatal(err)
	}
	st := copyLake(t, filepath.Dir(l.Data))
	root := st.Root()
	opts := Options{Formats: []string{"0.3", "0.4"}}
	setFormats(t, root, `[{"ducklake": "0.3"}, {"ducklake": "0.4"}, {"ducklake": "1.0"}]`)
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
	for _, f := range []string{"0.3", "0.4"} {
		if got := states(m, f); !slices.Equal(got, []State{Missing}) {
			t.Errorf("%s served from the fix on: %v, want missing", f, got)
		}
	}
	if _, err := Backfill(ctx, st, opts); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	if rep, err := Check(ctx, st, opts); err != nil || !rep.OK {
		t.Fatalf("check: %v", err)
	}
	// Served to the first releases again: the published catalogs fail.
	setFormats(t, root, `[{"ducklake": "0.3"}, {"ducklake": "0.4", "duckdb": ">= 1.5.1, < 1.5.2"}, {"ducklake": "1.0"}]`)
	_, err = Check(ctx, st, opts)
	if err == nil || !strings.Contains(err.Error(), "string-stats-invalid-utf8") {
		t.Errorf("check with 0.3 served to DuckDB 1.4.0: %v, want its footer quirks", err)
	}
}
