package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestCreatedAtWarningsGrouped: a history imported with its old
// created_at (ids minted now) has the created_at warning on every
// version; the text of plan, backfill and check prints it once in full
// for the first version, then one line counting the other 4 and naming
// the first of them, and backfill's log does the same; --json keeps all
// 5. Before, each printed 5 paragraphs (a report of 200 versions drowned).
func TestCreatedAtWarningsGrouped(t *testing.T) {
	t.Parallel()
	dir, ids := smallHistory(t, 5)
	for _, id := range ids {
		testlakes.EditVersion(t, filepath.Join(dir, "versions", id), func(m map[string]any) { m["created_at"] = "2020-01-01T00:00:00Z" })
	}
	if len(ids) != 5 {
		t.Fatalf("versions %v, want 5", ids)
	}
	const gap = "version.json's created_at 2020-01-01T00:00:00Z is "
	full := "version " + ids[0] + ": " + gap
	more := "and 4 more versions alike: " + ids[1] + ", " + ids[2] + ", " + ids[3] + ", … (all in --json)"
	for _, cmd := range []string{"plan", "backfill", "check"} {
		args := []string{cmd, "--formats=1.0", dir}
		out, errOut, code := runApp(t, args...)
		// The repository rules (the oldest format, filtered out here) are
		// grouped alike under their own heading, indented deeper: count the
		// warnings' line.
		warned := 0
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, more) && !strings.HasPrefix(line, "    and ") {
				warned++
			}
		}
		if code != exitOK || strings.Count(out, gap) != 1 || !strings.Contains(out, full) || warned != 1 {
			t.Errorf("%s: exit %d, %d warnings of the created_at, want 0 and one for %s then a line %q:\n%s\n%s", cmd, code, strings.Count(out, gap), ids[0], more, out, errOut)
		}
		if cmd == "backfill" && (strings.Count(errOut, gap) != 1 || strings.Count(errOut, more) != 1) {
			t.Errorf("backfill's log: %d warnings of the created_at, want one then %q:\n%s", strings.Count(errOut, gap), more, errOut)
		}
		out, errOut, code = runApp(t, append([]string{cmd, "--json"}, args[1:]...)...)
		warnings, findings := jsonWarnings(t, cmd, out, errOut)
		if cmd == "check" {
			// The plan's warnings are findings too, each with its key.
			var found []string
			for _, f := range findings {
				if f.Kind == "warning" && f.Key == "versions/"+ids[len(found)%len(ids)]+"/version.json" && strings.Contains(f.Detail, gap) {
					found = append(found, f.Detail)
				}
			}
			if len(found) != 5 {
				t.Errorf("check --json: %d findings of the created_at, want 5: %+v", len(found), findings)
			}
		}
		n := 0
		for i, w := range warnings {
			if strings.Contains(w, gap) {
				if !strings.HasPrefix(w, "version "+ids[n%len(ids)]+": ") {
					t.Errorf("%s --json: warning %d %q, want one of version %s", cmd, i, w, ids[n%len(ids)])
				}
				n++
			}
		}
		if code != exitOK || n != 5 {
			t.Errorf("%s --json: exit %d, %d warnings of the created_at, want 0 and 5: %q", cmd, code, n, warnings)
		}
	}
}

// TestRulesGrouped: a repository rule judged in the same words for every
// version (the oldest format filtered out by --formats) is printed once in
// plan's text, then counted; --json keeps one rule per version.
func TestRulesGrouped(t *testing.T) {
	t.Parallel()
	dir, _ := smallHistory(t, 5)
	cfg, err := os.ReadFile(filepath.Join(dir, "fdl.json"))
	if err != nil {
		t.Fatal(err)
	}
	var decl struct {
		Formats []struct {
			DuckLake string `json:"ducklake"`
		} `json:"formats"`
	}
	if err := json.Unmarshal(cfg, &decl); err != nil || len(decl.Formats) < 2 {
		t.Fatalf("fdl.json %s: %v, want two formats or more", cfg, err)
	}
	newest := decl.Formats[len(decl.Formats)-1].DuckLake
	out, errOut, code := runApp(t, "plan", "--formats="+newest, dir)
	const filtered = ": unknown: format filtered out"
	if code != exitOK || strings.Count(out, filtered) != 1 || !strings.Contains(out, "    and 4 more versions alike: ") {
		t.Errorf("plan --formats=%s: exit %d, %d rule lines %q, want 0 and one, then 'and 4 more versions alike':\n%s\n%s", newest, code, strings.Count(out, filtered), filtered, out, errOut)
	}
	out, errOut, code = runApp(t, "plan", "--json", "--formats="+newest, dir)
	var rep struct {
		Rules []struct {
			Status string `json:"status"`
			Detail string `json:"detail"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("plan --json: %v\n%s\n%s", err, out, errOut)
	}
	n := 0
	for _, r := range rep.Rules {
		if r.Status == "unknown" && r.Detail == "format filtered out" {
			n++
		}
	}
	if code != exitOK || n != 5 {
		t.Errorf("plan --json: exit %d, %d rules 'format filtered out', want 0 and 5", code, n)
	}
}

// TestIssuesGrouped: a repository whose every version lost its files.json
// (named in version.json) has the same issue on every version, in the
// same words but the id; backfill's text and log, plan's notes and
// check's findings print it once in full, then one line counting the
// other 4 and naming the first of them; the counts of issues, check's
// exit and --json keep all 5. Before, each printed 5 lines.
func TestIssuesGrouped(t *testing.T) {
	t.Parallel()
	dir, ids := smallHistory(t, 5)
	for _, id := range ids {
		if err := os.Remove(filepath.Join(dir, "versions", id, "files.json")); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != 5 {
		t.Fatalf("versions %v, want 5", ids)
	}
	const missing = "/files.json: missing (named in version.json)"
	full := "issue         " + ids[0] + " invalid: versions/" + ids[0] + missing
	more := "and 4 more versions alike: " + ids[1] + ", " + ids[2] + ", " + ids[3] + ", … (all in --json)"
	out, errOut, code := runApp(t, "backfill", "--dry-run", dir)
	if code != exitOK || strings.Count(out, missing) != 1 || !strings.Contains(out, full+"\n") ||
		!strings.Contains(out, "issue         "+more+"\n") || !strings.Contains(out, "\n5 issue(s) with versions' other files") {
		t.Errorf("backfill: exit %d, %d issues printed, want 0 and one, %q, then %q and a count of 5:\n%s\n%s", code, strings.Count(out, missing), full, more, out, errOut)
	}
	const logged = "version issue: its catalogs are written all the same"
	if strings.Count(errOut, logged) != 1 || strings.Count(errOut, missing) != 1 || strings.Count(errOut, "version issue: "+more) != 1 {
		t.Errorf("backfill's log: %d issues logged, want one then %q:\n%s", strings.Count(errOut, logged), "version issue: "+more, errOut)
	}
	out, errOut, code = runApp(t, "backfill", "--dry-run", "--json", dir)
	var rep struct {
		Plan struct {
			Versions []struct {
				ID     string `json:"id"`
				Issues []struct {
					Problem string `json:"problem"`
					Detail  string `json:"detail"`
				} `json:"issues"`
			} `json:"versions"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("backfill --json: %v\n%s\n%s", err, out, errOut)
	}
	n := 0
	for _, v := range rep.Plan.Versions {
		for _, is := range v.Issues {
			if is.Problem == "invalid" && is.Detail == "versions/"+v.ID+missing {
				n++
			}
		}
	}
	if code != exitOK || n != 5 {
		t.Errorf("backfill --json: exit %d, %d issues of files.json, want 0 and 5: %+v", code, n, rep.Plan.Versions)
	}

	// plan's notes under the matrix: the first in full, then the others
	// counted, indented deeper.
	out, errOut, code = runApp(t, "plan", dir)
	if code != exitOK || strings.Count(out, missing) != 1 || !strings.Contains(out, "\n  seq 1 invalid: versions/"+ids[0]+missing+"\n    "+more+"\n") {
		t.Errorf("plan: exit %d, %d notes of files.json, want 0 and one for %s then %q:\n%s\n%s", code, strings.Count(out, missing), ids[0], more, out, errOut)
	}

	// check's findings: the first in full, then the others counted in its
	// findings' layout; its exit, its count and --json keep all 5.
	// (The matrix above them has plan's notes.)
	out, errOut, code = runApp(t, "check", dir)
	_, findings, _ := strings.Cut(out, "\nproofs: ")
	if code != exitInvalid || strings.Count(findings, missing) != 1 || !strings.Contains(findings, "\ninvalid      "+ids[0]+": versions/"+ids[0]+missing+"\ninvalid      "+more+"\n") ||
		!strings.Contains(errOut, " invalid=5 ") {
		t.Errorf("check: exit %d, %d findings of files.json, want %d and one for %s then %q, and invalid=5 in the log:\n%s\n%s", code, strings.Count(findings, missing), exitInvalid, ids[0], more, out, errOut)
	}
	out, errOut, code = runApp(t, "check", "--json", dir)
	var crep struct {
		Findings []struct {
			Kind    string `json:"kind"`
			Version string `json:"version"`
			Detail  string `json:"detail"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &crep); err != nil {
		t.Fatalf("check --json: %v\n%s\n%s", err, out, errOut)
	}
	n = 0
	for _, f := range crep.Findings {
		if f.Kind == "invalid" && f.Detail == "versions/"+f.Version+missing {
			n++
		}
	}
	if code != exitInvalid || n != 5 {
		t.Errorf("check --json: exit %d, %d findings of files.json, want %d and 5: %+v", code, n, exitInvalid, crep.Findings)
	}
}

// TestEmptyFoldersGrouped: empty folders under versions/ (uploads
// never finished) are warned of once per kind in text output, then
// counted as folders, not versions: 3 named by a version ID, 2 otherwise;
// --json keeps one warning each, and check's findings name each folder.
// Before, plan, backfill and check printed 5 paragraphs.
func TestEmptyFoldersGrouped(t *testing.T) {
	t.Parallel()
	dir, _ := smallHistory(t, 2)
	empty := []string{"01ffffff-0000-7000-8000-000000000001", "01ffffff-0000-7000-8000-000000000002", "01ffffff-0000-7000-8000-000000000003", "lost+found", "upload"}
	for _, name := range empty {
		if err := os.MkdirAll(filepath.Join(dir, "versions", name, "catalogs"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const (
		versionWords = ": empty version folder ("
		otherWords   = ": empty folder under versions/ whose name is not a version ID"
	)
	moreVersions := "and 2 more folders alike: " + empty[1] + ", " + empty[2] + " (all in --json)"
	moreOther := "and 1 more folder alike: " + empty[4] + " (all in --json)"
	for _, cmd := range []string{"plan", "backfill", "check"} {
		args := []string{cmd, "--formats=1.0", dir}
		out, errOut, code := runApp(t, args...)
		if code != exitOK || strings.Count(out, versionWords) != 1 || strings.Count(out, otherWords) != 1 ||
			!strings.Contains(out, "versions/"+empty[0]+"/"+versionWords) || !strings.Contains(out, "versions/"+empty[3]+"/"+otherWords) ||
			strings.Count(out, moreVersions) != 1 || strings.Count(out, moreOther) != 1 || strings.Contains(out, "more versions alike: "+empty[1]) || strings.Contains(out, "more version alike: "+empty[4]) {
			t.Errorf("%s: exit %d, %d and %d empty folder warnings, want 0, one of each then %q and %q:\n%s\n%s", cmd, code, strings.Count(out, versionWords), strings.Count(out, otherWords), moreVersions, moreOther, out, errOut)
		}
		if cmd == "backfill" && (strings.Count(errOut, versionWords) != 1 || strings.Count(errOut, moreVersions) != 1 || strings.Count(errOut, moreOther) != 1) {
			t.Errorf("backfill's log: %d empty version folder warnings, want one then %q, and %q:\n%s", strings.Count(errOut, versionWords), moreVersions, moreOther, errOut)
		}
		out, errOut, code = runApp(t, append([]string{cmd, "--json"}, args[1:]...)...)
		warnings, findings := jsonWarnings(t, cmd, out, errOut)
		var named []string
		for _, w := range warnings {
			if strings.Contains(w, versionWords) || strings.Contains(w, otherWords) {
				named = append(named, strings.TrimPrefix(strings.SplitN(w, "/: ", 2)[0], "versions/"))
			}
		}
		if code != exitOK || strings.Join(named, " ") != strings.Join(empty, " ") {
			t.Errorf("%s --json: exit %d, warnings of empty folders %q, want 0 and %q", cmd, code, named, empty)
		}
		if cmd == "check" {
			folderFindings(t, findings, empty, versionWords, otherWords)
		}
	}
}

// TestHiddenFoldersGrouped: hidden folders under versions/ (an upload
// tool's staging folders, .git) are warned of as empty folders are: the
// first in full, then one line counting the others as folders; --json
// keeps one warning each, and check's findings name each folder. Before,
// plan, backfill and check printed 3 paragraphs.
func TestHiddenFoldersGrouped(t *testing.T) {
	t.Parallel()
	dir, _ := smallHistory(t, 2)
	hidden := []string{".Trash-1000", ".git", ".staging"} // in the order warned of
	for _, name := range hidden {
		if err := os.MkdirAll(filepath.Join(dir, "versions", name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "versions", name, "version.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const words = "/: hidden folder under versions/ ignored"
	more := "and 2 more folders alike: " + hidden[1] + ", " + hidden[2] + " (all in --json)"
	for _, cmd := range []string{"plan", "backfill", "check"} {
		args := []string{cmd, "--formats=1.0", dir}
		out, errOut, code := runApp(t, args...)
		if code != exitOK || strings.Count(out, words) != 1 || !strings.Contains(out, "versions/"+hidden[0]+words) || strings.Count(out, more) != 1 {
			t.Errorf("%s: exit %d, %d hidden folder warnings, want 0, one for %s then %q:\n%s\n%s", cmd, code, strings.Count(out, words), hidden[0], more, out, errOut)
		}
		if cmd == "backfill" && (strings.Count(errOut, words) != 1 || strings.Count(errOut, more) != 1) {
			t.Errorf("backfill's log: %d hidden folder warnings, want one then %q:\n%s", strings.Count(errOut, words), more, errOut)
		}
		out, errOut, code = runApp(t, append([]string{cmd, "--json"}, args[1:]...)...)
		warnings, findings := jsonWarnings(t, cmd, out, errOut)
		var named []string
		for _, w := range warnings {
			if name, ok := strings.CutPrefix(w, "versions/"); ok && strings.Contains(w, words) {
				named = append(named, strings.SplitN(name, "/: ", 2)[0])
			}
		}
		if code != exitOK || strings.Join(named, " ") != strings.Join(hidden, " ") {
			t.Errorf("%s --json: exit %d, warnings of hidden folders %q, want 0 and %q", cmd, code, named, hidden)
		}
		if cmd == "check" {
			folderFindings(t, findings, hidden, words)
		}
	}
}

// TestMissingGrouped: a repository not backfilled yet has every version's
// cell of a declared format missing; check's text prints the first of each
// format, then counts the others (it printed one line per version and
// format: 400 for 200 versions and two formats), and a finding about a
// format alone (its readers) reads "0.4: …", not " 0.4: …"; --json keeps
// one finding per cell.
func TestMissingGrouped(t *testing.T) {
	t.Parallel()
	dir, ids := smallHistory(t, 5)
	out, errOut, code := runApp(t, "check", dir)
	if code != exitMissing {
		t.Fatalf("check: exit %d, want %d\n%s\n%s", code, exitMissing, out, errOut)
	}
	first := ids[0]
	more := "missing      and 4 more versions alike: " + ids[1] + ", "
	for _, format := range []string{"0.4", "1.1"} {
		line := "missing      " + first + " " + format + ": declared format not written yet"
		if strings.Count(out, ": declared format not written yet") != 2 || !strings.Contains(out, line+"\n"+more) {
			t.Errorf("check printed\n%s\nwant one line per format, %q, then %q…", out, line, more)
		}
	}
	if !strings.Contains(out, "\nwarning      0.4: readers: ") {
		t.Errorf("check printed\n%s\nwant the readers' finding as \"warning      0.4: readers: …\"", out)
	}
	out, errOut, _ = runApp(t, "check", "--json", dir)
	_, findings := jsonWarnings(t, "check", out, errOut)
	n := 0
	for _, f := range findings {
		if f.Kind == "missing" {
			n++
		}
	}
	if n != 10 {
		t.Errorf("check --json: %d missing findings, want 10 (5 versions, 2 formats)", n)
	}
}

// jsonFinding is what the grouping tests read of check's findings.
type jsonFinding struct {
	Kind   string `json:"kind"`
	Key    string `json:"key"`
	Detail string `json:"detail"`
}

// jsonWarnings reads the plan's warnings of a --json report (plan's own,
// or the plan of a backfill or check) and check's findings.
func jsonWarnings(t *testing.T, cmd, out, errOut string) ([]string, []jsonFinding) {
	t.Helper()
	var rep struct {
		Warnings []string `json:"warnings"`
		Plan     struct {
			Warnings []string `json:"warnings"`
		} `json:"plan"`
		Findings []jsonFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%s --json: %v\n%s\n%s", cmd, err, out, errOut)
	}
	if cmd != "plan" {
		return rep.Plan.Warnings, rep.Findings
	}
	return rep.Warnings, rep.Findings
}

// folderFindings checks that check's --json gives one warning finding per
// folder under versions/, in order, keyed by the folder: those whose
// detail holds one of words.
func folderFindings(t *testing.T, findings []jsonFinding, folders []string, words ...string) {
	t.Helper()
	var keys []string
	for _, f := range findings {
		if f.Kind == "warning" && slices.ContainsFunc(words, func(w string) bool { return strings.Contains(f.Detail, w) }) {
			keys = append(keys, f.Key)
		}
	}
	want := make([]string, len(folders))
	for i, name := range folders {
		want[i] = "versions/" + name + "/"
	}
	if !slices.Equal(keys, want) {
		t.Errorf("check --json: findings of the folders keyed %q, want one per folder: %q", keys, want)
	}
}

// smallHistory copies a lakegen history of n versions of 10 rows each
// (historyCopy) into a folder of the test's and returns it with the
// versions' ids, oldest first.
func smallHistory(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir, res := historyCopy(t, lakegen.HistoryOptions{Versions: n, RowsPerVersion: 10, FilesPerVersion: 1})
	ids := make([]string, len(res.Versions))
	for i, v := range res.Versions {
		ids[i] = v.ID
	}
	return dir, ids
}
