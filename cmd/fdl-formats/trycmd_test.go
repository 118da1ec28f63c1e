package main

import (
	"context"
	"errors"
	"testing"

	"github.com/urfave/cli/v3"
)

// tryHint runs args with the app's flags, its command's action replaced
// by one that fails with hint (as a library error's Hint), and returns
// the hint the run's error gives (explain's).
func tryHint(t *testing.T, hint string, args ...string) string {
	t.Helper()
	app := newApp()
	var got string
	for _, c := range app.Commands {
		c.Action = func(ctx context.Context, cmd *cli.Command) error {
			got = errorHint(explain(ctx, hintedError{err: errors.New("failed"), hint: hint}, cmd))
			return nil
		}
	}
	if err := app.Run(context.Background(), append([]string{"fdl-formats"}, args...)); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return got
}

// TestTryLineRepeatsFlags: a Try: line's command repeats the run's flags
// that the same run needs. It said `fdl-formats backfill REPO` with the
// repository alone: copied, it ran at AWS instead of the run's
// --endpoint, with another cache, judging until as of today.
func TestTryLineRepeatsFlags(t *testing.T) {
	t.Setenv(stallTimeoutEnv, "")
	run := []string{"--stall-timeout=5m", "--log-level=error", "check", "--endpoint", "http://127.0.0.1:9000", "--virtual-hosted",
		"--cache", "/tmp/my cache", "--now=2026-11-30", "--formats=0.4,1.0", "--jobs=3", "--allow-lossy=0.3-stats", "--json", "s3://b/lake"}
	// In the order of the command's help.
	const endpoint, cache = "--endpoint=http://127.0.0.1:9000 --virtual-hosted --allow-lossy=0.3-stats", "'--cache=/tmp/my cache'"
	for _, tc := range []struct{ hint, want string }{
		// Another command: access, judging and selection, not --jobs or --json.
		{"run `fdl-formats backfill REPO` to write the missing catalogs",
			"run `fdl-formats --stall-timeout=5m0s backfill --formats=0.4,1.0 --now=2026-11-30 " + endpoint + " " + cache + " s3://b/lake` to write the missing catalogs"},
		// Its own selection: not the run's.
		{"check it (`fdl-formats check --versions 01ab REPO`), which",
			"check it (`fdl-formats --stall-timeout=5m0s check --versions 01ab --now=2026-11-30 " + endpoint + " " + cache + " s3://b/lake`), which"},
		// The same command again: every flag the run set.
		{"run `fdl-formats check REPO` again",
			"run `fdl-formats --stall-timeout=5m0s check --json --formats=0.4,1.0 --now=2026-11-30 --jobs=3 " + endpoint + " " + cache + " s3://b/lake` again"},
		// Not a command line: as it was.
		{"`fdl-formats backfill` cannot help", "`fdl-formats backfill` cannot help"},
	} {
		if got := tryHint(t, tc.hint, run...); got != tc.want {
			t.Errorf("hint %q:\n got %s\nwant %s", tc.hint, got, tc.want)
		}
	}
	// The stall timeout the environment gives is the environment's.
	t.Setenv(stallTimeoutEnv, "5m")
	if got, want := tryHint(t, "run `fdl-formats plan REPO`", "plan", "./lake"), "run `fdl-formats plan ./lake`"; got != want {
		t.Errorf("with $%s: got %s, want %s", stallTimeoutEnv, got, want)
	}
}

// TestTryLineFromResolve: resolve's hints name the publisher's commands
// (`fdl-formats backfill REPO`) with the run's repository and the access
// flags resolve shares with them (--endpoint, --virtual-hosted,
// --max-spill, the global --stall-timeout), not resolve's own (--duckdb,
// --version) nor its --data, which names the readers' DATA_PATH, not a
// local folder of the data files. They said `fdl-formats backfill` alone,
// which went to AWS instead of the run's endpoint.
func TestTryLineFromResolve(t *testing.T) {
	t.Setenv(stallTimeoutEnv, "")
	run := []string{"--stall-timeout=5m", "resolve", "--duckdb=1.5.1", "--version=2", "--data=https://cdn.example.org/data/",
		"--endpoint", "http://127.0.0.1:9000", "--virtual-hosted", "--max-spill=5GiB", "s3://b/lake"}
	const flags = "--endpoint=http://127.0.0.1:9000 --virtual-hosted --max-spill=5GiB s3://b/lake"
	got := tryHint(t, "the publisher runs `fdl-formats backfill REPO` (`fdl-formats plan REPO` says if it is refused)", run...)
	want := "the publisher runs `fdl-formats --stall-timeout=5m0s backfill " + flags + "` (`fdl-formats --stall-timeout=5m0s plan " + flags + "` says if it is refused)"
	if got != want {
		t.Errorf("resolve's hint:\n got %s\nwant %s", got, want)
	}
}

// TestTryLineBackfillSigned: a Try: line's backfill, which writes, leaves
// out the run's --no-sign-request (backfill refuses it: the publisher runs
// it with credentials); a dry run, which writes nothing, keeps it.
func TestTryLineBackfillSigned(t *testing.T) {
	t.Setenv(stallTimeoutEnv, "")
	for _, tc := range []struct {
		args       []string
		hint, want string
	}{
		{[]string{"check", "--no-sign-request", "--now=2026-11-30", "s3://b/lake"}, "run `fdl-formats backfill REPO` to write",
			"run `fdl-formats backfill --now=2026-11-30 s3://b/lake` to write"},
		{[]string{"check", "--no-sign-request", "s3://b/lake"}, "(`fdl-formats backfill --dry-run REPO` lists them)",
			"(`fdl-formats backfill --dry-run --no-sign-request s3://b/lake` lists them)"},
		{[]string{"backfill", "--dry-run", "--no-sign-request", "s3://b/lake"}, "run `fdl-formats backfill REPO` again",
			"run `fdl-formats backfill --no-sign-request --dry-run s3://b/lake` again"},
		{[]string{"check", "--no-sign-request", "s3://b/lake"}, "run `fdl-formats check REPO` again",
			"run `fdl-formats check --no-sign-request s3://b/lake` again"},
	} {
		if got := tryHint(t, tc.hint, tc.args...); got != tc.want {
			t.Errorf("%v, hint %q:\n got %s\nwant %s", tc.args, tc.hint, got, tc.want)
		}
	}
}

// TestTryLineOwnFlags: a Try: line's command line whose own words give a
// flag the run set (the same run with --endpoint mended) gives it once,
// its own, beside the run's other flags, for resolve too, which takes
// its own flags (--duckdb) again. It gave the run's --endpoint after its
// own, and resolve's command line the repository alone.
func TestTryLineOwnFlags(t *testing.T) {
	t.Setenv(stallTimeoutEnv, "")
	for _, tc := range []struct {
		args       []string
		hint, want string
	}{
		{[]string{"plan", "--endpoint=127.0.0.1:9000", "--now=2026-11-30", "--formats=0.4", "s3://b/lake"}, "`fdl-formats plan --endpoint=http://127.0.0.1:9000 REPO`",
			"`fdl-formats plan --endpoint=http://127.0.0.1:9000 --formats=0.4 --now=2026-11-30 s3://b/lake`"},
		{[]string{"resolve", "--duckdb=1.5.1", "--endpoint=127.0.0.1:9000", "s3://b/lake"}, "`fdl-formats resolve --endpoint=http://127.0.0.1:9000 REPO`",
			"`fdl-formats resolve --endpoint=http://127.0.0.1:9000 --duckdb=1.5.1 s3://b/lake`"},
		// Its own selection: the run's access and judging flags only.
		{[]string{"check", "--endpoint=http://127.0.0.1:9000", "--now=2026-11-30", "--formats=0.4", "--json", "s3://b/lake"}, "`fdl-formats check --versions 01ab REPO`",
			"`fdl-formats check --versions 01ab --now=2026-11-30 --endpoint=http://127.0.0.1:9000 s3://b/lake`"},
	} {
		if got := tryHint(t, tc.hint, tc.args...); got != tc.want {
			t.Errorf("%v, hint %q:\n got %s\nwant %s", tc.args, tc.hint, got, tc.want)
		}
	}
}

// TestTryFlagsDefinedAlike: tryFlags repeats a run's flag in another
// command's Try: line only where that command defines it the same way
// (flagDefinition: type and usage), so a help text edited in one command
// alone would drop --endpoint or --cache from every Try: line to the
// others without a word, and the copied line would run against AWS or
// another cache. Every flag of flagRoles is defined alike by every command
// of a repository (the Try: lines' commands, ArgsUsage REPO) that has it,
// but for the differences meant.
func TestTryFlagsDefinedAlike(t *testing.T) {
	// resolve's --data names the readers' DATA_PATH (a URL or folder),
	// not the local folder of the data files plan, backfill and check
	// take: not repeated between them.
	meant := map[string]string{"data": "resolve"}
	app := newApp()
	for name := range flagRoles {
		defs := map[string][]string{}
		for _, c := range app.Commands {
			if c.ArgsUsage != "REPO" || meant[name] == c.Name {
				continue
			}
			for _, f := range c.Flags {
				if f.Names()[0] == name {
					d := flagDefinition(f)
					defs[d] = append(defs[d], c.Name)
				}
			}
		}
		if len(defs) > 1 {
			t.Errorf("--%s is defined %d ways, so a Try: line of one command drops the run's flag of another: %v", name, len(defs), defs)
		}
		if _, empty := defs[""]; empty {
			t.Errorf("--%s has no type and usage in %v: tryFlags never repeats it", name, defs[""])
		}
	}
}
