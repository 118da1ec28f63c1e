package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/open"
)

// stallTimeoutEnv names the environment variable that sets --stall-timeout.
const stallTimeoutEnv = "FDL_FORMATS_STALL_TIMEOUT"

// stallTimeoutSource is $FDL_FORMATS_STALL_TIMEOUT as the source of
// --stall-timeout. It gives the flag only a valid value: the CLI library
// turns a value it cannot parse into a plain error (exit 1) before any of
// our code runs, so a bad one is left to storeOptions, which says so as a
// usage error naming the variable (exit 2, as the flag's own bad value).
type stallTimeoutSource struct{}

func (stallTimeoutSource) Lookup() (string, bool) {
	v, ok := os.LookupEnv(stallTimeoutEnv)
	if ok && badStallTimeoutEnv(v) {
		return "", false
	}
	return v, ok
}
func (stallTimeoutSource) IsFromEnv() bool { return true }
func (stallTimeoutSource) Key() string     { return stallTimeoutEnv }
func (stallTimeoutSource) String() string {
	return fmt.Sprintf("environment variable %q", stallTimeoutEnv)
}
func (stallTimeoutSource) GoString() string { return "stallTimeoutSource{}" }

// badStallTimeoutEnv: a value of the variable that is no duration of 0 or
// more (an empty one counts as unset, as the library reads it).
func badStallTimeoutEnv(v string) bool {
	if strings.TrimSpace(v) == "" {
		return false
	}
	d, err := time.ParseDuration(v)
	return err != nil || d < 0
}

// storeOptions are the global flags' options of the remote stores (read
// again by each command: a global flag may follow the command's name).
func storeOptions(cmd *cli.Command) (open.Options, error) {
	if v := os.Getenv(stallTimeoutEnv); !cmd.IsSet("stall-timeout") && badStallTimeoutEnv(v) {
		return open.Options{}, usageError{err: fmt.Errorf("$%s %q: want %s", stallTimeoutEnv, v, flagWants["stall-timeout"])}
	}
	d := cmd.Duration("stall-timeout")
	if d < 0 {
		return open.Options{}, usageError{err: fmt.Errorf("--stall-timeout %v: want %s", d, flagWants["stall-timeout"])}
	}
	return open.Options{StallTimeout: d}, nil
}

// checkTempDir refuses a $TMPDIR that names no folder. Runs make their
// work folders there (downloads, catalogs being converted and proved), and
// would create it: a TMPDIR on a disk that is not mounted, or misspelt,
// filled the root disk's folder of that name without a word. mktemp(1) and
// Go's os.MkdirTemp fail there too.
func checkTempDir() error {
	dir := os.Getenv("TMPDIR")
	if dir == "" {
		return nil // os.TempDir's /tmp
	}
	switch fi, err := os.Stat(dir); {
	case err != nil:
		return usageError{err: fmt.Errorf("$TMPDIR %q: %w; runs make their work folders there: create it or point TMPDIR at an existing folder", dir, err)}
	case !fi.IsDir():
		return usageError{err: fmt.Errorf("$TMPDIR %q is not a folder; runs make their work folders there: point TMPDIR at an existing folder", dir)}
	}
	return nil
}

// Values of the global log flags.
var (
	logLevels  = []string{"debug", "info", "warn", "error"}
	logFormats = []string{"text", "json"}
)

// newApp builds the command tree. Every subcommand lives in its own file.
func newApp() *cli.Command {
	// --version (and -v) print what the version command prints.
	cli.VersionPrinter = printVersion
	app := &cli.Command{
		Name:    "fdl-formats",
		Version: shortVersion(),
		Usage:   "keep every version of a Frozen DuckLake repository readable by every declared DuckDB",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: strings.Join(logLevels, ", ")},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: strings.Join(logFormats, " or ") + " (logs go to stderr)"},
			&cli.DurationFlag{Name: "stall-timeout", Value: store.DefaultStallTimeout, Sources: cli.NewValueSourceChain(stallTimeoutSource{}),
				Usage: "give up on an s3:// or https:// server that sends nothing for `DURATION` (no response, or no more of a file half-way) or takes no more of an upload: retried, then an error naming the file; a steady transfer is never cut; 0 turns it off"},
		},
		Commands: []*cli.Command{
			convertCommand(),
			compareCommand(),
			planCommand(), backfillCommand(), checkCommand(),
			resolveCommand(),
			versionCommand(),
			helpCommand(),
		},
		// The global flags are checked before any command runs; a mistake
		// points to the help of the command given (which lists the global
		// flags too), as the command's own flag errors do.
		Before: func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			return ctx, namedUsage(cmd, globalSettings(cmd))
		},
		// Reached only without a command, or with one that does not exist
		// (a known command runs its own Action).
		Action: func(_ context.Context, cmd *cli.Command) error {
			if name := cmd.Args().First(); name != "" {
				return usageError{err: fmt.Errorf("unknown command %q (commands: %s)", name, strings.Join(commandNames(cmd), ", "))}
			}
			return usageError{err: fmt.Errorf("no command given (commands: %s)", strings.Join(commandNames(cmd), ", "))}
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
	}
	// Every command, not only the root, turns a bad flag, a bad flag value
	// or a missing required flag into a usage error (exit 2) with a short
	// hint instead of the whole help text.
	app.OnUsageError = onUsageError
	for _, c := range app.Commands {
		c.OnUsageError = onUsageError
		action := c.Action
		c.Action = func(ctx context.Context, cmd *cli.Command) error {
			noteLogFormat(cmd)
			err := action(ctx, cmd)
			if ue, ok := err.(usageError); ok && ue.command == "" {
				ue.command = helpOf(cmd)
				return ue
			}
			return explain(ctx, err, cmd)
		}
	}
	return app
}

// helpCommand replaces the CLI library's own, so that its usage errors
// ("help --bogus", "help nosuch") exit 2 like every other command's.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, or one command's options",
		ArgsUsage: "[command]",
		HideHelp:  true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			root := cmd.Root()
			switch name := cmd.Args().First(); {
			case cmd.Args().Len() > 1:
				return usageError{err: fmt.Errorf("help takes at most one command")}
			case name == "":
				return cli.ShowRootCommandHelp(root)
			case root.Command(name) == nil:
				return usageError{err: fmt.Errorf("no help topic for %q (commands: %s)", name, strings.Join(commandNames(root), ", "))}
			default:
				return cli.ShowCommandHelp(ctx, root, name)
			}
		},
	}
}

// globalSettings checks the global flags and the environment every
// command runs in.
func globalSettings(cmd *cli.Command) error {
	if _, _, err := logSettings(cmd); err != nil {
		return err
	}
	if err := checkTempDir(); err != nil {
		return err
	}
	_, err := storeOptions(cmd)
	return err
}

// namedUsage gives a usage error of the root's checks the command the run
// was given, if any: `fdl-formats check --stall-timeout=-1s` said `Try:
// fdl-formats --help`, where `check --stall-timeout=abc` (a value the
// library cannot parse) says `Try: fdl-formats check --help`.
func namedUsage(root *cli.Command, err error) error {
	ue, ok := err.(usageError)
	if !ok || ue.command != "" {
		return err
	}
	if sub := root.Command(root.Args().First()); sub != nil {
		ue.command = helpOf(sub)
	}
	return ue
}

func onUsageError(_ context.Context, cmd *cli.Command, err error, _ bool) error {
	return usageError{err: rewordFlagError(cmd, err), command: helpOf(cmd)}
}

// helpOf is the command whose --help explains cmd's usage.
func helpOf(cmd *cli.Command) string {
	if cmd.Name == "help" {
		return cmd.Root().Name
	}
	return cmd.FullName()
}

func commandNames(cmd *cli.Command) []string {
	var names []string
	for _, c := range cmd.Commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// logSettings reads the global log flags; a value outside the documented
// ones is a usage error, never silently replaced by the default.
func logSettings(cmd *cli.Command) (slog.Level, string, error) {
	var level slog.Level
	lv, format := strings.ToLower(cmd.String("log-level")), strings.ToLower(cmd.String("log-format"))
	if !slices.Contains(logLevels, lv) || level.UnmarshalText([]byte(lv)) != nil {
		return 0, "", usageError{err: fmt.Errorf("--log-level %q: want one of %s", cmd.String("log-level"), strings.Join(logLevels, ", "))}
	}
	if !slices.Contains(logFormats, format) {
		return 0, "", usageError{err: fmt.Errorf("--log-format %q: want one of %s", cmd.String("log-format"), strings.Join(logFormats, ", "))}
	}
	return level, format, nil
}

// logger builds the slog logger from the global flags (checked before any
// command runs); logs go to stderr so that stdout carries only results.
func logger(cmd *cli.Command) *slog.Logger {
	var w io.Writer = os.Stderr
	if cmd.Root().ErrWriter != nil {
		w = cmd.Root().ErrWriter
	}
	return loggerTo(cmd, w)
}

// loggerTo is logger writing to w. The text handler quotes a value
// holding a control character, but keeps DEL as it is, and the JSON
// handler keeps DEL and the C1 characters (CSI among them): a record
// passes controlEscaper, as stdout does.
func loggerTo(cmd *cli.Command, w io.Writer) *slog.Logger {
	level, format, _ := logSettings(cmd)
	w = controlEscaper{w: w}
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// logFormatKey is the root command's Metadata key of the flag runMain
// reads to print the run's final error as the logs are (reportError).
const logFormatKey = "json-logs"

// setLogFormatSink gives app the flag its command sets (noteLogFormat).
func setLogFormatSink(app *cli.Command, jsonLogs *atomic.Bool) {
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[logFormatKey] = jsonLogs
}

// noteLogFormat records, before a command runs, whether its logs are JSON
// (the global flags are known by then, wherever they were given).
func noteLogFormat(cmd *cli.Command) {
	if b, ok := cmd.Root().Metadata[logFormatKey].(*atomic.Bool); ok {
		_, format, err := logSettings(cmd)
		b.Store(err == nil && format == "json")
	}
}
