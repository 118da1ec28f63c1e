// Command fdl-formats keeps every version of a Frozen DuckLake repository
// readable by every DuckDB its publisher supports: it converts frozen catalogs
// between DuckLake formats, proves the result equivalent, and backfills and
// checks whole repositories.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newApp().Run(ctx, os.Args)
	code := exitCode(err)
	if err != nil && code != exitOK {
		fmt.Fprintln(os.Stderr, renderError(err))
	}
	os.Exit(code)
}
