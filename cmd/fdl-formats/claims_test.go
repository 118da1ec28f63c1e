package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCheckFalseFormatClaim is the reviewer's case through the command
// line: a version's frozen catalog replaced by its proved 1.1 conversion
// while version.json still says 1.0 (its size and sha256 updated). Before,
// check exited 0 and its readers table said format 1.0 reads every version;
// now check exits 3 naming the version, the file, the claim and the
// detected format, and resolve --verify sends DuckDB 1.5.3 to no file.
func TestCheckFalseFormatClaim(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	repoDir := copyRepo(t, "lakes", "06_deletes")
	if out, errOut, code := runApp(t, "backfill", "--jobs=2", "--versions=3", "--formats=1.1", repoDir); code != exitOK {
		t.Fatalf("backfill: exit %d\n%s\n%s", code, out, errOut)
	}
	ids, err := os.ReadDir(filepath.Join(repoDir, "versions"))
	if err != nil || len(ids) != 3 {
		t.Fatalf("versions: %v %v", ids, err)
	}
	id := ids[2].Name()
	v := filepath.Join(repoDir, "versions", id)
	body, err := os.ReadFile(filepath.Join(v, "catalogs", "1.1.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(v, "ducklake.duckdb"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	testlakes.EditVersion(t, v, nil)

	out, errOut, code := runApp(t, "check", "--versions=3", "--formats=1.0,1.1", repoDir)
	if code != exitDifferent {
		t.Errorf("check: exit %d, want %d\n%s\n%s", code, exitDifferent, out, errOut)
	}
	claim := "versions/" + id + "/ducklake.duckdb holds DuckLake format 1.1 (detected from its version row and tables), but version.json's ducklake.format says 1.0"
	if !strings.Contains(out+errOut, claim) {
		t.Errorf("check does not say %q:\n%s\n%s", claim, out, errOut)
	}
	if strings.Contains(out, "(format 1.0): reads all") {
		t.Errorf("check tells format 1.0 readers they read every version:\n%s", out)
	}
	out, errOut, code = runAppStderr(t, "resolve", "--duckdb=1.5.3", "--version=3", "--verify", repoDir)
	if code != exitNoCatalog || !strings.Contains(errOut, "no catalog of version "+id) {
		t.Errorf("resolve --verify: exit %d, want %d\n%s\n%s", code, exitNoCatalog, out, errOut)
	}
}
