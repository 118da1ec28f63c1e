package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v3"
)

// newApp builds the command tree. Every subcommand lives in its own file.
func newApp() *cli.Command {
	return &cli.Command{
		Name:  "fdl-formats",
		Usage: "keep every version of a Frozen DuckLake repository readable by every declared DuckDB",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "log-level", Value: "info", Usage: "debug, info, warn or error"},
			&cli.StringFlag{Name: "log-format", Value: "text", Usage: "text or json (logs go to stderr)"},
		},
		Commands: []*cli.Command{
			convertCommand(),
			compareCommand(),
			planCommand(), backfillCommand(), checkCommand(),
			resolveCommand(),
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		OnUsageError: func(_ context.Context, _ *cli.Command, err error, _ bool) error {
			return usageError{err}
		},
	}
}

// logger builds the slog logger from the global flags; logs go to stderr so
// that stdout carries only results.
func logger(cmd *cli.Command) *slog.Logger {
	var w io.Writer = os.Stderr
	if cmd.Root().ErrWriter != nil {
		w = cmd.Root().ErrWriter
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(cmd.String("log-level")))
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(cmd.String("log-format"), "json") {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
