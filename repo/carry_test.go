package repo

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestBackfillAndCheckCarryEarlierProofs backfills a history one cell at a
// time: each version's proofs carry the previous version's (the snapshots
// it shares with it are not walked again), except where a version rewrote
// rows the earlier snapshots see (version 6 deletes again from files
// version 3 deleted from: DuckLake replaces their delete files). A check
// with a cache of its own carries the same way, and still finds a published
// catalog of an old version edited at a snapshot only the earlier walk
// would have seen.
//
// Over a web site (the same backfilled folder, served with ETags), a check
// from a cold cache carries the previous version's proof from the copies it
// downloaded and proved, and still finds the edited catalog too.
func TestBackfillAndCheckCarryEarlierProofs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills and checks a seven-version lake")
	}
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "lake")
	golden, res := carryHistory7(t)
	if err := copyTree(golden, dir); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	newCache := func() *digestcache.Cache {
		c, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	seq := map[string]int{}
	for i, v := range res.Versions {
		seq[v.ID] = i + 1
	}
	// carried says which versions' proofs carry an earlier one's: every
	// one after the first, version 6 too (its deletes replace delete
	// files with files deleting the same positions at the earlier
	// snapshots: compare.TestCarryAcrossReplacedDeletes).
	carried := func(version string, n int) {
		t.Helper()
		switch s := seq[version]; {
		case s == 1:
			if n != 0 {
				t.Errorf("version %d: %d snapshots carried, want none", s, n)
			}
		case n == 0:
			t.Errorf("version %d: nothing carried", s)
		}
	}
	bf, err := Backfill(ctx, st, Options{Jobs: 1, DigestCache: newCache(), carryMinWork: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(bf.Results) != 2*len(res.Versions) {
		t.Fatalf("%d cells written, want %d", len(bf.Results), 2*len(res.Versions))
	}
	for _, r := range bf.Results {
		carried(r.Version, r.CarriedSnapshots)
	}

	rep, err := Check(ctx, st, Options{Jobs: 1, DigestCache: newCache(), carryMinWork: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK {
		t.Fatalf("check: %v", nonWarnings(rep))
	}
	for _, p := range rep.Proofs {
		carried(p.Version, p.CarriedSnapshots)
	}
	site, err := httpstore.New(webtest.Serve(t, root, webtest.Options{Validators: webtest.ETag})+"/lake", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Check(ctx, site, coldRemote(t))
	if err != nil {
		t.Fatalf("web check: %v", err)
	}
	for _, p := range rep.Proofs {
		carried(p.Version, p.CarriedSnapshots)
	}

	// Version 3's 1.1 catalog shows a copy of a data file of version 1 at
	// snapshot 1 only (the table's empty snapshot): a difference at that
	// snapshot alone, which version 2's proof covered.
	// The checks after the edit prove versions 2 and 3 in 1.1 alone, from
	// a cache of their own: version 3's proof carries version 2's, made
	// first in the same run, as in a check of every version (the other
	// cells were proved above, and proving them again showed nothing).
	v3 := res.Versions[2].ID
	pub := filepath.Join(dir, "versions", v3, "catalogs", "1.1.duckdb")
	execCatalog(t, pub, "INSERT INTO c.ducklake_data_file SELECT * REPLACE (999 AS data_file_id, 1 AS begin_snapshot, 2 AS end_snapshot) FROM c.ducklake_data_file WHERE data_file_id = 0")
	edited := func(o Options) Options {
		o.Versions, o.Formats = []string{res.Versions[1].ID, v3}, []string{"1.1"}
		return o
	}
	rep, err = Check(ctx, st, edited(Options{Jobs: 1, DigestCache: newCache(), carryMinWork: -1}))
	if rep == nil || err == nil {
		t.Fatalf("check of an edited catalog: report %v, error %v", rep != nil, err)
	}
	want := []string{"versions/" + v3 + "/catalogs/1.1.duckdb"}
	if failed := failedProofs(rep); rep.OK || !slices.Equal(failed, want) {
		t.Errorf("check ok %v, failed proofs %v, want %v; findings %v", rep.OK, failed, want, nonWarnings(rep))
	}
	rep, err = Check(ctx, site, edited(coldRemote(t)))
	if rep == nil || err == nil {
		t.Fatalf("web check of an edited catalog: report %v, error %v", rep != nil, err)
	}
	if failed := failedProofs(rep); rep.OK || !slices.Equal(failed, want) {
		t.Errorf("web check ok %v, failed proofs %v, want %v; findings %v", rep.OK, failed, want, nonWarnings(rep))
	}
}
