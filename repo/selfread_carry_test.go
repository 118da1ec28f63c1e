package repo

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestCheckCarriesEarlierSelfReads checks a seven-version history with
// only its frozen format declared (every version read alone) from a cold
// cache, one version at a time: each version's self-read carries the
// clean self-read of the version before made in the run, every snapshot of
// it, except the first; version 6 too, whose deletes replace the delete
// files of version 3 with files deleting the same positions at the earlier
// snapshots (compare.TestSelfCarryAcrossReplacedDeletes). The kept
// self-reads say so, and so does the report (self_reads, with each read's
// carried_snapshots); a check again finds every read kept (cached, nothing
// carried: nothing walked). Two at a time (the one before waited for when under
// way), a record_count edited in version 5's frozen catalog at a snapshot
// only the earlier versions' reads covered is still found.
func TestCheckCarriesEarlierSelfReads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a seven-version lake twice")
	}
	ctx := context.Background()
	golden, res := carryHistory7(t)
	run := func(t *testing.T, jobs int, edit func(dir string)) (*CheckReport, *digestcache.Cache, string, error) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "lake")
		if err := copyTree(golden, dir); err != nil {
			t.Fatal(err)
		}
		setFormats(t, dir, frozenOnly)
		if edit != nil {
			edit(dir)
		}
		st, err := local.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Check(ctx, st, Options{Jobs: jobs, DigestCache: cache, carryMinWork: -1})
		return rep, cache, dir, err
	}
	t.Run("clean", func(t *testing.T) {
		rep, cache, dir, err := run(t, 1, nil)
		if err != nil {
			t.Fatalf("check: %v (%+v)", err, rep.Findings)
		}
		data := filepath.Join(dir, "data") + string(os.PathSeparator)
		if len(rep.SelfReads) != len(res.Versions) {
			t.Fatalf("report: %d self-reads, want %d (one per version)", len(rep.SelfReads), len(res.Versions))
		}
		js, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(js), `"self_reads":[{`) || !strings.Contains(string(js), `"carried_snapshots":`) {
			t.Errorf("JSON report without self_reads' carried_snapshots (%d bytes)", len(js))
		}
		prevSnaps := 0
		for i, v := range res.Versions {
			vdir := filepath.Join(dir, "versions", v.ID)
			b, err := os.ReadFile(filepath.Join(vdir, "ducklake.duckdb"))
			if err != nil {
				t.Fatal(err)
			}
			sum := fmt.Sprintf("%x", sha256.Sum256(b))
			kept, ok := compare.KeptSelf(filepath.Join(vdir, "ducklake.duckdb"), compare.Options{DataPath: data, DigestCache: cache, SumA: sum, Listings: compare.NewListings()})
			if !ok {
				t.Fatalf("version %d: no self-read kept", i+1)
			}
			switch s := i + 1; {
			case s == 1:
				if kept.Carried != nil {
					t.Errorf("version %d: carried %+v, want none", s, kept.Carried)
				}
			case kept.Carried == nil:
				t.Errorf("version %d: not carried (%s)", s, kept.CarryNote)
			case !strings.Contains(kept.Carried.A, res.Versions[i-1].ID) || kept.Carried.Snapshots != prevSnaps:
				t.Errorf("version %d: carried %+v, want version %d's %d snapshots", s, kept.Carried, s-1, prevSnaps)
			}
			sr := rep.SelfReads[i]
			want := SelfRead{Version: v.ID, Key: "versions/" + v.ID + "/ducklake.duckdb", OK: true, CarriedSnapshots: prevSnaps, Seconds: sr.Seconds}
			if i == 0 {
				want.CarriedSnapshots = 0
			}
			if *sr != want {
				t.Errorf("version %d: self-read reported %+v, want %+v", i+1, *sr, want)
			}
			prevSnaps = len(kept.Snapshots)
		}
		st, err := local.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Check(ctx, st, Options{Jobs: 1, DigestCache: cache, carryMinWork: -1})
		if err != nil {
			t.Fatalf("check again: %v", err)
		}
		for i, sr := range again.SelfReads {
			if !sr.OK || !sr.Cached || sr.CarriedSnapshots != 0 {
				t.Errorf("check again, version %d: self-read reported %+v, want ok, cached, nothing carried", i+1, *sr)
			}
		}
		if len(again.SelfReads) != len(res.Versions) {
			t.Errorf("check again: %d self-reads, want %d", len(again.SelfReads), len(res.Versions))
		}
	})
	t.Run("old record_count", func(t *testing.T) {
		v := res.Versions[4]
		rep, _, _, err := run(t, 2, func(dir string) {
			vdir := filepath.Join(dir, "versions", v.ID)
			execDuckDB(t, filepath.Join(vdir, "ducklake.duckdb"), "INSERT INTO ducklake_data_file SELECT * REPLACE (999 AS data_file_id, 1 AS begin_snapshot, 2 AS end_snapshot, record_count + 1 AS record_count) FROM ducklake_data_file WHERE data_file_id = 0")
			testlakes.EditVersion(t, vdir, nil, "catalog")
		})
		if !errors.Is(err, ErrDifferences) {
			t.Fatalf("check: %v, want ErrDifferences", err)
		}
		found := false
		for _, f := range rep.Findings {
			found = found || f.Version == v.ID && strings.Contains(f.Detail, "record_count is") && strings.Contains(f.Detail, "the frozen catalog")
		}
		if !found {
			t.Errorf("no finding of version 5's record_count: %+v", rep.Findings)
		}
		for _, sr := range rep.SelfReads {
			if sr.OK == (sr.Version == v.ID) {
				t.Errorf("self-read of %s reported ok %v (version 5 is %s)", sr.Version, sr.OK, v.ID)
			}
		}
	})
}
