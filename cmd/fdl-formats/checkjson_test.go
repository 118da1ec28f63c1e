package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/repo"
)

// TestCheckJSONInvalidRepository: `check --json` on a repository whose
// fdl.json is invalid or missing still writes a report (the CI job keeps
// check.json and says "fix the file named in check.json"): the usual
// top-level shape, not ok, one invalid finding naming fdl.json and the
// error. The exit code (6) and the error on stderr stay; without --json
// stdout stays empty.
func TestCheckJSONInvalidRepository(t *testing.T) {
	withFDL := func(content string) string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "versions"), 0o755); err != nil {
			t.Fatal(err)
		}
		if content != "" {
			if err := os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"not JSON", withFDL(`{"fdl": "0.1", data_dir": "data/", "formats": []}`), "fdl.json: parse JSON"},
		{"a field missing", withFDL(`{"fdl": "0.1"}`), "fdl.json: formats: missing (required)"},
		{"no fdl.json", withFDL(""), "no fdl.json in "},
		{"no such folder", filepath.Join(t.TempDir(), "nosuch"), "not an FDL repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runAppStderr(t, "check", "--json", tc.dir)
			if code != exitInvalid {
				t.Fatalf("exit %d, want %d; stderr %s", code, exitInvalid, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want the error %q", stderr, tc.want)
			}
			var rep repo.CheckReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("stdout is no JSON report: %v\n%s", err, stdout)
			}
			for _, key := range []string{`"format_version": 1`, `"ok": false`, `"plan": null`, `"proofs": []`, `"findings": [`, `"counts": {`, `"readers": []`} {
				if !strings.Contains(stdout, key) {
					t.Errorf("report lacks %s:\n%s", key, stdout)
				}
			}
			if rep.OK || len(rep.Findings) != 1 || rep.Counts[repo.KindInvalid] != 1 {
				t.Fatalf("report %+v, want one invalid finding", rep)
			}
			f := rep.Findings[0]
			if f.Kind != repo.KindInvalid || f.Key != "fdl.json" || !strings.Contains(f.Detail, tc.want) {
				t.Errorf("finding %+v, want invalid, key fdl.json, detail with %q", f, tc.want)
			}
			if stdout, _, code := runAppStderr(t, "check", tc.dir); code != exitInvalid || stdout != "" {
				t.Errorf("without --json: exit %d, stdout %q; want %d and nothing", code, stdout, exitInvalid)
			}
		})
	}
}
