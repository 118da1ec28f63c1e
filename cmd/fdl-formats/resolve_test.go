package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		"ATTACH 'ducklake:" + filepath.Join(abs, "versions", latest, "ducklake.duckdb") + "' AS add_drop_columns (READ_ONLY, DATA_PATH '" + filepath.Join(abs, "data") + "/', OVERRIDE_DATA_PATH true)\n"
	if out != want {
		t.Errorf("resolve printed\n%s\nwant\n%s", out, want)
	}

	for hint, args := range map[string][]string{
		"fdl.json declares format 0.3 for DuckDB 1.4.3, but this version has no catalog in it":                      {"resolve", "--duckdb", "1.4.3", repoDir},
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
