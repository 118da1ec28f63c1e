package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:  "compare",
		Usage: "prove two frozen DuckLake catalogs equivalent: same schema, files and rows at every snapshot",
		Description: "Exit codes: 0 equivalent; 1 a runtime failure (I/O, DuckDB; also a catalog path that\n" +
			"names no file, or a catalog another DuckDB process holds open read-write); 2 bad flags or\n" +
			"arguments (--data not a folder); 3 not equivalent (also: one cannot be read while the other\n" +
			"can); 4 could not compare (a data file both name is missing or unreadable, neither\n" +
			"catalog reads, an unsupported feature; without --data a data_path that is a URL);\n" +
			"6 a catalog that is no DuckLake catalog; 130 interrupted. See docs/compare.md.",
		ArgsUsage: "A.duckdb B.duckdb",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "local data folder of the lake (overrides both catalogs' data_path)"},
			&cli.StringFlag{Name: "data-b", Usage: "local data folder for B when it differs from --data"},
			&cli.IntFlag{Name: "max-rows", Value: 5, Usage: "differing rows shown per side and table (1 or more)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "earlier-a", Usage: "an earlier version's frozen catalog of the same lake, proved equivalent to --earlier-b by a proof kept in the cache: the snapshots both pairs share are not walked again when A and B restricted to them are these two, row for row"},
			&cli.StringFlag{Name: "earlier-b", Usage: "the catalog proved equivalent to --earlier-a (see --earlier-a)"},
			maxSpillFlag(),
		}, cacheFlags()...),
		Action: runCompare,
	}
}

func runCompare(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 2 {
		return usageError{err: errors.New("compare takes exactly two catalogs: A.duckdb B.duckdb")}
	}
	a, b := cmd.Args().Get(0), cmd.Args().Get(1)
	for _, flag := range []string{"data", "data-b"} {
		// As convert: a misspelt folder made every data file missing,
		// "could not compare" (exit 4) after reading both catalogs.
		if d := cmd.String(flag); d != "" {
			if err := dataFolderFlag(flag, d); err != nil {
				return err
			}
		}
	}
	cache, err := digestStore(cmd)
	if err != nil {
		return err
	}
	var carry []compare.Carry
	switch ea, eb := cmd.String("earlier-a"), cmd.String("earlier-b"); {
	case ea != "" && eb != "":
		carry = []compare.Carry{{A: ea, B: eb}}
	case ea != "" || eb != "":
		return usageError{err: errors.New("--earlier-a and --earlier-b go together: the earlier pair's two catalogs")}
	}
	// --max-rows 0 or less was taken silently as the default, 5.
	if n := cmd.Int("max-rows"); n < 1 {
		return usageError{err: fmt.Errorf("--max-rows %d: want %s", n, flagWants["max-rows"])}
	}
	spill, err := maxSpill(cmd)
	if err != nil {
		return err
	}
	// The readers' databases come from a pool only for its spill bound:
	// each reader's goes back to it when the reader closes, and is closed
	// with it.
	engines := compare.NewEngines(2)
	defer engines.Close()
	engines.SpillAtMost(spill)
	rep, err := compare.Catalogs(ctx, a, b, compare.Options{
		Engines:     engines,
		DigestCache: cache,
		DataPath:    cmd.String("data"),
		DataPathB:   cmd.String("data-b"),
		MaxRowDiffs: int(cmd.Int("max-rows")),
		Logger:      logger(cmd),
		Carry:       carry,
	})
	// A catalog that could not be opened at all is no difference between
	// the two: the file is reported, no comparison ran.
	var oe *compare.OpenError
	if errors.As(err, &oe) {
		side := "B"
		if oe.Path == a {
			side = "A"
		}
		rep, err = &compare.Report{A: compare.CatalogInfo{Path: a}, B: compare.CatalogInfo{Path: b}}, catalogOpenError{side: side, err: oe}
	}
	err = dataPathHint(cmd, err)
	out := cmd.Root().Writer
	if cmd.Bool("json") {
		doc := struct {
			*compare.Report
			Error string `json:"error,omitempty"`
		}{Report: rep}
		if rep == nil {
			doc.Report = &compare.Report{A: compare.CatalogInfo{Path: a}, B: compare.CatalogInfo{Path: b}, Incomparable: errString(err)}
		}
		if err != nil {
			doc.Error = err.Error()
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if encErr := enc.Encode(doc); encErr != nil {
			return encErr
		}
		return err
	}
	if rep != nil && !errors.As(err, new(catalogOpenError)) {
		printReport(cmd, rep, err)
	}
	return err
}

// dataPathHint says what to do when, without --data, a catalog's data_path
// is a URL (what an FDL catalog carries): compare reads no data file over
// the network. DuckDB's error asked to INSTALL httpfs; in the readers'
// sandbox (docs/compare.md, "The readers' sandbox") it refuses to access
// the URL.
func dataPathHint(cmd *cli.Command, err error) error {
	var de *duckdb.Error
	if err == nil || cmd.String("data") != "" || !errors.As(err, &de) {
		return err
	}
	if de.Type != duckdb.ErrorTypeMissingExtension && (de.Type != duckdb.ErrorTypePermission || !strings.Contains(de.Msg, "://")) {
		return err
	}
	return hintedError{err: err, hint: "the catalogs' data_path is a URL, and compare reads data files from a local folder only: give --data DIR, the folder of the lake's data files (a repository's data_dir)"}
}

// catalogOpenError is a catalog compare could not open at all (compare.OpenError):
// exit 1 for a file that is not there or that another process holds,
// 6 for one that is not a DuckLake catalog (as convert).
type catalogOpenError struct {
	side string // "A" or "B"
	err  *compare.OpenError
}

func (e catalogOpenError) Error() string {
	detail := e.err.Reason()
	var pe *fs.PathError
	var de *duckdb.Error
	switch {
	case e.err.Cause == compare.OpenNotDuckDB:
		// The reason alone, as convert says it: DuckDB's words add
		// nothing, or mislead (a .json file, which DuckDB attaches as a
		// view: "Cannot launch in-memory database in read-only mode!").
	case errors.As(e.err, &pe):
		detail = pe.Error()
	case errors.As(e.err, &de):
		detail += ": " + oneline.First(de.Error())
	case e.err.Cause == compare.OpenLocked:
		detail += ": " + strings.TrimPrefix(e.err.Err.Error(), compare.ErrIncomparable.Error()+": ")
	}
	return fmt.Sprintf("catalog %s %s cannot be opened: %s", e.side, e.err.Path, detail)
}

func (e catalogOpenError) Unwrap() error { return e.err }

// Hint says what to do about a catalog another process holds.
func (e catalogOpenError) Hint() string {
	if e.err.Cause == compare.OpenLocked {
		return "compare it once the process holding it (named above) has closed it"
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// printReport writes the human-readable report: a summary line, then each
// difference with the first differing rows of the tables that differ.
func printReport(cmd *cli.Command, rep *compare.Report, err error) {
	out := cmd.Root().Writer
	reportf(out, "A: %s (format %s)\nB: %s (format %s)\n", rep.A.Path, rep.A.Format, rep.B.Path, rep.B.Format)
	reportf(out, "readers: %v\n", rep.Readers)
	for _, n := range rep.ReaderNotes {
		reportf(out, "  note: %s\n", n)
	}
	matched, differed := 0, 0
	same := map[string]int{}
	var tables []string
	for _, t := range rep.Tables {
		if t.SamePlanFiles > 0 {
			if _, ok := same[t.Table]; !ok {
				tables = append(tables, t.Table)
			}
			same[t.Table] += t.SamePlanFiles
		}
		if t.Status == "matched" {
			matched++
		} else {
			differed++
		}
	}
	reportf(out, "snapshots compared: %d; tables x snapshots: %d matched, %d differed; %d ms\n",
		len(rep.Snapshots), matched, differed, rep.Timings.TotalMS)
	switch {
	case rep.Carried != nil:
		reportf(out, "  %d snapshots carried from the proof of %s and %s (not walked again)\n", rep.Carried.Snapshots, rep.Carried.A, rep.Carried.B)
	case rep.CarryNote != "":
		reportf(out, "  nothing carried: %s\n", rep.CarryNote)
	}
	for _, t := range tables {
		// Equal plans add equal digests to both sides: read, not digested.
		reportf(out, "  %s: %d data files x snapshots proved by identical read plans\n", t, same[t])
	}
	for _, d := range rep.Differences {
		reportf(out, "DIFF %s\n", d)
	}
	for _, t := range rep.Tables {
		if t.Rows == nil {
			continue
		}
		reportf(out, "rows of %s at snapshot %d:\n", t.Table, t.Snapshot)
		for _, r := range t.Rows.OnlyA {
			reportf(out, "  only in A: %s\n", r)
		}
		for _, r := range t.Rows.OnlyB {
			reportf(out, "  only in B: %s\n", r)
		}
	}
	switch {
	case errors.Is(err, compare.ErrNotEquivalent) && rep.Incomparable != "":
		reportf(out, "result: NOT equivalent (%d differences before the comparison stopped: %s)\n", len(rep.Differences), firstLine(rep.Incomparable))
	case rep.Incomparable != "":
		fmt.Fprintln(out, "result: could not compare")
	case rep.Equivalent:
		fmt.Fprintln(out, "result: equivalent")
	default:
		reportf(out, "result: NOT equivalent (%d differences)\n", len(rep.Differences))
	}
}

func classifyCompare(err error) (int, bool) {
	var oe catalogOpenError
	switch {
	case errors.As(err, &oe):
		if c := oe.err.Cause; c == compare.OpenNotDuckDB || c == compare.OpenNotDuckLake || c == compare.OpenNullFields {
			return exitInvalid, true
		}
		return exitFailure, true
	case errors.Is(err, compare.ErrNotEquivalent):
		return exitDifferent, true
	case errors.Is(err, compare.ErrIncomparable):
		return exitIncomparable, true
	}
	return 0, false
}

// firstLine is an error's first line (DuckDB's errors add the query).
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// dataFolderFlag refuses a --data (or --data-b) DIR that is no folder, as
// a usage error saying why: "not a folder" was said of a folder that does
// not exist, and of one this user may not read, too.
func dataFolderFlag(flag, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageError{err: fmt.Errorf("--%s %s: no such folder", flag, dir)}
	case err != nil:
		return usageError{err: fmt.Errorf("--%s: %w", flag, err)}
	case !fi.IsDir():
		return usageError{err: fmt.Errorf("--%s %s: a file, not a folder", flag, dir)}
	}
	return nil
}
