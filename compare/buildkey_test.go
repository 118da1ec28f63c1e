package compare

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
)

// asBuild makes the keys of this test binary name the build id, as another
// build of fdl-formats would, until the test ends. buildID is a fact of
// the running binary; only this test, never run in parallel, replaces it.
func asBuild(t *testing.T, id string) {
	t.Helper()
	old := buildID
	buildID = func() string { return id }
	t.Cleanup(func() { buildID = old })
}

// TestKeysNameTheBuild: a proof kept in a digest cache folder by one build
// is not taken by another (which may check more, or differently), and the
// key of a clean content pass (Listings.InputsKey, as repo's contentsKey
// makes it) and of a frozen catalog read whole (BuildKey, as repo's
// readWhole makes it) differ between builds too; within one build both are found
// again. Without the build in the keys, a new release would certify
// catalogs by the proofs of the release it replaces.
func TestKeysNameTheBuild(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	sum, err := fileSHA256(catalog)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := digestcache.Open(t.TempDir(), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{DataPath: data, BUnderDataPath: true, DigestCache: cache, SumA: sum, SumB: sum, Engines: readerDBs}
	contentKey := func() string {
		k := NewListings().InputsKey("fdl-formats content pass v3", data, "catalog "+sum, "format 1.0")
		if k == "" {
			t.Fatal("no content-pass key")
		}
		return k
	}

	asBuild(t, "build A")
	first, err := Catalogs(ctx, catalog, catalog, opts)
	if err != nil || first.ProofCached {
		t.Fatalf("build A, first proof: %v (cached %v)", err, first != nil && first.ProofCached)
	}
	keyA := contentKey()
	wholeA := BuildKey("fdl-formats frozen catalog read whole v1", sum)
	for _, tc := range []struct {
		build string
		kept  bool // the proof build A made is taken
	}{
		{"build A", true},
		{"build B", false},
		{"build A", true}, // B's proof did not replace A's
	} {
		asBuild(t, tc.build)
		if _, ok := KeptProof("a", "b", opts); ok != tc.kept {
			t.Errorf("%s: KeptProof found %v, want %v", tc.build, ok, tc.kept)
		}
		rep, err := Catalogs(ctx, catalog, catalog, opts)
		if err != nil {
			t.Fatalf("%s: Catalogs: %v", tc.build, err)
		}
		if rep.ProofCached != tc.kept {
			t.Errorf("%s: proof taken from the cache %v, want %v", tc.build, rep.ProofCached, tc.kept)
		}
		if k := contentKey(); (k == keyA) != (tc.build == "build A") {
			t.Errorf("%s: content-pass key %s, build A's %s: same %v", tc.build, k, keyA, k == keyA)
		}
		if k := BuildKey("fdl-formats frozen catalog read whole v1", sum); (k == wholeA) != (tc.build == "build A") {
			t.Errorf("%s: read-whole key %s, build A's %s: same %v", tc.build, k, wholeA, k == wholeA)
		}
	}
}
