// Package sandboxtest holds what the tests of a sandboxed DuckDB database
// (internal/duckpool's Reach) try: the statements a slip in our SQL, or in
// the ducklake extension's, could run to reach beyond the sandbox.
package sandboxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Outside makes a folder no sandbox of the test reaches, holding a file
// that looks like credentials, and gives both paths.
func Outside(t *testing.T) (dir, secret string) {
	t.Helper()
	dir = t.TempDir()
	secret = filepath.Join(dir, "credentials")
	if err := os.WriteFile(secret, []byte("[default]\naws_secret_access_key = x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

// Refused runs, through exec, every statement that would read outside
// (secret, a glob of its folder, /etc/hostname, a climb out of inReach),
// write or attach there, turn the sandbox off or install an extension,
// and fails the test for each that runs, and for each file one wrote in
// outside. what names the database in the failures ("a reader's").
func Refused(t *testing.T, what string, exec func(q string) error, outside, secret, inReach string) {
	t.Helper()
	marker := filepath.Join(outside, "marker-"+strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))
	qs := []string{
		"SELECT * FROM read_text('/etc/hostname')",
		"SELECT * FROM read_text(" + literal(secret) + ")",
		"SELECT * FROM read_blob(" + literal(filepath.Join(outside, "*")) + ")",
		"COPY (SELECT 1 AS x) TO " + literal(marker),
		"ATTACH " + literal(marker+".duckdb") + " AS planted",
		"SET enable_external_access = true",
		"RESET enable_external_access",
		"SET allowed_directories = ['/']",
		"SET allowed_paths = [" + literal(secret) + "]",
		"INSTALL httpfs",
	}
	if inReach != "" {
		qs = append(qs, "SELECT * FROM read_text("+literal(inReach+strings.Repeat("/..", strings.Count(inReach, "/"))+"/etc/hostname")+")")
	}
	for _, q := range qs {
		if err := exec(q); err == nil {
			t.Errorf("%s: ran in %s database", q, what)
		}
	}
	for _, f := range []string{marker, marker + ".duckdb"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s database wrote %s", what, f)
		}
	}
}

// literal is s as a SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
