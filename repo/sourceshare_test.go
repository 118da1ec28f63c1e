package repo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestFrozenCatalogOpenedOncePerVersion: the users of a version's frozen
// copy in one group (the listing of its files before its first cell, the
// content pass, the proofs of its cells) read it with one reader, the
// group's compare.Source: after the first user opened it, a write-ahead
// log appears beside the copy, which compare.Open refuses, and every later
// user still reads it. Before, the listing and the content pass each
// opened a reader of their own (three opens of the same catalog per
// version), and failed here.
func TestFrozenCatalogOpenedOncePerVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The last version's 1.1 catalog is all the proof below needs: the
	// repository every version of which is backfilled to 1.1 (lake11,
	// built once per test binary, read here and never written: the
	// frozen copy and its log are in t.TempDir).
	root := lake11(t)
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		order []string // the first opens the copy; the others follow the log
	}{
		{"backfill: files listed, then the content pass", []string{"get", "contents", "prove"}},
		{"check: the content pass, then the proofs", []string{"contents", "get", "prove"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := load(ctx, st, &Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			v := r.versions[len(r.versions)-1]
			frozen := newFrozenCopies(r, t.TempDir(), nil, v.id)
			defer frozen.release(v.id)
			source := compare.NewSource()
			defer source.Close()
			src, _, err := frozen.catalog(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			for i, step := range tc.order {
				switch step {
				case "get":
					if _, _, err := frozen.getHeld(ctx, v, source); err != nil {
						t.Fatalf("%s: %v", step, err)
					}
				case "contents":
					if issues := r.checkContents(ctx, v, frozen, source, compare.NewDiskCheck(), true); len(issues) > 0 {
						t.Fatalf("%s: %v", step, issues)
					}
				case "prove":
					pub := filepath.Join(root, "versions", v.id, "catalogs", "1.1.duckdb")
					if _, err := compare.Catalogs(ctx, src, pub, compare.Options{DataPath: r.dataPath, Engines: r.engines, Source: source, SumA: v.meta.Catalog.SHA256}); err != nil {
						t.Fatalf("%s: %v", step, err)
					}
				}
				if i == 0 {
					// compare.Open refuses a catalog with a write-ahead
					// log beside it: a later user that opens its own
					// reader fails.
					if err := os.WriteFile(src+".wal", nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}
