package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
)

// TestBackfillConvertsVersionInOnePass backfills two formats of every
// version of a small repository, a version's cells one after the other
// (one job): the first cell of a version to reach its proof finds the
// version's other format already converted beside its own (one
// convert.Catalogs pass), every cell is still proved and published on its
// own, and check passes after. A cell stopped at its conversion (a fault)
// fails alone: the version's other cell is written, the stopped one's
// converted file is neither published nor left in the work folder.
func TestBackfillConvertsVersionInOnePass(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves every version twice")
	}
	ctx := context.Background()
	injected := errors.New("injected")
	for _, tc := range []struct {
		name string
		// failSecond injects an error at the conversion step of each
		// version's second cell
		failSecond bool
	}{
		{name: "every cell written"},
		{name: "second cell stopped at its conversion", failSecond: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			versions := versionIDs(t, root)
			opts := Options{Jobs: 1, Formats: []string{"0.4", "1.1"}, WorkDir: t.TempDir()}
			// Jobs 1: the cells run one after the other, a version's
			// together, so fault points and progress alternate per cell.
			var seen []int // per cell reaching its proof: converted catalogs in its folder
			var cellVersions []string
			converts := 0
			opts.Progress = func(p Progress) { cellVersions = append(cellVersions, p.Cell.Version) }
			fctx := faults.With(ctx, func(p faults.Point) error {
				switch p.Name {
				case "backfill/convert":
					converts++
					if tc.failSecond && converts%2 == 0 {
						return injected
					}
				case "backfill/compare":
					got, err := filepath.Glob(filepath.Join(filepath.Dir(p.Path), "*.duckdb"))
					if err != nil {
						t.Fatal(err)
					}
					seen = append(seen, len(got))
				}
				return nil
			})
			rep, err := Backfill(fctx, st, opts)
			cells := 2 * len(versions)
			if len(cellVersions) != cells {
				t.Fatalf("%d cells done, want %d (%v)", len(cellVersions), cells, err)
			}
			if tc.failSecond {
				if !errors.Is(err, ErrBackfillIncomplete) || rep.Counts[Written] != len(versions) || rep.Counts[Failed] != len(versions) {
					t.Fatalf("Backfill = %v, counts %v, want %d written and %d failed", err, rep.Counts, len(versions), len(versions))
				}
				for _, r := range rep.Results {
					if r.Outcome == Failed && r.Step != "convert" {
						t.Errorf("cell %s failed at %s, want convert", r.Key, r.Step)
					}
				}
			} else if err != nil || rep.Counts[Written] != cells {
				t.Fatalf("Backfill = %v, counts %v, want %d written", err, rep.Counts, cells)
			}
			// The first cell of each version saw both formats converted.
			first := 0 // index into seen
			for i := 0; i < len(cellVersions); i += 2 {
				if cellVersions[i] != cellVersions[i+1] {
					t.Fatalf("cells %d and %d are of versions %s and %s: not one after the other", i, i+1, cellVersions[i], cellVersions[i+1])
				}
				if seen[first] != 2 {
					t.Errorf("version %s: its first proof found %d converted catalogs in its folder, want 2 (both formats in one pass)", cellVersions[i], seen[first])
				}
				first++
				if !tc.failSecond {
					first++ // the second cell's proof
				}
			}
			if first != len(seen) {
				t.Errorf("%d proofs, want %d", len(seen), first)
			}
			if entries, _ := os.ReadDir(opts.WorkDir); len(entries) != 0 {
				t.Errorf("work files left: %v", entries)
			}
			for _, v := range versions {
				for _, f := range []string{"0.4", "1.1"} {
					_, err := os.Stat(filepath.Join(root, "versions", v, "catalogs", f+".duckdb"))
					want := !tc.failSecond || f == "0.4"
					if (err == nil) != want {
						t.Errorf("version %s, %s published: %v, want %v", v, f, err == nil, want)
					}
				}
			}
			if tc.failSecond {
				return // the stopped cells are missing
			}
			if _, err := Check(ctx, st, Options{Jobs: 1}); err != nil {
				t.Errorf("check after the backfill: %v", err)
			}
		})
	}
}

// TestBackfillOneVersionOneGroup: a backfill of one version to two formats
// with more jobs than versions (the common scheduled run: the newest
// version, --jobs 2) runs the version's cells as one group, which opens
// and reads its frozen catalog's copy once (one compare.Source), converts
// both formats in one pass and still reports each cell on its own: a cell
// whose proof fails fails alone, the other is written. Before, with fewer
// versions than jobs, each cell ran alone, converted on its own, and
// opened and read the copy once each, and the run opened it once more for
// its delete hints, which save a run of one version no read (3 opens, 2
// whole reads).
func TestBackfillOneVersionOneGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	injected := errors.New("injected")
	for _, tc := range []struct {
		name      string
		failProof string // the format whose proof is stopped by a fault, if any
	}{
		{name: "every cell written"},
		{name: "one proof fails", failProof: "1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			ids := versionIDs(t, root)
			newest := ids[len(ids)-1]
			opts := Options{Jobs: 2, Formats: []string{"0.4", "1.1"}, Versions: []string{newest}, WorkDir: t.TempDir()}
			var mu sync.Mutex
			opens, whole := map[string]int{}, 0 // per frozen copy, and in all
			var converted []int                 // per cell reaching its proof: converted catalogs in its folder
			fctx := faults.With(ctx, func(p faults.Point) error {
				mu.Lock()
				defer mu.Unlock()
				switch {
				case p.Name == "backfill/compare":
					got, err := filepath.Glob(filepath.Join(filepath.Dir(p.Path), "*.duckdb"))
					if err != nil {
						t.Error(err)
					}
					converted = append(converted, len(got))
					if tc.failProof != "" && strings.HasSuffix(p.Path, tc.failProof+".duckdb") {
						return injected
					}
				case !strings.HasSuffix(p.Path, "ducklake.duckdb"):
					// a converted catalog's
				case p.Name == "compare/open":
					opens[p.Path]++
				case p.Name == "compare/read-whole":
					whole++
				}
				return nil
			})
			rep, err := Backfill(fctx, st, opts)
			if tc.failProof == "" {
				if err != nil || rep.Counts[Written] != 2 {
					t.Fatalf("Backfill = %v, counts %v, want 2 written", err, rep.Counts)
				}
			} else {
				if !errors.Is(err, ErrBackfillIncomplete) || rep.Counts[Written] != 1 || rep.Counts[Failed] != 1 {
					t.Fatalf("Backfill = %v, counts %v, want 1 written and 1 failed", err, rep.Counts)
				}
				for _, r := range rep.Results {
					if failed := r.Format == tc.failProof; failed != (r.Outcome == Failed) || (failed && (r.Step != "compare" || !strings.Contains(r.Error, "injected"))) {
						t.Errorf("cell %s: %s at %q (%s)", r.Key, r.Outcome, r.Step, r.Error)
					}
				}
			}
			// Once, for the group's proofs: a run of one version gives no
			// delete hints (hintVersions), which opened it once more.
			if len(opens) != 1 || whole != 1 {
				t.Fatalf("frozen copies opened %v, read whole %d times, want the version's, read once", opens, whole)
			}
			for copy, n := range opens {
				if n != 1 {
					t.Errorf("%s opened %d times, want once (one group, no hints)", copy, n)
				}
			}
			if len(converted) != 2 || converted[0] != 2 {
				t.Errorf("converted catalogs beside each proof's: %v, want 2 proofs, the first with both formats (one pass)", converted)
			}
			for _, f := range []string{"0.4", "1.1"} {
				_, err := os.Stat(filepath.Join(root, "versions", newest, "catalogs", f+".duckdb"))
				if want := f != tc.failProof; (err == nil) != want {
					t.Errorf("%s published: %v, want %v", f, err == nil, want)
				}
			}
			if entries, _ := os.ReadDir(opts.WorkDir); len(entries) != 0 {
				t.Errorf("work files left: %v", entries)
			}
			if tc.failProof != "" {
				return
			}
			// A check of the version (its content pass and two proofs,
			// one group, no digest cache) opens its copy once too (and
			// its parent's, for the history rows).
			opens, whole = map[string]int{}, 0
			crep, err := Check(fctx, st, Options{Jobs: 2, Versions: []string{newest}, WorkDir: t.TempDir()})
			if err != nil || len(crep.Proofs) != 2 {
				t.Fatalf("Check = %v, %d proofs, want 2 proved", err, len(crep.Proofs))
			}
			if whole != 1 {
				t.Errorf("check: frozen catalogs read whole %d times, want once", whole)
			}
			for copy, n := range opens {
				if n != 1 {
					t.Errorf("check: %s opened %d times, want once", copy, n)
				}
			}
		})
	}
}
