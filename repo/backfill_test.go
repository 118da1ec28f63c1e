package repo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// snapshotTree maps every file under root/versions to its sha256.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join(root, "versions"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// newFiles lists files in after that are not in before.
func newFiles(before, after map[string]string) []string {
	var out []string
	for k := range after {
		if _, ok := before[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func missingKeys(m *Matrix) []string {
	var out []string
	for _, c := range m.Cells() {
		if c.State == Missing {
			out = append(out, c.Key)
		}
	}
	slices.Sort(out)
	return out
}

func cellStates(m *Matrix) map[string]State {
	out := map[string]State{}
	for _, c := range m.Cells() {
		out[c.Version+"/"+c.Format] = c.State
	}
	return out
}

// TestBackfillConformance backfills a few conformance repositories: every
// format the lake can be expressed in is written, the rest refused with
// reasons; check passes afterwards, a second backfill does nothing, and
// check fails with ErrDifferences after a published file is tampered with.
func TestBackfillConformance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves whole lakes (minutes)")
	}
	ctx := context.Background()
	for _, tc := range []struct{ archive, lake string }{
		{"lakes", "06_deletes"},                   // downgrade to 0.4, upgrade to 1.1; three versions
		{"lakes", "08_partitioning"},              // 0.4 refused (bucket partitions)
		{"lakes-0.3", "03_renames"},               // 0.3 source: upgrades
		{"lakes-1.1-dev1", "24_deletion_vectors"}, // 1.1-dev1 source: 0.4 and 1.0 refused
	} {
		t.Run(tc.archive+"/"+tc.lake, func(t *testing.T) {
			t.Parallel() // each lake in a copy of its own
			st := copyLake(t, testlakes.Lake(t, tc.archive, tc.lake))
			flagRenamedColumns(t, st.Root())
			before := snapshotTree(t, st.Root())
			plan, err := Plan(ctx, st, Options{Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			want := missingKeys(plan)
			if len(want) == 0 {
				t.Fatal("nothing to backfill")
			}
			rep, err := Backfill(ctx, st, Options{Jobs: 2})
			if err != nil {
				t.Fatalf("Backfill: %v", err)
			}
			var written []string
			for _, r := range rep.Results {
				if r.Outcome != Written {
					t.Errorf("cell %s/%s: %s %s", r.Version, r.Format, r.Outcome, r.Error)
				}
				written = append(written, r.Key)
			}
			slices.Sort(written)
			if !slices.Equal(written, want) {
				t.Errorf("written %q, want the missing cells %q", written, want)
			}
			// Backfill converts unchecked cells and settles refusals
			// itself: its plan must say what Plan said.
			samePlan(t, rep.Plan, plan)
			if got := newFiles(before, snapshotTree(t, st.Root())); !slices.Equal(got, want) {
				t.Errorf("new files under versions/ %q, want exactly %q", got, want)
			}
			after, err := Plan(ctx, st, Options{Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range after.Cells() {
				switch before := plan.Cell(c.Version, c.Format); {
				case before.State == Missing && c.State != Present:
					t.Errorf("cell %s/%s: %s after backfill, want present", c.Version, c.Format, c.State)
				case before.State != Missing && c.State != before.State:
					t.Errorf("cell %s/%s: %s after backfill, was %s", c.Version, c.Format, c.State, before.State)
				case c.State == Refused && len(c.Reasons) == 0:
					t.Errorf("cell %s/%s refused without reasons", c.Version, c.Format)
				}
			}
			again, err := Backfill(ctx, st, Options{Jobs: 2})
			if err != nil || len(again.Results) != 0 {
				t.Errorf("second Backfill: %d results, %v; want nothing to do", len(again.Results), err)
			}
			// The check proves every catalog the backfill wrote again (from
			// a cache of its own, which the backfill did not fill) and keeps
			// the proofs, so that the check after tampering proves again
			// only what changed: the tampered catalog.
			cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			crep, err := Check(ctx, st, Options{Jobs: 2, DigestCache: cache})
			if err != nil {
				t.Fatalf("Check after backfill: %v", err)
			}
			for _, p := range crep.Proofs {
				if p.Cached {
					t.Errorf("Check after backfill: proof of %s found kept; want it made again", p.Key)
				}
			}
			if !crep.OK || len(crep.Proofs) != len(want) {
				t.Errorf("Check: ok=%v proofs=%d, want ok and %d proofs", crep.OK, len(crep.Proofs), len(want))
			}

			// Tamper with one published catalog: drop its delete files (rows
			// come back), or rewrite bytes (unreadable).
			victim, err := st.Path(want[0])
			if err != nil {
				t.Fatal(err)
			}
			if tc.lake == "06_deletes" {
				execDuckDB(t, victim, "DELETE FROM ducklake_delete_file")
			} else {
				overwrite(t, victim, 0, make([]byte, 8192))
			}
			crep, err = Check(ctx, st, Options{Jobs: 2, DigestCache: cache})
			if !errors.Is(err, ErrDifferences) {
				t.Fatalf("Check after tampering: %v, want ErrDifferences", err)
			}
			var ce *CheckError
			if !errors.As(err, &ce) || ce.First.Key != want[0] || crep.OK {
				t.Errorf("Check after tampering: first finding %+v, want the tampered %s", ce, want[0])
			}
			for _, p := range crep.Proofs {
				if p.Key == want[0] && (p.Cached || p.OK) {
					t.Errorf("Check after tampering: proof of the tampered %s: kept %v, ok %v; want it made again and failed", p.Key, p.Cached, p.OK)
				}
			}
		})
	}
}

// samePlan fails unless got (a Backfill's plan, whose written cells are
// present) holds the states, reasons, findings, counts and rules of want.
func samePlan(t *testing.T, got, want *Matrix) {
	t.Helper()
	if !reflect.DeepEqual(got.Counts, want.Counts) || !reflect.DeepEqual(got.Rules, want.Rules) {
		t.Errorf("backfill's plan: counts %v, rules %+v; Plan: %v, %+v", got.Counts, got.Rules, want.Counts, want.Rules)
	}
	for _, w := range want.Cells() {
		g := got.Cell(w.Version, w.Format)
		if g == nil {
			t.Errorf("cell %s/%s missing from the backfill's plan", w.Version, w.Format)
			continue
		}
		state := g.State
		if w.State == Missing && state == Present {
			state = Missing // written by the backfill
		}
		if state != w.State || g.Key != w.Key || g.Problem != w.Problem || !slices.Equal(maskCopies(g.Reasons), maskCopies(w.Reasons)) || !reflect.DeepEqual(g.Findings, w.Findings) {
			t.Errorf("cell %s/%s: backfill's plan %s %q %q %q %v, Plan %s %q %q %q %v", w.Version, w.Format,
				g.State, g.Key, g.Problem, g.Reasons, g.Findings, w.State, w.Key, w.Problem, w.Reasons, w.Findings)
		}
	}
}

// privateCopy matches the path of a run's private copy of a frozen catalog.
var privateCopy = regexp.MustCompile(`\S*/[0-9]+-ducklake\.duckdb`)

// maskCopies replaces the paths of private copies (different in each run).
func maskCopies(reasons []string) []string {
	out := make([]string, len(reasons))
	for i, r := range reasons {
		out[i] = privateCopy.ReplaceAllString(r, "<copy>")
	}
	return out
}

// flagRenamedColumns sets files.json's renamed_columns of every table a
// column of which had another name (the conformance lakes' files.json
// never set it; the spec has it true then), and seals the new files.json
// into version.json, so that check passes on the lake as the spec has it.
func flagRenamedColumns(t *testing.T, root string) {
	t.Helper()
	for _, id := range versionIDs(t, root) {
		vdir := filepath.Join(root, "versions", id)
		p := filepath.Join(vdir, "files.json")
		data, err := os.ReadFile(p)
		if err != nil {
			continue // no files.json
		}
		var files map[string]map[string]map[string]any
		if err := json.Unmarshal(data, &files); err != nil {
			t.Fatal(err)
		}
		renamed := renamedTables(t, filepath.Join(vdir, "ducklake.duckdb"))
		changed := false
		for _, name := range renamed {
			if ft, ok := files["tables"][name]; ok {
				ft["renamed_columns"], changed = true, true
			}
		}
		if !changed {
			continue
		}
		if data, err = json.MarshalIndent(files, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		testlakes.EditVersion(t, vdir, nil, "catalog", "files")
	}
}

// renamedTables lists the tables alive at a catalog's last snapshot a
// column of which had another name before.
func renamedTables(t *testing.T, catalog string) []string {
	t.Helper()
	db := testduck.Open(t, "")
	defer db.Close()
	rows, err := db.Query(fmt.Sprintf(`ATTACH '%s' AS c (READ_ONLY);
		SELECT DISTINCT s.schema_name || '.' || t.table_name FROM c.ducklake_column x
		JOIN c.ducklake_table t ON t.table_id = x.table_id AND t.end_snapshot IS NULL
		JOIN c.ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL
		GROUP BY 1, x.column_id HAVING count(DISTINCT x.column_name) > 1`, catalog))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func execDuckDB(t *testing.T, path, stmt string) {
	t.Helper()
	db := testduck.Open(t, path)
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("%s on %s: %v", stmt, path, err)
	}
}

func overwrite(t *testing.T, path string, off int64, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, off); err != nil {
		t.Fatal(err)
	}
}

// TestBackfillConcurrent runs two backfills of one repository at once, as
// two processes would (two stores on the same folder): each file is written
// exactly once, and the repository ends as one backfill leaves it.
func TestBackfillConcurrent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts a lake twice at once")
	}
	ctx := context.Background()
	st, root := smallLake(t)
	other, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Jobs: 2, Formats: []string{"0.4", "1.1"}, Versions: []string{"1", "2"}}
	plan, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := missingKeys(plan)
	reps := make([]*BackfillReport, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, s := range []store.Store{st, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = Backfill(ctx, s, opts)
		}()
	}
	wg.Wait()
	writes := map[string]int{}
	for i, rep := range reps {
		if errs[i] != nil {
			t.Fatalf("backfill %d: %v", i, errs[i])
		}
		for _, r := range rep.Results {
			switch r.Outcome {
			case Written:
				writes[r.Key]++
			case AlreadyThere:
			default:
				t.Errorf("backfill %d cell %s: %s %s", i, r.Key, r.Outcome, r.Error)
			}
		}
	}
	for _, k := range want {
		if writes[k] != 1 {
			t.Errorf("%s written %d times, want exactly once", k, writes[k])
		}
	}
	if len(writes) != len(want) {
		t.Errorf("written %v, want %v", writes, want)
	}
	// Same end state as a single backfill of a fresh copy.
	single, _ := smallLake(t)
	if _, err := Backfill(ctx, single, opts); err != nil {
		t.Fatal(err)
	}
	m1, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Plan(ctx, single, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := cellStates(m1), cellStates(m2); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("concurrent backfills left %v, a single one %v", a, b)
	}
	if crep, err := Check(ctx, st, opts); err != nil || !crep.OK {
		t.Errorf("Check after concurrent backfills: %v", err)
	}
}

// failingStore makes Create read half of the object and then fail, like a
// crash or a full disk in the middle of publishing.
type failingStore struct{ *local.Store }

func (f failingStore) Create(ctx context.Context, key string, r io.Reader) error {
	return f.Store.Create(ctx, key, io.MultiReader(io.LimitReader(r, 1<<20), errAfter{}))
}

type errAfter struct{}

func (errAfter) Read([]byte) (int, error) { return 0, errors.New("disk full (injected)") }

// TestBackfillInterrupted fails a backfill at every step, by an error or by
// cancelling it, and checks that nothing was created under versions/ (no
// partial catalog, no temporary file), and that the next run completes.
func TestBackfillInterrupted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts a catalog once per step")
	}
	ctx := context.Background()
	injected := errors.New("injected")
	type failure struct {
		name  string
		hook  func(cancel context.CancelFunc) faults.Func
		store func(*local.Store) store.Store
		want  error
	}
	var cases []failure
	for _, step := range Steps {
		cases = append(cases,
			failure{name: "error_at_" + step, want: injected, hook: func(context.CancelFunc) faults.Func {
				return func(p faults.Point) error {
					if p.Name == "backfill/"+step {
						return injected
					}
					return nil
				}
			}},
			failure{name: "cancel_at_" + step, want: context.Canceled, hook: func(cancel context.CancelFunc) faults.Func {
				return func(p faults.Point) error {
					if p.Name == "backfill/"+step {
						cancel()
					}
					return nil
				}
			}},
			// DuckDB's answer to a query the cancelled context
			// interrupted mid-way: no context.Canceled in it, so the run
			// said "backfill interrupted" and exited 1, not 130.
			failure{name: "duckdb_interrupted_at_" + step, want: context.Canceled, hook: func(cancel context.CancelFunc) faults.Func {
				return func(p faults.Point) error {
					if p.Name == "backfill/"+step {
						cancel()
						return &duckdb.Error{Type: duckdb.ErrorTypeInterrupt, Msg: "INTERRUPT Error: Interrupted!"}
					}
					return nil
				}
			}},
			// A cell that fails for a reason of its own while the run is
			// being interrupted is a failure, not an interruption: it was
			// labelled "interrupted" and the run's error hid it.
			failure{name: "error_while_cancelled_at_" + step, want: injected, hook: func(cancel context.CancelFunc) faults.Func {
				return func(p faults.Point) error {
					if p.Name == "backfill/"+step {
						cancel()
						return injected
					}
					return nil
				}
			}})
	}
	cases = append(cases, failure{name: "publish_breaks_midway", want: ErrBackfillIncomplete,
		store: func(l *local.Store) store.Store { return failingStore{l} }})

	st, root := smallLake(t)
	before := snapshotTree(t, root)
	opts := Options{Jobs: 1, Formats: []string{"1.1"}, Versions: []string{"1"}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			o := opts
			o.WorkDir = t.TempDir()
			if tc.hook != nil {
				cctx = faults.With(cctx, tc.hook(cancel))
			}
			var s store.Store = st
			if tc.store != nil {
				s = tc.store(st)
			}
			rep, err := Backfill(cctx, s, o)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Backfill error = %v, want %v", err, tc.want)
			}
			// An interruption is said as one: each cell said "context
			// canceled", logged as an error, and so did the run's error.
			var be *BackfillError
			if interrupted := errors.Is(tc.want, context.Canceled); errors.As(err, &be) {
				if interrupted != strings.HasPrefix(err.Error(), "backfill interrupted: 1 cell(s) not written") || interrupted != strings.Contains(be.Hint(), "again") {
					t.Errorf("error %q, hint %q (interrupted: %v)", err, be.Hint(), interrupted)
				}
				for _, r := range rep.Results {
					if interrupted != strings.HasPrefix(r.Error, "interrupted") || interrupted != (r.Outcome == Interrupted) || !interrupted != (r.Outcome == Failed) {
						t.Errorf("cell %s: %s, error %q (interrupted: %v)", r.Key, r.Outcome, r.Error, interrupted)
					}
				}
			} else if interrupted {
				t.Errorf("interrupted: error %v, want a *BackfillError", err)
			}
			if rep != nil && rep.Counts[Written] != 0 {
				t.Errorf("a failed backfill wrote %d cells", rep.Counts[Written])
			}
			if got := newFiles(before, snapshotTree(t, root)); len(got) != 0 {
				t.Errorf("files left under versions/: %q", got)
			}
			if _, err := os.Stat(filepath.Join(root, local.TempDirName)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("temporary folder %s left behind (%v)", local.TempDirName, err)
			}
			if entries, _ := os.ReadDir(o.WorkDir); len(entries) != 0 {
				t.Errorf("work files left: %v", entries)
			}
		})
	}
	rep, err := Backfill(ctx, st, opts)
	if err != nil || rep.Counts[Written] != 1 {
		t.Fatalf("Backfill after the failures: %v, %v", rep.Counts, err)
	}
}

// TestBackfillProofFails changes the converted catalog before the proof:
// compare finds the difference, the cell fails, and nothing is published.
func TestBackfillProofFails(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts a catalog")
	}
	ctx := context.Background()
	st, root := smallLake(t)
	before := snapshotTree(t, root)
	opts := Options{Formats: []string{"1.1"}, Versions: []string{"3"}}
	rep, err := Backfill(faults.With(ctx, func(p faults.Point) error {
		if p.Name == "backfill/compare" {
			execDuckDB(t, p.Path, "DELETE FROM ducklake_delete_file")
		}
		return nil
	}), st, opts)
	if !errors.Is(err, ErrBackfillIncomplete) || rep == nil || len(rep.Results) != 1 {
		t.Fatalf("Backfill = %v, want one failed cell", err)
	}
	if r := rep.Results[0]; r.Outcome != Failed || r.Step != "compare" || r.Problem != ProblemNotEquivalent {
		t.Errorf("result %+v, want failed at compare, not equivalent", r)
	}
	if got := newFiles(before, snapshotTree(t, root)); len(got) != 0 {
		t.Errorf("a cell that failed its proof published %q", got)
	}
}

// TestBackfillUntil writes a format before its until and not at or after it.
func TestBackfillUntil(t *testing.T) {
	if testing.Short() {
		t.Skip("converts a catalog")
	}
	ctx := context.Background()
	st, root := smallLake(t)
	os.Remove(filepath.Join(root, "fdl.json"))
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"1.0"},{"ducklake":"0.4","until":"2026-12-01"}]}`)
	opts := Options{Versions: []string{"1"}, DryRun: true}
	for _, tc := range []struct {
		now  string
		want int
	}{{"2026-11-30T23:59:59Z", 1}, {"2026-12-01T00:00:00Z", 0}} {
		opts.Now, _ = time.Parse(time.RFC3339, tc.now)
		rep, err := Backfill(ctx, st, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Counts[Planned] != tc.want || len(rep.Plan.Warnings) != tc.want {
			t.Errorf("as of %s: %d planned, warnings %q; want %d", tc.now, rep.Counts[Planned], rep.Plan.Warnings, tc.want)
		}
	}
	if got := newFiles(snapshotTree(t, root), snapshotTree(t, root)); len(got) != 0 {
		t.Error("a dry run wrote files")
	}
	opts.DryRun = false
	opts.Now, _ = time.Parse(time.RFC3339, "2026-11-30T00:00:00Z")
	rep, err := Backfill(ctx, st, opts)
	if err != nil || rep.Counts[Written] != 1 {
		t.Fatalf("backfill before until: %v %v", rep.Counts, err)
	}
	if _, err := os.Stat(filepath.Join(root, strings.TrimPrefix(rep.Results[0].Key, ""))); err != nil {
		t.Error(err)
	}
	// A catalog present for a version created at or after until breaks the rule.
	os.Remove(filepath.Join(root, "fdl.json"))
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"1.0"},{"ducklake":"0.4","until":"2026-10-31"}]}`)
	_, err = Check(ctx, st, Options{Versions: []string{"1"}, Now: opts.Now})
	var ce *CheckError
	if !errors.Is(err, ErrDifferences) || !errors.As(err, &ce) || !strings.Contains(ce.First.Detail, "at or after the format's until") {
		t.Errorf("Check with a catalog written after until: %v, want a rule violation", err)
	} else if want := "remove " + filepath.Join(root, filepath.FromSlash(rep.Results[0].Key)) + ", or, if until is too early, set it after "; !strings.Contains(ce.First.Detail, want) {
		// The finding says what mends it (the hint sends the operator to it).
		t.Errorf("finding %q does not say %q", ce.First.Detail, want)
	}
}

// TestBackfillRewriteDeletes: partial deletion files refuse 0.3 unless the
// converter may write cumulative delete files into the data folder; then
// the catalog is written and proved, and nothing else lands under versions/.
func TestBackfillRewriteDeletes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts a catalog")
	}
	ctx := context.Background()
	st, root := smallLake(t)
	os.Remove(filepath.Join(root, "fdl.json"))
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"0.3"},{"ducklake":"1.0"}]}`)
	opts := Options{Versions: []string{"2"}, Formats: []string{"0.3"}}
	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := states(m, "0.3"); !slices.Equal(got, []State{Refused}) || m.Rules[0].Status != "violated" {
		t.Fatalf("0.3 without rewriting: %v, rule %+v; want refused, violated", got, m.Rules)
	}
	before := snapshotTree(t, root)
	// Backfill finds the refusal by converting (its plan leaves missing
	// cells unchecked): refused, not failed, and reported as Plan does.
	rep, err := Backfill(ctx, st, opts)
	if err != nil || len(rep.Results) != 0 {
		t.Fatalf("Backfill without rewriting: %+v, %v; want no result and no error", rep.Results, err)
	}
	samePlan(t, rep.Plan, m)
	if got := newFiles(before, snapshotTree(t, root)); len(got) != 0 {
		t.Errorf("a refused cell wrote %q", got)
	}
	opts.Convert.RewriteDeletes = true
	if m, err = Plan(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	rep, err = Backfill(ctx, st, opts)
	if err != nil || rep.Counts[Written] != 1 {
		t.Fatalf("Backfill with RewriteDeletes: %v %v", rep, err)
	}
	// The conversion's findings (delete files rewritten) are the plan's.
	if c := rep.Plan.Cells()[0]; len(c.Findings) == 0 {
		t.Errorf("cell %s/%s: no findings, want the rewritten delete files noted", c.Version, c.Format)
	}
	samePlan(t, rep.Plan, m)
	if got := newFiles(before, snapshotTree(t, root)); len(got) != 1 || !strings.HasSuffix(got[0], "/catalogs/0.3.duckdb") {
		t.Errorf("new files under versions/: %q", got)
	}
	if _, err := Check(ctx, st, opts); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// TestBackfillSettlesUnconvertible: a frozen catalog that matches
// version.json but is no DuckLake catalog is a cell in error (not backfill's
// to fix), as Plan says, when Backfill finds it by converting instead of
// checking first; a version beside it is still written.
func TestBackfillSettlesUnconvertible(t *testing.T) {
	if testing.Short() {
		t.Skip("converts a catalog")
	}
	ctx := context.Background()
	st, root := smallLake(t)
	id := versionIDs(t, root)[0]
	frozen := filepath.Join(root, "versions", id, "ducklake.duckdb")
	os.Remove(frozen)
	execDuckDB(t, frozen, "CREATE TABLE not_a_lake AS SELECT 42 AS answer")
	data, err := os.ReadFile(frozen)
	if err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(root, "versions", id, "version.json")
	raw, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	cat := v["catalog"].(map[string]any)
	cat["bytes"], cat["sha256"] = len(data), hex.EncodeToString(sum[:])
	if raw, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	os.Remove(meta)
	writeFile(t, meta, string(raw))

	opts := Options{Versions: []string{"1", "2"}, Formats: []string{"1.1"}, Jobs: 2}
	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Cell(id, "1.1"); c.State != Error || c.Problem != ProblemInvalid {
		t.Fatalf("Plan: cell %s/1.1 %s/%s %q, want error/invalid", id, c.State, c.Problem, c.Reasons)
	}
	rep, err := Backfill(ctx, st, opts)
	if err != nil || len(rep.Results) != 1 || rep.Results[0].Outcome != Written || rep.Results[0].Version == id {
		t.Fatalf("Backfill: %+v, %v; want only the other version written", rep.Results, err)
	}
	samePlan(t, rep.Plan, m)
}

// TestVersionGroups: a run's items (a backfill's cells, a check's content
// pass and proofs) run by version, sharing the frozen catalog's reader,
// also when there are fewer versions than jobs (the newest version's
// backfill, a check narrowed by --versions or --shard), where every item
// ran alone, opening and reading the catalog once each (each of a one-
// version backfill's cells converted on its own too); a version of at
// least twice minShared items is split over jobs that would be idle, into
// groups of minShared items or more.
func TestVersionGroups(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions []string
		jobs     int
		want     [][]int
	}{
		{"as many versions as jobs", []string{"a", "a", "b", "b"}, 2, [][]int{{0, 1}, {2, 3}}},
		{"more versions than jobs, items not in version order", []string{"a", "b", "a", "c", "b"}, 2, [][]int{{0, 2}, {1, 4}, {3}}},
		{"fewer versions than jobs", []string{"a", "a", "b", "b"}, 3, [][]int{{0, 1}, {2, 3}}},
		{"one version, two cells, two jobs", []string{"a", "a"}, 2, [][]int{{0, 1}}},
		{"one version, one job", []string{"a", "a"}, 1, [][]int{{0, 1}}},
		{"one version, a content pass and three proofs", []string{"a", "a", "a", "a"}, 4, [][]int{{0, 1, 2, 3}}},
		{"one version of twice minShared items", []string{"a", "a", "a", "a", "a", "a"}, 2, [][]int{{0, 1, 2}, {3, 4, 5}}},
		{"one version of seven items, four jobs", []string{"a", "a", "a", "a", "a", "a", "a"}, 4, [][]int{{0, 1, 2, 3}, {4, 5, 6}}},
		{"one version of twelve items, four jobs", []string{"a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"}, 4, [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}},
		{"the larger version split", []string{"a", "b", "b", "b", "b", "b", "b"}, 3, [][]int{{0}, {1, 2, 3}, {4, 5, 6}}},
		{"one job", []string{"a", "a", "a", "a", "a", "a"}, 1, [][]int{{0, 1, 2, 3, 4, 5}}},
		{"no item", nil, 2, [][]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]int, len(tc.versions)) // indexes into versions
			for i := range items {
				items[i] = i
			}
			got := versionGroups(items, func(i int) string { return tc.versions[i] }, tc.jobs)
			if len(got) != len(tc.want) || (len(got) > 0 && !reflect.DeepEqual(got, tc.want)) {
				t.Errorf("versionGroups = %v, want %v", got, tc.want)
			}
		})
	}
}
