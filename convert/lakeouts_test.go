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
// option); none for a development layout's lake. Made once per test
// binary, by the first test that asks, and shared read-only:
// TestRoundTrips takes them as its legs out, TestConvertedLakesReadIdentically
// proves them and TestMutationsCaught mutates copies (each test converted
// the same lakes to the same targets itself before). The proofs are of
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
	// read); TestMain closes them.
	lakeOutsEngines *Engines
)

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
	if lakeOutsDir == "" {
		dir, err := os.MkdirTemp("", "convert-lakeouts-")
		if err != nil {
			lakeOutsMu.Unlock()
			t.Fatal(err)
		}
		lakeOutsDir = dir
		lakeOutsEngines = NewEngines(4)
	}
	dir := lakeOutsDir
	lakeOutsMu.Unlock()
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
	if lo.source, err = Detect(ctx, src, 0); err != nil {
		return err
	}
	if lo.source.Dev {
		return nil // a development layout's lake: none (its tests convert it themselves)
	}
	out, err := os.MkdirTemp(dir, filepath.Base(filepath.Dir(lake))+"-"+filepath.Base(lake)+"-")
	if err != nil {
		return err
	}
	var outs []Output
	for _, b := range formats.All.Releases() {
		if b != lo.source {
			outs = append(outs, Output{Target: b, Dst: filepath.Join(out, b.Name+".duckdb")})
		}
	}
	lo.dsts, lo.outs = map[string]string{}, map[string]Converted{}
	for i, c := range Catalogs(ctx, src, outs, lakeOutsOptions(filepath.Join(lake, "data"))) {
		lo.dsts[outs[i].Target.Name], lo.outs[outs[i].Target.Name] = outs[i].Dst, c
	}
	return nil
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
