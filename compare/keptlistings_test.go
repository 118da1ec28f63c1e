package compare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKeptProofAfterTheFolderGrew: a proof kept by one run is found by a
// later run (another Listings) from the catalogs' sums while its data
// folder only gained files since, and kept again under the folder's
// listing now; never when a file it listed was touched, rewritten or
// removed, nor when its listing named a path with a glob character.
func TestKeptProofAfterTheFolderGrew(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	sum, err := fileSHA256(catalog)
	if err != nil {
		t.Fatal(err)
	}
	dataFile := func(t *testing.T, data string) string {
		files, err := filepath.Glob(filepath.Join(data, "main", "*", "*.parquet"))
		if err != nil || len(files) == 0 {
			t.Fatalf("data files: %v %v", files, err)
		}
		return files[0]
	}
	write := func(t *testing.T, path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, data string) // before the proof
		after  func(t *testing.T, data string) // between the runs
		want   bool
	}{
		{"unchanged", nil, nil, true},
		{"a file added", nil, func(t *testing.T, data string) {
			write(t, filepath.Join(data, "main", "new.parquet"), "new")
		}, true},
		{"a folder and files added", nil, func(t *testing.T, data string) {
			if err := os.MkdirAll(filepath.Join(data, "other", "t"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(data, "other", "t", "a.parquet"), "a")
			write(t, filepath.Join(data, "z.parquet"), "z")
		}, true},
		{"a file touched", nil, func(t *testing.T, data string) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(dataFile(t, data), later, later); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a file rewritten", nil, func(t *testing.T, data string) {
			f := dataFile(t, data)
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			write(t, f, strings.Repeat("x", int(st.Size())))
			if err := os.Chtimes(f, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a file removed", nil, func(t *testing.T, data string) {
			if err := os.Remove(dataFile(t, data)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a file replaced by another", nil, func(t *testing.T, data string) {
			write(t, filepath.Join(data, "main", "new.parquet"), "new")
			if err := os.Rename(filepath.Join(data, "main", "new.parquet"), dataFile(t, data)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a glob character in the earlier listing", func(t *testing.T, data string) {
			write(t, filepath.Join(data, "main", "odd[1].parquet"), "odd")
		}, func(t *testing.T, data string) {
			write(t, filepath.Join(data, "main", "new.parquet"), "new")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			if tc.before != nil {
				tc.before(t, data)
			}
			store := memStore{}
			proved, err := Catalogs(context.Background(), catalog, catalog, Options{DataPath: data, DigestCache: store, Listings: NewListings(), Engines: readerDBs})
			if err != nil || proved.ProofCached {
				t.Fatalf("Catalogs: %v (cached %v)", err, proved != nil && proved.ProofCached)
			}
			if tc.after != nil {
				tc.after(t, data)
			}
			opts := Options{DataPath: data, DigestCache: store, SumA: sum, SumB: sum, Listings: NewListings(), Engines: readerDBs}
			rep, ok := KeptProof("a.duckdb", "b.duckdb", opts)
			if ok != tc.want {
				t.Fatalf("KeptProof found %v, want %v", ok, tc.want)
			}
			if !ok {
				return
			}
			if !rep.ProofCached || !rep.Equivalent {
				t.Errorf("kept report: cached %v, equivalent %v", rep.ProofCached, rep.Equivalent)
			}
			dpA, dpB := keyDataPaths(opts)
			now := sumsName(sum, sum, dpA, dpB, nil, opts)
			if _, ok := store[now.key()]; !ok {
				t.Error("the proof found is not kept again under the listing now")
			}
		})
	}
}

// TestKeptListingsBounded: a listing is kept once however many proofs are
// kept under it, and a proof base's index names its last keptListings
// listings, newest first.
func TestKeptListingsBounded(t *testing.T) {
	store := memStore{}
	l := NewListings()
	listing := func(i int) []byte { return []byte("root /d\x00/d/f" + strings.Repeat("x", i) + " 1 2\x00") }
	for _, base := range []string{"b1", "b2", "b3"} {
		l.keepListing(store, proofName{base: base, text: listing(0)})
		NewListings().keepListing(store, proofName{base: base, text: listing(0)}) // another run
	}
	if n := len(store); n != 4 {
		t.Errorf("%d entries for one listing kept under three bases, want 4 (the listing, three indexes)", n)
	}
	for i := 1; i <= 12; i++ {
		l.keepListing(store, proofName{base: "b1", text: listing(i)})
	}
	got := strings.Fields(string(store[indexKey("b1")]))
	if len(got) != keptListings || got[0] != listingSum(listing(12)) || got[keptListings-1] != listingSum(listing(12-keptListings+1)) {
		t.Errorf("index of b1: %d listings, want the last %d, newest first", len(got), keptListings)
	}
	if text, ok := loadListing(store, listingSum(listing(3))); !ok || string(text) != string(listing(3)) {
		t.Errorf("listing kept: %q %v", text, ok)
	}
}
