package repo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// inlinedLakes are the conformance lakes whose newest frozen catalog keeps
// inlined rows, which the FDL specification forbids ("The frozen catalog":
// "It holds no inlined rows"): their content pass reports it.
var inlinedLakes = map[string]bool{
	"lakes/16_data_inlining": true, "lakes/25_reserved_names_v11_hazards": true, "lakes-0.3/25_reserved_names_v11_hazards": true,
	"lakes-1.1-dev1/16_data_inlining": true, "lakes-1.1-dev1/26_v11_only_features": true,
}

// TestContentsConformance: every conformance version's files.json and
// dataset.json agree with its catalog, its snapshot claims too; the
// catalogs of inlinedLakes break the rule on inlined rows.
func TestContentsConformance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("reads every conformance catalog")
	}
	ctx := context.Background()
	// The conformance lakes' files.json never set renamed_columns, though
	// the spec has it true for a table a column of which was ever renamed
	// (readers without DuckLake rely on it): check reports each such
	// table, and nothing else.
	const unflagged = "renamed_columns is false in files.json, true in the catalog"
	var mu sync.Mutex // the lakes run in parallel: flagged, details
	flagged := map[string]bool{}
	// Columns added with a default or under a dropped column's name are
	// read otherwise by readers without DuckLake (byNameIssue: a warning,
	// TestFilesJSONReadByName), whatever files.json says.
	const byNameWarned = "but reading fields by name they read columns otherwise than DuckLake's readers"
	byName := map[string]bool{}
	details := map[string][]string{}
	// The lakes are checked in parallel; the group
	// returns when every lake is done, before the checks below.
	t.Run("lakes", func(t *testing.T) {
		for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1"} {
			for _, lake := range testlakes.Lakes(t, archive) {
				if strings.HasPrefix(filepath.Base(lake), "zz_") {
					continue // catalogs this DuckDB cannot open
				}
				name := archive + "/" + filepath.Base(lake)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					// Read where it is: the content pass writes its
					// frozen copies into t.TempDir, nothing into the
					// repository (testlakes.Lakes' check fails the test
					// if it did).
					st, err := local.New(lake)
					if err != nil {
						t.Fatal(err)
					}
					r, err := load(ctx, st, &Options{DataPath: filepath.Join(lake, "data")})
					if err != nil {
						t.Fatal(err)
					}
					inlined := false
					for _, v := range r.versions {
						frozen := newFrozenCopies(r, t.TempDir(), nil, v.id)
						// One reader of the frozen catalog for the pass, as
						// Check gives it (checkAll), not one per step.
						source := compare.NewSource()
						issues := r.checkContents(ctx, v, frozen, source, compare.NewDiskCheck(), true)
						source.Close()
						for _, is := range issues {
							switch {
							case is.Problem == ProblemMismatch && strings.Contains(is.Detail, unflagged):
								mu.Lock()
								flagged[name] = true
								details[name] = append(details[name], is.Detail)
								mu.Unlock()
							case inlinedLakes[name] && is.Problem == ProblemViolation && strings.Contains(is.Detail, "ducklake.duckdb: inlined rows in ducklake_inlined_"):
								inlined = true
							case is.Problem == ProblemWarning && strings.Contains(is.Detail, byNameWarned):
								mu.Lock()
								byName[name] = true
								mu.Unlock()
							default:
								t.Errorf("version %s: %s: %s", v.id, is.Problem, is.Detail)
							}
						}
					}
					if inlined != inlinedLakes[name] {
						t.Errorf("inlined rows reported: %t, want %t", inlined, !inlined)
					}
				})
			}
		}
	})
	for _, lake := range []string{"lakes/02_add_drop_columns", "lakes/05_defaults_not_null", "lakes/09_views", "lakes/17_compaction"} {
		if !byName[lake] {
			t.Errorf("%s: no warning of readers by name (warned: %v)", lake, byName)
		}
	}
	for _, lake := range []string{"lakes/03_renames", "lakes-0.3/03_renames", "lakes/12_nested_types"} {
		if !flagged[lake] {
			t.Errorf("%s renames columns and its files.json does not say so; check did not report it (reported: %v)", lake, flagged)
		}
	}
	// The finding names the renamed columns, as the catalog's history has
	// them (03_renames renames a column of MixedCase to "New Name", and
	// columns of r several times).
	for _, want := range []string{
		"table main.MixedCase: renamed_columns is false in files.json, true in the catalog (column(s) New Name of the table were renamed",
		"table main.r: renamed_columns is false in files.json, true in the catalog (column(s) col2, id, label of the table were renamed",
	} {
		if !slices.ContainsFunc(details["lakes/03_renames"], func(d string) bool { return strings.Contains(d, want) }) {
			t.Errorf("lakes/03_renames: no finding %q among %q", want, details["lakes/03_renames"])
		}
	}
	// Renamed nested fields are named by their path: 12_nested_types
	// renames a field v1 in a list's struct, a map value's struct and a
	// struct.
	want := "table main.fevo: renamed_columns is false in files.json, true in the catalog (column(s) lst.element.v1, mp.value.v1, st.v1 of the table were renamed"
	if !slices.ContainsFunc(details["lakes/12_nested_types"], func(d string) bool { return strings.Contains(d, want) }) {
		t.Errorf("lakes/12_nested_types: no finding %q among %q", want, details["lakes/12_nested_types"])
	}
}

func TestContentsDiffer(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	ids := versionIDs(t, root)
	dir := filepath.Join(root, "versions", ids[2])
	data, err := os.ReadFile(filepath.Join(dir, "files.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "files.json"))
	// One file's rows changed, and main.del (never renamed) said renamed.
	edited := strings.Replace(strings.Replace(string(data), `"rows": 1000`, `"rows": 999`, 1), `"main.del": {`, `"main.del": {"renamed_columns": true,`, 1)
	writeFile(t, filepath.Join(dir, "files.json"), edited)
	os.Remove(filepath.Join(dir, "dataset.json"))
	// main.del with a field it lacks, a primary key naming a column it
	// lacks and a wrong row count, main.whole (a table) as a view, a table
	// the catalog lacks; main.kill_list and main.trunc left out.
	writeFile(t, filepath.Join(dir, "dataset.json"), `{"name":"d","title":"t","tables":[{"schema":"main","name":"del","rows":1,"primary_key":["id","nope_key"],"fields":[{"name":"nope"}]},{"schema":"main","name":"whole","kind":"view"},{"schema":"main","name":"ghost"}]}`)
	r, err := load(ctx, st, &Options{DataPath: filepath.Join(testlakes.Lake(t, "lakes", "06_deletes"), "data")})
	if err != nil {
		t.Fatal(err)
	}
	issues := r.checkContents(ctx, r.versions[2], newFrozenCopies(r, t.TempDir(), nil, r.versions[2].id), nil, compare.NewDiskCheck(), true)
	var got []string
	for _, is := range issues {
		got = append(got, is.Detail)
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{"files.json: table main.del file 0: files.json has", "files.json: table main.del: renamed_columns is true in files.json, false in the catalog", "field nope: described, not in the catalog", "dataset.json: table main.del primary_key nope_key: not a column of the catalog's table", "table main.ghost: described, not in the catalog",
		"dataset.json: table main.del: rows 1, the catalog ", "dataset.json: main.whole: described as a view, the catalog has a table",
		"dataset.json: table main.kill_list: in the catalog, not in tables", "dataset.json: table main.trunc: in the catalog, not in tables"} {
		if !strings.Contains(joined, want) {
			t.Errorf("issues lack %q:\n%s", want, joined)
		}
	}
}

// TestContentsDatasetViews: dataset.json lists the catalog's views with
// "kind": "view" and their SQL from the catalog; a view left out of a
// given "tables", or described with other SQL, is a difference.
func TestContentsDatasetViews(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "09_views")
	st := copyLake(t, lake, "fdl.json", "versions")
	ids := versionIDs(t, st.Root())
	dir := filepath.Join(st.Root(), "versions", ids[len(ids)-1])
	os.Remove(filepath.Join(dir, "dataset.json"))
	writeFile(t, filepath.Join(dir, "dataset.json"), `{"name":"d","title":"t","tables":[{"schema":"main","name":"v_const","kind":"view","sql":"SELECT 1"}]}`)
	r, err := load(ctx, st, &Options{DataPath: filepath.Join(lake, "data")})
	if err != nil {
		t.Fatal(err)
	}
	v := r.versions[len(r.versions)-1]
	var got []string
	for _, is := range r.checkContents(ctx, v, newFrozenCopies(r, t.TempDir(), nil, v.id), nil, compare.NewDiskCheck(), true) {
		got = append(got, is.Detail)
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{`dataset.json: view main.v_const: sql "SELECT 1", the catalog "`, "dataset.json: view main.v_renamed: in the catalog, not in tables"} {
		if !strings.Contains(joined, want) {
			t.Errorf("issues lack %q:\n%s", want, joined)
		}
	}
}
