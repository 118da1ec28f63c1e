package compare

import (
	"context"
	"testing"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestHintsSaveDeletedRowReads proves each version of a history in turn, as
// a backfill does, against a copy of itself, with one Digests shared by
// the proofs. Without hints, a version that deletes reads every older file
// again for its deleted rows; with hints from the newest version, the first
// scan of each file kept those rows' hashes, so every version reads its new
// files only, and every proof still holds (the same digests either way).
// Hints past the run's cap are dropped: those files are read again.
func TestHintsSaveDeletedRowReads(t *testing.T) {
	ctx := context.Background()
	const versions, filesPerVersion = 6, 2
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: versions, RowsPerVersion: 3000, FilesPerVersion: filesPerVersion, DeleteEvery: 2})
	for _, tc := range []struct {
		name  string
		hints bool
		cap   int // hinted positions kept at most (0: the default)
	}{{"without hints", false, 0}, {"with hints", true, 0}, {"hints past the cap", true, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			shared := NewDigests(nil)
			if tc.cap > 0 {
				shared.hintCap = tc.cap
			}
			if tc.hints {
				if err := hintFrom(ctx, shared, cats[len(cats)-1], data); err != nil {
					t.Fatal(err)
				}
			}
			var rereads int
			for i, cat := range cats {
				rep, err := Catalogs(ctx, cat, cat, Options{DataPath: data, Digests: shared, everyDigest: true, Engines: readerDBs})
				if err != nil {
					t.Fatalf("version %d: %v", i+1, err)
				}
				// Each version adds filesPerVersion files: reading those is
				// the least a proof can do.
				if extra := rep.Digests.Reads - filesPerVersion; extra > 0 {
					rereads += extra
				}
				if tc.hints && tc.cap == 0 && rep.Digests.Reads != filesPerVersion {
					t.Errorf("version %d: %d file reads, want %d (its new files only): %+v", i+1, rep.Digests.Reads, filesPerVersion, rep.Digests)
				}
			}
			hinted := tc.hints && tc.cap == 0
			switch {
			case hinted && rereads != 0:
				t.Errorf("with hints, %d reads of older files; want each version to read its new files only", rereads)
			case !hinted && rereads == 0:
				t.Errorf("no version read an older file again: the test does not exercise deletes (or the cap was not applied)")
			}
			t.Logf("%s: %d reads of older files", tc.name, rereads)
		})
	}
}

// hintFrom opens a catalog and gives d its delete hints (HintFromReader).
func hintFrom(ctx context.Context, d *Digests, catalog, dataPath string) error {
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: dataPath, Engines: readerDBs})
	if err != nil {
		return err
	}
	defer r.Close()
	return d.HintFromReader(ctx, r)
}

// TestHintsNoUseForOneVersion proves the newest version of a history with
// deletes alone (as a run of one version does: backfill --versions NEWEST),
// with fresh Digests: its own delete hints save no read, as its proof
// walks every snapshot whose deletes the hints hold, and the scan that
// digests a file keeps the hashes of the rows deleted at any compared
// snapshot. So a run that proves one version's cells only gives no hints
// (repo's hintVersions), which opened and read its catalog once more.
func TestHintsNoUseForOneVersion(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 6, RowsPerVersion: 3000, FilesPerVersion: 2, DeleteEvery: 2})
	newest := cats[len(cats)-1]
	reads := map[bool]int{}
	for _, hints := range []bool{false, true} {
		shared := NewDigests(nil)
		if hints {
			if err := hintFrom(ctx, shared, newest, data); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := Catalogs(ctx, newest, newest, Options{DataPath: data, Digests: shared, everyDigest: true, Engines: readerDBs})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("hints %t: %+v", hints, rep.Digests)
		reads[hints] = rep.Digests.Reads
	}
	if reads[false] != reads[true] || reads[false] != 12 {
		t.Errorf("file reads without hints %d, with %d; want 12 (each data file once) both", reads[false], reads[true])
	}
}
