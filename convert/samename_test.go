package convert

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestSourceObjectsOfOneName: two visible views, or two macros of one
// kind, of one schema named alike in ASCII letter case with different
// definitions: which one DuckLake's readers read is not determined by the
// catalog (their queries have no ORDER BY; the later of a name replaces
// the earlier), so convert refuses the source up front, naming the schema,
// the objects and the snapshots, writing nothing. Before, it converted it.
// Two identical definitions are carried, and proved.
func TestSourceObjectsOfOneName(t *testing.T) {
	t.Parallel()
	const view = `INSERT INTO ducklake_view SELECT * REPLACE (99 AS view_id, '01a18fe9-0000-7000-8000-000000000099' AS view_uuid%s) FROM ducklake_view WHERE view_id = 4`
	const macro = `INSERT INTO ducklake_macro SELECT * REPLACE (99 AS macro_id) FROM ducklake_macro WHERE macro_id = 2;
		INSERT INTO ducklake_macro_impl SELECT * REPLACE (99 AS macro_id, '(a + 40)' AS sql) FROM ducklake_macro_impl WHERE macro_id = 2;
		INSERT INTO ducklake_macro_parameters SELECT * REPLACE (99 AS macro_id) FROM ducklake_macro_parameters WHERE macro_id = 2`
	for _, tc := range []struct {
		name, lake, stmt string
		want             string // in the refusal; "" converts
	}{
		{"views", "09_views", strings.Replace(view, "%s", `, 'SELECT 42 AS x' AS sql`, 1), "snapshots 5-"},
		{"views in another letter case", "09_views", strings.Replace(view, "%s", `, upper(view_name) AS view_name`, 1), "schema main: views v_alias (id 4), V_ALIAS (id 99)"},
		{"scalar macros", "10_macros", macro, "schema main: scalar macros add_default (id 2), add_default (id 99)"},
		{"identical views", "09_views", strings.Replace(view, "%s", ``, 1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lake := testlakes.Lake(t, "lakes", tc.lake)
			vs := versionCatalogs(t, lake)
			data := filepath.Join(lake, "data")
			src := editedCopy(t, vs[len(vs)-1], tc.stmt)
			out := t.TempDir()
			dst := filepath.Join(out, "dst.duckdb")
			_, err := Catalog(context.Background(), src, dst, formats.V1_1, Options{DataPath: data})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Catalog: %v", err)
				}
				proveEquivalent(t, src, dst, data)
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) || len(refused.Findings) != 1 || refused.Findings[0].Code != "objects-of-one-name" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Catalog: %v, want refused as objects-of-one-name naming %q", err, tc.want)
			}
			t.Log(err)
			assertOnly(t, out)
		})
	}
}
