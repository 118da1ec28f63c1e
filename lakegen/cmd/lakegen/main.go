// Command lakegen writes the demo FDL repository, or one of the benchmark
// repositories, into a folder that must be absent or empty.
//
//	go run ./lakegen/cmd/lakegen DIR
//	go run ./lakegen/cmd/lakegen -rows 10000000 -files 8 DIR   # one large version
//	go run ./lakegen/cmd/lakegen -history 20 DIR               # 20 versions, 10M rows, 40 files
//	go run ./lakegen/cmd/lakegen -wide 300 DIR                 # 300 tables, ~3,500 snapshots
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

func main() {
	rows := flag.Int("rows", 0, "write the large benchmark repository with this many rows instead of the demo")
	files := flag.Int("files", 8, "data files of the large repository")
	history := flag.Int("history", 0, "write the history benchmark repository with this many versions (each appends -history-rows rows in 2 files; every 5th deletes id % 997 = v)")
	historyRows := flag.Int("history-rows", 500_000, "rows each version of the history repository appends")
	deleteEvery := flag.Int("history-delete-every", 5, "every this many versions of the history repository also delete (negative: never, an append-only history)")
	wide := flag.Int("wide", 0, "write the wide benchmark repository with this many tables (8 single-row inserts each; every third also 4 ADD COLUMNs and 4 deletes)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: lakegen [-rows N [-files F] | -history V [-history-rows N] [-history-delete-every K] | -wide T] DIR\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	var (
		res *lakegen.Result
		err error
	)
	switch {
	case *history > 0:
		res, err = lakegen.History(ctx, flag.Arg(0), lakegen.HistoryOptions{Versions: *history, RowsPerVersion: *historyRows, DeleteEvery: *deleteEvery})
	case *wide > 0:
		res, err = lakegen.Wide(ctx, flag.Arg(0), lakegen.WideOptions{Tables: *wide})
	case *rows > 0:
		res, err = lakegen.Large(ctx, flag.Arg(0), *rows, *files)
	default:
		res, err = lakegen.Repository(ctx, flag.Arg(0), lakegen.Demo())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		if ctx.Err() != nil {
			os.Exit(130)
		}
		os.Exit(1)
	}
	for _, v := range res.Versions {
		fmt.Printf("version %d %s snapshots %d..%d\n", v.Seq, v.ID, v.Snapshots[0], v.Snapshots[1])
	}
	last := res.Snapshots[len(res.Snapshots)-1]
	names := make([]string, 0, len(last.Tables))
	for name := range last.Tables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Printf("  %s: %d rows at snapshot %d\n", name, last.Tables[name].Rows, last.ID)
	}
	fmt.Fprintf(os.Stderr, "wrote %s in %s\n", res.Dir, time.Since(start).Round(time.Millisecond))
}
