package repo

import (
	"context"
	"net/http"
	"testing"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCompactedLakesPlanAndBackfill: the real 0.3 lakes whose merged files
// hold rows of rewritten files (issue 12) are refused up front by plan,
// naming the reason, instead of failing at the proof on every run; with
// --rewrite-deletes backfill writes 1.0 and 1.1 catalogs that prove
// equivalent and check passes.
func TestCompactedLakesPlanAndBackfill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves whole lakes")
	}
	ctx := context.Background()
	for _, name := range []string{"c_compaction__merge_rewrite_partial_file_info", "c_rewrite_data_files__test_rewrite_merge_adjacent"} {
		t.Run(name, func(t *testing.T) {
			st := copyLake(t, testlakes.Lake(t, "lakes-0.3-compaction", name))
			formats := []string{"1.0", "1.1"}
			plan, err := Plan(ctx, st, Options{Jobs: 2, Formats: formats})
			if err != nil {
				t.Fatal(err)
			}
			wantMergedRefused(t, plan)
			opts := Options{Jobs: 2, Formats: formats, Convert: convert.Options{RewriteDeletes: true}}
			rep, err := Backfill(ctx, st, opts)
			if err != nil {
				t.Fatalf("Backfill: %v", err)
			}
			if len(rep.Results) != 2*len(plan.Versions) {
				t.Errorf("backfill wrote %d cells, want %d", len(rep.Results), 2*len(plan.Versions))
			}
			for _, r := range rep.Results {
				if r.Outcome != Written {
					t.Errorf("cell %s/%s: %s %s", r.Version, r.Format, r.Outcome, r.Error)
				}
			}
			crep, err := Check(ctx, st, opts)
			if err != nil || !crep.OK {
				t.Errorf("Check after backfill: ok=%v, %v", crep != nil && crep.OK, err)
			}
		})
	}
}

// TestCompactedLakesOverTheWeb: over a web site with a cold cache, plan
// (and check, which plans first) fetched only the delete files before
// asking the converter about a missing cell, but the converter reads the
// merged data files' rows to tell their snapshots apart: the cells it
// refuses were reported unverifiable (exit 4) on a sound repository, and
// a second, warm run passed. The merged data files are fetched too.
func TestCompactedLakesOverTheWeb(t *testing.T) {
	ctx := context.Background()
	name := "c_compaction__merge_rewrite_partial_file_info"
	st := copyLake(t, testlakes.Lake(t, "lakes-0.3-compaction", name))
	site := webSite(t, http.FileServer(http.Dir(st.Root())))
	plan, err := Plan(ctx, site, Options{Jobs: 2, Formats: []string{"1.0"}, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	wantMergedRefused(t, plan)
}

// wantMergedRefused: every cell of the plan's last version is refused for
// merged-file-snapshots, naming it.
func wantMergedRefused(t *testing.T, plan *Matrix) {
	t.Helper()
	last := plan.Versions[len(plan.Versions)-1]
	for _, c := range last.Cells {
		if c.State != Refused || len(c.Findings) == 0 || c.Findings[0].Code != "merged-file-snapshots" {
			t.Errorf("last version, format %s: %s %v, want refused for merged-file-snapshots", c.Format, c.State, c.Reasons)
		}
	}
}
