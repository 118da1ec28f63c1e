package repo

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestStopInTheMiddleOfAProof: a run that stops while a published
// catalog's proof is under way (checkAll's ctx.Err() after prove) counts
// that catalog as not proved, whatever the proof made of the reads the
// stop cut short: no proof and no finding of it, and the stop is what the
// run reports. One job, so version 1's content pass and proof come before
// version 2's, and version 3's after.
//
//   - The web server goes away at the download of version 2's published
//     catalog (the ranged read of its end, after its HEAD: the proof's own
//     request): the check stops (a *StoppedError naming the catalog) and
//     its report has version 1's proof, version 3 not checked, and the
//     catalogs of versions 2 and 3 not proved. Without the check after
//     prove, the failed download is a finding, unverifiable, with the hint
//     to restore a catalog that is fine; and so it was until the web
//     store's ranged read said a server gone was gone for the whole site
//     (the stop then came at the next request, version 3's).
//   - The run is interrupted (Ctrl-C) while version 2's proof reads its
//     copy of the published catalog: the check returns the interrupt
//     (exit 130) and no report, not a verdict on what it read (the next
//     task's own check of the context returns it too).
func TestStopInTheMiddleOfAProof(t *testing.T) {
	t.Parallel()
	root := lake11(t)
	ids := versionIDs(t, root)
	if len(ids) != 3 {
		t.Fatalf("versions %v, want 3", ids)
	}
	cats := []string{CatalogKey(ids[0], "1.1"), CatalogKey(ids[1], "1.1"), CatalogKey(ids[2], "1.1")}
	for _, tc := range []struct {
		name        string
		interrupted bool // else the server goes away
	}{
		{"server gone at the published catalog's download", false},
		{"interrupted as the proof reads the published catalog", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(webtest.Handler(root, webtest.Options{}))
			t.Cleanup(srv.Close)
			var client *http.Client
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var tripped atomic.Bool
			if tc.interrupted {
				client = srv.Client()
				// The second proof's whole read of its copy of the
				// published catalog (in its proof- folder; the first is
				// version 1's).
				var reads atomic.Int32
				ctx = faults.With(ctx, func(p faults.Point) error {
					if p.Name == "compare/read-whole" && strings.HasSuffix(p.Path, "-1.1.duckdb") && strings.HasPrefix(filepath.Base(filepath.Dir(p.Path)), "proof-") &&
						reads.Add(1) == 2 {
						tripped.Store(true)
						cancel()
					}
					return nil
				})
			} else {
				client = &http.Client{Transport: &breakAt{base: srv.Client().Transport,
					trip: func(r *http.Request) bool {
						return r.Method == http.MethodGet && r.URL.Path == "/"+cats[1]
					},
					onTrip: func() { tripped.Store(true); srv.Listener.Close(); srv.CloseClientConnections() }}}
			}
			site, err := httpstore.New(srv.URL+"/", client)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Check(ctx, site, Options{Formats: []string{"1.1"}, Jobs: 1, Cache: t.TempDir(), WorkDir: t.TempDir()})
			if !tripped.Load() {
				t.Fatalf("the stop was never injected (check: %v)", err)
			}
			if errors.As(err, new(*CheckError)) {
				t.Fatalf("check = %v: a verdict on reads the stop cut short (findings %q)", err, findingLines(rep))
			}
			if tc.interrupted {
				if !errors.Is(err, context.Canceled) || errors.As(err, new(*StoppedError)) || rep != nil {
					t.Fatalf("check = %v (%T), report %v; want the interrupt alone, no report", err, err, rep != nil)
				}
				return
			}
			var stopped *StoppedError
			if !errors.As(err, &stopped) || !strings.Contains(err.Error(), cats[1]) || rep == nil || rep.Stopped == nil {
				t.Fatalf("check = %v (%T), want a *StoppedError naming %s, with a report marked stopped", err, err, cats[1])
			}
			if f := nonWarnings(rep); len(f) > 0 {
				t.Errorf("findings %q: the stopped download is no finding", findingLines(rep))
			}
			var proved []string
			for _, p := range rep.Proofs {
				if p.OK {
					proved = append(proved, p.Key)
				}
			}
			if len(rep.Proofs) != 1 || !slices.Equal(proved, cats[:1]) || !slices.Equal(rep.Stopped.VersionsNotChecked, ids[2:]) ||
				!slices.Equal(rep.Stopped.CatalogsNotProved, cats[1:]) || rep.OK {
				t.Errorf("ok %v, proofs %d (passed %q), stopped %+v; want version 1's proof alone, %q not checked, %q not proved",
					rep.OK, len(rep.Proofs), proved, rep.Stopped, ids[2:], cats[1:])
			}
		})
	}
}

// TestStopAfterEveryProof: a whole-store failure met after every content
// pass and proof finished, at the reader matrix's reads (the header of
// each published catalog the run did not download: here version 3's 0.4
// catalog, a format outside --formats, so not proved), stops the check
// with the report of every version and catalog: the difference found
// (version 1's published catalog is version 2's), every proof, nothing
// listed as not checked or not proved, the readers not evaluated, and an
// error saying only the readers were left. Its exit code stays the
// stop's: the reader matrix finds differences of its own (a catalog saved
// at a storage its readers cannot open), so the check is not done.
// Before, that stop dropped the report: the error alone, the difference
// learnt on the rerun.
//
// Without that catalog the reader matrix asks the store nothing (each
// proved catalog's header comes from its proof's copy): the server gone
// after the last proof stops nothing, and the check ends with its
// verdict (exit 3) and every reader evaluated. Before, each header was a
// GET after the proofs, and that run stopped with the readers left.
func TestStopAfterEveryProof(t *testing.T) {
	t.Parallel()
	for _, unproved := range []bool{true, false} {
		name := "a catalog not proved"
		if !unproved {
			name = "every catalog proved"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stopAfterEveryProof(t, unproved)
		})
	}
}

func stopAfterEveryProof(t *testing.T, unproved bool) {
	_, root := cloneRepo(t, lake11(t))
	ids := versionIDs(t, root)
	if len(ids) != 3 {
		t.Fatalf("versions %v, want 3", ids)
	}
	wrong := CatalogKey(ids[0], "1.1")
	other, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(CatalogKey(ids[1], "1.1"))))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(wrong)), other, 0o644); err != nil {
		t.Fatal(err)
	}
	if unproved {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(CatalogKey(ids[2], "0.4"))), other, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(webtest.Handler(root, webtest.Options{}))
	t.Cleanup(srv.Close)
	var last atomic.Bool // the last proof has finished
	var tripped atomic.Bool
	site, err := httpstore.New(srv.URL+"/", &http.Client{Transport: &breakAt{base: srv.Client().Transport,
		trip:   func(*http.Request) bool { return last.Load() },
		onTrip: func() { tripped.Store(true); srv.Listener.Close(); srv.CloseClientConnections() }}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(context.Background(), site, Options{Formats: []string{"1.1"}, Jobs: 1, Cache: t.TempDir(), WorkDir: t.TempDir(),
		Progress: func(p Progress) {
			if p.Done == p.Total {
				last.Store(true)
			}
		}})
	var found []string
	for _, f := range nonWarnings(rep) {
		found = append(found, string(f.Kind)+" "+f.Key)
	}
	if want := []string{"difference " + wrong}; !slices.Equal(found, want) {
		t.Errorf("findings %q, want only %q", findingLines(rep), want)
	}
	if !unproved {
		var ce *CheckError
		if tripped.Load() || !errors.As(err, &ce) || rep == nil || rep.Stopped != nil || len(rep.Readers) != 1 {
			t.Fatalf("check = %v (%T), a request after the last proof: %v; want its verdict (a *CheckError), no request after the last proof, the readers evaluated", err, err, tripped.Load())
		}
		return
	}
	var stopped *StoppedError
	if !last.Load() || !errors.As(err, &stopped) || rep == nil || rep.Stopped == nil {
		t.Fatalf("check = %v (%T), report %v (last proof finished: %v); want a *StoppedError with the report of every pass and proof", err, err, rep != nil, last.Load())
	}
	if want := "; every version was checked and every published catalog's proof finished before it, finding 1 difference (the report lists them); only the readers were not evaluated"; !stopped.OnlyReaders || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %q: want it to end %q", err, want)
	}
	if rep.OK || len(rep.Proofs) != 3 || len(rep.Stopped.VersionsNotChecked) != 0 || len(rep.Stopped.CatalogsNotProved) != 0 ||
		rep.Stopped.VersionsNotChecked == nil || rep.Stopped.CatalogsNotProved == nil || len(rep.Readers) != 0 {
		t.Errorf("ok %v, %d proof(s), stopped %+v, %d reader range(s); want not ok, 3 proofs, nothing ([]) not checked or not proved, no reader evaluated",
			rep.OK, len(rep.Proofs), rep.Stopped, len(rep.Readers))
	}
}
