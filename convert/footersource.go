package convert

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

// FooterSource gives a conversion the data files its data folder
// (Options.DataPath) lacks, for the checks that read them: their footers
// alone where that is all a check reads, the whole file where it reads
// rows.
type FooterSource interface {
	// Footers returns, by local path (each under DataPath, where the data
	// folder lacks it), a local Parquet file holding that data file's
	// footer and nothing else ("PAR1", footer, its length, "PAR1"): what
	// DuckDB's parquet_schema and parquet_kv_metadata and
	// internal/parquetfooter's own reader read, never rows. A path it has no file for (absent from the store) is left out,
	// as a missing file is skipped.
	Footers(ctx context.Context, locals []string) (map[string]string, error)
	// Fetch makes the whole data file present at local (under DataPath),
	// for a check that reads its rows.
	Fetch(ctx context.Context, local string) error
}

// footerPaths maps each of locals (data files under the data folder) to
// the file its footer is read from: itself where present, else a stand-in
// from Options.Footers. Files neither present nor given are left out
// (missing: the proof reports them).
func (r *run) footerPaths(locals []string) (map[string]string, error) {
	out := make(map[string]string, len(locals))
	var absent []string
	for _, l := range locals {
		if _, done := out[l]; done {
			continue
		}
		if _, err := os.Stat(l); err == nil {
			switch {
			case r.ready(l):
				out[l] = l
			case r.opts.Footers != nil:
				// A copy not yet held to the store's bytes: its footer
				// from the store, rather than a pass over the whole copy.
				absent = append(absent, l)
			default:
				if err := r.readable(l); err != nil {
					return nil, err
				}
				out[l] = l
			}
		} else if errors.Is(err, fs.ErrNotExist) && r.opts.Footers != nil {
			absent = append(absent, l)
		}
	}
	if len(absent) == 0 {
		return out, nil
	}
	standIns, err := r.opts.Footers.Footers(r.ctx, absent)
	if err != nil {
		return nil, err
	}
	for _, l := range absent {
		if p, ok := standIns[l]; ok {
			out[l] = p
		}
	}
	return out, nil
}
