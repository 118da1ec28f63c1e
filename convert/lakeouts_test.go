package convert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// lakeOuts is a conformance lake's newest catalog (source), of a release
// format, converted to every other release in one pass (Catalogs) with
// TestRoundTrips' options (lakeOutsOptions: inlined rows and every lossy
// option); a development layout's, to its release and to 1.0
// (devLakeTargets). Made once per test binary, by the first test that
// asks, and shared read-only: TestRoundTrips takes them as its legs out
// (a development layout's release as the source of its round trips),
// TestConvertedLakesReadIdentically proves them and TestMutationsCaught
// mutates copies (each test converted the same lakes to the same targets
// itself before). The proofs are of
// conversions nothing lossy changed: a lossy option only acts where,
// without it, a finding refuses the conversion (run.check turns it into a
// fix and a finding of severity Lossy), so a conversion with no Lossy
// finding is the one made without the options, and one with a Lossy
// finding, or refused, is refused without them (lakeOuts.plain).
type lakeOuts struct {
	once   sync.Once
	source *formats.Version
	dsts   map[string]string    // by target name
	outs   map[string]Converted // by target name
	err    error
}

var (
	lakeOutsMu  sync.Mutex
	lakeOutsAll = map[string]*lakeOuts{} // by the lake's folder
	lakeOutsDir string                   // TestMain removes it
	// lakeOutsEngines are the passes' Engines, which TestRoundTrips' legs
	// back borrow too (they read the footers and delete files the passes
	// read); TestMain closes them. They are bounded within testReach.
	lakeOutsEngines *Engines
)

// devLakeTargets are what a development layout's lake is converted to
// (lakeOuts): its release, the source of its round trips (TestRoundTrips)
// and a mutation fixture's B (TestMutationsCaught), and 1.0, which
// TestConvertedLakesReadIdentically proves (DuckDB 2.0's 1.1-dev1 lakes
// downgraded for DuckDB 1.5 readers).
func devLakeTargets(source *formats.Version) []*formats.Version {
	out := []*formats.Version{releaseOf(source)}
	if out[0] != formats.V1_0 {
		out = append(out, formats.V1_0)
	}
	return out
}

// testReach is what lakeOuts' conversions and TestRoundTrips' legs read
// and write: the temporary folder (every t.TempDir and lakeOutsDir are in
// it) and the folder the conformance archive of lake (a lake folder
// testlakes hands out) and its siblings are unpacked in. Their Engines,
// bounded within it (Within), give a conversion a database another
// used, as a backfill's run does (each still sandboxed, to these
// folders), where each one's own reach, which names its source file,
// started a database of its own: a round trip's leg back reads a file
// no other conversion reads. Each conversion's own reach stays tested
// where the Engines are not bounded (TestConformanceMatrix's nil Engines,
// the sandbox tests). Proofs' readers gain nothing so (compare's
// Engines): in TestConvertedLakesReadIdentically what they saved
// starting databases, the comparisons took again in the databases
// reused (Go profiles: 13.8 and 13.9 s in compare.Catalogs).
func testReach(lake string) []string {
	return []string{os.TempDir(), filepath.Dir(filepath.Dir(filepath.Dir(lake)))}
}

// lakeOutsOptions are the options of a lake's pass (data is its folder).
func lakeOutsOptions(data string) Options {
	return Options{AllowInlined: true, Lossy: LossyOptions, DataPath: data, Engines: lakeOutsEngines}
}

func TestMain(m *testing.M) {
	code := m.Run()
	lakeOutsMu.Lock()
	if lakeOutsEngines != nil {
		lakeOutsEngines.Close()
	}
	if lakeOutsDir != "" {
		if err := os.RemoveAll(lakeOutsDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	lakeOutsMu.Unlock()
	os.Exit(code)
}

// sharedDir returns the folder of the test binary's shared conversions
// (lakeOutsDir; TestMain removes it), made on first use with lakeOuts'
// Engines, bounded within lake's testReach.
func sharedDir(t *testing.T, lake string) string {
	t.Helper()
	lakeOutsMu.Lock()
	defer lakeOutsMu.Unlock()
	if lakeOutsDir == "" {
		dir, err := os.MkdirTemp("", "convert-lakeouts-")
		if err != nil {
			t.Fatal(err)
		}
		lakeOutsDir = dir
		lakeOutsEngines = NewEngines(4)
		lakeOutsEngines.Within(testReach(lake)...)
	}
	return lakeOutsDir
}

// sharedLakeOuts returns lake's conversions (lakeOuts), made on first use.
// Its catalogs are shared: a test reads them, or copies one to change it.
func sharedLakeOuts(t *testing.T, lake string) *lakeOuts {
	t.Helper()
	lakeOutsMu.Lock()
	lo := lakeOutsAll[lake]
	if lo == nil {
		lo = &lakeOuts{}
		lakeOutsAll[lake] = lo
	}
	lakeOutsMu.Unlock()
	dir := sharedDir(t, lake)
	lo.once.Do(func() { lo.err = lo.make(lake, dir) })
	if lo.err != nil {
		t.Fatalf("%s: %v", lake, lo.err)
	}
	return lo
}

func (lo *lakeOuts) make(lake, dir string) error {
	ctx := context.Background()
	vs, err := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
	if err != nil || len(vs) == 0 {
		return fmt.Errorf("no versions (%v)", err)
	}
	slices.Sort(vs)
	src := vs[len(vs)-1]
	opts := lakeOutsOptions(filepath.Join(lake, "data"))
	if lo.source, err = detectFor(ctx, src, opts); err != nil {
		return err
	}
	out, err := os.MkdirTemp(dir, filepath.Base(filepath.Dir(lake))+"-"+filepath.Base(lake)+"-")
	if err != nil {
		return err
	}
	targets := formats.All.Releases()
	if lo.source.Dev {
		targets = devLakeTargets(lo.source)
	}
	var outs []Output
	for _, b := range targets {
		if b != lo.source {
			outs = append(outs, Output{Target: b, Dst: filepath.Join(out, b.Name+".duckdb")})
		}
	}
	lo.dsts, lo.outs = map[string]string{}, map[string]Converted{}
	for i, c := range Catalogs(ctx, src, outs, opts) {
		lo.dsts[outs[i].Target.Name], lo.outs[outs[i].Target.Name] = outs[i].Dst, c
	}
	return nil
}

// detectFor is Detect, on a database of opts.Engines for the conversions
// of src with opts, which keep what it read of src (openSource: its
// schema, version row and listing) for them, where Detect starts a
// database of its own and reads src again.
func detectFor(ctx context.Context, src string, opts Options) (*formats.Version, error) {
	r := reach(src, nil, opts)
	conn, closeDB, err := openWork(ctx, opts.Engines, &r)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	_, stamp, tables, err := openSource(ctx, conn, src, opts.Engines)
	if err != nil {
		return nil, err
	}
	layout, _ := splitLayout(tables)
	return formats.Detect(stamp, layout)
}

// has tells whether the lake was converted to target.
func (lo *lakeOuts) has(target *formats.Version) bool {
	_, ok := lo.outs[target.Name]
	return ok
}

// to returns the conversion to target, as TestRoundTrips' options make
// it, and its file ("" when it failed).
func (lo *lakeOuts) to(t *testing.T, target *formats.Version) (string, error) {
	t.Helper()
	c, ok := lo.outs[target.Name]
	if !ok {
		t.Fatalf("no shared conversion from %s to %s", lo.source, target)
	}
	if c.Err != nil {
		return "", c.Err
	}
	return lo.dsts[target.Name], nil
}

// plain returns the conversion to target as Options{AllowInlined: true}
// makes it: the shared one when no lossy option changed it, or refused
// (ErrRefused, naming the lossy findings) when one did, as without the
// options their findings refuse it; a conversion refused with the options
// is refused without them too (the options only turn refusals into fixes).
func (lo *lakeOuts) plain(t *testing.T, target *formats.Version) (string, error) {
	t.Helper()
	dst, err := lo.to(t, target)
	if err != nil {
		return "", err
	}
	var lossy []string
	for _, f := range lo.outs[target.Name].Result.Findings {
		if f.Severity == Lossy {
			lossy = append(lossy, f.Code)
		}
	}
	if len(lossy) > 0 {
		return "", fmt.Errorf("%w without --allow-lossy: %s", ErrRefused, strings.Join(lossy, ", "))
	}
	return dst, nil
}
