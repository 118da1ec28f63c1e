package repo

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// carryHistory is the seven-version history of
// TestBackfillAndCheckCarryEarlierProofs (version 6 deletes again from
// files version 3 deleted from: it walks whole), and carried checks a
// proof's carried snapshots against it: every version after the first
// carries, version 6 too (its deletes replace delete files with files
// deleting the same positions at the earlier snapshots).
func carryHistory(t *testing.T, dir string) func(t *testing.T, what, version string, n int) {
	t.Helper()
	golden, res := carryHistory7(t)
	if err := copyTree(golden, dir); err != nil {
		t.Fatal(err)
	}
	seq := map[string]int{}
	for i, v := range res.Versions {
		seq[v.ID] = i + 1
	}
	return func(t *testing.T, what, version string, n int) {
		t.Helper()
		switch s := seq[version]; {
		case s == 0:
			t.Errorf("%s: unknown version %s", what, version)
		case s == 1:
			if n != 0 {
				t.Errorf("%s: version %d: %d snapshots carried, want none", what, s, n)
			}
		case n == 0:
			t.Errorf("%s: version %d: nothing carried", what, s)
		}
	}
}

// coldRemote is a run's options over a remote store with nothing kept:
// its own digest cache, data cache and work folder.
func coldRemote(t *testing.T) Options {
	c, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return Options{Jobs: 1, DigestCache: c, Cache: t.TempDir(), WorkDir: t.TempDir(), carryMinWork: -1}
}

// failedProofs lists the keys of a check's failed proofs.
func failedProofs(rep *CheckReport) []string {
	var failed []string
	for _, p := range rep.Proofs {
		if !p.OK {
			failed = append(failed, p.Key)
		}
	}
	return failed
}

// TestRemoteCarryEarlierProofs: over a bucket of a real S3 server
// (versitygw), a backfill's proofs carry the previous version's, from the
// catalogs the run downloaded (frozen) and wrote and uploaded (published),
// and so does a check from a cold cache, from the copies it downloaded and
// proved; nothing is downloaded to offer them. The check still finds an old
// version's published catalog edited in the bucket at a snapshot only the
// earlier walk would have seen.
//
// Warm check finds cold proofs (on the same backfilled bucket): the cold
// check downloads each version's data files as it proves it, so each proof
// is kept under the data cache's listing at that time; a warm check with
// the same cache lists the data cache full from its start and finds every
// one of them (before: 2 of 14, those of the last version).
func TestRemoteCarryEarlierProofs(t *testing.T) {
	if testing.Short() {
		t.Skip("backfills and checks a seven-version lake in a bucket")
	}
	ctx := context.Background()
	dir := t.TempDir()
	carried := carryHistory(t, dir)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	st, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}

	bf, err := Backfill(ctx, st, coldRemote(t))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(versionIDs(t, dir)); len(bf.Results) != 2*n {
		t.Fatalf("%d cells written, want %d", len(bf.Results), 2*n)
	}
	for _, r := range bf.Results {
		carried(t, "backfill", r.Version, r.CarriedSnapshots)
	}
	down := bf.Transfer.Downloaded

	opts := coldRemote(t)
	rep, err := Check(ctx, st, opts)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, p := range rep.Proofs {
		carried(t, "check", p.Version, p.CarriedSnapshots)
	}
	if n, _ := cachedProofs(rep); n != 0 {
		t.Errorf("cold check: %d proofs found kept, want none", n)
	}
	t.Logf("backfill downloaded %d bytes, check %d", down, rep.Transfer.Downloaded)

	// Warm: the same caches, another work folder.
	opts.WorkDir = t.TempDir()
	warm, err := Check(ctx, st, opts)
	if err != nil {
		t.Fatalf("warm check: %v", err)
	}
	if n, proved := cachedProofs(warm); n != len(warm.Proofs) || n == 0 {
		t.Errorf("warm check: %d of %d proofs found kept; proved again: %v", n, len(warm.Proofs), proved)
	}
	// A kept proof walked nothing: no carried snapshots (check --json's
	// carried_snapshots is absent for it, as in a folder).
	for _, p := range warm.Proofs {
		if p.Cached && p.CarriedSnapshots != 0 {
			t.Errorf("warm check: kept proof of %s reports %d carried snapshots, want none", p.Key, p.CarriedSnapshots)
		}
	}

	// Version 3's 1.1 catalog, edited in the bucket, shows a copy of a
	// data file of version 1 at snapshot 1 only: a difference at that
	// snapshot alone, which version 2's proof covered.
	v3 := versionIDs(t, dir)[2]
	key := "versions/" + v3 + "/catalogs/1.1.duckdb"
	edited := filepath.Join(t.TempDir(), "1.1.duckdb")
	getObject(t, st, key, edited)
	execCatalog(t, edited, "INSERT INTO c.ducklake_data_file SELECT * REPLACE (999 AS data_file_id, 1 AS begin_snapshot, 2 AS end_snapshot) FROM c.ducklake_data_file WHERE data_file_id = 0")
	body, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	put(t, srv.Client(), bucket, "lake/"+key, body)
	// Versions 2 and 3 in 1.1 alone, from a cache of their own (as
	// TestBackfillAndCheckCarryEarlierProofs' checks after its edit):
	// version 3's proof carries version 2's, made first in the same run,
	// as in a check of every version, whose other twelve cells the checks
	// above proved.
	sel := coldRemote(t)
	sel.Versions, sel.Formats = []string{versionIDs(t, dir)[1], v3}, []string{"1.1"}
	rep, err = Check(ctx, st, sel)
	if rep == nil || err == nil {
		t.Fatalf("check of an edited catalog: report %v, error %v", rep != nil, err)
	}
	if failed := failedProofs(rep); rep.OK || !slices.Equal(failed, []string{key}) {
		t.Errorf("check ok %v, failed proofs %v, want %v; error %v; findings %v", rep.OK, failed, key, err, nonWarnings(rep))
	}
}

// getObject downloads key from st into path.
func getObject(t *testing.T, st store.Store, key, path string) {
	t.Helper()
	rc, err := st.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
