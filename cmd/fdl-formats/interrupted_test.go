package main

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/repo"
)

// TestInterruptedBackfillReport: an interrupted backfill reports the cells
// it stopped or never started as "interrupted", in --json (each cell's
// outcome, the counts) and in the text summary; they were "failed", so a
// scheduler counting failures read a cancelled run as that many failed
// cells. A cell that failed for a reason of its own while the run was
// being interrupted stays "failed". The run is cancelled as the first
// SIGINT does, at the first cell's conversion (two cells, --jobs 1).
func TestInterruptedBackfillReport(t *testing.T) {
	injected := errors.New("disk full (injected)")
	for _, tc := range []struct {
		name string
		// err is what the first cell's conversion returns as the run is
		// cancelled (nil: the cancellation itself).
		err                  error
		failed, interrupted  int
		first                repo.Outcome
		firstStep, firstText string
	}{
		{"interrupted", nil, 0, 2, repo.Interrupted, "convert", "(at convert)"},
		{"failed while interrupted", injected, 1, 1, repo.Failed, "convert", "(at convert: disk full (injected))"},
	} {
		for _, asJSON := range []bool{true, false} {
			name := tc.name + "/text"
			if asJSON {
				name = tc.name + "/json"
			}
			t.Run(name, func(t *testing.T) {
				dir := copyRepo(t, "lakes", "01_primitive_types")
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var once sync.Once
				ctx = faults.With(ctx, func(p faults.Point) error {
					var err error
					if p.Name == "backfill/convert" {
						once.Do(func() { cancel(); err = tc.err })
					}
					return err
				})
				cache := t.TempDir()
				args := []string{"fdl-formats", "--log-level", "error", "backfill", "--jobs", "1", "--formats", "0.4,1.1", "--cache", cache}
				if asJSON {
					args = append(args, "--json")
				}
				var out, errOut strings.Builder
				app := newApp()
				app.Writer, app.ErrWriter = &out, &errOut
				err := app.Run(ctx, append(args, dir))
				if code := exitCode(err); code != exitInterrupted {
					t.Fatalf("exit %d (error %v), want %d; stdout:\n%s", code, err, exitInterrupted, out.String())
				}
				// The Try: line names the repository to run again: it
				// said "run `fdl-formats backfill` again", naming none;
				// then without the run's flags (TestTryLineRepeatsFlags).
				flags := "--formats=0.4,1.1 --jobs=1 " + shellWord("--cache="+cache) + " "
				if asJSON {
					flags = "--json " + flags
				}
				if want := "run `fdl-formats backfill " + flags + shellWord(dir) + "` again: it writes what is still missing"; tc.err == nil && errorHint(err) != want {
					t.Errorf("hint %q, want %q", errorHint(err), want)
				}
				if !asJSON {
					want := "0 written, 0 already there, 0 planned, " + strconv.Itoa(tc.failed) + " failed, " + strconv.Itoa(tc.interrupted) + " interrupted, 0 refused, 0 in error\n"
					if !strings.HasSuffix(out.String(), want) || !strings.Contains(out.String(), tc.firstText) {
						t.Errorf("stdout:\n%s\nwant a line %s and the summary %q", out.String(), tc.firstText, want)
					}
					return
				}
				var rep repo.BackfillReport
				if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
					t.Fatalf("stdout is no JSON report: %v\n%s", err, out.String())
				}
				if rep.Counts[repo.Failed] != tc.failed || rep.Counts[repo.Interrupted] != tc.interrupted || len(rep.Results) != 2 {
					t.Fatalf("counts %v, %d results; want %d failed, %d interrupted", rep.Counts, len(rep.Results), tc.failed, tc.interrupted)
				}
				if r := rep.Results[0]; r.Outcome != tc.first || r.Step != tc.firstStep {
					t.Errorf("first cell %s: %s at %s (%s), want %s at %s", r.Key, r.Outcome, r.Step, r.Error, tc.first, tc.firstStep)
				}
				if r := rep.Results[1]; r.Outcome != repo.Interrupted || !strings.HasPrefix(r.Error, "interrupted") {
					t.Errorf("second cell %s: %s (%s), want interrupted", r.Key, r.Outcome, r.Error)
				}
			})
		}
	}
}

// TestInterruptedCheckReport: a check interrupted in the middle of its
// content pass and proofs (as the first SIGINT cancels it) reports no cell
// or file as failed: its --json report has no finding and no proof, and
// says the run was interrupted (error, exit_code 130), as backfill's
// report counts its cells interrupted, not failed.
func TestInterruptedCheckReport(t *testing.T) {
	for _, point := range []string{"compare/open", "compare/read-whole"} {
		t.Run(point, func(t *testing.T) {
			dir := copyRepo(t, "lakes", "01_primitive_types")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			reached := false
			ctx = faults.With(ctx, func(p faults.Point) error {
				if p.Name == point {
					reached = true
					cancel()
				}
				return nil
			})
			var out, errOut strings.Builder
			app := newApp()
			app.Writer, app.ErrWriter = &out, &errOut
			err := app.Run(ctx, []string{"fdl-formats", "--log-level", "error", "check", "--json", "--no-cache", dir})
			if code := exitCode(err); code != exitInterrupted || !reached {
				t.Fatalf("exit %d (error %v, %s reached: %v), want %d", code, err, point, reached, exitInterrupted)
			}
			var rep repo.CheckReport
			if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
				t.Fatalf("stdout is no JSON report: %v\n%s", err, out.String())
			}
			if len(rep.Findings) != 0 || len(rep.Proofs) != 0 || rep.OK || rep.ExitCode != exitInterrupted || !strings.Contains(rep.Error, "interrupted") {
				t.Errorf("report %s, want no finding, no proof, exit_code %d and an error saying interrupted", out.String(), exitInterrupted)
			}
		})
	}
}
