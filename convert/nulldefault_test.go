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

// TestNullStringDefault: DuckDB 1.3/1.4 store a column declared DEFAULT
// 'NULL' as the text 'NULL' and no default as SQL NULL, and read the text
// as the string; 0.4+ readers read the text 'NULL' as no default. Such a
// 0.3 catalog was written as 1.0 without a word, and the proof then failed
// it. The upgrade is refused up front naming the table, the column and
// its snapshots; downgrades keep it (0.2 reads it as 0.3 does), and the
// proof still tells the field-for-field 1.0 copy apart.
func TestNullStringDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-0.3", "02_add_drop_columns")
	vs := versionCatalogs(t, lake)
	data := filepath.Join(lake, "data")
	src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_column SET default_value = 'NULL' WHERE table_id = 1 AND column_id = 5`)
	if got := query(t, src, `SELECT count(*) FROM c.ducklake_column WHERE default_value = 'NULL'`); got[0][0] != "1" {
		t.Fatal("no default edited: the test tests nothing")
	}
	for _, target := range []*formats.Version{formats.V0_4, formats.V1_0, formats.V1_1} {
		_, err := Check(ctx, src, target, Options{DataPath: data})
		var refused *RefusedError
		if !errors.As(err, &refused) || len(refused.Findings) != 1 || refused.Findings[0].Code != "null-string-default" ||
			!strings.Contains(refused.Findings[0].Detail, "table 1 evo column b (id 5, snapshots 7 on)") {
			t.Errorf("to %s: %v, want refused for null-string-default naming the column", target.Name, err)
		}
	}
	out := filepath.Join(t.TempDir(), "0.2.duckdb")
	if _, err := Catalog(ctx, src, out, formats.V0_2, Options{DataPath: data}); err != nil {
		t.Fatalf("to 0.2: %v", err)
	}
	proveEquivalent(t, src, out, data)

	// What the converter wrote before: the text copied.
	old := filepath.Join(t.TempDir(), "1.0.duckdb")
	if _, err := Catalog(ctx, vs[len(vs)-1], old, formats.V1_0, Options{DataPath: data}); err != nil {
		t.Fatalf("to 1.0: %v", err)
	}
	execOn(t, old, `UPDATE ducklake_column SET default_value = 'NULL' WHERE table_id = 1 AND column_id = 5`)
	if _, err := compare.Catalogs(ctx, src, old, compare.Options{DataPath: data}); !errors.Is(err, compare.ErrNotEquivalent) {
		t.Errorf("compare with the old 1.0 output: %v, want not equivalent", err)
	}
}
