package convert

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestViewCatalogPlaceholder: DuckLake from DuckDB 1.5.2 on stores a view's
// references to its own catalog as {DUCKLAKE_CATALOG}. and substitutes it
// when parsing; the readers of 0.1-0.4 parse it verbatim and fail. Such a
// view was copied to 0.1-0.4 and proved equivalent. It is now refused
// (plan shows the cell refused), also upwards from a 0.4 catalog holding
// it; a catalog written field for field as before is not equivalent; the
// placeholder inside a string constant reads alike and converts.
func TestViewCatalogPlaceholder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "09_views")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	const code = "view-catalog-placeholder-verbatim"
	src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_view SET sql = 'SELECT i, j FROM {DUCKLAKE_CATALOG}.main.base' WHERE view_id = 4`)
	if got := query(t, src, `SELECT count(*) FROM c.ducklake_view WHERE contains(sql, '{DUCKLAKE_CATALOG}')`); got[0][0] != "1" {
		t.Fatal("no view edited: the test tests nothing")
	}
	for _, target := range []*formats.Version{formats.V0_4, formats.V0_3, formats.V0_1} {
		_, err := Check(ctx, src, target, Options{DataPath: data})
		var refused *RefusedError
		if !errors.As(err, &refused) || len(refused.Findings) != 1 || refused.Findings[0].Code != code ||
			!strings.Contains(refused.Findings[0].Detail, "view main.v_alias (view_id 4, snapshot 5 on)") {
			t.Errorf("to %s: %v, want refused for %s naming the view", target.Name, err, code)
		}
	}
	out := filepath.Join(t.TempDir(), "1.1.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V1_1, Options{DataPath: data}); err != nil {
		t.Fatalf("to 1.1: %v", err)
	}
	proveEquivalent(t, src, out, data)

	// What the converter wrote before (the view's SQL copied): the proof
	// reads the view of the 0.3 and 0.4 outputs as their readers do,
	// unreadable, and finds nothing else.
	var old04 string
	for _, target := range []*formats.Version{formats.V0_3, formats.V0_4} {
		old := filepath.Join(t.TempDir(), target.Name+".duckdb")
		if _, err := Catalog(ctx, vs[len(vs)-1], old, target, Options{DataPath: data}); err != nil {
			t.Fatalf("to %s: %v", target.Name, err)
		}
		execOn(t, old, `UPDATE ducklake_view SET sql = 'SELECT i, j FROM {DUCKLAKE_CATALOG}.main.base' WHERE view_id = 4`)
		rep, err := compare.Catalogs(ctx, src, old, compare.Options{DataPath: data})
		if !errors.Is(err, compare.ErrNotEquivalent) || rep == nil || len(rep.Differences) != 1 ||
			!strings.Contains(rep.Differences[0].String(), "view main.v_alias differs: query") {
			t.Errorf("compare with the old output in %s: %v, want the view unreadable", target.Name, err)
		}
		old04 = old
	}
	// From 0.4 up, the view its readers fail on would become readable.
	if got, err := refusalCodes(t, old04, formats.V1_0, Options{DataPath: data}); err != nil || got != code {
		t.Errorf("0.4 to 1.0: refused for %q (%v), want %s", got, err, code)
	}

	quoted := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_view SET sql = 'SELECT ''{DUCKLAKE_CATALOG}.main.base'' AS s' WHERE view_id = 4`)
	out = filepath.Join(t.TempDir(), "0.3.duckdb")
	if _, err := Catalog(ctx, quoted, out, formats.V0_3, Options{DataPath: data}); err != nil {
		t.Fatalf("placeholder in a string constant, to 0.3: %v", err)
	}
	proveEquivalent(t, quoted, out, data)
}
