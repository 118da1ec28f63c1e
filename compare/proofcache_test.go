package compare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestListingsOncePerRunUntilChanged: with a shared Listings, the proof
// keys of a run list each data folder once; a file the run writes (and
// says so with Changed) is in every later key; without a Listings each key
// lists the folder again.
func TestListingsOncePerRunUntilChanged(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	sum, err := fileSHA256(catalog)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		shared    bool
		changed   bool // the run says it wrote the new file
		wantNew   bool // the key after the write differs from the first
		wantWalks int  // folders listed by the shared Listings
	}{
		{"no listings: every key lists", false, false, true, 0},
		{"shared: listed once", true, false, false, 1},
		{"shared: a write the run reports is listed", true, true, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			dp := overridePath(data)
			var l *Listings
			if tc.shared {
				l = NewListings()
			}
			first := inputsKey(catalog, catalog, dp, dp, sum, sum, l)
			if first == "" {
				t.Fatal("no key")
			}
			if again := inputsKey(catalog, catalog, dp, dp, sum, sum, l); again != first {
				t.Fatalf("same folder, same run: key %s, then %s", first, again)
			}
			written := filepath.Join(data, "main", "written-by-the-run.parquet")
			if err := os.WriteFile(written, []byte("PAR1"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.changed {
				l.Changed()
			}
			after := inputsKey(catalog, catalog, dp, dp, sum, sum, l)
			if (after != first) != tc.wantNew {
				t.Errorf("key after a file was written: changed %v, want %v", after != first, tc.wantNew)
			}
			if tc.shared && l.walks != tc.wantWalks {
				t.Errorf("folders listed: %d, want %d", l.walks, tc.wantWalks)
			}
		})
	}
}

// TestKeptProofBySums: a proof Catalogs kept is found by KeptProof from the
// catalogs' sums alone, with or without a Listings; never for other bytes
// (another sum) or for a data folder whose files changed since.
func TestKeptProofBySums(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	sum, err := fileSHA256(catalog)
	if err != nil {
		t.Fatal(err)
	}
	store := memStore{}
	proved, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DigestCache: store, Listings: NewListings(), Engines: readerDBs})
	if err != nil || proved.ProofCached {
		t.Fatalf("Catalogs: %v (cached %v)", err, proved != nil && proved.ProofCached)
	}
	other := strings.Repeat("0", 64)
	for _, tc := range []struct {
		name     string
		sumB     string
		listings bool
		touch    bool // change a data file's time first
		want     bool
	}{
		{"same bytes", sum, false, false, true},
		{"same bytes, shared listings", sum, true, false, true},
		{"other bytes", other, false, false, false},
		{"no sum", "", false, false, false},
		{"data file changed", sum, true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.touch {
				files, err := filepath.Glob(filepath.Join(data, "main", "*", "*.parquet"))
				if err != nil || len(files) == 0 {
					t.Fatalf("data files: %v %v", files, err)
				}
				later := time.Now().Add(time.Hour)
				if err := os.Chtimes(files[0], later, later); err != nil {
					t.Fatal(err)
				}
			}
			opts := Options{DataPath: data, DigestCache: store, SumA: sum, SumB: tc.sumB, Engines: readerDBs}
			if tc.listings {
				opts.Listings = NewListings()
			}
			rep, ok := KeptProof("a.duckdb", "b.duckdb", opts)
			if ok != tc.want {
				t.Fatalf("KeptProof found %v, want %v", ok, tc.want)
			}
			if ok && (!rep.ProofCached || !rep.Equivalent || rep.B.Path != "b.duckdb" || rep.B.Format != proved.B.Format) {
				t.Errorf("kept report: cached %v, equivalent %v, B %+v; want the proof made, for b.duckdb", rep.ProofCached, rep.Equivalent, rep.B)
			}
		})
	}
}
