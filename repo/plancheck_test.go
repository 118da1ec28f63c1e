package repo

import (
	"context"
	"testing"
)

// TestPlanChecksReuseDatabases: a plan's convert.Check of each missing cell
// runs in the run's pooled conversion databases (before, each Check started
// and closed a DuckDB database of its own, about a sixth of a plan's CPU on
// the issue 9 history repository).
func TestPlanChecksReuseDatabases(t *testing.T) {
	ctx := context.Background()
	st, _ := smallLake(t)
	opts := Options{Jobs: 1}
	r, err := load(ctx, st, &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	m, err := r.plan(ctx, &opts, true)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, v := range m.Versions {
		for _, c := range v.Cells {
			if c.State == Missing {
				checked++
			}
		}
	}
	if checked < 2 {
		t.Fatalf("want at least 2 checked missing cells, got %d", checked)
	}
	if n := r.convEngines.Idle(); n != 1 {
		t.Errorf("idle conversion databases after the plan's checks: %d, want 1 (one job, its database reused)", n)
	}
}
