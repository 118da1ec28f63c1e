package repo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/realduckdb"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// everyFormat declares every released format of the registry with its
// reader range and no until, so that a backfill writes each one it can: the
// formats a release opens come from the registry, not from this test.
func everyFormat(t *testing.T) string {
	t.Helper()
	type format struct {
		DuckLake string `json:"ducklake"`
		DuckDB   string `json:"duckdb"`
	}
	fdl := struct {
		FDL     string   `json:"fdl"`
		DataDir string   `json:"data_dir"`
		Formats []format `json:"formats"`
	}{FDL: "0.1", DataDir: "data/"}
	for _, v := range formats.All.Releases() {
		fdl.Formats = append(fdl.Formats, format{v.Name, v.DuckDB})
	}
	data, err := json.Marshal(fdl)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRealOldDuckDBsReadOutputs opens backfilled catalogs with real older
// DuckDB releases (internal/realduckdb: one small program per release, built
// from the Go module proxy; a build that fails fails the test). For real
// lakes (two conformance lakes, one frozen in 1.0 and one in 0.3, and a
// lakegen repository), their newest versions (whose catalogs hold every
// snapshot of the lake: the earlier versions' catalogs are the same
// formats at the same storages, of fewer snapshots) backfilled to every
// released format of the registry (partial deletion files rewritten, so
// that 0.1-0.3 hold deletes), and each release:
//
//   - the file Resolve picks for that release opens in it, plain and
//     read-only, and every table reads the same rows (count and content
//     digest) as in the linked DuckDB 1.5.6;
//   - every other catalog of the version opens exactly when the release is
//     not older than the file's storage (the MinDuckDB resolve tells), and
//     then reads the same as well;
//   - every format the registry says the release opens (DuckDB 2.0.0: 1.0
//     and 1.1) has at least one catalog so read.
func TestRealOldDuckDBsReadOutputs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a program per DuckDB release and backfills three lakes")
	}
	ctx := context.Background()
	start := time.Now()

	// Build the probes while the lakes are backfilled, two at a time.
	bins := make([]string, len(realduckdb.Releases))
	errs := make([]error, len(realduckdb.Releases))
	took := make([]time.Duration, len(realduckdb.Releases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, rel := range realduckdb.Releases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t0 := time.Now()
			bins[i], errs[i] = realduckdb.Build(ctx, rel)
			took[i] = time.Since(t0)
		}()
	}

	stores := map[string]*local.Store{
		"lakes/06_deletes":     copyLake(t, testlakes.Lake(t, "lakes", "06_deletes")),
		"lakes-0.3/03_renames": copyLake(t, testlakes.Lake(t, "lakes-0.3", "03_renames")),
	}
	_, stores["lakegen/demo"] = demoRepo(ctx, t)
	decl := everyFormat(t)
	names := make([]string, 0, len(stores))
	for name, st := range stores {
		names = append(names, name)
		fdl := filepath.Join(st.Root(), "fdl.json")
		if err := os.Remove(fdl); err != nil {
			t.Fatal(err)
		}
		writeFile(t, fdl, decl)
		// Partial deletion files are rewritten (into the data folder) so
		// that the older formats hold deletes too.
		ids := versionIDs(t, st.Root())
		opts := Options{Jobs: 2, Versions: ids[len(ids)-1:]}
		opts.Convert.RewriteDeletes = true
		rep, err := Backfill(ctx, st, opts)
		if err != nil {
			t.Fatalf("%s: Backfill: %v", name, err)
		}
		for _, r := range rep.Results {
			t.Logf("%s: backfill %s/%s: %s %s", name, r.Version, r.Format, r.Outcome, r.Error)
		}
		for _, c := range rep.Plan.Cells() {
			if c.State == Refused {
				t.Logf("%s: backfill %s/%s: refused: %s", name, c.Version, c.Format, firstLine(strings.Join(c.Reasons, "; ")))
			}
		}
	}
	slices.Sort(names)
	backfilled := time.Since(start)

	// Every catalog of each lake's newest version, and which one each
	// release opens.
	type version struct{ lake, id string }
	var versions []version
	var paths []string
	for _, name := range names {
		ids := versionIDs(t, stores[name].Root())
		for _, id := range ids[len(ids)-1:] {
			versions = append(versions, version{name, id})
			res, err := Resolve(ctx, stores[name], ResolveOptions{Version: id, DuckDB: "1.5.6"})
			if err != nil {
				t.Fatalf("%s %s: Resolve: %v", name, id, err)
			}
			for _, f := range res.Files {
				paths = append(paths, filePath(t, stores[name], f.Key))
			}
		}
	}
	db := testduck.Open(t, "")
	defer db.Close()
	ref, err := realduckdb.ReadLinked(ctx, db, paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ref.Files {
		if f.Error != "" || len(f.Tables) == 0 {
			t.Errorf("DuckDB %s (linked): %s: %d tables, error %q", ref.DuckDB, f.Path, len(f.Tables), f.Error)
		}
	}

	wg.Wait()
	for i, rel := range realduckdb.Releases {
		if errs[i] != nil {
			t.Fatalf("DuckDB %s: %v", rel.DuckDB, errs[i])
		}
		t.Logf("DuckDB %s probe (%s): ready in %v", rel.DuckDB, rel.Binding, took[i].Round(time.Millisecond))
	}
	for i, rel := range realduckdb.Releases {
		t.Run(rel.DuckDB, func(t *testing.T) {
			got, err := realduckdb.Read(ctx, bins[i], paths)
			if err != nil {
				t.Fatal(err)
			}
			if got.DuckDB != rel.DuckDB {
				t.Fatalf("the probe of %s runs DuckDB %s", rel.Module, got.DuckDB)
			}
			dv := goversion.Must(goversion.NewVersion(rel.DuckDB))
			resolved := 0
			read := map[string]int{} // catalogs read as the linked DuckDB does, by format
			for _, v := range versions {
				st := stores[v.lake]
				res, err := Resolve(ctx, st, ResolveOptions{Version: v.id, DuckDB: rel.DuckDB})
				if res == nil {
					t.Fatalf("%s %s: Resolve: %v", v.lake, v.id, err)
				}
				for _, cf := range res.Files {
					p := filePath(t, st, cf.Key)
					where := fmt.Sprintf("%s %s (format %s, storage %s)", v.lake, cf.Key, cf.Format, cf.Storage)
					g, w := got.File(p), ref.File(p)
					picked := res.File == cf
					if picked {
						resolved++
					}
					wantOpen := cf.MinDuckDB != "" && !dv.LessThan(goversion.Must(goversion.NewVersion(cf.MinDuckDB)))
					switch {
					case g.Error != "" && (wantOpen || picked):
						t.Errorf("%s: DuckDB %s cannot open it (resolve picked it: %v; storage needs %s): %s", where, rel.DuckDB, picked, cf.MinDuckDB, g.Error)
					case g.Error != "":
						t.Logf("%s: DuckDB %s refuses it, as its storage (needs %s) says: %s", where, rel.DuckDB, cf.MinDuckDB, firstLine(g.Error))
					case !wantOpen:
						t.Errorf("%s: DuckDB %s opens it, but resolve says its storage needs DuckDB %s", where, rel.DuckDB, cf.MinDuckDB)
					default:
						diff := realduckdb.Diff(g, w)
						for _, d := range diff {
							t.Errorf("%s: DuckDB %s reads it differently from %s: %s", where, rel.DuckDB, ref.DuckDB, d)
						}
						if len(diff) == 0 {
							read[cf.Format]++
						}
						t.Logf("%s: DuckDB %s opens it (block size %s, %d tables), reads as %s (resolve picked it: %v)", where, rel.DuckDB, g.BlockSize, len(g.Tables), ref.DuckDB, picked)
					}
				}
			}
			if resolved == 0 {
				t.Errorf("no version of any lake has a catalog DuckDB %s opens: nothing tested", rel.DuckDB)
			}
			// Every format the registry says the release opens was read,
			// in at least one catalog, as the linked DuckDB reads it.
			for _, v := range formats.All.Releases() {
				c, err := goversion.NewConstraint(v.DuckDB)
				if err != nil {
					t.Fatalf("format %s: %v", v.Name, err)
				}
				if c.Check(dv) && read[v.Name] == 0 {
					t.Errorf("format %s (DuckDB %s): DuckDB %s read none of its catalogs as %s does", v.Name, v.DuckDB, rel.DuckDB, ref.DuckDB)
				}
			}
		})
	}
	t.Logf("backfill %v, whole test %v (load %s)", backfilled.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), loadavg())
}

func filePath(t *testing.T, st *local.Store, key string) string {
	t.Helper()
	p, err := st.Path(key)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}

// TestRealDuckDBsOpenNewerStorage: the frozen catalogs of the conformance
// lake zz_storage_v2_unreadable were saved by DuckDB's 2.0 development line
// at its default storage (header numbers 999 and 69, which DuckDB 2.0.0
// writes too; version.json claims duckdb-v2.0.0). The header model
// (duckfile: storage v2.0.0, which DuckDB 2.0.0 is the first to open) and
// the claim agree with the real releases: every release older than both
// refuses the files, and DuckDB 2.0.0 opens them and reads every table.
func TestRealDuckDBsOpenNewerStorage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program per DuckDB release")
	}
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes-1.1-dev1", "zz_storage_v2_unreadable")
	paths, err := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no frozen catalogs in %s (%v)", lake, err)
	}
	claim := goversion.Must(goversion.NewVersion("2.0.0")) // version.json: duckdb-v2.0.0
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		h, err := duckfile.Read(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if h.Storage != "v2.0.0" || !h.Newer() || h.VersionNumber != 999 || h.Serialization != 69 || !h.MinDuckDB().Equal(claim) {
			t.Fatalf("%s: header %+v (needs %s), want the numbers DuckDB 2.0.0 writes (999, 69), storage v2.0.0, which the claim %s opens", p, h, h.MinDuckDB(), claim)
		}
	}
	opened := 0
	for _, rel := range realduckdb.Releases {
		bin, err := realduckdb.Build(ctx, rel)
		if err != nil {
			t.Fatalf("DuckDB %s: %v", rel.DuckDB, err)
		}
		got, err := realduckdb.Read(ctx, bin, paths)
		if err != nil {
			t.Fatal(err)
		}
		dv := goversion.Must(goversion.NewVersion(rel.DuckDB))
		for _, p := range paths {
			g := got.File(p)
			switch {
			case dv.LessThan(claim) && g.Error == "":
				t.Errorf("%s: DuckDB %s opens it, but its storage (version.json: duckdb-v2.0.0) needs 2.0.0", p, rel.DuckDB)
			case dv.LessThan(claim):
				t.Logf("%s: DuckDB %s refuses it: %s", filepath.Base(filepath.Dir(p)), rel.DuckDB, firstLine(g.Error))
			case g.Error != "" || len(g.Tables) == 0:
				t.Errorf("%s: DuckDB %s: %d tables, error %q; want it opened and read", p, rel.DuckDB, len(g.Tables), g.Error)
			default:
				for _, tb := range g.Tables {
					if tb.Error != "" {
						t.Errorf("%s: DuckDB %s: table %s.%s: %s", p, rel.DuckDB, tb.Schema, tb.Name, tb.Error)
					}
				}
				opened++
				t.Logf("%s: DuckDB %s opens it (block size %s, %d tables)", filepath.Base(filepath.Dir(p)), rel.DuckDB, g.BlockSize, len(g.Tables))
			}
		}
	}
	if opened == 0 {
		t.Error("no release opened the catalogs: Releases has no DuckDB 2.0")
	}
}
