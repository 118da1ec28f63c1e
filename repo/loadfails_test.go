package repo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestFrozenCatalogLoadFails: a frozen catalog, its bytes the ones
// version.json hashes, holding a column tag other than a comment fails
// every DuckLake reader's load of the catalog ("Only comment tags are
// supported for columns currently"). check fails on it, whether the
// frozen catalog is read alone (only its own format declared) or by the
// proof of a published catalog holding the same tag; before, both passed
// (exit 0): the proof described the tag, alike on both sides, and the
// frozen catalog's own read did not look at it.
func TestFrozenCatalogLoadFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, _ := demoRepo(ctx, t)
	id := versionIDs(t, golden)[2]
	const tag = `INSERT INTO c.ducklake_column_tag SELECT table_id, column_id, begin_snapshot, NULL, 'unit', 'm' FROM c.ducklake_column
		WHERE parent_column IS NULL AND end_snapshot IS NULL ORDER BY table_id, column_id LIMIT 1`
	sourceOnly := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`
	withNew := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]}`
	for name, fdl := range map[string]string{"read alone": sourceOnly, "proved": withNew} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st, root := cloneRepo(t, golden)
			writeFile(t, filepath.Join(root, "fdl.json"), fdl)
			vdir := filepath.Join(root, "versions", id)
			if fdl == withNew {
				if _, err := Backfill(ctx, st, Options{Versions: []string{id}, Jobs: 2}); err != nil {
					t.Fatal(err)
				}
				execCatalog(t, filepath.Join(vdir, "catalogs", "1.1.duckdb"), tag)
			}
			execCatalog(t, filepath.Join(vdir, "ducklake.duckdb"), tag)
			testlakes.EditVersion(t, vdir, nil) // the edited bytes hashed
			rep, err := Check(ctx, st, Options{Versions: []string{id}, Jobs: 2})
			if err == nil {
				t.Fatalf("Check passed (%d findings), want it to fail on the catalog no reader loads", len(nonWarnings(rep)))
			}
			found := false
			for _, f := range nonWarnings(rep) {
				if f.Version == id && strings.Contains(f.Detail, "catalog-load-fails") && strings.Contains(f.Detail, `the tag "unit"`) {
					found = true
				}
			}
			if !found {
				t.Errorf("Check = %v: no finding of %s naming catalog-load-fails: %+v", err, id, nonWarnings(rep))
			}
		})
	}
}
