package convert

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestDevDefaultValueTypeFilledAsDuckLake: a 0.4-dev1 catalog already has
// ducklake_column.default_value_type, so no fill writes it; where a row has
// it NULL, DuckLake's own migration (MigrateV03, d1a598ab) sets it to
// 'literal', and so does the 0.4-dev1 → 0.4 step (it kept the NULL, which
// no 0.4+ writer writes and DuckLake's migration does not leave).
func TestDevDefaultValueTypeFilledAsDuckLake(t *testing.T) {
	t.Parallel()
	dir := testlakes.Dir(t, "migrations")
	src := editedCopy(t, filepath.Join(dir, "v04-dev1", "source.duckdb"),
		`UPDATE ducklake_column SET default_value_type = NULL WHERE default_value IS NULL OR default_value = 'NULL'`)
	if got := query(t, src, `SELECT count(*) FROM c.ducklake_column WHERE default_value_type IS NULL`); got[0][0] == "0" {
		t.Fatal("the edited source has no NULL default_value_type")
	}
	out := filepath.Join(t.TempDir(), "1.0.duckdb")
	if _, err := Catalog(context.Background(), src, out, formats.V1_0, Options{AllowInlined: true}); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "v04-dev1", "migrated-1.0.duckdb")
	if diffs := diffDumps(dump(t, real), dump(t, out)); len(diffs) > 0 {
		t.Errorf("upgrade differs from DuckLake's migration:\n%s", strings.Join(diffs, "\n"))
	}
}
