package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageErrors: every kind of command-line mistake, on every command,
// exits 2 with one short error and a pointer to the help, never the whole
// help text, and runs nothing.
func TestUsageErrors(t *testing.T) {
	repoDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(repoDir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	catalog := filepath.Join(repoDir, "a.duckdb") // never opened: the usage is checked first
	out := filepath.Join(t.TempDir(), "out.duckdb")
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown flag on plan", []string{"plan", "--bogus", repoDir}, "Error: unknown flag --bogus\n"},
		{"unknown one-letter flag", []string{"plan", "-x", repoDir}, "Error: unknown flag -x\n"},
		{"unknown flag on backfill", []string{"backfill", "--bogus", repoDir}, "-bogus"},
		{"unknown flag on check", []string{"check", "--bogus", repoDir}, "-bogus"},
		{"unknown flag on convert", []string{"convert", "--bogus", catalog, "--to", "1.0", "-o", out}, "-bogus"},
		{"unknown flag on resolve", []string{"resolve", "--bogus", repoDir}, "-bogus"},
		{"unknown flag on compare", []string{"compare", "--bogus", catalog, catalog}, "-bogus"},
		{"unknown global flag", []string{"--bogus", "plan", repoDir}, "-bogus"},
		{"convert without --to", []string{"convert", catalog, "-o", out}, `Required flag "to" not set`},
		// A value the CLI library cannot parse, in the words of the other
		// usage errors (it said `invalid value "abc" for flag -jobs:
		// strconv.ParseInt: parsing "abc": invalid syntax`).
		{"--jobs not a number", []string{"plan", "--jobs", "abc", repoDir}, "Error: --jobs \"abc\": want a whole number ≥ 1\n"},
		{"-j not a number", []string{"check", "-j", "1.5", repoDir}, "Error: --jobs \"1.5\": want a whole number ≥ 1\n"},
		{"--jobs not a number on backfill", []string{"backfill", "--jobs=abc", repoDir}, "Error: --jobs \"abc\": want a whole number ≥ 1\n"},
		{"--jobs out of range", []string{"plan", "--jobs", "99999999999999999999", repoDir}, "Error: --jobs \"99999999999999999999\": want a whole number ≥ 1 (this one is out of range)\n"},
		{"--jobs 0", []string{"plan", "--jobs", "0", repoDir}, "Error: --jobs 0: want a whole number ≥ 1\n"},
		{"--max-rows not a number", []string{"compare", "--max-rows", "x", catalog, catalog}, "Error: --max-rows \"x\": want a whole number ≥ 1\n"},
		{"--max-rows 0", []string{"compare", "--max-rows", "0", catalog, catalog}, "Error: --max-rows 0: want a whole number ≥ 1\n"},
		{"--json not true or false", []string{"check", "--json=maybe", repoDir}, "Error: --json \"maybe\": want true or false (or the flag alone for true)\n"},
		{"compare --data not a folder", []string{"compare", "--data", filepath.Join(repoDir, "nodata"), catalog, catalog}, "--data " + filepath.Join(repoDir, "nodata") + ": no such folder"},
		{"compare --data-b a file", []string{"compare", "--data", repoDir, "--data-b", filepath.Join(repoDir, "fdl.json"), catalog, catalog}, "--data-b " + filepath.Join(repoDir, "fdl.json") + ": a file, not a folder"},
		// Both cache flags: one of them would be ignored. Refused before
		// the repository is opened (this one does not exist).
		{"--cache with --no-cache on check", []string{"check", "--cache", out, "--no-cache", repoDir}, "--no-cache contradict each other"},
		{"--no-cache with --cache on backfill", []string{"backfill", "--no-cache", "--cache=" + out, filepath.Join(repoDir, "missing")}, `--cache "` + out + `" and --no-cache`},
		{"--cache with --no-cache on compare", []string{"compare", "--cache", out, "--no-cache", catalog, catalog}, "--no-cache contradict each other"},
		// --no-cache keeps no data cache: a bound of it was ignored
		// without a word.
		{"--data-cache-max with --no-cache on check", []string{"check", "--data-cache-max", "1GiB", "--no-cache", repoDir}, `--data-cache-max "1GiB" and --no-cache contradict each other`},
		{"--no-cache with --data-cache-max on plan", []string{"plan", "--no-cache", "--data-cache-max=unlimited", filepath.Join(repoDir, "missing")}, `--data-cache-max "unlimited" and --no-cache`},
		// --max-spill bounds each DuckDB database's spill: a size, never
		// unlimited (DuckDB's own, 90% of the free disk for each).
		{"--max-spill not a size on check", []string{"check", "--max-spill", "lots", repoDir}, `Error: --max-spill: size "lots": want a positive number`},
		{"--max-spill unlimited on backfill", []string{"backfill", "--max-spill=unlimited", repoDir}, `Error: --max-spill: size "unlimited": want a positive number with an optional unit (500MB, 20GiB); there is no unlimited spill`},
		{"--max-spill 0 on compare", []string{"compare", "--max-spill", "0", catalog, catalog}, `Error: --max-spill: size "0": want a positive number`},
		{"--max-spill not a size on convert", []string{"convert", "--to", "0.3", "--dry-run", "--max-spill", "lots", catalog}, `Error: --max-spill: size "lots": want a positive number`},
		{"--max-spill 0 on resolve", []string{"resolve", "--verify", "--max-spill=0", repoDir}, `Error: --max-spill: size "0": want a positive number`},
		{"unknown command", []string{"nosuch", repoDir}, `unknown command "nosuch"`},
		{"no command", nil, "no command given"},
		{"help on an unknown command", []string{"help", "nosuch"}, `no help topic for "nosuch"`},
		{"unknown flag on help", []string{"help", "--bogus"}, "-bogus"},
		{"--log-level loud", []string{"--log-level", "loud", "plan", repoDir}, `--log-level "loud"`},
		{"--log-format xml", []string{"--log-format", "xml", "plan", repoDir}, `--log-format "xml"`},
		{"--log-format xml after the command", []string{"check", "--log-format=xml", repoDir}, `--log-format "xml"`},
		{"--stall-timeout not a duration", []string{"--stall-timeout", "soon", "check", repoDir}, "Error: --stall-timeout \"soon\": want a duration of 0 (off) or more, e.g. 2m\n"},
		{"--stall-timeout not a duration after the command", []string{"check", "--stall-timeout=5", repoDir}, "Error: --stall-timeout \"5\": want a duration of 0 (off) or more, e.g. 2m\n"},
		{"--stall-timeout negative", []string{"--stall-timeout=-1s", "plan", repoDir}, "Error: --stall-timeout -1s: want a duration of 0 (off) or more, e.g. 2m\n"},
		{"--stall-timeout negative after the command", []string{"resolve", "--stall-timeout=-1m", repoDir}, "--stall-timeout -1m0s"},
		// Values that name nothing in the repository: exit 2 as before,
		// now with the pointer to --help every other bad value has.
		{"--formats not declared", []string{"plan", "--formats", "0.5", repoDir}, `format "0.5" is not declared in fdl.json (declared: 1.0)`},
		{"--formats not declared on backfill", []string{"backfill", "--formats=1.O", repoDir}, `format "1.O" is not declared`},
		{"--versions naming none", []string{"check", "--versions", "7", repoDir}, `no version "7"`},
		{"resolve --version naming none", []string{"resolve", "--version", "9", repoDir}, `no version "9"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errOut strings.Builder
			app := newApp()
			app.Writer, app.ErrWriter = &strings.Builder{}, &errOut
			err := app.Run(t.Context(), append([]string{"fdl-formats"}, tc.args...))
			if code := exitCode(err); code != exitUsage {
				t.Fatalf("exit %d, want %d (error %v)", code, exitUsage, err)
			}
			stderr := errOut.String() + renderError(err)
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want it to say %q", stderr, tc.want)
			}
			if !strings.Contains(stderr, "--help") || strings.Contains(stderr, "OPTIONS:") || strings.Count(stderr, "\n") > 2 {
				t.Errorf("stderr should be one error and a pointer to --help, not the help text:\n%s", stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a usage error wrote the output")
			}
		})
	}
}

// TestGlobalFlagErrorsNameTheCommand: a bad global flag value the root
// checks itself (a negative --stall-timeout, a bad
// $FDL_FORMATS_STALL_TIMEOUT, --log-level, --log-format), before or after
// the command's name, points to that command's help, which lists the
// global flags too, as a value the library cannot parse after the command
// does (`check --stall-timeout=abc`). It said `Try: fdl-formats --help`.
// Without a command, or with one that does not exist, the root's help.
func TestGlobalFlagErrorsNameTheCommand(t *testing.T) {
	repoDir := t.TempDir() // never opened: the usage is checked first
	for _, tc := range []struct {
		name string
		env  string // $FDL_FORMATS_STALL_TIMEOUT
		args []string
		want string
	}{
		{"negative after the command", "", []string{"check", "--stall-timeout=-1s", repoDir}, "Error: --stall-timeout -1s: want a duration of 0 (off) or more, e.g. 2m\nTry: fdl-formats check --help"},
		{"negative before the command", "", []string{"--stall-timeout=-2m", "backfill", repoDir}, "--stall-timeout -2m0s: want a duration of 0 (off) or more, e.g. 2m\nTry: fdl-formats backfill --help"},
		{"not a duration after the command", "", []string{"plan", "--stall-timeout=abc", repoDir}, "--stall-timeout \"abc\": want a duration of 0 (off) or more, e.g. 2m\nTry: fdl-formats plan --help"},
		{"variable negative", "-1s", []string{"resolve", repoDir}, "$FDL_FORMATS_STALL_TIMEOUT \"-1s\": want a duration of 0 (off) or more, e.g. 2m\nTry: fdl-formats resolve --help"},
		{"variable not a duration", "soon", []string{"check", repoDir}, "$FDL_FORMATS_STALL_TIMEOUT \"soon\": want a duration of 0 (off) or more, e.g. 2m\nTry: fdl-formats check --help"},
		{"--log-level after the command", "", []string{"check", "--log-level=loud", repoDir}, "--log-level \"loud\": want one of debug, info, warn, error\nTry: fdl-formats check --help"},
		{"--log-format before the command", "", []string{"--log-format", "xml", "compare", repoDir, repoDir}, "--log-format \"xml\": want one of text, json\nTry: fdl-formats compare --help"},
		{"no command", "", []string{"--stall-timeout=-1s"}, "--stall-timeout -1s: want a duration of 0 (off) or more, e.g. 2m\nTry: fdl-formats --help"},
		{"unknown command", "", []string{"--stall-timeout=-1s", "nosuch"}, "--stall-timeout -1s: want a duration of 0 (off) or more, e.g. 2m\nTry: fdl-formats --help"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(stallTimeoutEnv, tc.env)
			app := newApp()
			var errOut strings.Builder
			app.Writer, app.ErrWriter = &strings.Builder{}, &errOut
			err := app.Run(t.Context(), append([]string{"fdl-formats"}, tc.args...))
			if code := exitCode(err); code != exitUsage {
				t.Fatalf("exit %d, want %d (error %v)", code, exitUsage, err)
			}
			if got := errOut.String() + renderError(err); !strings.HasSuffix(got, tc.want) {
				t.Errorf("stderr %q, want it to end %q", got, tc.want)
			}
		})
	}
}

// TestHelpFlagText: each command's --help reads as the README does. It
// printed "--now until" (the backquoted word in the usage became the
// placeholder), "(default: number of CPUs) (default: 0)" for --jobs, and
// Go's slice syntax for the lists of formats and lossy features.
func TestHelpFlagText(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    []string
		not     []string
	}{
		// plan's, convert's and compare's help said no exit code, where
		// backfill's, check's and resolve's each listed theirs.
		{"plan", []string{"--now TIME", "cells to run at once, 1 or more (default: number of CPUs)", "Exit codes: 0 the matrix shown", "4 a web server whose folders", "6 REPO is no FDL repository"}, []string{"--now until", "(default: 0)"}},
		// A scheduler acts on backfill's exit code: its help said none.
		{"backfill", []string{"--now TIME", "(default: number of CPUs)", "Exit codes: 0 every missing catalog written", "1 a cell failed", "130 interrupted"}, []string{"--now until", "(default: 0)"}},
		// A CI job maps check's exit code (docs/repository.md, In CI): its
		// help named neither 1 (a runtime failure, such as S3 credentials)
		// nor 2 nor 130.
		{"check", []string{"--now TIME", "(default: number of CPUs)", "Exit codes: 0 all good; 1 a runtime failure", "2 bad flags or arguments", "130 interrupted"}, []string{"--now until", "(default: 0)"}},
		// resolve's help named neither 1 nor 4 (a web server without
		// folder listings), which the README's exit code table gives it.
		{"resolve", []string{"1 a runtime failure", "4 a web server whose folders give no usable listing", "8 no catalog of the version"}, nil},
		{"convert", []string{"target format: 0.1, 0.2, 0.3, 0.4, 1.0, 1.1", "(repeatable): commit-info, expression-defaults,", "Exit codes: 0 written", "6 invalid input", "7 refused"}, []string{"[0.1", "[commit-info"}},
		{"compare", []string{"Exit codes: 0 equivalent", "3 not equivalent", "4 could not compare", "6 a catalog that is no DuckLake catalog"}, nil},
	} {
		t.Run(tc.command, func(t *testing.T) {
			out, stderr, code := runAppStderr(t, tc.command, "--help")
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s --help lacks %q:\n%s", tc.command, w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("%s --help says %q:\n%s", tc.command, n, out)
				}
			}
		})
	}
}
