// Command lakegen writes the demo FDL repository (or, with -rows, the large
// benchmark repository) into a folder that must be absent or empty.
//
//	go run ./lakegen/cmd/lakegen DIR
//	go run ./lakegen/cmd/lakegen -rows 10000000 -files 8 DIR
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
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: lakegen [-rows N [-files F]] DIR\n")
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
	if *rows > 0 {
		res, err = lakegen.Large(ctx, flag.Arg(0), *rows, *files)
	} else {
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
