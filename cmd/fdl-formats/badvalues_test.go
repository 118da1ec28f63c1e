package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestStallTimeoutEnvUsage: a $FDL_FORMATS_STALL_TIMEOUT that is no
// duration of 0 or more exits 2 (a bad flag value, as --stall-timeout abc
// does), one line naming the variable and a pointer to --help; it exited 1
// with the CLI library's message. The flag, when given, wins over it.
func TestStallTimeoutEnvUsage(t *testing.T) {
	repoDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(repoDir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  string
		args []string
		code int
	}{
		{"abc", []string{"plan", repoDir}, exitUsage},
		{"-1s", []string{"plan", repoDir}, exitUsage},
		{"abc", []string{"resolve", repoDir}, exitUsage},
		{"abc", []string{"--stall-timeout", "1m", "plan", repoDir}, exitOK},
		{"abc", []string{"plan", "--stall-timeout=1m", repoDir}, exitOK},
		{"90s", []string{"plan", repoDir}, exitOK},
	} {
		t.Run(tc.env+" "+strings.Join(tc.args[:len(tc.args)-1], " "), func(t *testing.T) {
			t.Setenv(stallTimeoutEnv, tc.env)
			_, stderr, code := runAppStderr(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if tc.code != exitUsage {
				return
			}
			want := `$FDL_FORMATS_STALL_TIMEOUT "` + tc.env + `": want a duration of 0 (off) or more`
			if !strings.Contains(stderr, want) || !strings.Contains(stderr, "--help") || strings.Count(stderr, "\n") > 1 {
				t.Errorf("stderr %q, want one line saying %q and a pointer to --help", stderr, want)
			}
		})
	}
}

// TestResolveMalformedDuckDB: a --duckdb that is no version is a usage
// error saying so; it was "filter names nothing in the repository".
func TestResolveMalformedDuckDB(t *testing.T) {
	repoDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(repoDir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runAppStderr(t, "resolve", "--duckdb", "abc", repoDir)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, stderr)
	}
	// The value once: it said "...: malformed version: abc" after it.
	want := "Error: --duckdb: malformed DuckDB version \"abc\" (want one such as 1.4.3)\nTry: fdl-formats resolve --help"
	if stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

// TestBackfillSummaryCountsOnce: a cell whose conversion finds its
// version's frozen catalog contradicting version.json (format 1.0 said to
// be 0.4) fails, and the run puts the version in error; the summary line
// counted that cell twice ("1 failed, ..., 1 in error" for one cell). It
// now counts it once, as failed, and lists it once; the exit code stays 1.
func TestBackfillSummaryCountsOnce(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "01_primitive_types")
	ids, err := os.ReadDir(filepath.Join(repoDir, "versions"))
	if err != nil || len(ids) != 1 {
		t.Fatalf("versions: %v %v", ids, err)
	}
	testlakes.EditVersion(t, filepath.Join(repoDir, "versions", ids[0].Name()), func(m map[string]any) {
		m["ducklake"].(map[string]any)["format"] = "0.4"
	})
	out, stderr, code := runAppStderr(t, "backfill", "--formats=1.1", repoDir)
	if code != exitFailure {
		t.Fatalf("backfill: exit %d, want %d\n%s\n%s", code, exitFailure, out, stderr)
	}
	if !strings.Contains(out, "failed        versions/"+ids[0].Name()+"/catalogs/1.1.duckdb (at convert: ") {
		t.Errorf("the cell is not listed as failed at convert:\n%s", out)
	}
	if strings.Contains(out, "\nerror ") {
		t.Errorf("the failed cell is listed again as in error:\n%s", out)
	}
	if want := "0 written, 0 already there, 0 planned, 1 failed, 0 interrupted, 0 refused, 0 in error\n"; !strings.HasSuffix(out, want) {
		t.Errorf("summary:\n%s\nwant it to end %q", out, want)
	}
}

// TestBackfillSaysExpired: a cell past its format's until is not
// written, and the summary line and the run's log record say how many
// there were; a backfill asked for exactly such a cell said "0 written,
// ..., 0 in error" and nothing else.
func TestBackfillSaysExpired(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "01_primitive_types") // created 2026-10-31, 0.3 until 2026-06-30
	var out, errOut strings.Builder
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errOut
	if code := runMain(app, []string{"fdl-formats", "--log-format=json", "backfill", "--formats=0.3", remoteNow, repoDir}, &errOut, interruptGrace); code != exitOK {
		t.Fatalf("backfill: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if want := "nothing to do: no catalog missing\n0 written, 0 already there, 0 planned, 0 failed, 0 interrupted, 0 refused, 0 in error, 1 expired (past their format's until: not written)\n"; out.String() != want {
		t.Errorf("report %q, want %q", out.String(), want)
	}
	wantSummary(t, errOut.String(), "backfill finished", map[string]any{"written": 0.0, "expired": 1.0})
	if m, _ := filepath.Glob(filepath.Join(repoDir, "versions", "*", "catalogs")); len(m) != 0 {
		t.Errorf("catalogs written past until: %v", m)
	}
}

// TestBackfillSaysPresent: a backfill run again with nothing left to
// write says so, and counts the catalogs published before it, in its
// report's last line and in the run's log record. The second run said
// "0 written, 0 already there, ..." and nothing else, which read as if it
// had found none of the catalogs the first had written ("already there"
// counts the cells another run published during this one).
func TestBackfillSaysPresent(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "01_primitive_types")
	run := func() (string, string) {
		t.Helper()
		var out, errOut strings.Builder
		app := newApp()
		app.Writer, app.ErrWriter = &out, &errOut
		if code := runMain(app, []string{"fdl-formats", "--log-format=json", "backfill", "--formats=1.1", "--jobs=1", remoteNow, repoDir}, &errOut, interruptGrace); code != exitOK {
			t.Fatalf("backfill: exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	first, firstLog := run()
	if !strings.HasPrefix(first, "written ") || !strings.HasSuffix(first, "1 written, 0 already there, 0 planned, 0 failed, 0 interrupted, 0 refused, 0 in error\n") {
		t.Fatalf("first backfill's report:\n%s", first)
	}
	wantSummary(t, firstLog, "backfill finished", map[string]any{"written": 1.0, "present": 0.0})
	again, againLog := run()
	if want := "nothing to do: no catalog missing\n0 written, 0 already there, 0 planned, 0 failed, 0 interrupted, 0 refused, 0 in error, 1 present (published before this run)\n"; again != want {
		t.Errorf("second backfill's report %q, want %q", again, want)
	}
	wantSummary(t, againLog, "backfill finished", map[string]any{"written": 0.0, "already_there": 0.0, "present": 1.0})
}

// TestTempDirMissing: a $TMPDIR that names no folder (a disk not mounted,
// a misspelt path) exits 2 naming it, and nothing is created there; every
// run created it and put its work folders in it without a word.
func TestTempDirMissing(t *testing.T) {
	repoDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(repoDir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, tmpdir, want string
		code               int
	}{
		{"missing", filepath.Join(parent, "mnt", "fast"), "no such file or directory", exitUsage},
		{"file", file, "is not a folder", exitUsage},
		{"folder", parent, "", exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TMPDIR", tc.tmpdir)
			_, stderr, code := runAppStderr(t, "plan", repoDir)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if tc.code == exitOK {
				return
			}
			if want := `$TMPDIR "` + tc.tmpdir + `"`; !strings.Contains(stderr, want) || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want %q and %q", stderr, want, tc.want)
			}
			if _, err := os.Stat(filepath.Join(parent, "mnt")); err == nil {
				t.Errorf("the run created %s", filepath.Join(parent, "mnt"))
			}
		})
	}
}

// TestBackfillReportsVersionIssues: a version whose dataset.json no longer
// has the sha256 version.json gives is planned as before (plan lists the
// mismatch; its catalogs are written, exit 0), and check fails on it; the
// backfill published into it without a word (trial 2 F3.10). It now lists
// the issue, in its text output and as a warning in its log.
func TestBackfillReportsVersionIssues(t *testing.T) {
	repoDir := copyRepo(t, "lakes", "01_primitive_types")
	ids, err := os.ReadDir(filepath.Join(repoDir, "versions"))
	if err != nil || len(ids) != 1 {
		t.Fatalf("versions: %v %v", ids, err)
	}
	id := ids[0].Name()
	testlakes.EditVersion(t, filepath.Join(repoDir, "versions", id), func(m map[string]any) {
		m["dataset"].(map[string]any)["sha256"] = strings.Repeat("0", 64)
	})
	var out, errOut strings.Builder
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errOut
	err = app.Run(t.Context(), []string{"fdl-formats", "backfill", "--formats=1.1", repoDir})
	if code := exitCode(err); code != exitOK {
		t.Fatalf("backfill: exit %d, want %d\n%s\n%s", code, exitOK, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "written       versions/"+id+"/catalogs/1.1.duckdb") {
		t.Errorf("the catalog is not written:\n%s", out.String())
	}
	if want := "issue         " + id + " mismatch: versions/" + id + "/dataset.json: sha256 "; !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "1 issue(s) with versions' other files") {
		t.Errorf("stdout does not list the issue (%q):\n%s", want, out.String())
	}
	if !strings.Contains(errOut.String(), "level=WARN") || !strings.Contains(errOut.String(), "problem=mismatch") {
		t.Errorf("no warning in the log:\n%s", errOut.String())
	}
}

// TestShardUsageNamesFlag: a --shard value the flag cannot take names the
// flag as every other bad value does (`Error: --jobs "abc": want …`); it
// said `shard "0/3": want K/N …`.
func TestShardUsageNamesFlag(t *testing.T) {
	repoDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(repoDir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"0/3", "4/3", "1"} {
		_, stderr, code := runAppStderr(t, "plan", "--shard", v, repoDir)
		if want := `Error: --shard "` + v + `": want K/N with 1 <= K <= N`; code != exitUsage || !strings.HasPrefix(stderr, want) {
			t.Errorf("--shard %s: exit %d, stderr %q; want %d and %q", v, code, stderr, exitUsage, want)
		}
	}
}

// TestEndpointRefusalHint: an endpoint or prefix the S3 store refuses
// (credentials or a path in the endpoint URL, a ? in the prefix) gives a
// Try: line about that, not the hint for a REPO that holds no fdl.json
// ("give the folder that holds fdl.json …"), which it printed though the
// repository was never asked for anything. An --endpoint so refused is a
// usage error (exit 2) naming the flag, its Try: line the command's help
// (TestS3EndpointFlagUsage); the rest exit 6.
func TestEndpointRefusalHint(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		try  string
	}{
		{[]string{"--endpoint", "http://key:secret@127.0.0.1:9", "s3://b/lake"}, exitUsage, "Error: --endpoint http://127.0.0.1:9: credentials in the endpoint URL are not supported"},
		{[]string{"--endpoint", "http://127.0.0.1:9/minio", "s3://b/lake"}, exitUsage, "Error: --endpoint http://127.0.0.1:9/minio: a path, query or fragment after the host"},
		{[]string{"--endpoint", "ftp://127.0.0.1:9", "s3://b/lake"}, exitUsage, "Error: --endpoint ftp://127.0.0.1:9: not an http:// or https:// URL"},
		{[]string{"--endpoint", "http://127.0.0.1:9", "s3://b/q?x"}, exitInvalid, "Try: move the repository under a prefix"},
		{[]string{"http://user:secret@127.0.0.1:9/lake"}, exitInvalid, "Try: fdl-formats reads public web sites only"},
	} {
		t.Setenv("AWS_REGION", "us-east-1")
		_, stderr, code := runAppStderr(t, append([]string{"plan"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.try) || strings.Contains(stderr, "holds fdl.json") || strings.Contains(stderr, "secret@") {
			t.Errorf("plan %v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.try)
		}
		if tc.code == exitUsage && !strings.Contains(stderr, "\nTry: fdl-formats plan --help") {
			t.Errorf("plan %v: stderr %q; want a Try: line with the command's help", tc.args, stderr)
		}
	}
}
