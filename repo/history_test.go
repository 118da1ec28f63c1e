package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestCheckHistoryOfParent: readers ask the newest version's catalog for an
// earlier version's state (AT (VERSION => n)), so a version's frozen
// catalog holds its first parent's snapshot. Check asked only that a
// snapshot of that number was there: a version made by the same pipeline
// in a lake made anew (lakegen's demo run again, its third version grafted
// onto the first run's second) numbers its snapshots alike with other
// contents, and passed (exit 0). It is a difference naming both catalogs
// and the snapshot, with a cold cache and with the cache of an earlier run
// (the content passes kept, their catalogs not opened again), and on a web
// site.
func TestCheckHistoryOfParent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, _ := sharedDemo(ctx, t)
	st, root, _, _, want := graftedDemo(ctx, t)
	rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}})
	wantDifference(t, rep, err, want...)
	if n := len(nonWarnings(rep)); n != 1 {
		t.Errorf("findings %v, want only the history's", nonWarnings(rep))
	}
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}, DigestCache: cache})
		if t.Failed() {
			return
		}
		t.Logf("run %d with a cache: %v", run+1, err)
		wantDifference(t, rep, err, want...)
	}
	// On a web site (no content pass kept: both rows read by the run), a
	// cold run and one with the cache of the first.
	site, err := httpstore.New(webtest.Serve(t, root, webtest.Options{})+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	webCache := t.TempDir()
	webDigests, err := digestcache.Open(filepath.Join(webCache, "digests"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		rep, err := Check(ctx, site, Options{Jobs: 2, Formats: []string{"1.0"}, Cache: filepath.Join(webCache, "data"), DigestCache: webDigests})
		if t.Failed() {
			return
		}
		t.Logf("web site, run %d: %v", run+1, err)
		wantDifference(t, rep, err, want...)
	}
	// The first run's own third version, its history the parent's, passes.
	st2, _ := cloneRepo(t, golden)
	if rep, err := Check(ctx, st2, Options{Jobs: 2, Formats: []string{"1.0"}}); err != nil {
		t.Fatalf("the demo: %v; findings %v", err, nonWarnings(rep))
	}
}

// graftedDemo is a copy of the demo whose third version is the third of
// the demo run again in a lake made anew, grafted onto the first run's
// second (TestCheckHistoryOfParent), and the words of the difference a
// check finds in its history.
func graftedDemo(ctx context.Context, t *testing.T) (st *local.Store, root string, parent, graft lakegen.VersionResult, want []string) {
	t.Helper()
	golden, res := sharedDemo(ctx, t)
	st, root = cloneRepo(t, golden)
	// The lake made anew: generated once per test binary and only read
	// here (its version folder and data files are copied).
	other, ores := otherDemo(ctx, t)
	parent, own, graft := res.Versions[1], res.Versions[2], ores.Versions[2]
	if graft.Snapshots[0] != parent.SnapshotID+1 {
		t.Fatalf("the second run's third version adds snapshots %v, want from %d", graft.Snapshots, parent.SnapshotID+1)
	}
	if err := os.RemoveAll(filepath.Join(root, "versions", own.ID)); err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(root, "versions", graft.ID)
	if err := copyTree(filepath.Join(other, "versions", graft.ID), vdir); err != nil {
		t.Fatal(err)
	}
	testlakes.EditVersion(t, vdir, func(m map[string]any) { m["parents"] = []string{parent.ID} })
	// The second run's data files beside the first's (other names).
	odata := filepath.Join(other, "data")
	err := filepath.WalkDir(odata, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(odata, p)
		dst := filepath.Join(root, "data", rel)
		if _, err := os.Stat(dst); err == nil {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{graft.ID, "versions/" + graft.ID + "/ducklake.duckdb: snapshot " + itoa(parent.SnapshotID) + ", the one its first parent " + parent.ID + " was frozen at, is another snapshot here",
		"than in versions/" + parent.ID + "/ducklake.duckdb", "AT (VERSION => " + itoa(parent.SnapshotID) + ")"}
	return st, root, parent, graft, want
}

// otherDemo is lakegen's demo generated a second time (without recorded
// rows), in a lake of its own, once per test binary: the same versions
// and snapshot numbers as sharedDemo's with other files and ids. Callers
// copy what they change (sharedFixture).
func otherDemo(ctx context.Context, t *testing.T) (string, *lakegen.Result) {
	t.Helper()
	return otherDemoFixture.generate(t, func(dir string) (*lakegen.Result, error) {
		spec := lakegen.Demo()
		spec.RecordRows = false
		return lakegen.Repository(ctx, dir, spec)
	})
}

var otherDemoFixture = sharedFixture{name: "demo-other"}

// TestCheckHistorySnapshotTimeType: the history comparison compares the
// instant each snapshot was committed, not its text. A frozen catalog
// whose snapshot_time is a TIMESTAMP (what a copy of a working catalog
// through a scanner typing it without a zone leaves) renders the same
// instant without the "+00" a TIMESTAMPTZ has; the check took it for
// another snapshot and failed a history that is its parent's (exit 3).
// The demo's second version, with such a column, is both the child of the
// first and the parent of the third.
func TestCheckHistorySnapshotTimeType(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	st, root := cloneRepo(t, golden)
	vdir := filepath.Join(root, "versions", res.Versions[1].ID)
	execCatalog(t, filepath.Join(vdir, "ducklake.duckdb"), "SET TimeZone = 'UTC'; ALTER TABLE c.ducklake_snapshot ALTER snapshot_time TYPE TIMESTAMP; CHECKPOINT c")
	testlakes.EditVersion(t, vdir, nil)
	if rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}}); err != nil {
		t.Fatalf("check: %v; findings %v", err, nonWarnings(rep))
	}
}

// TestBackfillSnapshotTimeType: a version whose frozen catalog's
// snapshot_time is a TIMESTAMP of its UTC instants (formats.FrozenTypes)
// backfills every declared format, each conversion proved equivalent (its
// output holds the format's TIMESTAMPTZ of the same instants), and the
// version then checks clean, its published catalogs proved again. Before, every proof of that version failed
// on each snapshot's time as text ("snapshot time differs": A
// "2026-... .515388", B the same "+00"), and so did its backfill.
func TestBackfillSnapshotTimeType(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	st, root := cloneRepo(t, golden)
	id := res.Versions[1].ID
	vdir := filepath.Join(root, "versions", id)
	execCatalog(t, filepath.Join(vdir, "ducklake.duckdb"), "SET TimeZone = 'UTC'; ALTER TABLE c.ducklake_snapshot ALTER snapshot_time TYPE TIMESTAMP; CHECKPOINT c")
	testlakes.EditVersion(t, vdir, nil)
	rep, err := Backfill(ctx, st, Options{Versions: []string{id}, Jobs: 2})
	if err != nil || rep.Counts[Written] == 0 {
		var failed []string
		if rep != nil {
			for _, r := range rep.Results {
				if r.Outcome != Written {
					failed = append(failed, fmt.Sprintf("%s %s: %s %s", r.Version, r.Format, r.Outcome, r.Error))
				}
			}
		}
		t.Fatalf("backfill of version %s: %v, counts %v, want its catalogs written\n%s", id, err, rep.Counts, strings.Join(failed, "\n"))
	}
	if rep, err := Check(ctx, st, Options{Versions: []string{id}, Jobs: 2}); err != nil {
		t.Fatalf("check of version %s: %v; findings %v", id, err, nonWarnings(rep))
	}
}

// TestSameSnapshot: rows are the same commit when their schema versions
// and instants agree, however the time is rendered, one of them perhaps
// kept at a coarser precision (sameInstant).
func TestSameSnapshot(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		sa   int64
		want bool
	}{
		{"2026-12-04 22:41:19.515388+00", "2026-12-04 22:41:19.515388", 3, true},
		{"2026-12-04 22:41:19.5+00", "2026-12-04 22:41:19.500+00:00", 3, true},
		{"2026-12-04 23:41:19.515388+01", "2026-12-04 22:41:19.515388+00", 3, true},
		{"2026-12-04 22:41:19+00", "2026-12-04 22:41:19+00", 3, true},
		{"2026-12-04 22:41:19.515388+00", "2026-12-04 22:41:19.515389+00", 3, false},
		{"2026-12-04 22:41:19.515388+00", "2026-12-04 22:41:19.515388+00", 4, false}, // schema version
		// A time kept at whole seconds or milliseconds (a MySQL catalog,
		// TestCheckHistoryCoarserTime): the other truncated or rounded
		// to it, either side.
		{"2026-12-04 22:41:19+00", "2026-12-04 22:41:19.515388+00", 3, true},
		{"2026-12-04 22:41:19.515388+00", "2026-12-04 22:41:20", 3, true},
		{"2026-12-04 22:42:00+00", "2026-12-04 22:41:59.5+00", 3, true}, // rounded half up, into the next minute
		{"2026-12-04 22:41:19.515+00", "2026-12-04 22:41:19.515388+00", 3, true},
		{"2026-12-04 22:41:19.515388+00", "2026-12-04 22:41:19.516+00", 3, false}, // rounds to .515
		{"2026-12-04 22:41:19.5155+00", "2026-12-04 22:41:19.516+00", 3, true},
		{"2026-12-04 22:41:18+00", "2026-12-04 22:41:19.515388+00", 3, false},
		{"2026-12-04 22:41:21+00", "2026-12-04 22:41:19.515388+00", 3, false},
		{"2026-12-04 22:41:20+00", "2026-12-04 22:41:19.499999+00", 3, false},
		{"2026-12-04 22:41:19.5+00", "2026-12-04 22:41:19.515388+00", 3, false}, // .5 is .500: milliseconds
		{"2026-12-04 22:41:19+00", "2026-12-04 22:41:20+00", 3, false},          // both whole seconds
		{"2026-12-04 22:41:19+00", "2026-12-04 22:41:19.515388+00", 4, false},   // schema version
		{"infinity", "infinity", 3, true},
		{"infinity", "2026-12-04 22:41:19+00", 3, false},
	} {
		a, b := snapshotRow{Time: tc.a, SchemaVersion: tc.sa}, snapshotRow{Time: tc.b, SchemaVersion: 3}
		if got := sameSnapshot(a, b); got != tc.want {
			t.Errorf("sameSnapshot(%v, %v) = %t, want %t", a, b, got, tc.want)
		}
	}
}

// TestCheckHistoryCoarserTime: a lake whose working catalog moved from a
// DuckDB file to MySQL keeps its earlier snapshots' times at the precision
// of MySQL's column: DuckLake creates snapshot_time a TIMESTAMPTZ, which
// DuckDB's MySQL extension declares TIMESTAMP, whole seconds, and MySQL
// rounds the fractional seconds it is given (truncates them under
// TIME_TRUNCATE_FRACTIONAL, as MariaDB does by default); a column declared
// DATETIME(3) keeps milliseconds. A version frozen from it holds its
// parent's snapshot at that precision, the parent's own frozen catalog at
// microseconds: the check took it for another history (exit 3). It is the
// parent's when the coarser time is the finer one truncated or rounded to
// the coarser's precision; a time off by more is still another history.
func TestCheckHistoryCoarserTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	parent, child := res.Versions[0], res.Versions[1]
	for _, tc := range []struct {
		name, set string // the child's snapshot_time at and before the parent's snapshot
		same      bool
	}{
		{"seconds, rounded", "date_trunc('second', snapshot_time + INTERVAL 500 MILLISECOND)", true},
		{"seconds, truncated", "date_trunc('second', snapshot_time)", true},
		{"milliseconds, rounded", "date_trunc('millisecond', snapshot_time + INTERVAL 500 MICROSECOND)", true},
		{"milliseconds, truncated", "date_trunc('millisecond', snapshot_time)", true},
		{"seconds, another time", "date_trunc('second', snapshot_time) - INTERVAL 1 SECOND", false},
		{"milliseconds, another time", "date_trunc('millisecond', snapshot_time) + INTERVAL 2 MILLISECOND", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, root := cloneRepo(t, golden)
			vdir := filepath.Join(root, "versions", child.ID)
			execCatalog(t, filepath.Join(vdir, "ducklake.duckdb"), "SET TimeZone = 'UTC'",
				"UPDATE c.ducklake_snapshot SET snapshot_time = "+tc.set+" WHERE snapshot_id <= "+itoa(parent.SnapshotID), "CHECKPOINT c")
			testlakes.EditVersion(t, vdir, nil)
			rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}})
			if tc.same {
				if err != nil {
					t.Fatalf("check: %v; findings %v", err, nonWarnings(rep))
				}
				return
			}
			wantDifference(t, rep, err, child.ID, "snapshot "+itoa(parent.SnapshotID)+", the one its first parent "+parent.ID+" was frozen at, is another snapshot here")
		})
	}
}

// TestCheckHistoryOfParentNarrowed: a run narrowed to a version whose
// first parent it does not select (`--versions CHILD`, the check of a
// publisher's CI after publishing CHILD, or a `--shard` that puts the
// parent on another machine) had no row of the parent's to compare with
// but a digest cache filled by an earlier run, which a fresh CI machine
// has not: a version grafted onto another history passed (exit 0). The
// run reads the parent's row from its frozen catalog (verified against the
// parent's version.json, once): a difference, in a folder without and
// with a fresh cache, on a web site, and in the shard that holds the child
// alone; an expired parent is compared as a whole check compares it (from
// the cache alone). The demo's own third version, so narrowed, passes with
// no new warning; a parent whose frozen catalog is not the one its
// version.json names leaves the child's history unverifiable (exit 4),
// naming both, and the hint says to check the parent.
func TestCheckHistoryOfParentNarrowed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root, parent, graft, want := graftedDemo(ctx, t)
	only := Options{Jobs: 2, Formats: []string{"1.0"}, Versions: []string{graft.ID}}
	t.Run("folder", func(t *testing.T) {
		counted := &openCounter{Store: st, opens: map[string]int{}}
		rep, err := Check(ctx, counted, only)
		t.Logf("--versions %s: %v", graft.ID, err)
		wantDifference(t, rep, err, want...)
		if n := len(nonWarnings(rep)); n != 1 {
			t.Errorf("findings %v, want only the history's", nonWarnings(rep))
		}
		if n := counted.opens["versions/"+parent.ID+"/ducklake.duckdb"]; n != 1 {
			t.Errorf("the parent's frozen catalog was read %d times, want once", n)
		}
	})
	t.Run("fresh cache", func(t *testing.T) {
		// A CI machine's, then the same cache again: the parent's row is
		// kept by the first run.
		cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for run := range 2 {
			opts := only
			opts.DigestCache = cache
			rep, err := Check(ctx, st, opts)
			t.Logf("with a cache, run %d: %v", run+1, err)
			wantDifference(t, rep, err, want...)
		}
	})
	t.Run("shard", func(t *testing.T) {
		// A shard that holds the child and not its parent.
		var shard Shard
		for n := 2; shard.N == 0; n++ {
			for k := 1; k <= n; k++ {
				if s := (Shard{K: k, N: n}); s.holds(graft.ID) && !s.holds(parent.ID) {
					shard = s
					break
				}
			}
		}
		rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}, Shard: shard})
		t.Logf("--shard %s: %v", shard, err)
		wantDifference(t, rep, err, want...)
	})
	t.Run("web", func(t *testing.T) {
		// A fresh download cache, no digest cache.
		site, err := httpstore.New(webtest.Serve(t, root, webtest.Options{})+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		opts := only
		opts.Cache = filepath.Join(t.TempDir(), "data")
		rep, err := Check(ctx, site, opts)
		t.Logf("web site: %v", err)
		wantDifference(t, rep, err, want...)
	})
	t.Run("expired parent", func(t *testing.T) {
		// No content pass reads an expired version's frozen catalog (gone,
		// or a violation left): a whole check compares the child with it
		// only from the cache, and a narrowed one does as much.
		expire(t, filepath.Join(root, "versions", parent.ID), "expired", "ducklake.duckdb")
		full, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}})
		t.Logf("whole check: %v", err)
		rep, err := Check(ctx, st, only)
		t.Logf("--versions %s: %v", graft.ID, err)
		for _, f := range rep.Findings {
			if !slices.ContainsFunc(full.Findings, func(g Finding) bool { return g.Detail == f.Detail }) {
				t.Errorf("--versions %s finds %s %q, which a whole check does not", graft.ID, f.Kind, f.Detail)
			}
		}
	})

	golden, res := sharedDemo(ctx, t)
	st2, root2 := cloneRepo(t, golden)
	child, parent2 := res.Versions[2], res.Versions[1]
	t.Run("own history", func(t *testing.T) {
		// The demo's own third version passes, with the warnings of a
		// whole check alone.
		full, err := Check(ctx, st2, Options{Jobs: 2, Formats: []string{"1.0"}})
		if err != nil {
			t.Fatalf("the demo: %v; findings %v", err, nonWarnings(full))
		}
		rep, err := Check(ctx, st2, Options{Jobs: 2, Formats: []string{"1.0"}, Versions: []string{child.ID}})
		if err != nil {
			t.Fatalf("the demo, --versions %s: %v; findings %v", child.ID, err, nonWarnings(rep))
		}
		for _, f := range rep.Findings {
			if !slices.ContainsFunc(full.Findings, func(g Finding) bool { return g.Detail == f.Detail }) {
				t.Errorf("--versions %s warns %q, which a whole check does not", child.ID, f.Detail)
			}
		}
	})
	t.Run("parent changed", func(t *testing.T) {
		// The parent's frozen catalog is not the one its version.json
		// names: the child's history cannot be compared (a whole check
		// finds the parent's catalog differs).
		pcat := filepath.Join(root2, "versions", parent2.ID, "ducklake.duckdb")
		b, err := os.ReadFile(pcat)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pcat, append(b, 0), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Check(ctx, st2, Options{Jobs: 2, Formats: []string{"1.0"}, Versions: []string{child.ID}})
		t.Logf("--versions %s: %v", child.ID, err)
		if !errors.Is(err, ErrUnverifiable) || errors.Is(err, ErrDifferences) {
			t.Fatalf("--versions %s with its parent's catalog changed: %v, want unverifiable (exit 4); findings %v", child.ID, err, nonWarnings(rep))
		}
		var ce *CheckError
		if !errors.As(err, &ce) {
			t.Errorf("--versions %s: error %T, want a *CheckError", child.ID, err)
		} else if !strings.Contains(ce.Hint(), "check --versions "+parent2.ID) {
			t.Errorf("hint %q, want one to check the parent", ce.Hint())
		}
		if f := nonWarnings(rep); len(f) != 1 || f[0].Version != child.ID || !strings.Contains(f[0].Detail, "versions/"+child.ID+"/ducklake.duckdb") ||
			!strings.Contains(f[0].Detail, "versions/"+parent2.ID+"/ducklake.duckdb") {
			t.Errorf("findings %v, want one of %s naming both catalogs", f, child.ID)
		}
	})
}

// TestCheckParentOwnHistoryNarrowed: a run narrowed to a version whose
// first parent it does not select reads the parent's ducklake_snapshot
// rows to compare the child's history with (TestCheckHistoryOfParentNarrowed),
// but took them as they were: a parent whose frozen catalog lacks the row
// at its own snapshot_id, or contradicts its version.json's
// ducklake.snapshots, left nothing to compare with, and the child passed
// (exit 0) though its history was verified against nothing sound. It is a
// difference (exit 3) of the child naming the parent's catalog and its
// fault, with a hint to check the parent, cold and from a cache that holds
// the parent's rows; a whole check reports the fault as the parent's own
// only, as before.
func TestCheckParentOwnHistoryNarrowed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, res := sharedDemo(ctx, t)
	grand, parent, child := res.Versions[0], res.Versions[1], res.Versions[2]
	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, vdir string)
		fault string
	}{
		{"row at snapshot_id deleted", func(t *testing.T, vdir string) {
			execCatalog(t, filepath.Join(vdir, "ducklake.duckdb"), "DELETE FROM c.ducklake_snapshot WHERE snapshot_id = "+itoa(parent.SnapshotID), "CHECKPOINT c")
			testlakes.EditVersion(t, vdir, nil)
		}, "ducklake.snapshot_id is " + itoa(parent.SnapshotID) + ", but the last snapshot of versions/" + parent.ID + "/ducklake.duckdb is " + itoa(parent.SnapshotID-1)},
		{"snapshots claim", func(t *testing.T, vdir string) {
			testlakes.EditVersion(t, vdir, func(m map[string]any) {
				m["ducklake"].(map[string]any)["snapshots"] = []int64{grand.SnapshotID, parent.Snapshots[1]}
			})
		}, "ducklake.snapshots is [" + itoa(grand.SnapshotID) + ", " + itoa(parent.Snapshots[1]) + "], but the first snapshot of versions/" + parent.ID + "/ducklake.duckdb after its parent's snapshot_id " + itoa(grand.SnapshotID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, root := cloneRepo(t, golden)
			tc.edit(t, filepath.Join(root, "versions", parent.ID))
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"versions/" + child.ID + "/ducklake.duckdb: snapshot " + itoa(parent.SnapshotID) + ", the one its first parent " + parent.ID + " was frozen at, cannot be compared",
				"versions/" + parent.ID + "/ducklake.duckdb", "contradicts the parent's version.json", tc.fault, "check --versions " + parent.ID}
			for _, run := range []string{"cold", "no cache", "the parent's rows kept"} {
				opts := Options{Jobs: 2, Formats: []string{"1.0"}, Versions: []string{child.ID}}
				if run != "no cache" {
					opts.DigestCache = cache
				}
				counted := &openCounter{Store: st, opens: map[string]int{}}
				rep, err := Check(ctx, counted, opts)
				t.Logf("%s, --versions %s: %v", run, child.ID, err)
				wantDifference(t, rep, err, want...)
				if n, want := counted.opens["versions/"+parent.ID+"/ducklake.duckdb"], map[bool]int{true: 0, false: 1}[run == "the parent's rows kept"]; n != want {
					t.Errorf("%s: the parent's frozen catalog read %d times, want %d", run, n, want)
				}
				if f := nonWarnings(rep); len(f) != 1 || f[0].Version != child.ID {
					t.Errorf("%s: findings %v, want one of %s", run, f, child.ID)
				}
				var ce *CheckError
				if !errors.As(err, &ce) || !strings.Contains(ce.Hint(), "check --versions "+parent.ID) {
					t.Errorf("%s: hint of %v does not say to check the parent", run, err)
				}
			}
			// A whole check: the parent's own finding, nothing of the child's.
			rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}})
			wantDifference(t, rep, err, parent.ID, tc.fault)
			for _, f := range nonWarnings(rep) {
				if f.Version == child.ID {
					t.Errorf("whole check: finding of the child %q", f.Detail)
				}
			}
		})
	}
}
