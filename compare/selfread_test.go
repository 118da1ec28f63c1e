package compare

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestSelfConformance: every conformance lake's last frozen catalog (1.0,
// 0.3, the compaction lakes) reads clean alone (Self), as it proves
// against its conversions: the self-read reports nothing a proof's side A
// would not. A copy with one data file's record_count changed reports that
// file, as a proof does on its side A (ErrCatalogDiffers), and a clean
// read is kept: found again without opening the catalog (KeptSelf).
func TestSelfConformance(t *testing.T) {
	ctx := context.Background()
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-0.3-compaction"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			name := filepath.Base(lake)
			if name == "zz_storage_v2_unreadable" {
				continue
			}
			versions, err := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
			if err != nil || len(versions) == 0 {
				continue
			}
			cat := versions[len(versions)-1]
			t.Run(archive+"/"+name, func(t *testing.T) {
				t.Parallel()
				rep, err := Self(ctx, cat, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
				if err != nil {
					t.Fatalf("Self: %v (%+v)", err, rep.Differences)
				}
			})
		}
	}
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	versions, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
	store, err := digestcache.Open(t.TempDir(), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := fileSHA256(versions[0])
	if err != nil {
		t.Fatal(err)
	}
	kept := Options{DataPath: filepath.Join(lake, "data"), DigestCache: store, Listings: NewListings(), SumA: sum, Engines: readerDBs}
	if _, ok := KeptSelf(versions[0], kept); ok {
		t.Fatal("a self-read kept before any ran")
	}
	if _, err := Self(ctx, versions[0], kept); err != nil {
		t.Fatal(err)
	}
	if rep, ok := KeptSelf(versions[0], kept); !ok || !rep.ProofCached {
		t.Error("a clean self-read was not kept")
	}
	cat := filepath.Join(t.TempDir(), "ducklake.duckdb")
	b, err := os.ReadFile(versions[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cat, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db := testduck.Open(t, cat)
	var path string
	if err := db.QueryRow("SELECT path FROM ducklake_data_file ORDER BY data_file_id LIMIT 1").Scan(&path); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE ducklake_data_file SET record_count = record_count + 1 WHERE path = '" + path + "'"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rep, err := Self(ctx, cat, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if !errors.Is(err, ErrCatalogDiffers) || len(rep.Differences) == 0 || !strings.Contains(rep.Differences[0].String(), "record_count is") || !strings.Contains(rep.Differences[0].String(), path) {
		t.Fatalf("Self of a tampered record_count: %v (%+v)", err, rep)
	}
}
