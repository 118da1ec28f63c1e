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
	failed := map[string]bool{} // files check found wrong: their readers get no version
	for _, f := range rep.Findings {
		if f.Key != "" && (f.Kind == KindDifference || f.Kind == KindInvalid || f.Kind == KindUnverifiable) {
			failed[f.Key] = true
		}
	}
	readers, warnings, err := r.readerMatrix(ctx, rep.Plan, opts, failed)
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
// (except where the format is past its until for them), a difference per
// published catalog saved at a storage its range cannot open
// (tooNewStorage), a warning per frozen catalog saved at a storage
// declared readers of its format cannot open (frozenTooNewStorage), and a
// difference per declared range with DuckDB releases that fail on a
// server that ignores Range requests, where the run found one
// (noRangesFinding: those releases read no version). The
// declared range says which DuckDBs are asked (what the publisher
// promises); what each opens is what it can open, by Resolve's rule (the
// registry's ranges), so it may read a version from a catalog in another
// format than the range's. A catalog in failed (a key check reported as a
// difference, invalid or unverifiable) opens for no reader: it may fail or
// read other rows.
func (r *repository) readerMatrix(ctx context.Context, m *Matrix, opts *Options, failed map[string]bool) ([]*ReaderRange, []Finding, error) {
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
	frozenShut := map[string]string{} // version -> format of its frozen catalog, whose storage shuts out declared readers
	selected := map[string]bool{}
	for _, f := range declared {
		selected[f.DuckLake] = true
	}
	expired := map[string]string{} // format -> its until, where past
	for _, fp := range m.Formats {
		if fp.Expired {
			expired[fp.DuckLake] = fp.Until
		}
	}
	for _, row := range rows {
		warnings = append(warnings, tooNewStorage(row.vp, row.files, points, expired)...)
		if w, ok := frozenTooNewStorage(row.vp, row.files, points); ok && selected[w.Format] {
			warnings = append(warnings, w)
			frozenShut[row.vp.ID] = w.Format
		}
	}
	var ignored []string // objects whose ranged read the server answered whole
	if r.remote != nil {
		ignored = r.remote.rangesIgnored()
	}
	for _, f := range declared {
		rr := &ReaderRange{Format: f.DuckLake, DuckDB: f.DuckDB, Tried: []string{}, Readable: []*ReaderVersion{}, Unreadable: []*ReaderVersion{}}
		shut := false // some tried DuckDB fails every read of this server
		if len(ignored) > 0 {
			if w, ok := r.noRangesFinding(f.DuckLake, f.DuckDB, f.Readers, ignored); ok {
				warnings = append(warnings, w)
				shut = true
			}
		}
		var tried []*goversion.Version
		for _, p := range points {
			if f.Readers.Check(p) {
				tried = append(tried, p)
				rr.Tried = append(rr.Tried, p.String())
			}
		}
		var gaps []string
		planned := false // a gap the plan explains (a missing or refused catalog)
		for _, row := range rows {
			rv := &ReaderVersion{Version: row.vp.ID, Seq: row.vp.Seq, Opens: map[string]string{}}
			rangesShut := false // a DuckDB that opens a catalog fails on the server
			failedFile := ""    // the catalog a DuckDB opens, which check found wrong
			misnamed := ""      // the frozen catalog a DuckDB would open, not at the name readers fall back to
			for _, p := range tried {
				file := firstOpening(row.files, p)
				if file != "" && shut && p.LessThan(rangeFallbackFrom) {
					file, rangesShut = "", true
				}
				// A reader that opens none of catalogs/ falls back to
				// ducklake.duckdb by name (FDL 0.1, Versions): a frozen
				// catalog named otherwise in version.json is not found. It
				// counted as read, beside plan's warning saying so.
				if fr := row.files[len(row.files)-1]; file != "" && file == fr.Key && fr.Frozen && row.vp.v.meta.Catalog.Path != fallbackCatalog {
					file, misnamed = "", file
				}
				if failed[file] {
					file, failedFile = "", file
				}
				if file != "" {
					rv.Opens[p.String()] = file
				} else {
					rv.Cannot = append(rv.Cannot, p.String())
				}
			}
			if len(rv.Cannot) == 0 {
				rr.Readable = append(rr.Readable, rv)
				continue
			}
			// Past its until a format is not written, by design; but a
			// catalog of it that is there and fails check is opened by its
			// readers all the same: not expected, and warned of.
			rv.Expected = failedFile == "" && f.ExpiredFor(row.vp.v.meta.Created(), m.Now)
			rr.Unreadable = append(rr.Unreadable, rv)
			if !rv.Expected {
				gap := fmt.Sprintf("seq %d", rv.Seq)
				if len(rv.Cannot) < len(tried) {
					gap += " (in DuckDB " + strings.Join(rv.Cannot, ", ") + ")"
				}
				switch {
				case frozenShut[rv.Version] == f.DuckLake:
					gap += " (its frozen catalog's storage is too new: see that warning)"
				case rangesShut:
					gap += " (the server ignores Range requests: see that difference)"
				case misnamed != "":
					gap += " (its frozen catalog is " + misnamed + ", not " + fallbackCatalog + ", which such readers fall back to: see that warning)"
				case failedFile != "":
					gap += " (" + failedFile + " fails check: see that finding)"
				default:
					planned = true
				}
				gaps = append(gaps, gap)
			}
		}
		if len(gaps) > 0 {
			see := ""
			if planned {
				see = " (see plan: missing catalogs, refusals)"
			}
			warnings = append(warnings, Finding{Kind: KindWarning, Format: f.DuckLake,
				Detail: fmt.Sprintf("readers: DuckDB %s (format %s) cannot read %d of %d versions: %s%s", f.DuckDB, f.DuckLake, len(gaps), len(rows), strings.Join(gaps, "; "), see)})
		}
		out = append(out, rr)
	}
	return out, warnings, nil
}

// tooNewStorage is a difference per published catalog saved at a DuckDB
// storage version that some DuckDB of its format's declared range (else
// the registry's) cannot open: that reader picks the file by its format's
// name (FDL 0.1, Versions: Catalogs in other formats) and fails on it,
// where backfill would have written it at the oldest storage the range
// opens. The frozen catalog is as made (its storage claim is checked
// against version.json; frozenTooNewStorage warns of its storage). A
// format past its until (expired: format -> until) is no longer written,
// so its hint is to withdraw the file, not to have backfill write it.
func tooNewStorage(vp *VersionPlan, files []*CatalogFile, points []*goversion.Version, expired map[string]string) []Finding {
	var out []Finding
	for _, f := range files {
		if f.Frozen || f.problem != "" || f.min == nil {
			continue
		}
		promised, text := f.promised()
		for _, p := range points {
			if promised.Check(p) && p.LessThan(f.min) {
				out = append(out, Finding{Kind: KindDifference, Version: vp.ID, Format: f.Format, Key: f.Key,
					Detail: fmt.Sprintf("%s is saved at DuckDB storage %s, which DuckDB %s, a reader of format %s (DuckDB %s), cannot open: %s", f.Key, f.Storage, p, f.Format, text, tooNewStorageHint(f.Format, expired))})
				break
			}
		}
	}
	return out
}

// tooNewStorageHint says what mends a published catalog saved at a storage
// its readers cannot open.
func tooNewStorageHint(format string, expired map[string]string) string {
	if until, ok := expired[format]; ok {
		return fmt.Sprintf("delete it; backfill no longer writes format %s (past its until, %s), so that version's readers of it are left without a catalog", format, until)
	}
	return "delete it and run backfill, which writes it at the oldest storage the range opens"
}

// frozenTooNewStorage is a warning when the frozen catalog is saved at a
// DuckDB storage (as version.json's catalog.storage says, or its header
// where that needs a newer one) that some DuckDB fdl.json declares for the
// catalog's own format cannot open: "catalog.storage should be the oldest
// DuckDB storage format the declared readers can open" (FDL 0.1, Versions,
// "Catalogs in other formats"). Backfill cannot help (it writes no catalog
// in the frozen catalog's format), only the writer can; "should" makes it
// a warning, as the rule of the oldest declared format is.
func frozenTooNewStorage(vp *VersionPlan, files []*CatalogFile, points []*goversion.Version) (Finding, bool) {
	f := files[len(files)-1]
	if !f.Frozen || f.problem != "" || f.min == nil || f.declared == nil {
		return Finding{}, false
	}
	for _, p := range points {
		if f.declared.Check(p) && f.tooNewFor(p) {
			return Finding{Kind: KindWarning, Version: vp.ID, Format: f.Format, Key: f.Key,
				Detail: frozenTooNew(f, f.Key, fmt.Sprintf("DuckDB %s, a reader fdl.json declares for it (DuckDB %s),", p, f.Declared))}, true
		}
	}
	return Finding{}, false
}

// rangeFallbackFrom is the first DuckDB release whose httpfs reads a file
// from a web server that answers a ranged GET with 200 and the whole file:
// it downloads the whole file instead (auto_fallback_to_full_download, on
// by default: duckdb-httpfs 86f5fc8, 2025-09-05, in 354d3f43, the httpfs
// DuckDB 1.4.0 builds). Before it, HTTPFileSystem::GetRangeRequest
// (duckdb-httpfs v1.3-ossivalis and the commits DuckDB 1.3.0, 1.3.1 and
// 1.3.2 build, extension/httpfs/httpfs.cpp) throws "HTTP GET error:
// Content-Length from server mismatches requested range, server may not
// support range requests." on any answer whose Content-Length is not the
// range's, and every read of a catalog (block by block: the storage opens
// it with FILE_FLAGS_PARALLEL_ACCESS, unbuffered) and of a Parquet file
// (its footer first) is a ranged GET of part of the file.
var rangeFallbackFrom = goversion.Must(goversion.NewVersion("1.4.0"))

// noRangeFallback are the DuckDB releases before rangeFallbackFrom whose
// DuckLake opens a catalog: the 1.3 line, which ended with 1.3.2.
var noRangeFallback = []string{"1.3.0", "1.3.1", "1.3.2"}

// noRangesFinding is the difference of a declared format (its DuckDB range
// declared and parsed) some of whose DuckDB releases fail every read of a
// server that ignores Range requests (noRangeFallback), given the objects
// whose ranged read the run saw answered with the whole file; false when
// the range admits none of those releases.
func (r *repository) noRangesFinding(format, declared string, readers goversion.Constraints, ignored []string) (Finding, bool) {
	var releases []string
	for _, v := range noRangeFallback {
		if readers.Check(goversion.Must(goversion.NewVersion(v))) {
			releases = append(releases, v)
		}
	}
	if len(releases) == 0 || len(ignored) == 0 {
		return Finding{}, false
	}
	others := ""
	if len(ignored) > 1 {
		others = fmt.Sprintf(" and %d other files", len(ignored)-1)
	}
	return Finding{Kind: KindDifference, Format: format, Key: ignored[0], noRanges: true,
		Detail: fmt.Sprintf("readers: DuckDB %s (format %s, declared for DuckDB %s) cannot read this repository: %s ignores Range requests (it answered the ranged GET of the last %d bytes of %s%s with 200 and the whole file), and DuckDB before %s fails every read so answered (httpfs: \"HTTP GET error: Content-Length from server mismatches requested range, server may not support range requests.\"), reading every catalog and data file by ranged GETs; DuckDB %s and later download the whole file instead. Serve the repository from a server that honours Range requests (nginx, Apache, Caddy, S3), or no longer declare format %s for DuckDB before %s",
			strings.Join(releases, ", "), format, declared, storeName(r.st), tailBytes, ignored[0], others, rangeFallbackFrom, rangeFallbackFrom, format, rangeFallbackFrom)}, true
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
