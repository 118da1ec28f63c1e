package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/urfave/cli/v3"
)

// versionText says which build this is: the module version ("(devel)"
// for a build from a checkout), the VCS revision it was built from (with
// its time, and "modified" for uncommitted changes), the DuckDB linked
// in, and the Go release and platform. Operators had no way to ask.
func versionText() string {
	version, revision := buildVersion()
	return fmt.Sprintf("fdl-formats %s\nrevision: %s\nduckdb: %s\ngo: %s %s/%s\n",
		version, revision, bindings.LibraryVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// shortVersion is the help's VERSION line: the module version and the
// revision's first 12 digits.
func shortVersion() string {
	version, revision := buildVersion()
	if len(revision) >= 12 && !strings.HasPrefix(revision, "(") {
		return version + " " + revision[:12]
	}
	return version
}

// buildVersion reads the module version and VCS revision from the
// binary's build information. `go build` records the revision when it
// builds in a git clone (not in a git worktree, nor with -buildvcs=false:
// the Makefile passes -buildvcs=auto).
func buildVersion() (version, revision string) {
	version = "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		var when, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		if revision != "" && (when != "" || modified != "") {
			revision += " (" + strings.TrimPrefix(when+modified, ", ") + ")"
		}
	}
	if revision == "" {
		revision = "(unknown: built without VCS information)"
	}
	return version, revision
}

// printVersion is --version's and the version command's output.
func printVersion(cmd *cli.Command) {
	fmt.Fprint(cmd.Root().Writer, versionText())
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version, the VCS revision it was built from, and the DuckDB linked in (as --version)",
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Len() > 0 {
				return usageError{err: fmt.Errorf("version takes no arguments")}
			}
			printVersion(cmd)
			return nil
		},
	}
}
