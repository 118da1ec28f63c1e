package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// Expected cells of the conformance repositories. Every lake declares 0.3
// (until 2026-06-30), 0.4, 1.0 and 1.1, and every version was created on
// 2026-10-31, so 0.3 is expired everywhere it is not the source. A value is
// "state" or "state:first-refusal-code"; the same for every version of a lake
// unless an override names a version ("lake@N").
var planDefaults = map[string]string{
	"lakes":          "0.3=expired 0.4=missing 1.0=source 1.1=missing",
	"lakes-0.3":      "0.3=source 0.4=missing 1.0=missing 1.1=missing",
	"lakes-1.1-dev1": "0.3=expired 0.4=missing 1.0=missing 1.1=missing",
}

var planOverrides = map[string]string{
	"lakes/08_partitioning":                   "0.4=refused:partition-transforms", // bucket(N)
	"lakes/16_data_inlining":                  "0.4=refused:inlined-rows 1.1=refused:inlined-rows",
	"lakes/24_deletion_vectors":               "0.4=refused:deletion-vectors", // puffin
	"lakes/25_reserved_names_v11_hazards":     "0.4=refused:inlined-rows 1.1=refused",
	"lakes-0.3/25_reserved_names_v11_hazards": "0.4=refused:inlined-rows 1.0=refused:inlined-rows 1.1=refused",
	"lakes-1.1-dev1/08_partitioning":          "0.4=refused:partition-transforms",
	"lakes-1.1-dev1/16_data_inlining":         "0.4=refused:inlined-rows 1.0=refused:inlined-rows 1.1=refused:inlined-rows",
	"lakes-1.1-dev1/24_deletion_vectors":      "0.4=refused 1.0=refused:deletion-vector-containers",
	"lakes-1.1-dev1/26_v11_only_features":     "0.4=refused 1.0=refused 1.1=refused:inlined-rows",
	// DuckLake 1.1 keeps ducklake_table_stats rows without column stats, on
	// which every reader before 1.0 fails (formats.QuirkTableStatsNeedColumnStats);
	// "@N" limits an override to version N.
	"lakes-1.1-dev1/06_deletes@2":      "0.4=refused:table-stats-need-column-stats",
	"lakes-1.1-dev1/06_deletes@3":      "0.4=refused:table-stats-need-column-stats",
	"lakes-1.1-dev1/07_updates_merge":  "0.4=refused:table-stats-need-column-stats",
	"lakes-1.1-dev1/18_expire_cleanup": "0.4=refused:table-stats-need-column-stats",
	"lakes-1.1-dev1/19_add_data_files": "0.4=refused:table-stats-need-column-stats",
	"lakes-1.1-dev1/20_time_travel@2":  "0.4=refused:table-stats-need-column-stats",
	"lakes-1.1-dev1/20_time_travel@3":  "0.4=refused:table-stats-need-column-stats",
	"lakes-1.1-dev1/23_row_lineage":    "0.4=refused:table-stats-need-column-stats",
	// Saved at DuckDB storage v2.0.0, which this DuckDB cannot open.
	"lakes-1.1-dev1/zz_storage_v2_unreadable": "0.4=error 1.0=error 1.1=error",
}

// Versions whose oldest live format (0.4) cannot read their data files.
var planRuleViolations = []string{"lakes/24_deletion_vectors", "lakes-1.1-dev1/24_deletion_vectors"}

func expectedCells(archive, lake string, seq int64) map[string]string {
	want := map[string]string{}
	key := archive + "/" + lake
	for _, spec := range []string{planDefaults[archive], planOverrides[key], planOverrides[fmt.Sprintf("%s@%d", key, seq)]} {
		for _, kv := range strings.Fields(spec) {
			k, v, _ := strings.Cut(kv, "=")
			want[k] = v
		}
	}
	return want
}

func TestPlanConformance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plans every conformance lake (about a minute)")
	}
	ctx := context.Background()
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			name := filepath.Base(lake)
			t.Run(archive+"/"+name, func(t *testing.T) {
				t.Parallel()
				// Planned where it is: Plan writes nothing into the
				// repository (testlakes.Lakes' check fails the test if
				// it did); copying every lake's catalogs first (600 MB)
				// cost about a second of CPU.
				st, err := local.New(lake)
				if err != nil {
					t.Fatal(err)
				}
				m, err := Plan(ctx, st, Options{Jobs: 2, DataPath: filepath.Join(lake, "data")})
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Versions) == 0 {
					t.Fatal("no versions")
				}
				for _, v := range m.Versions {
					want := expectedCells(archive, name, v.Seq)
					if v.Error != "" || v.Skipped != "" {
						t.Errorf("version %s: error %q skipped %q", v.ID, v.Error, v.Skipped)
					}
					var got []string
					for _, c := range v.Cells {
						got = append(got, c.Format)
						w, ok := want[c.Format]
						if !ok {
							t.Errorf("version %s: unexpected cell %s", v.ID, c.Format)
							continue
						}
						wantState, wantCode, _ := strings.Cut(w, ":")
						if string(c.State) != wantState {
							t.Errorf("version %d format %s: state %s (%v), want %s", v.Seq, c.Format, c.State, c.Reasons, wantState)
							continue
						}
						if wantCode != "" && (len(c.Findings) == 0 || c.Findings[0].Code != wantCode) {
							t.Errorf("version %d format %s: refused for %v, want first code %s", v.Seq, c.Format, c.Reasons, wantCode)
						}
						if c.State == Refused && len(c.Reasons) == 0 {
							t.Errorf("version %d format %s: refused without reasons", v.Seq, c.Format)
						}
						if c.State == Missing && c.Key != CatalogKey(v.ID, c.Format) {
							t.Errorf("missing cell key %s, want %s", c.Key, CatalogKey(v.ID, c.Format))
						}
					}
					if !slices.Equal(got, []string{"0.3", "0.4", "1.0", "1.1"}) {
						t.Errorf("version %s: formats %v, want 0.3 0.4 1.0 1.1 (oldest first)", v.ID, got)
					}
				}
				violated := slices.Contains(planRuleViolations, archive+"/"+name)
				for _, r := range m.Rules {
					if (r.Status == "violated") != violated {
						t.Errorf("rule %s for version %s: %s (%s), want violated=%v", r.Rule, r.Version, r.Status, r.Detail, violated)
					}
				}
			})
		}
	}
}

// smallLake is a private copy of a three-version conformance lake.
func smallLake(t *testing.T, parts ...string) (*local.Store, string) {
	t.Helper()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	if len(parts) == 0 {
		parts = []string{"fdl.json", "versions", "data"}
	}
	st := copyLake(t, lake, parts...)
	return st, st.Root()
}

// webSite serves h on a local test server (closed when the test ends) and
// opens it as a repository on a web site.
func webSite(t *testing.T, h http.Handler) *httpstore.Store {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	site, err := httpstore.New(srv.URL+"/", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return site
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func versionIDs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "versions"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	slices.Sort(ids)
	return ids
}

func states(m *Matrix, format string) []State {
	var out []State
	for _, v := range m.Versions {
		for _, c := range v.Cells {
			if c.Format == format {
				out = append(out, c.State)
			}
		}
	}
	return out
}

// TestPlanUntil evaluates until as of Options.Now, on each side of the date.
// The lake's versions were created at 01:03, 02:03 and 03:03 on 2026-10-31.
func TestPlanUntil(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		name, until, now string
		want             []State
		warn             bool
		in               string // when the warning says the format expires
	}{
		{"before_until", "2026-11-01", "2026-10-31T23:59:59Z", []State{Missing, Missing, Missing}, true, "(in less than a day)"},
		{"a_day_before", "2026-11-01", "2026-10-30T12:00:00Z", []State{Missing, Missing, Missing}, true, "(in 1 day)"},
		{"days_before", "2026-11-01", "2026-10-25T00:00:00Z", []State{Missing, Missing, Missing}, true, "(in 7 days)"},
		{"at_until", "2026-11-01", "2026-11-01T00:00:00Z", []State{Expired, Expired, Expired}, false, ""},
		{"after_until", "2026-11-01", "2027-03-01T00:00:00Z", []State{Expired, Expired, Expired}, false, ""},
		{"long_before", "2026-11-01", "2026-09-01T00:00:00Z", []State{Missing, Missing, Missing}, false, ""},
		{"created_after_until", "2026-10-31T02:03:08Z", "2026-10-01T00:00:00Z", []State{Missing, Expired, Expired}, false, ""},
		{"created_just_before", "2026-10-31T02:03:09Z", "2026-10-01T00:00:00Z", []State{Missing, Missing, Expired}, false, ""},
		// Go's zero time is a date like any other, not "now" (which is
		// past the until).
		{"now_at_zero_time", "2026-11-01", "0001-01-01T00:00:00Z", []State{Missing, Missing, Missing}, false, ""},
		{"now_at_zero_time_offset", "2026-11-01", "0001-01-01T09:00:00+09:00", []State{Missing, Missing, Missing}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(root, "fdl.json"))
			writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"1.0"},{"ducklake":"0.4","until":"`+tc.until+`"}]}`)
			m, err := Plan(ctx, st, Options{Now: at(tc.now), NowSet: true, Formats: []string{"0.4"}, DataPath: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if got := states(m, "0.4"); !slices.Equal(got, tc.want) {
				t.Errorf("0.4 cells as of %s with until %s = %v, want %v", tc.now, tc.until, got, tc.want)
			}
			if got := len(m.Warnings) > 0; got != tc.warn {
				t.Errorf("warnings = %q, want a warning: %v", m.Warnings, tc.warn)
			}
			if tc.warn && (!strings.Contains(m.Warnings[0], "format 0.4 expires on 2026-11-01 "+tc.in) || !strings.Contains(m.Warnings[0], "written after that, for any version")) {
				t.Errorf("warning = %q", m.Warnings[0])
			}
			// The oldest-format rule of a version created before the until
			// cannot be judged once the cell is expired, and says why.
			unjudged := 0
			for _, r := range m.Rules {
				if r.Rule == RuleOldestFormat && r.Status == "unknown" && r.Detail == "format 0.4 is past its until ("+tc.until+"), so this version's cell in it is no longer analysed" {
					unjudged++
				}
			}
			if want := map[string]int{"at_until": 3, "after_until": 3}[tc.name]; unjudged != want {
				t.Errorf("%d oldest-format rules unknown past the until, want %d: %+v", unjudged, want, m.Rules)
			}
		})
	}
}

func TestPlanVersionStates(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	ids := versionIDs(t, root)
	opts := Options{DataPath: t.TempDir(), Formats: []string{"1.0", "1.1"}}

	// Version 1 withdrawn (version.json deleted too), version 2's catalog
	// tampered with, version 3 given a present 1.1 catalog and an
	// undeclared 0.2 catalog.
	writeFile(t, filepath.Join(root, "versions", ids[0], "expired.json"), `{"reason":"withdrawn"}`)
	os.Remove(filepath.Join(root, "versions", ids[0], "version.json"))
	f, err := os.OpenFile(filepath.Join(root, "versions", ids[1], "ducklake.duckdb"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0xff}, 5000)
	f.Close()
	writeFile(t, filepath.Join(root, "versions", ids[2], "catalogs", "1.1.duckdb"), "not really")
	writeFile(t, filepath.Join(root, "versions", ids[2], "catalogs", "0.2.duckdb"), "not really")

	m, err := Plan(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range m.Cells() {
		got[fmt.Sprintf("%d/%s", slices.Index(ids, c.Version)+1, c.Format)] = string(c.State)
	}
	want := map[string]string{
		"1/1.0": "skipped", "1/1.1": "skipped",
		"2/1.0": "error", "2/1.1": "error",
		"3/1.0": "source", "3/1.1": "present", "3/0.2": "present",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("cell %s = %q, want %q", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("cells = %v, want %v", got, want)
	}
	if v := m.Versions[0]; v.Skipped != fdljson.ReasonWithdrawn {
		t.Errorf("version 1 skipped = %q, want withdrawn", v.Skipped)
	}
	if c := m.Cell(ids[1], "1.1"); c.Problem != ProblemMismatch || !strings.Contains(c.Reasons[0], "sha256") {
		t.Errorf("tampered catalog: problem %q reasons %q, want a sha256 mismatch", c.Problem, c.Reasons)
	}
	if c := m.Cell(ids[2], "0.2"); c.Declared {
		t.Error("0.2 is not declared")
	}

	// Filters.
	m, err = Plan(ctx, st, Options{DataPath: opts.DataPath, Formats: []string{"1.0"}, Versions: []string{"3", ids[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Versions) != 2 || m.Versions[0].ID != ids[0] || m.Versions[1].ID != ids[2] {
		t.Errorf("--versions 3,%s gave %d versions", ids[0], len(m.Versions))
	}
	for _, bad := range []Options{{Formats: []string{"0.2"}}, {Formats: []string{"9.9"}}, {Versions: []string{"7"}}, {Versions: []string{"nope"}}} {
		bad.DataPath = opts.DataPath
		if _, err := Plan(ctx, st, bad); !errors.Is(err, ErrBadFilter) {
			t.Errorf("Plan(%v/%v) error = %v, want ErrBadFilter", bad.Formats, bad.Versions, err)
		}
	}
}

func TestPlanInvalidVersions(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	ids := versionIDs(t, root)
	// Version 1: id differs from its folder. Extra folder that is no UUIDv7.
	p := filepath.Join(root, "versions", ids[0], "version.json")
	data, _ := os.ReadFile(p)
	os.Remove(p)
	writeFile(t, p, strings.Replace(string(data), ids[0], ids[1], 1))
	writeFile(t, filepath.Join(root, "versions", "latest", "version.json"), "{}")
	m, err := Plan(ctx, st, Options{DataPath: t.TempDir(), Formats: []string{"1.0"}})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*VersionPlan{}
	for _, v := range m.Versions {
		byID[v.ID] = v
	}
	if v := byID[ids[0]]; v == nil || !strings.Contains(v.Error, "differs from its folder") || v.Cells[0].Problem != ProblemInvalid {
		t.Errorf("version with a wrong id: %+v", v)
	}
	if v := byID["latest"]; v == nil || !strings.Contains(v.Error, "not a version ID") {
		t.Errorf("folder latest: %+v", v)
	}
}

func TestPlanNotRepository(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, _ := local.New(dir)
	if _, err := Plan(ctx, st, Options{}); !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), "no fdl.json in "+dir) {
		t.Errorf("Plan(empty folder) error = %v, want ErrNotRepository naming the folder", err)
	}
	writeFile(t, filepath.Join(dir, "fdl.json"), `{"fdl":"0.1","formats":[{"ducklake":"0.9"}]}`)
	if _, err := Plan(ctx, st, Options{}); !errors.Is(err, fdljson.ErrInvalid) || !strings.Contains(err.Error(), "formats[0].ducklake") {
		t.Errorf("Plan(bad fdl.json) error = %v, want fdljson.ErrInvalid naming the field", err)
	}
}

// TestPlanOpaqueStore plans through a store without local paths (as object
// storage): catalogs are downloaded to the work folder, data files the
// converter reads into the cache, and the plan says how much came down.
func TestPlanOpaqueStore(t *testing.T) {
	ctx := context.Background()
	st, _ := smallLake(t)
	opaque := struct{ store.Store }{st}
	work, cache := t.TempDir(), t.TempDir()
	m, err := Plan(ctx, opaque, Options{WorkDir: work, Cache: cache})
	if err != nil {
		t.Fatalf("Plan without a data path on an opaque store: %v", err)
	}
	if m.Counts[Error] != 0 || m.Counts[Missing] == 0 {
		t.Errorf("counts = %v, want missing cells and no errors", m.Counts)
	}
	if m.Transfer == nil || m.Transfer.Downloaded == 0 {
		t.Errorf("transfer = %+v, want bytes downloaded", m.Transfer)
	}
	// One mirror for the store, with its marker and download folder beside it.
	if entries, _ := os.ReadDir(filepath.Join(cache, "objects")); len(entries) != 3 ||
		!entries[0].IsDir() || entries[1].Name() != entries[0].Name()+lastUsedSuffix || entries[2].Name() != entries[0].Name()+tmpSuffix {
		t.Errorf("cache objects/ = %v, want one folder for the store, its %s marker and its %s folder", entries, lastUsedSuffix, tmpSuffix)
	}
	m, err = Plan(ctx, opaque, Options{DataPath: t.TempDir(), WorkDir: work, Formats: []string{"1.0", "1.1"}, Versions: []string{"1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := states(m, "1.1"); !slices.Equal(got, []State{Missing}) {
		t.Errorf("1.1 cells = %v, want [missing]", got)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		t.Errorf("work files left: %v", entries)
	}
}
