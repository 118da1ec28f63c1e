package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/formats"
)

func convertCommand() *cli.Command {
	return &cli.Command{
		Name:  "convert",
		Usage: "write a frozen DuckLake catalog in another DuckLake format",
		Description: "Exit codes: 0 written (with --dry-run: it converts); 1 a runtime failure (I/O, DuckDB;\n" +
			"also SRC names no file or another DuckDB process holds it open read-write, or -o exists:\n" +
			"never overwritten); 2 bad flags or arguments (no --to, a --to that names no format, -o in\n" +
			"a folder that does not exist); 6 invalid input (SRC is no DuckLake catalog, is damaged, or\n" +
			"was saved at a DuckDB storage this DuckDB cannot open); 7 refused: the target format\n" +
			"cannot express the catalog (the message says why); 130 interrupted. See docs/formats.md.",
		ArgsUsage: "SRC.duckdb",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Required: true, Usage: "target format: " + strings.Join(formats.All.Releases().Names(), ", ")},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "destination DuckDB file (never overwritten)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "analyse and report findings, write nothing"},
			&cli.StringFlag{Name: "storage", Usage: "DuckDB storage version to write (default: the target format's, e.g. v1.4.0 for 0.3)"},
			&cli.StringSliceFlag{Name: "allow-lossy", Usage: "drop metadata that changes no row (repeatable): " + strings.Join(convert.LossyOptions, ", ")},
			&cli.BoolFlag{Name: "allow-inlined", Usage: "convert a catalog that still holds inlined rows"},
			&cli.BoolFlag{Name: "rewrite-deletes", Usage: "write the delete files older formats read (Parquet for Puffin deletion vectors, cumulative files for partial deletion files, delete-file chains for 0.3 merged files holding rewritten rows); needs --data"},
			&cli.StringFlag{Name: "data", Usage: "local folder of the catalog's data_path (the repository's data_dir)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
			maxSpillFlag(),
		},
		Action: runConvert,
	}
}

func runConvert(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 1 {
		return usageError{err: errors.New("convert takes exactly one source catalog")}
	}
	src := cmd.Args().First()
	// A target is a release: development layouts are read, never written.
	releases := strings.Join(formats.All.Releases().Names(), ", ")
	target, err := formats.Lookup(cmd.String("to"))
	if err != nil {
		return usageError{err: fmt.Errorf("--to: %w %q (want one of %s)", formats.ErrUnknownVersion, cmd.String("to"), releases)}
	}
	if target.Dev {
		return usageError{err: fmt.Errorf("--to %q: a development layout, never written: want one of %s (its release: %s)", target.Name, releases, target.Release)}
	}
	if cmd.Bool("rewrite-deletes") && cmd.String("data") == "" {
		return usageError{err: errors.New("--rewrite-deletes needs --data DIR (the local data folder)")}
	}
	for _, o := range cmd.StringSlice("allow-lossy") {
		if !slices.Contains(convert.LossyOptions, o) {
			return usageError{err: fmt.Errorf("--allow-lossy %q: known features are %s", o, strings.Join(convert.LossyOptions, ", "))}
		}
	}
	if s := cmd.String("storage"); s != "" {
		if err := convert.StorageReadBy(s, target); err != nil {
			return usageError{err: fmt.Errorf("--storage: %w", err)}
		}
	}
	if d := cmd.String("data"); d != "" {
		// A misspelt folder went unnoticed until a check read a file.
		if err := dataFolderFlag("data", d); err != nil {
			return err
		}
	}
	dst := cmd.String("output")
	if dst == "" && !cmd.Bool("dry-run") {
		return usageError{err: errors.New("convert needs -o DST.duckdb (or --dry-run)")}
	}
	if dst != "" {
		// A misspelt folder: the conversion ran, then failed naming its
		// temporary file (exit 1).
		dir := filepath.Dir(dst)
		if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
			return usageError{err: fmt.Errorf("-o %s: no such folder %s (convert creates none)", dst, dir)}
		}
	}
	spill, err := maxSpill(cmd)
	if err != nil {
		return err
	}
	opts := convert.Options{
		Storage:        cmd.String("storage"),
		AllowInlined:   cmd.Bool("allow-inlined"),
		Lossy:          cmd.StringSlice("allow-lossy"),
		RewriteDeletes: cmd.Bool("rewrite-deletes"),
		DataPath:       cmd.String("data"),
		Logger:         logger(cmd),
		MaxSpill:       spill,
	}
	var res *convert.Result
	if cmd.Bool("dry-run") {
		res, err = convert.Check(ctx, src, target, opts)
	} else {
		res, err = convert.Catalog(ctx, src, dst, target, opts)
	}
	out := cmd.Root().Writer
	if cmd.Bool("json") && res != nil {
		report := struct {
			*convert.Result
			Output  string            `json:"output,omitempty"`
			Refused []convert.Finding `json:"refused,omitempty"`
			Error   string            `json:"error,omitempty"`
		}{Result: res}
		if err == nil && !cmd.Bool("dry-run") {
			report.Output = dst
		}
		var refused *convert.RefusedError
		if errors.As(err, &refused) {
			report.Refused = refused.Findings
		}
		if err != nil {
			report.Error = err.Error()
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if encErr := enc.Encode(report); encErr != nil {
			return encErr
		}
		return err
	}
	if err != nil {
		return err
	}
	for _, f := range res.Findings {
		reportf(out, "%s %s\n", f.Severity, f)
	}
	// A catalog already in the target format has nothing to convert: it
	// said "1.0 -> 1.0 converts", as if there were.
	switch same := res.From == res.To; {
	case same && cmd.Bool("dry-run"):
		reportf(out, "%s: already in format %s: nothing to convert (-o would write a copy in the same format, storage %s); nothing written\n", src, res.To, res.Storage)
	case same:
		reportf(out, "%s: already in format %s: nothing to convert; copied to %s (storage %s)\n", src, res.To, dst, res.Storage)
	case cmd.Bool("dry-run"):
		reportf(out, "%s: %s -> %s converts (path %v, storage %s); nothing written\n", src, res.From, res.To, res.Path, res.Storage)
	default:
		reportf(out, "%s: %s -> %s written to %s (storage %s)\n", src, res.From, res.To, dst, res.Storage)
	}
	return nil
}

func classifyConvert(err error) (int, bool) {
	switch {
	case errors.Is(err, convert.ErrRefused):
		return exitRefused, true
	case errors.Is(err, convert.ErrNotCatalog), errors.Is(err, convert.ErrStorageTooNew),
		errors.Is(err, formats.ErrUnknownVersion), errors.Is(err, formats.ErrTooNew),
		errors.Is(err, formats.ErrInconsistentLayout), errors.Is(err, convert.ErrNoPath):
		return exitInvalid, true
	case errors.Is(err, convert.ErrExists):
		return exitFailure, true
	}
	return 0, false
}
