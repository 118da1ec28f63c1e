package repo

import (
	"context"
	"maps"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
)

// TestPlanChecksReuseDatabases: a plan's convert.Check of each missing cell
// runs in the run's pooled conversion databases (before, each Check started
// and closed a DuckDB database of its own, about a sixth of a plan's CPU on
// the issue 9 history repository).
func TestPlanChecksReuseDatabases(t *testing.T) {
	r, m, _ := plannedSmallLake(t, 1)
	checked := 0
	for _, v := range m.Versions {
		checked += missingCells(v)
	}
	if checked < 2 {
		t.Fatalf("want at least 2 checked missing cells, got %d", checked)
	}
	if n := r.convEngines.Idle(); n != 1 {
		t.Errorf("idle conversion databases after the plan's checks: %d, want 1 (one job, its database reused)", n)
	}
}

// TestPlanListsLocalDataWithoutFullReader: a plan of a local repository
// lists each version's data files, before its missing cells are checked,
// with a listing-only reader (compare.ReaderOptions.ListOnly), once per
// frozen copy, and opens none with a full compare reader when every file
// is a regular file under data_dir: nothing is fetched from a folder, and
// the full reader's open (checks of objects and required fields) cost
// CPU on every plan for nothing. The cells are the same either way
// (TestPlanConformance, the refusal tests).
func TestPlanListsLocalDataWithoutFullReader(t *testing.T) {
	_, m, counts := plannedSmallLake(t, 1)
	versions := map[string]bool{}
	for _, v := range m.Versions {
		if missingCells(v) > 0 {
			versions[v.ID] = true
		}
	}
	if len(versions) < 2 {
		t.Fatalf("want missing cells in at least 2 versions, got %d", len(versions))
	}
	if opens := counts.at("compare/open"); len(opens) != 0 {
		t.Errorf("catalogs opened by a full compare reader: %v, want none", opens)
	}
	lists := counts.at("compare/open-list")
	if len(lists) != len(versions) {
		t.Errorf("catalogs opened to list: %v, want one per version with missing cells (%d)", lists, len(versions))
	}
	for catalog, n := range lists {
		if n != 1 {
			t.Errorf("%s opened to list %d times, want once", catalog, n)
		}
	}
}

// plannedSmallLake plans (with the check of missing cells) smallLake's
// repository with jobs jobs, counting the fault points the plan passes;
// the repository is closed when the test ends.
func plannedSmallLake(t *testing.T, jobs int) (*repository, *Matrix, *pointCounts) {
	t.Helper()
	ctx := context.Background()
	st, _ := smallLake(t)
	opts := Options{Jobs: jobs}
	r, err := load(ctx, st, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.close() })
	fctx, counts := countPoints(ctx)
	m, err := r.plan(fctx, &opts, true)
	if err != nil {
		t.Fatal(err)
	}
	return r, m, counts
}

// missingCells counts v's cells the plan found missing.
func missingCells(v *VersionPlan) int {
	n := 0
	for _, c := range v.Cells {
		if c.State == Missing {
			n++
		}
	}
	return n
}

// pointCounts counts the fault points a run passes: point -> path -> calls.
type pointCounts struct {
	mu     sync.Mutex
	counts map[string]map[string]int
}

// countPoints returns ctx counting the fault points passed with it.
func countPoints(ctx context.Context) (context.Context, *pointCounts) {
	c := &pointCounts{counts: map[string]map[string]int{}}
	return faults.With(ctx, func(p faults.Point) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.counts[p.Name] == nil {
			c.counts[p.Name] = map[string]int{}
		}
		c.counts[p.Name][p.Path]++
		return nil
	}), c
}

// at is how many times each path passed the point.
func (c *pointCounts) at(point string) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts[point])
}

// TestPlanPreparesSourceOnce: a plan checks a version's missing formats in
// one conversion pass (convert.Catalogs, every output a dry run), so each
// frozen catalog is prepared (copied in, listed, attached, its frozen
// checks run) once, however many of its formats are missing; checked cell
// by cell, a version missing two formats prepared its source twice.
func TestPlanPreparesSourceOnce(t *testing.T) {
	_, m, counts := plannedSmallLake(t, 2)
	several := 0
	for _, v := range m.Versions {
		if missingCells(v) > 1 {
			several++
		}
	}
	if several == 0 {
		t.Fatal("no version misses more than one format: the test proves nothing")
	}
	prepared := counts.at("convert/prepare")
	if len(prepared) == 0 {
		t.Fatal("no source prepared")
	}
	for src, n := range prepared {
		if n != 1 {
			t.Errorf("%s prepared %d times, want once for all its missing formats", src, n)
		}
	}
}
