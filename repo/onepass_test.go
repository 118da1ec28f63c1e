package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
