package repo

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// heldVersion moves the last version of the lakegen repository in dir out
// of it (its folder, and the data files written after the version before
// it: those no earlier version's files.json names) into
// held, and returns a function that moves them back, as publishing the
// version does. It returns the data files moved.
func heldVersion(t *testing.T, dir, held string) (files []string, publish func()) {
	t.Helper()
	ids := versionIDs(t, dir)
	last := ids[len(ids)-1]
	earlier := testlakes.NamedBefore(t, dir, ids[:len(ids)-1])
	events := filepath.Join(dir, "data", "main", "events")
	entries, err := os.ReadDir(events)
	if err != nil {
		t.Fatal(err)
	}
	type move struct{ from, to string }
	moves := []move{{filepath.Join(dir, "versions", last), filepath.Join(held, last)}}
	for _, e := range entries {
		if !earlier[e.Name()] {
			moves = append(moves, move{filepath.Join(events, e.Name()), filepath.Join(held, e.Name())})
			files = append(files, filepath.Join(events, e.Name()))
		}
	}
	if len(files) == 0 {
		t.Fatal("no data file of the last version")
	}
	for _, m := range moves {
		if err := os.Rename(m.from, m.to); err != nil {
			t.Fatal(err)
		}
	}
	return files, func() {
		for _, m := range moves {
			if err := os.Rename(m.to, m.from); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// cachedProofs counts a check's proofs found kept in the cache, and lists
// the versions of those proved again.
func cachedProofs(rep *CheckReport) (n int, proved []string) {
	for _, p := range rep.Proofs {
		if p.Cached {
			n++
		} else {
			proved = append(proved, p.Version)
		}
	}
	sort.Strings(proved)
	return n, proved
}

// TestCheckAfterAVersionIsAdded: a repository is backfilled and checked, a
// version is published (its folder and new data files), backfilled and
// checked again with the same cache. The data folder only grew, so every
// older version's proof is found under the listing it was kept under
// (before, all of them were proved again: the listing is part of the key).
// A data file touched, edited or removed since makes every proof be made
// again, and the edited and removed ones are found.
func TestCheckAfterAVersionIsAdded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills and checks a four-version lake three times")
	}
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := lakegen.History(ctx, dir, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: -1}); err != nil {
		t.Fatal(err)
	}
	added, publish := heldVersion(t, dir, t.TempDir())
	newest := versionIDs(t, dir)
	st, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// One published format (1.1) is enough: the listing a proof is kept
	// under is the data folder's, the same for every format.
	opts := Options{Jobs: 1, DigestCache: cache, Formats: []string{"1.1"}}
	check := func(what string, wantOK bool) *CheckReport {
		t.Helper()
		rep, err := Check(ctx, st, opts)
		if rep == nil || (err == nil) != wantOK || rep.OK != wantOK {
			t.Fatalf("%s: report %v, error %v, want ok %v", what, rep != nil, err, wantOK)
		}
		return rep
	}
	if _, err := Backfill(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	if n, _ := cachedProofs(check("first check", true)); n != 3 {
		t.Fatalf("first check: %d of 3 proofs kept by the backfill", n)
	}

	publish()
	v4 := versionIDs(t, dir)[3]
	if len(newest) != 3 || v4 <= newest[2] {
		t.Fatalf("versions %v then %s", newest, v4)
	}
	bf, err := Backfill(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range bf.Results {
		if r.Version != v4 {
			t.Errorf("backfill after publishing %s wrote %s of %s", v4, r.Format, r.Version)
		}
	}
	rep := check("check after a version is added", true)
	if n, proved := cachedProofs(rep); n != 4 {
		t.Errorf("check after a version is added: %d of 4 proofs found kept; proved again: %v", n, proved)
	}

	// Touched (same bytes, another modification time): nothing kept
	// stands for the folder now.
	old := filepath.Join(dir, "data", "main", "events")
	first := firstDataFile(t, old)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(first, later, later); err != nil {
		t.Fatal(err)
	}
	if n, _ := cachedProofs(check("check after a data file is touched", true)); n != 0 {
		t.Errorf("check after a data file is touched: %d proofs found kept, want none", n)
	}

	// Edited (other bytes): proved again, and the file is found.
	body, err := os.ReadFile(added[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(added[0], append(body, "edited"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = check("check after a data file is edited", false)
	if n, _ := cachedProofs(rep); n != 0 {
		t.Errorf("check after a data file is edited: %d proofs found kept, want none", n)
	}
	if js, _ := json.Marshal(rep); !strings.Contains(string(js), filepath.Base(added[0])) {
		t.Errorf("check after a data file is edited: %s not named", filepath.Base(added[0]))
	}

	// Removed: proved again (the older versions' too, which do not read
	// it), and the file is found missing.
	if err := os.Remove(added[0]); err != nil {
		t.Fatal(err)
	}
	rep = check("check after a data file is removed", false)
	if n, _ := cachedProofs(rep); n != 0 {
		t.Errorf("check after a data file is removed: %d proofs found kept, want none", n)
	}
	if js, _ := json.Marshal(rep); !strings.Contains(string(js), filepath.Base(added[0])) {
		t.Errorf("check after a data file is removed: %s not named", filepath.Base(added[0]))
	}
}

// firstDataFile is the first data file (by name) in dir.
func firstDataFile(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("data files of %s: %v", dir, err)
	}
	return filepath.Join(dir, entries[0].Name())
}
