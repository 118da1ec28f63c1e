package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/repo"
)

// TestResolveCommand: the statement for the linked DuckDB, the "no catalog"
// error with the DuckDBs that would (exit 8, also with --json), and the
// usage and input errors.
func TestResolveCommand(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "02_add_drop_columns")
	abs, err := filepath.Abs(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	latest := "01a18fe8-e1d1-740e-adda-56e0dc49465c"
	linked, err := repo.LinkedDuckDB(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	out, errOut, code := runAppStderr(t, "resolve", repoDir)
	if code != exitOK {
		t.Fatalf("resolve: exit %d: %s", code, errOut)
	}
	want := "-- version " + latest + " (seq 3) in DuckDB " + linked + ": versions/" + latest + "/ducklake.duckdb (format 1.0, storage v1.5.0)\n" +
		"ATTACH 'ducklake:" + filepath.Join(abs, "versions", latest, "ducklake.duckdb") + "' AS \"add_drop_columns\" (READ_ONLY, DATA_PATH '" + filepath.Join(abs, "data") + "/', OVERRIDE_DATA_PATH true)\n"
	if out != want {
		t.Errorf("resolve printed\n%s\nwant\n%s", out, want)
	}

	for hint, args := range map[string][]string{
		// The lake declares 0.3 until 2026-06-30, past: backfill writes none.
		"fdl.json declares format 0.3 for DuckDB 1.4.3 until 2026-06-30, which has passed for this version":         {"resolve", "--duckdb", "1.4.3", repoDir},
		"open it from one of the DuckDB versions listed, or ask the publisher to declare a format for DuckDB 1.3.2": {"resolve", "--duckdb", "1.3.2", "--version", "1", repoDir},
	} {
		out, errOut, code := runAppStderr(t, args...)
		if !strings.Contains(errOut, "Try: "+hint) {
			t.Errorf("%v: stderr lacks the hint %q:\n%s", args, hint, errOut)
		}
		if code != exitNoCatalog || out != "" {
			t.Errorf("%v: exit %d, stdout %q; want exit %d and nothing on stdout", args, code, out, exitNoCatalog)
		}
		for _, want := range []string{"opens in DuckDB " + args[2] + "; these would:", "/ducklake.duckdb (format 1.0, storage v1.5.0): DuckDB >= 1.5.2", "Try: "} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, errOut)
			}
		}
	}

	out, _, code = runAppStderr(t, "resolve", "--duckdb", "1.5.0", "--version", latest, "--json", repoDir)
	var res struct {
		OK      bool   `json:"ok"`
		Version string `json:"version"`
		DuckDB  string `json:"duckdb"`
		Attach  string `json:"attach"`
		Error   string `json:"error"`
		Files   []struct {
			Key    string `json:"key"`
			DuckDB string `json:"duckdb"`
			Opens  bool   `json:"opens"`
			Reason string `json:"reason"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if code != exitNoCatalog || res.OK || res.Version != latest || res.DuckDB != "1.5.0" || res.Attach != "" ||
		len(res.Files) != 1 || res.Files[0].DuckDB != ">= 1.5.2" || res.Files[0].Opens || !strings.Contains(res.Error, "these would") {
		t.Errorf("--json: exit %d, %+v", code, res)
	}

	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"resolve"}, exitUsage},
		{[]string{"resolve", "--version", "9", repoDir}, exitUsage},
		{[]string{"resolve", "--duckdb", "latest", repoDir}, exitUsage},
		{[]string{"resolve", t.TempDir()}, exitInvalid},
	} {
		if _, _, code := runAppStderr(t, tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, code, tc.code)
		}
	}
	vj := filepath.Join(repoDir, "versions", latest, "version.json")
	os.Remove(vj)
	os.WriteFile(vj, []byte(`{"fdl": "0.1"}`), 0o644)
	if _, errOut, code := runAppStderr(t, "resolve", repoDir); code != exitInvalid || !strings.Contains(errOut, "version.json") {
		t.Errorf("resolve of an invalid version: exit %d, want %d: %s", code, exitInvalid, errOut)
	}
}

// TestResolveCommandReviewCases: the reviewer's cases, as a reader runs
// them. f5: README's fdl.json (1.0 for DuckDB < 2.0, 1.1 for 2.0) and no
// 1.1 catalog: DuckDB 2.0 opens the frozen 1.0 catalog (before: exit 8).
// f13: a dataset named "Order": the alias is quoted and DuckDB parses the
// statement (before: `AS order`, a parser error). f14: catalog.storage
// "duckdb-v1.5.3" on a catalog saved at v1.5.0: DuckDB 1.5.2 opens it
// (before: exit 8). f3: a frozen 0.3 catalog saved at storage v1.5.0: exit
// 8, and the hint and check's warning say the writer must save it at an
// older storage (before: "the publisher runs `fdl-formats backfill`", and
// check said nothing of it).
func TestResolveCommandReviewCases(t *testing.T) {
	t.Parallel()
	db := testduck.Open(t, "")
	defer db.Close()
	readme := `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]}`
	latest := "01a18fe8-e1d1-740e-adda-56e0dc49465c"
	for _, tc := range []struct {
		name    string
		archive string
		setup   func(t *testing.T, root string) // root: the repository
		args    []string                        // after "resolve", before the repository
		code    int
		out     string // in stdout (exit 0) or stderr
		not     string // in neither
		check   string // when set, check exits 0 and says this
	}{
		{"f5 DuckDB 2.0 opens 1.0", "lakes", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "fdl.json"), []byte(readme), 0o644)
		}, []string{"--duckdb", "2.0.0"}, exitOK, "versions/" + latest + "/ducklake.duckdb (format 1.0, storage v1.5.0)", "", ""},
		{"f13 dataset Order", "lakes", func(t *testing.T, root string) {
			v := filepath.Join(root, "versions", latest)
			data, err := os.ReadFile(filepath.Join(v, "dataset.json"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(v, "dataset.json"), []byte(strings.Replace(string(data), `"name": "add_drop_columns"`, `"name": "Order"`, 1)), 0o644)
			testlakes.EditVersion(t, v, func(map[string]any) {}, "dataset")
		}, nil, exitOK, `' AS "order" (READ_ONLY`, " AS order ", ""},
		{"f14 storage duckdb-v1.5.3", "lakes", func(t *testing.T, root string) {
			testlakes.EditVersion(t, filepath.Join(root, "versions", latest), func(m map[string]any) {
				m["catalog"].(map[string]any)["storage"] = "duckdb-v1.5.3"
			})
		}, []string{"--duckdb", "1.5.2"}, exitOK, "versions/" + latest + "/ducklake.duckdb (format 1.0, storage v1.5.3)", "", ""},
		{"f3 frozen 0.3 at storage v1.5.0", "lakes-0.3", func(t *testing.T, root string) {
			os.WriteFile(filepath.Join(root, "fdl.json"), []byte(`{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0"}]}`), 0o644)
			ids, err := os.ReadDir(filepath.Join(root, "versions"))
			if err != nil {
				t.Fatal(err)
			}
			v := filepath.Join(root, "versions", ids[0].Name())
			frozen := filepath.Join(v, "ducklake.duckdb")
			for _, q := range []string{
				"ATTACH '" + frozen + "' AS src (READ_ONLY)",
				"ATTACH '" + frozen + ".new' AS dst (STORAGE_VERSION 'v1.5.0')",
				"COPY FROM DATABASE src TO dst", "DETACH dst", "DETACH src",
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := os.Rename(frozen+".new", frozen); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, v, func(m map[string]any) {
				m["catalog"].(map[string]any)["storage"] = "duckdb-v1.5.0"
			}, "catalog")
		}, []string{"--duckdb", "1.4.3", "--version", "1"}, exitNoCatalog,
			"Try: versions/01a18f7e-0d53-7484-b6af-7583ed5f8c7f/ducklake.duckdb, the frozen catalog, is in format 0.3, which DuckDB 1.4.3 reads, but saved at storage v1.5.0 (version.json), which it cannot open; `fdl-formats backfill` cannot help",
			"runs `fdl-formats backfill", "the writer must save the frozen catalog at storage v1.4.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake := "02_add_drop_columns"
			if tc.archive == "lakes-0.3" {
				lake = "06_deletes"
			}
			root := copyRepo(t, tc.archive, lake)
			tc.setup(t, root)
			out, errOut, code := runAppStderr(t, append(append([]string{"resolve"}, tc.args...), root)...)
			if code != tc.code {
				t.Fatalf("resolve: exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out+errOut, tc.out) || (tc.not != "" && strings.Contains(out+errOut, tc.not)) {
				t.Errorf("resolve says\n%s%s\nwant %q, not %q", out, errOut, tc.out, tc.not)
			}
			if code == exitOK {
				lines := strings.Split(strings.TrimSpace(out), "\n")
				stmt, err := db.Prepare(lines[len(lines)-1])
				if err != nil {
					t.Fatalf("DuckDB does not parse the statement resolve printed: %v\n%s", err, out)
				}
				stmt.Close()
			}
			if tc.check != "" {
				out, errOut, code := runAppStderr(t, "check", root)
				if code != exitOK || !strings.Contains(out, tc.check) {
					t.Errorf("check: exit %d, want 0 and a warning saying %q\n%s\n%s", code, tc.check, out, errOut)
				}
			}
		})
	}
}

// TestResolveVerifyNamesPassedOver: a file resolve --verify passes over is
// named, with why, in a one-line SQL comment before the statement (and
// passed_over in --json), so that a reader learns the publisher serves a
// broken file; it was passed over without a word, the statement naming
// the next file as if the broken one were not there.
func TestResolveVerifyNamesPassedOver(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "02_add_drop_columns")
	latest := "01a18fe8-e1d1-740e-adda-56e0dc49465c"
	v := filepath.Join(repoDir, "versions", latest)
	// A 1.0 catalog under 1.1's name: DuckDB 2.0 would try it first.
	body, err := os.ReadFile(filepath.Join(v, "ducklake.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(v, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v, "catalogs", "1.1.duckdb"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := "versions/" + latest + "/catalogs/1.1.duckdb"
	out, errOut, code := runAppStderr(t, "resolve", "--duckdb", "2.0.0", "--verify", repoDir)
	if code != exitOK {
		t.Fatalf("resolve --verify: exit %d\n%s\n%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := "-- passed over " + bad + " (--verify): " + bad + " holds DuckLake format 1.0"
	if len(lines) != 3 || !strings.HasPrefix(lines[0], want) ||
		!strings.HasPrefix(lines[1], "-- version "+latest+" (seq 3) in DuckDB 2.0.0: versions/"+latest+"/ducklake.duckdb") ||
		!strings.HasPrefix(lines[2], "ATTACH ") {
		t.Errorf("resolve --verify printed\n%s\nwant a line %q…, the version's comment and the ATTACH of the frozen catalog", out, want)
	}
	// Without --verify the file is not opened: the statement alone.
	out, _, code = runAppStderr(t, "resolve", "--duckdb", "2.0.0", repoDir)
	if code != exitOK || strings.Contains(out, "passed over") || !strings.Contains(out, bad) {
		t.Errorf("resolve without --verify: exit %d\n%s\nwant the statement for %s, nothing passed over", code, out, bad)
	}
	out, _, _ = runAppStderr(t, "resolve", "--duckdb", "2.0.0", "--verify", "--json", repoDir)
	var res struct {
		Files []struct {
			Key        string `json:"key"`
			PassedOver bool   `json:"passed_over"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.PassedOver != (f.Key == bad) {
			t.Errorf("--json: %s passed_over %v", f.Key, f.PassedOver)
		}
	}
}

// TestResolveRefusesLineBreakInPath: a frozen catalog whose path
// (version.json's catalog.path) holds a line break is invalid input (exit
// 6, naming the file): printed in resolve's comment line, the rest of the
// path was a statement of its own to a reader who gives the output to
// DuckDB (duckdb -cmd "$(fdl-formats resolve …)"), one that wrote a file
// here. commentText escapes such characters too, should a key hold one.
func TestResolveRefusesLineBreakInPath(t *testing.T) {
	// Not parallel: DuckDB runs every statement of a script before the
	// last, so a regression writes pwned.csv where the test runs: a
	// folder of its own.
	root := copyRepo(t, "lakes", "02_add_drop_columns")
	t.Chdir(t.TempDir())
	latest := "01a18fe8-e1d1-740e-adda-56e0dc49465c"
	v := filepath.Join(root, "versions", latest)
	name := "x\nCOPY (SELECT 1) TO 'pwned.csv';--.duckdb"
	if err := os.Rename(filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, name)); err != nil {
		t.Fatal(err)
	}
	testlakes.EditVersion(t, v, func(m map[string]any) {
		m["catalog"].(map[string]any)["path"] = name
	})
	out, errOut, code := runAppStderr(t, "resolve", "--duckdb", "1.5.2", root)
	if code != exitInvalid || !strings.Contains(errOut, "versions/"+latest+"/version.json: catalog.path: ") || !strings.Contains(errOut, "must not hold control characters") {
		t.Errorf("resolve: exit %d, want %d naming version.json's catalog.path\n%s\n%s", code, exitInvalid, out, errOut)
	}
	if out != "" {
		db := testduck.Open(t, "")
		defer db.Close()
		if stmt, err := db.Prepare(out); err == nil {
			stmt.Close()
		}
	}
	if _, err := os.Stat("pwned.csv"); err == nil {
		t.Errorf("DuckDB ran a statement of resolve's output other than the ATTACH: it wrote pwned.csv\n%s", out)
	}
}

func TestCommentText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"versions/v/ducklake.duckdb", "versions/v/ducklake.duckdb"},
		{"a\nCOPY x;--", `a\nCOPY x;--`},
		{"a\r\tb", `a\r\tb`},
		{"red \x1b[31m", `red \x1b[31m`},
		{"données é", "données é"},
	} {
		if got := commentText(tc.in); got != tc.want {
			t.Errorf("commentText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestResolveOutsideDeclaredRange: a DuckDB opens the newest format it
// can, whatever range fdl.json declares for it, so resolve --duckdb 2.0.0
// points at a 1.0 catalog fdl.json promises to DuckDB ">= 1.5.2, < 2.0.0"
// only. It said nothing of it; it now warns on stderr (exit 0, the
// statement alone on stdout), naming the format, the declared range, the
// DuckDB and the formats fdl.json does declare for it, and --json carries
// the warning too. Within the range, no warning.
func TestResolveOutsideDeclaredRange(t *testing.T) {
	t.Parallel()
	latest := "01a18fe8-e1d1-740e-adda-56e0dc49465c"
	for _, tc := range []struct {
		name, fdl, duckdb string
		warn              string // "" for none
	}{
		{"1.1 declared for 2.0", `[{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]`, "2.0.0",
			"warning: DuckDB 2.0.0 is outside the range fdl.json declares for format 1.0 (>= 1.5.2, < 2.0.0): it opens versions/" + latest + "/ducklake.duckdb all the same (its DuckLake opens format 1.0: >= 1.5.2)" +
				", but fdl.json does not promise the format to it (check reads a format for the DuckDBs of its declared range, which the publisher serves); fdl.json declares format 1.1 for DuckDB 2.0.0"},
		{"nothing declared for 2.0", `[{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"}]`, "2.0.0", "; fdl.json declares no format for DuckDB 2.0.0"},
		{"within the range", `[{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"}, {"ducklake": "1.1", "duckdb": ">= 2.0.0"}]`, "1.5.3", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := copyRepo(t, "lakes", "02_add_drop_columns")
			if err := os.WriteFile(filepath.Join(root, "fdl.json"), []byte(`{"fdl": "0.1", "data_dir": "data/", "formats": `+tc.fdl+`}`), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := runAppStderr(t, "resolve", "--duckdb", tc.duckdb, root)
			if code != exitOK || !strings.Contains(out, "versions/"+latest+"/ducklake.duckdb (format 1.0") || strings.Contains(out, "warning") {
				t.Fatalf("exit %d, want 0 and the frozen 1.0 catalog on stdout, no warning there\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			if tc.warn == "" {
				if strings.Contains(errOut, "warning") {
					t.Errorf("a warning within the declared range:\n%s", errOut)
				}
				return
			}
			if !strings.Contains(errOut, tc.warn) || strings.Count(errOut, "warning: ") != 1 {
				t.Errorf("stderr:\n%s\nwant one warning saying %q", errOut, tc.warn)
			}
			out, _, code = runAppStderr(t, "resolve", "--duckdb", tc.duckdb, "--json", root)
			var res struct {
				OK       bool     `json:"ok"`
				Warnings []string `json:"warnings"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK || !res.OK || len(res.Warnings) != 1 || !strings.Contains("warning: "+res.Warnings[0], tc.warn) {
				t.Errorf("--json: exit %d, %+v (%v), want ok and the warning\n%s", code, res, err, out)
			}
		})
	}
}
