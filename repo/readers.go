package repo

import (
	"context"
	"fmt"
	"strings"

	goversion "github.com/hashicorp/go-version"
)

// ReaderRange is the matrix from the reader's side for one declared DuckDB
// range: which versions the DuckDB releases of that range can read (with
// Resolve's rule) and which they cannot.
type ReaderRange struct {
	// Format is the declared format whose range this is; DuckDB the range.
	Format string `json:"format"`
	DuckDB string `json:"duckdb"`
	// Tried are the DuckDB versions of the range that were evaluated: every
	// version at which the answer can change (see Resolve), so the answer
	// holds for every DuckDB of the range.
	Tried      []string         `json:"tried"`
	Readable   []*ReaderVersion `json:"readable"`
	Unreadable []*ReaderVersion `json:"unreadable"`
}

// ReaderVersion is one version as the DuckDBs of a range see it.
type ReaderVersion struct {
	Version string `json:"version"`
	Seq     int64  `json:"seq,omitempty"`
	// Opens maps each tried DuckDB that opens a catalog of the version to it.
	Opens map[string]string `json:"opens,omitempty"`
	// Cannot lists the tried DuckDBs that open none.
	Cannot []string `json:"cannot,omitempty"`
	// Expected marks an unreadable version for which the range's format is
	// past its until: it is not written for it, by design.
	Expected bool `json:"expected,omitempty"`
}

// addReaders puts the reader matrix into a check report, with a warning
// finding per range that cannot read some version.
func (r *repository) addReaders(ctx context.Context, rep *CheckReport, opts *Options) error {
	readers, warnings, err := r.readerMatrix(ctx, rep.Plan, opts)
	if err != nil {
		return err
	}
	rep.Readers = readers
	for _, w := range warnings {
		rep.Findings = append(rep.Findings, w)
		rep.Counts[w.Kind]++
	}
	return nil
}

// readerMatrix evaluates, for each declared format's DuckDB range, which of
// the plan's versions (those with a valid version.json, not expired) that
// range can read, and returns the warnings for the versions it cannot
// (except where the format is past its until for them), and a difference
// per published catalog saved at a storage its range cannot open
// (tooNewStorage).
func (r *repository) readerMatrix(ctx context.Context, m *Matrix, opts *Options) ([]*ReaderRange, []Finding, error) {
	declared, err := selectFormats(r.cfg, opts.Formats)
	if err != nil {
		return nil, nil, err
	}
	type row struct {
		vp    *VersionPlan
		files []*CatalogFile
	}
	var rows []row
	var all []*CatalogFile
	for _, vp := range m.Versions {
		if vp.v.meta == nil || vp.Skipped != "" || vp.Error != "" {
			continue
		}
		files, err := r.catalogFiles(ctx, vp.v, false)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, row{vp, files})
		all = append(all, files...)
	}
	points := r.boundaries(all)
	out := []*ReaderRange{}
	var warnings []Finding
	for _, row := range rows {
		warnings = append(warnings, tooNewStorage(row.vp, row.files, points)...)
	}
	for _, f := range declared {
		rr := &ReaderRange{Format: f.DuckLake, DuckDB: f.DuckDB, Tried: []string{}, Readable: []*ReaderVersion{}, Unreadable: []*ReaderVersion{}}
		var tried []*goversion.Version
		for _, p := range points {
			if f.Readers.Check(p) {
				tried = append(tried, p)
				rr.Tried = append(rr.Tried, p.String())
			}
		}
		var gaps []string
		for _, row := range rows {
			rv := &ReaderVersion{Version: row.vp.ID, Seq: row.vp.Seq, Opens: map[string]string{}}
			for _, p := range tried {
				if file := firstOpening(row.files, p); file != "" {
					rv.Opens[p.String()] = file
				} else {
					rv.Cannot = append(rv.Cannot, p.String())
				}
			}
			if len(rv.Cannot) == 0 {
				rr.Readable = append(rr.Readable, rv)
				continue
			}
			rv.Expected = f.ExpiredFor(row.vp.CreatedAt, m.Now)
			rr.Unreadable = append(rr.Unreadable, rv)
			if !rv.Expected {
				gap := fmt.Sprintf("seq %d", rv.Seq)
				if len(rv.Cannot) < len(tried) {
					gap += " (in DuckDB " + strings.Join(rv.Cannot, ", ") + ")"
				}
				gaps = append(gaps, gap)
			}
		}
		if len(gaps) > 0 {
			warnings = append(warnings, Finding{Kind: KindWarning, Format: f.DuckLake,
				Detail: fmt.Sprintf("readers: DuckDB %s (format %s) cannot read %d of %d versions: %s (see plan: missing catalogs, refusals)", f.DuckDB, f.DuckLake, len(gaps), len(rows), strings.Join(gaps, "; "))})
		}
		out = append(out, rr)
	}
	return out, warnings, nil
}

// tooNewStorage is a difference per published catalog saved at a DuckDB
// storage version that some DuckDB of its format's reader range cannot
// open: that reader picks the file by its format's name (FDL 0.1,
// Versions: Catalogs in other formats) and fails on it, where backfill
// would have written it at the oldest storage the range opens. The frozen
// catalog is as made (its storage claim is checked against version.json).
func tooNewStorage(vp *VersionPlan, files []*CatalogFile, points []*goversion.Version) []Finding {
	var out []Finding
	for _, f := range files {
		if f.Frozen || f.problem != "" || f.min == nil {
			continue
		}
		for _, p := range points {
			if f.readers.Check(p) && p.LessThan(f.min) {
				out = append(out, Finding{Kind: KindDifference, Version: vp.ID, Format: f.Format, Key: f.Key,
					Detail: fmt.Sprintf("%s is saved at DuckDB storage %s, which DuckDB %s, a reader of format %s (DuckDB %s), cannot open: delete it and run backfill, which writes it at the oldest storage the range opens", f.Key, f.Storage, p, f.Format, f.Readers)})
				break
			}
		}
	}
	return out
}

// firstOpening is the key of the catalog DuckDB p opens, or "".
func firstOpening(files []*CatalogFile, p *goversion.Version) string {
	for _, f := range files {
		if ok, _ := f.opensIn(p); ok {
			return f.Key
		}
	}
	return ""
}
