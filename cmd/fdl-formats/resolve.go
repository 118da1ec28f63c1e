package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/repo"
	"github.com/fdl-formats/fdl-formats/store/open"
)

func resolveCommand() *cli.Command {
	return &cli.Command{
		Name:  "resolve",
		Usage: "tell a DuckDB which catalog of a version to open, and print the ATTACH statement",
		Description: "Picks what the FDL rule picks: the newest format the DuckDB opens among the version's\n" +
			"catalogs/<format>.duckdb, else the frozen ducklake.duckdb if it opens that. A DuckDB opens a\n" +
			"file when its DuckLake opens the format (the format registry's range; the range fdl.json\n" +
			"declares is a promise within it and does not narrow it) and it is not older than the file's\n" +
			"storage version. Prints the statement to run (SQL, with a comment line; the alias quoted).\n" +
			"A DuckDB outside the range fdl.json declares for the picked file's format gets a warning on\n" +
			"stderr (exit 0): it opens the file, but the publisher does not promise it that format.\n" +
			"Exit codes: 0 found; 8 no catalog of the version opens in that DuckDB (the error lists the\n" +
			"DuckDB versions that would), or, for a DuckDB before 1.4.0, the web server ignores Range requests,\n" +
			"which that DuckDB fails on; 1 a runtime failure (I/O, storage, a server that cannot be reached);\n" +
			"2 bad arguments or an unknown version; 4 a web server whose folders give no usable listing;\n" +
			"6 invalid repository.",
		ArgsUsage: "REPO",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "version", Value: "latest", Usage: "the version: its ID, its seq, or latest (the newest not expired)"},
			&cli.StringFlag{Name: "duckdb", Usage: "the reader's DuckDB version, e.g. 1.4.3 (default: the DuckDB linked into fdl-formats)"},
			&cli.StringFlag{Name: "name", Usage: "alias of the attached catalog (default: the name in dataset.json, else lake)"},
			&cli.StringFlag{Name: "data", Usage: "data folder or URL the statement's DATA_PATH names (default: REPO/<data_dir>)"},
			&cli.BoolFlag{Name: "verify", Usage: "open the file before choosing it (a private copy): its sha256 against version.json, its DuckLake format against version.json or its name, and every row of every table read (each block a DuckLake ATTACH loads passes its checksum); a file that fails is passed over"},
			&cli.BoolFlag{Name: "json", Usage: "print the resolution as JSON"},
			endpointFlag(), virtualHostedFlag(), noSignFlag(),
			maxSpillFlag(),
		},
		Action: runResolve,
	}
}

func runResolve(ctx context.Context, cmd *cli.Command) error {
	if cmd.Args().Len() != 1 {
		return usageError{err: errors.New("resolve takes exactly one repository")}
	}
	so, err := storeOptions(cmd)
	if err != nil {
		return err
	}
	spill, err := maxSpill(cmd)
	if err != nil {
		return err
	}
	if so.S3, err = s3Options(cmd); err != nil {
		return err
	}
	st, err := open.Repository(ctx, cmd.Args().First(), so)
	if err != nil {
		return openError(cmd, err)
	}
	res, err := repo.Resolve(ctx, st, repo.ResolveOptions{
		Version:  cmd.String("version"),
		DuckDB:   cmd.String("duckdb"),
		Name:     cmd.String("name"),
		DataURL:  cmd.String("data"),
		Verify:   cmd.Bool("verify"),
		MaxSpill: spill,
	})
	if errors.Is(err, repo.ErrMalformedDuckDB) {
		return usageError{err: fmt.Errorf("--duckdb: %w", err)}
	}
	if res == nil {
		return err
	}
	// Warnings go to stderr, stdout being the statement (or JSON, which
	// holds them too) a reader gives to DuckDB.
	for _, w := range res.Warnings {
		reportf(errWriter(cmd), "warning: %s\n", w)
	}
	out := cmd.Root().Writer
	if cmd.Bool("json") {
		if jerr := writeJSON(out, res); jerr != nil {
			return jerr
		}
		return err
	}
	if err == nil {
		printResolution(out, res)
	}
	return err
}

// printResolution prints the statement, after a SQL comment naming the
// file, so that the output can be given to DuckDB as it is. Each file
// --verify passed over is named first, with why, in a one-line comment:
// the reader learns that a file the publisher serves is broken.
func printResolution(w io.Writer, res *repo.Resolution) {
	for _, p := range res.Files {
		if p.PassedOver {
			reportf(w, "-- passed over %s (--verify): %s\n", commentText(p.Key), commentText(strings.Join(strings.Fields(p.Reason), " ")))
		}
	}
	seq := ""
	if res.Seq > 0 {
		seq = textf(" (seq %d)", res.Seq)
	}
	f := res.File
	reportf(w, "-- version %s%s in DuckDB %s: %s (format %s, storage %s)\n", res.Version, seq, res.DuckDB, commentText(f.Key), f.Format, f.Storage)
	if res.Setup != "" {
		fmt.Fprintln(w, "-- the repository is at an S3-compatible endpoint: first (add KEY_ID '...', SECRET '...' for a private bucket):")
		fmt.Fprintln(w, res.Setup+";")
	}
	fmt.Fprintln(w, res.Attach)
}

// commentText makes s safe inside a one-line SQL comment: a key is a
// path version.json names, which may hold a line break, and whatever
// followed it would be a statement of its own to a reader who gives the
// output to DuckDB (duckdb -cmd "$(fdl-formats resolve …)"). Control
// characters are written as Go escapes ("\n", oneline.Escape), which
// names the file all the same.
func commentText(s string) string { return oneline.Escape(s) }

// printReaders prints check's matrix from the reader's side: per declared
// DuckDB range, the versions it reads and those it cannot.
func printReaders(w io.Writer, ranges []*repo.ReaderRange) {
	if len(ranges) == 0 {
		return
	}
	fmt.Fprintln(w, "\nreaders (per declared DuckDB range):")
	for _, rr := range ranges {
		total := len(rr.Readable) + len(rr.Unreadable)
		line := textf("  DuckDB %s (format %s): ", rr.DuckDB, rr.Format)
		switch {
		case total == 0:
			// A shard or --versions holding none: "reads all 0 versions"
			// read as a promise.
			reportf(w, "%sno version checked\n", line)
			continue
		case len(rr.Unreadable) == 0:
			reportf(w, "%sreads all %s\n", line, versionCount(total))
			continue
		}
		var cannot []seqNote
		for _, v := range rr.Unreadable {
			var note string
			if v.Expected {
				note += " (past until)"
			}
			if len(v.Cannot) < len(rr.Tried) {
				note += " (in DuckDB " + strings.Join(v.Cannot, ", ") + ")"
			}
			cannot = append(cannot, seqNote{v.Seq, note})
		}
		reportf(w, "%sreads %d of %s; cannot read %s\n", line, len(rr.Readable), versionCount(total), strings.Join(seqRanges(cannot), ", "))
	}
}

// versionCount is "1 version" or "n versions".
func versionCount(n int) string {
	if n == 1 {
		return "1 version"
	}
	return fmt.Sprintf("%d versions", n)
}

// seqNote is a version's seq and what is said of it.
type seqNote struct {
	seq  int64
	note string
}

// seqRanges names versions as "seq 3 (past until)", with a run of
// consecutive seqs saying the same as one range, "seq 1-200": a line
// listed every seq one by one (60 KB for 200 versions). Neighbouring
// ranges saying the same share the note, "seq 1, 3-5 (past until)": a
// gap (a withdrawn version between them) repeated it. A version without
// a seq (0) is never merged.
func seqRanges(items []seqNote) []string {
	var out []string
	var last *seqNote // the previous range's first item, when it had a seq
	for i := 0; i < len(items); {
		j := i
		for j+1 < len(items) && items[i].seq > 0 && items[j+1].seq == items[j].seq+1 && items[j+1].note == items[i].note {
			j++
		}
		s := fmt.Sprintf("%d", items[i].seq)
		if j > i {
			s += fmt.Sprintf("-%d", items[j].seq)
		}
		if last != nil && items[i].seq > 0 && last.note == items[i].note {
			prev := out[len(out)-1]
			out[len(out)-1] = strings.TrimSuffix(prev, last.note) + ", " + s + last.note
		} else {
			out = append(out, "seq "+s+items[i].note)
		}
		last = nil
		if items[i].seq > 0 {
			last = &items[i]
		}
		i = j + 1
	}
	return out
}

// classifyResolve maps Resolve's errors to exit codes.
func classifyResolve(err error) (int, bool) {
	switch {
	case errors.Is(err, repo.ErrNoCatalog):
		return exitNoCatalog, true
	case errors.Is(err, repo.ErrInvalidVersion):
		return exitInvalid, true
	}
	return 0, false
}
