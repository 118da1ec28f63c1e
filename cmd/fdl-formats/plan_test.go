package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// copyRepo copies a conformance lake's fdl.json, versions/ and data/ into a
// private folder.
func copyRepo(t *testing.T, archive, lake string) string {
	t.Helper()
	src := testlakes.Lake(t, archive, lake)
	dst := t.TempDir()
	for _, part := range []string{"fdl.json", "versions", "data"} {
		if err := os.CopyFS(filepath.Join(dst, part), os.DirFS(filepath.Join(src, part))); err != nil {
			if part == "fdl.json" {
				data, rerr := os.ReadFile(filepath.Join(src, part))
				if rerr == nil {
					err = os.WriteFile(filepath.Join(dst, part), data, 0o644)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// TestRepoCommands runs plan, backfill and check on a conformance
// repository and checks their output and exit codes.
func TestRepoCommands(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	repoDir := copyRepo(t, "lakes", "08_partitioning")
	now := "--now=2026-11-30T00:00:00Z"

	out, errOut, code := runApp(t, "plan", now, repoDir)
	if code != exitOK {
		t.Fatalf("plan: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"as of 2026-11-30T00:00:00Z", "0.3      0.4      1.0     1.1", "expired  refused  source  missing", "partition-transforms", "cells: 1 source, 1 missing, 1 refused, 1 expired"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := runApp(t, "check", now, repoDir); code != exitMissing {
		t.Errorf("check before backfill: exit %d, want %d (work missing)", code, exitMissing)
	}
	out, _, code = runApp(t, "backfill", "--dry-run", now, repoDir)
	if code != exitOK || !strings.Contains(out, "1 planned") {
		t.Errorf("backfill --dry-run: exit %d, output:\n%s", code, out)
	}
	if matches, _ := filepath.Glob(filepath.Join(repoDir, "versions", "*", "catalogs")); len(matches) != 0 {
		t.Errorf("dry run wrote %v", matches)
	}
	out, errOut, code = runApp(t, "backfill", "--jobs=2", now, repoDir)
	if code != exitOK || !strings.Contains(out, "1 written") || !strings.Contains(out, "refused ") {
		t.Fatalf("backfill: exit %d, output:\n%s\n%s", code, out, errOut)
	}
	out, _, code = runApp(t, "check", "--json", now, repoDir)
	var rep struct {
		OK     bool `json:"ok"`
		Proofs []struct {
			Key string `json:"key"`
			OK  bool   `json:"ok"`
		} `json:"proofs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	if code != exitOK || !rep.OK || len(rep.Proofs) != 1 || !rep.Proofs[0].OK {
		t.Fatalf("check after backfill: exit %d, report %+v", code, rep)
	}

	// Tamper with the published catalog.
	f, err := os.OpenFile(filepath.Join(repoDir, filepath.FromSlash(rep.Proofs[0].Key)), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(make([]byte, 8192), 0)
	f.Close()
	if out, _, code := runApp(t, "check", now, repoDir); code != exitDifferent {
		t.Errorf("check after tampering: exit %d, want %d:\n%s", code, exitDifferent, out)
	}
}

func TestRepoCommandErrors(t *testing.T) {
	dir := t.TempDir()
	// Not a repository: exit 6, and the hint says what REPO must be (it
	// said nothing after the error).
	for _, repoArg := range []string{dir, filepath.Join(dir, "nosuch")} {
		_, errOut, code := runAppStderr(t, "plan", repoArg)
		if code != exitInvalid || !strings.Contains(errOut, "Error: not an FDL repository") || !strings.Contains(errOut, "Try: give the folder that holds fdl.json") {
			t.Errorf("plan on %s: exit %d, want %d and a hint\n%s", repoArg, code, exitInvalid, errOut)
		}
	}
	os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0","until":"soon"}]}`), 0o644)
	_, errOut, code := runApp(t, "check", dir)
	if code != exitInvalid {
		t.Errorf("check with a bad fdl.json: exit %d, want %d", code, exitInvalid)
	}
	_ = errOut
	os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`), 0o644)
	for _, args := range [][]string{
		{"plan", "--formats=0.4", dir},
		{"plan", "--versions=3", dir},
		{"plan", "--now=tomorrow", dir},
		{"plan", dir, dir},
		{"backfill"},
	} {
		if _, _, code := runApp(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	// --now takes a date too, and its error says so: it named the
	// date-time form alone.
	if _, errOut, _ := runAppStderr(t, "plan", "--now=tomorrow", dir); !strings.Contains(errOut, `Error: --now "tomorrow": want an RFC 3339 time such as 2026-06-30T00:00:00Z or date such as 2026-06-30`) {
		t.Errorf("plan --now=tomorrow: the error names not both forms:\n%s", errOut)
	}
	// A filter that names nothing is named by its flag: it said "filter
	// names nothing in the repository: ...".
	for _, tc := range []struct{ args []string }{
		{[]string{"plan", "--formats=0.4", dir}},
		{[]string{"check", "--versions=3", dir}},
		{[]string{"resolve", "--duckdb=1.5.6", "--version=3", dir}},
	} {
		flag, value, _ := strings.Cut(strings.TrimPrefix(tc.args[len(tc.args)-2], "--"), "=")
		_, errOut, code := runAppStderr(t, tc.args...)
		want := "Error: --" + flag + ": "
		if flag == "formats" {
			want += `format "` + value + `" is not declared in fdl.json (declared: 1.0)`
		} else {
			want += `no version "` + value + `"`
		}
		if code != exitUsage || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "filter names nothing") || !strings.Contains(errOut, "Try: fdl-formats "+tc.args[0]+" --help") {
			t.Errorf("%v: exit %d, want %d and an error starting %q:\n%s", tc.args, code, exitUsage, want, errOut)
		}
	}
	// No version at all: nothing was checked, which exit 0 must not hide
	// (a wrong path, a listing that hides them), unless allowed.
	out, errOut, code := runAppStderr(t, "check", dir)
	if code != exitIncomparable || !strings.Contains(out, "no version found under versions/ of "+dir) || !strings.Contains(errOut, "--allow-empty") {
		t.Errorf("check of an empty repository: exit %d, want %d\n%s\n%s", code, exitIncomparable, out, errOut)
	}
	out, _, code = runApp(t, "check", "--allow-empty", dir)
	if code != exitOK || !strings.Contains(out, "check: ok") || !strings.Contains(out, "warning") {
		t.Errorf("check --allow-empty of an empty repository: exit %d\n%s", code, out)
	}
}

// TestPlanUndeclaredColumn: a catalog in an undeclared format, present in
// one version only, gets its own column, marked as breaking a rule.
func TestPlanUndeclaredColumn(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "06_deletes")
	ids, _ := filepath.Glob(filepath.Join(repoDir, "versions", "*"))
	if len(ids) != 3 {
		t.Fatalf("versions: %v", ids)
	}
	os.MkdirAll(filepath.Join(ids[2], "catalogs"), 0o755)
	os.WriteFile(filepath.Join(ids[2], "catalogs", "0.2.duckdb"), []byte("x"), 0o644)
	out, errOut, code := runApp(t, "plan", "--formats=1.0", repoDir)
	if code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"catalog  1.0     0.2", "1.0      source  -\n", "1.0      source  present!\n", "0.2 present!: format 0.2 is not declared in fdl.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
}

// TestCheckStrictFDLJSON: an fdl.json other readers read differently from
// encoding/json is invalid input (exit 6), and the error names the file and
// the field.
func TestCheckStrictFDLJSON(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"duplicate_data_dir", `{"fdl":"0.1","data_dir":"elsewhere/","data_dir":"data/","formats":[{"ducklake":"1.0"}]}`, `fdl.json: data_dir: duplicate key "data_dir"`},
		{"duplicate_nested", `{"fdl":"0.1","formats":[{"ducklake":"1.0","until":"2020-01-01","until":"2099-01-01"}]}`, `fdl.json: formats[0].until: duplicate key "until"`},
		{"invalid_utf8", "{\"fdl\":\"0.1\",\"data_dir\":\"d\xe9/\",\"formats\":[{\"ducklake\":\"1.0\"}]}", "fdl.json: invalid UTF-8 at byte offset 26"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(tc.json), 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runAppStderr(t, "check", "--allow-empty", dir)
			if code != exitInvalid || !strings.Contains(errOut, tc.want) {
				t.Errorf("check: exit %d, want %d with %q:\n%s", code, exitInvalid, tc.want, errOut)
			}
		})
	}
}

// TestPlanNowZeroTime: --now 0001-01-01T00:00:00Z is Go's zero time, which
// the library read as "now" (plan said as of the run's time); it is that
// date like any other, 739,796 days before 08_partitioning's 0.3 until
// (time.Sub saturated at 106,751).
func TestPlanNowZeroTime(t *testing.T) {
	t.Parallel()
	repoDir := copyRepo(t, "lakes", "08_partitioning")
	for _, tc := range []struct{ now, want string }{
		{"0001-01-01T00:00:00Z", "as of 0001-01-01T00:00:00Z\n  format 0.3: DuckDB >= 1.4.0, < 1.5.0; until 2026-06-30 (739796 days left)\n"},
		{"0001-01-01T09:00:00+09:00", "as of 0001-01-01T00:00:00Z\n  format 0.3: DuckDB >= 1.4.0, < 1.5.0; until 2026-06-30 (739796 days left)\n"},
		{"0001-01-01", "as of 0001-01-01T00:00:00Z\n  format 0.3: DuckDB >= 1.4.0, < 1.5.0; until 2026-06-30 (739796 days left)\n"},
		{"2026-06-29T12:00:00Z", "as of 2026-06-29T12:00:00Z\n  format 0.3: DuckDB >= 1.4.0, < 1.5.0; until 2026-06-30 (0 days left)\n"},
		{"2026-11-30T00:00:00Z", "as of 2026-11-30T00:00:00Z\n  format 0.3: DuckDB >= 1.4.0, < 1.5.0; until 2026-06-30 (expired)\n"},
	} {
		out, errOut, code := runApp(t, "plan", "--now="+tc.now, repoDir)
		if code != exitOK {
			t.Fatalf("plan --now=%s: exit %d, stderr %s", tc.now, code, errOut)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("plan --now=%s: want %q; got:\n%s", tc.now, tc.want, out)
		}
	}
}

// TestPlanRuleLine: a repository rule plan cannot judge says so, then
// why; the line ran the two together, "format 0.4: unknown format 0.4 is
// past its until", which read as a format named unknown.
func TestPlanRuleLine(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "01_primitive_types") // created 2026-10-31, frozen in 1.0
	if err := os.WriteFile(filepath.Join(repoDir, "fdl.json"), []byte(`{"fdl":"0.1","data_dir":"data/","formats":[{"ducklake":"0.4","until":"2026-11-01"},{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, "plan", remoteNow, repoDir)
	if code != exitOK {
		t.Fatalf("plan: exit %d, stderr %s", code, errOut)
	}
	if want := " format 0.4: unknown: format 0.4 is past its until (2026-11-01), so this version's cell in it is no longer analysed\n"; !strings.Contains(out, want) {
		t.Errorf("plan: want %q; got:\n%s", want, out)
	}
}

// TestEmptyVersionFolderWarned: plan and backfill of a repository with an
// empty version folder name it in their warnings, in the text report and
// in --json (plan's warnings; backfill's plan.warnings), on a folder and
// (plan; backfill writes, so it takes no web site) on a web site, and exit
// 0. Before, both dropped it without a word (only check warned,
// and only on a web site).
func TestEmptyVersionFolderWarned(t *testing.T) {
	t.Parallel()
	const id = "01ffffff-0000-7000-8000-000000000000"
	dir := copyRepo(t, "lakes", "06_deletes")
	if err := os.MkdirAll(filepath.Join(dir, "versions", id), 0o755); err != nil {
		t.Fatal(err)
	}
	url := webtest.Serve(t, dir, webtest.Options{})
	want := "versions/" + id + "/: empty version folder ("
	for _, where := range []string{dir, url} {
		for _, args := range [][]string{{"plan"}, {"backfill"}} {
			if where == url && args[0] == "backfill" {
				continue // it writes: a folder or a bucket only
			}
			args = append(args, "--formats=1.0", where)
			out, errOut, code := runAppStderr(t, args...)
			if code != exitOK || !strings.Contains(out, "warning: "+want) {
				t.Errorf("%v: exit %d, want 0 and a line %q:\n%s\n%s", args, code, "warning: "+want, out, errOut)
			}
			out, errOut, code = runAppStderr(t, append([]string{args[0], "--json"}, args[1:]...)...)
			var rep struct {
				Warnings []string `json:"warnings"`
				Plan     struct {
					Warnings []string `json:"warnings"`
				} `json:"plan"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v --json: %v\n%s\n%s", args, err, out, errOut)
			}
			warnings := rep.Warnings
			if args[0] == "backfill" {
				warnings = rep.Plan.Warnings
			}
			if code != exitOK || !slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
				t.Errorf("%v --json: exit %d, warnings %q; want 0 and one starting %q", args, code, warnings, want)
			}
		}
	}
	// check prints the plan's warnings once, among its findings.
	out, errOut, code := runAppStderr(t, "check", "--formats=1.0", dir)
	if code != exitOK || strings.Count(out, want) != 1 {
		t.Errorf("check: exit %d, %d lines with %q; want 0 and one:\n%s\n%s", code, strings.Count(out, want), want, out, errOut)
	}
}

// TestMissingDataFolderWarned: a data_dir naming no folder (a misspelt
// "nodata/"), or a --data that does not exist, is named by one warning of
// plan, backfill and check, with the folder it resolves to; check still
// exits 4 for the data files it cannot read. Before, plan and backfill
// said nothing and check listed each file "no such file" without a word
// on why.
func TestMissingDataFolderWarned(t *testing.T) {
	t.Parallel()
	dir := copyRepo(t, "lakes", "06_deletes")
	cfg, err := os.ReadFile(filepath.Join(dir, "fdl.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), `"data_dir": "data/"`) {
		t.Fatalf("fdl.json has another data_dir than data/:\n%s", cfg)
	}
	if err := os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(strings.Replace(string(cfg), `"data_dir": "data/"`, `"data_dir": "nodata/"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `data_dir "nodata/" in fdl.json resolves to ` + filepath.Join(dir, "nodata") + ", which does not exist"
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"plan"}, exitOK},
		{[]string{"backfill", "--dry-run"}, exitOK},
		{[]string{"check"}, exitIncomparable},
	} {
		out, errOut, code := runAppStderr(t, append(tc.args, "--formats=1.0", remoteNow, dir)...)
		if code != tc.code || strings.Count(out, want) != 1 {
			t.Errorf("%v: exit %d, %d lines with %q; want %d and one:\n%s\n%s", tc.args, code, strings.Count(out, want), want, tc.code, out, errOut)
		}
		// check's finding line names no version: no "warning      : ".
		if tc.args[0] == "check" && !strings.Contains(out, "\nwarning      "+want) {
			t.Errorf("check: no line %q:\n%s", "warning      "+want, out)
		}
	}
	// --data that does not exist, on the repository as it was.
	if err := os.WriteFile(filepath.Join(dir, "fdl.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nodata")
	out, errOut, code := runAppStderr(t, "plan", "--data="+missing, remoteNow, dir)
	if want := "--data " + missing + " does not exist"; code != exitOK || strings.Count(out, want) != 1 {
		t.Errorf("plan --data %s: exit %d; want 0 and one line with %q:\n%s\n%s", missing, code, want, out, errOut)
	}
	// The repository's own data folder: no such warning.
	if out, errOut, code := runAppStderr(t, "plan", remoteNow, dir); code != exitOK || strings.Contains(out, "does not exist") {
		t.Errorf("plan of the repository with its data folder: exit %d, want 0 and no warning of a missing data folder:\n%s\n%s", code, out, errOut)
	}
}

// TestCheckHintNamesRepo: check's Try: line (and its --json report's
// hint) gives the command to run with this run's repository, quoted for
// a shell where it must be. It said `fdl-formats backfill REPO`, which a
// cron job's mail or a CI log of several repositories' checks left the
// reader to work out.
func TestCheckHintNamesRepo(t *testing.T) {
	t.Parallel()
	repoDir := filepath.Join(t.TempDir(), "my lake")
	if err := os.Rename(copyRepo(t, "lakes", "08_partitioning"), repoDir); err != nil {
		t.Fatal(err)
	}
	now := "--now=2026-11-30T00:00:00Z"
	want := "run `fdl-formats backfill " + now + " '" + repoDir + "'` to write the missing catalogs"
	_, errOut, code := runAppStderr(t, "check", now, repoDir)
	if code != exitMissing || !strings.Contains(errOut, "\nTry: "+want) {
		t.Errorf("check: exit %d, want %d and Try: %s\n%s", code, exitMissing, want, errOut)
	}
	out, _, code := runApp(t, "check", "--json", now, repoDir)
	var rep struct {
		Hint     string `json:"hint"`
		ExitCode int    `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitMissing || rep.Hint != want || rep.ExitCode != exitMissing {
		t.Errorf("check --json: exit %d, hint %q, exit_code %d (%v); want %d and %q", code, rep.Hint, rep.ExitCode, err, exitMissing, want)
	}
	for in, want := range map[string]string{"s3://lake/demo": "s3://lake/demo", "./population": "./population", "it's": `'it'\''s'`, "": "''"} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShardSaysSo: a run with --shard K/N says so, in plan's and check's
// matrix header and in backfill's report, with how many of the selected
// versions it looks at, and plan --json carries it (shard: k, n,
// selected). A shard's report said nothing of it: its "reads all 2
// versions" and "check: ok" read like the whole repository's.
func TestShardSaysSo(t *testing.T) {
	t.Parallel()
	dir, _ := historyCopy(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: 3})
	now := "--now=2026-11-30T00:00:00Z"
	out, errOut, code := runApp(t, "plan", "--json", "--shard=1/2", now, dir)
	var m struct {
		Versions []json.RawMessage             `json:"versions"`
		Shard    *struct{ K, N, Selected int } `json:"shard"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || code != exitOK {
		t.Fatalf("plan --json --shard=1/2: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	if m.Shard == nil || m.Shard.K != 1 || m.Shard.N != 2 || m.Shard.Selected != 4 {
		t.Errorf("plan --json --shard=1/2: shard %+v, want k 1, n 2, selected 4", m.Shard)
	}
	want := "shard 1/2: this run looks at " + strconv.Itoa(len(m.Versions)) + " of 4 versions (the other shards take the rest)\n"
	for _, args := range [][]string{{"plan"}, {"check"}, {"backfill", "--dry-run"}} {
		out, errOut, _ := runApp(t, append(args, "--shard=1/2", now, dir)...)
		if !strings.Contains(out, want) {
			t.Errorf("%v --shard=1/2: no line %q in\n%s\n%s", args, want, out, errOut)
		}
		// The run's summary log line names the shard too.
		if args[0] != "plan" && !strings.Contains(errOut, args[0]+" finished") || args[0] != "plan" && !strings.Contains(errOut, "shard=1/2 versions_selected=4") {
			t.Errorf("%v --shard=1/2: the log's summary names no shard:\n%s", args, errOut)
		}
	}
	out, _, _ = runApp(t, "plan", "--json", now, dir)
	if strings.Contains(out, `"shard"`) {
		t.Errorf("plan --json without --shard names a shard:\n%s", out)
	}
	if out, _, _ = runApp(t, "plan", now, dir); strings.Contains(out, "shard") {
		t.Errorf("plan without --shard names a shard:\n%s", out)
	}
}
