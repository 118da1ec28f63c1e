package main

import (
	"strings"
	"testing"
)

// TestConvertResolveMaxSpill: convert and resolve --verify take
// --max-spill, as plan, backfill, check and compare do: the bound of what
// each of their DuckDB databases may spill (convert.Options.MaxSpill,
// repo.ResolveOptions.MaxSpill; TestConversionMaxSpill and
// TestReaderMaxSpill show it reach the databases). They had no such flag:
// their databases spilled up to 8 GiB each whatever the other commands
// were told.
func TestConvertResolveMaxSpill(t *testing.T) {
	catalog, data := lakeCatalog(t, "lakes", "06_deletes")
	out, errOut, code := runAppStderr(t, "convert", "--max-spill", "64MiB", "--to", "0.4", "--data", data, "--dry-run", catalog)
	if code != exitOK || !strings.Contains(out, "converts") {
		t.Errorf("convert --max-spill 64MiB: exit %d\n%s\n%s", code, out, errOut)
	}
	repoDir := copyRepo(t, "lakes", "02_add_drop_columns")
	out, errOut, code = runAppStderr(t, "resolve", "--verify", "--max-spill", "64MiB", repoDir)
	if code != exitOK || !strings.Contains(out, "ATTACH ") {
		t.Errorf("resolve --verify --max-spill 64MiB: exit %d\n%s\n%s", code, out, errOut)
	}
}
