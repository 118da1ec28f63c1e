package compare

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestNullUUIDsRead: DuckLake's readers read table_uuid and schema_uuid
// with GetValue<string>, which gives the text 'NULL' for a NULL (every
// line: BuildCatalogForSnapshot), and only writers use them, so a table
// whose uuid or schema's uuid is NULL reads as any other. A catalog with
// such NULLs is equivalent to a copy of itself, and differs from its
// original by the uuids only (ducklake_table_info() returns table_uuid),
// not as unreadable. Before, the proof reported both tables unreadable
// ("null-metadata-value").
func TestNullUUIDsRead(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "08_partitioning")
	opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
	b := tamper(t, catalog, `UPDATE ducklake_table SET table_uuid = NULL WHERE table_id = 6`, `UPDATE ducklake_schema SET schema_uuid = NULL`)
	b2 := tamper(t, b)
	if rep, err := Catalogs(ctx, b, b2, opts); err != nil {
		var all []string
		if rep != nil {
			for _, d := range rep.Differences {
				all = append(all, d.String())
			}
		}
		t.Fatalf("a catalog with NULL uuids against its copy: %v, want equivalent\n%s", err, strings.Join(all, "\n"))
	}
	rep, err := Catalogs(ctx, catalog, b, opts)
	if !errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("against its original: %v, want ErrNotEquivalent", err)
	}
	var all []string
	for _, d := range rep.Differences {
		all = append(all, d.String())
	}
	if !hasDifference(rep, "schema", "table main.mk differs: uuid") || !hasDifference(rep, "schema", "schema main differs: uuid") || hasDifference(rep, "unreadable", "") {
		t.Fatalf("against its original: want the uuids' schema differences and nothing unreadable, got:\n%s", strings.Join(all, "\n"))
	}
}
