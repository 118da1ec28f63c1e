package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
)

// DiffFooter is the Kind of a Difference that names a data file of B whose
// Parquet footer some DuckDB release among B's format's readers fails on or
// misreads (footerQuirkDifferences).
const DiffFooter = "footer"

// footerQuirkDifferences holds catalog B to formats.FooterQuirks: a data
// file of B (at any snapshot) whose Parquet footer makes some DuckDB
// release among B's format's readers (within readers, Options.BReaders,
// when set) fail to read it, or skip its rows under a filter, is a
// difference (DiffFooter) naming the table, the file, the column and the
// releases, and whether they fail or return other rows.
// These are bugs of DuckDB's own Parquet reader in single releases, which
// the other readers of the format, and the proof's own, read right, so the
// model of B's rows cannot show them; what convert writes never holds such
// a file for a format whose readers have the bug (it refuses), and a
// published catalog that does is not certified. One-sided, as
// earlyTableStats: when A is in B's format, its readers fail alike on the
// same files and nothing is reported. Encrypted data files are DuckLake's
// own, whose writer leaves none of these footers but the VARIANT ones
// (DuckDB 1.5's writer shreds a VARIANT on BLOB and on a DECIMAL of at
// most 4 digits), and are not read (the footer reader does not decrypt:
// docs/compare.md, Known limits); a file whose footer
// cannot be read is left to the comparison, which reports it. A failure of
// a read of B is marked as B's (sideError), or as both catalogs' when A's
// same read fails too (bThenA); an invalid readers range is no read.
func footerQuirkDifferences(ctx context.Context, a, b *Reader, readers string, digests *Digests) ([]Difference, error) {
	if a.format.Name == b.format.Name {
		return nil, nil
	}
	var c goversion.Constraints
	if readers != "" {
		var err error
		if c, err = goversion.NewConstraint(readers); err != nil {
			return nil, fmt.Errorf("the DuckDB range of B's readers %q: %w", readers, err)
		}
	}
	affected, err := b.FooterQuirksWithColumns(ctx, b.format.FooterQuirksOf(c))
	if err != nil {
		return nil, markB(err)
	}
	if len(affected) == 0 {
		return nil, nil
	}
	// B alone is read here, before the comparison reads A: a failure of
	// a read of B is both catalogs' when A's same read fails too.
	files, hits, stage, err := b.footerHits(ctx, digests)
	switch stage {
	case "":
	case footerStageList:
		return nil, bThenA(err, func() error {
			_, err := a.StoredFiles(ctx)
			return err
		})
	case footerStageEncrypted:
		return nil, bThenA(err, func() error {
			if !a.has("ducklake_data_file", "encryption_key") {
				return nil // A's format has no such column to read
			}
			_, err := encryptedFiles(ctx, a)
			return err
		})
	case footerStageCopies:
		return nil, err // the copies' fault, not B's: not marked
	default:
		return nil, markB(err)
	}
	var out []Difference
	reported := map[[2]string]bool{} // (quirk, path)
	for _, q := range affected {
		does := "fail to read"
		if q.Error == "" {
			does = "misread"
		}
		for _, f := range files {
			for _, h := range hits[f.Path] {
				if h.Quirk != q.Name || reported[[2]string{q.Name, f.Path}] {
					continue
				}
				reported[[2]string{q.Name, f.Path}] = true
				table := f.Table
				if table == "" {
					table = "?"
				}
				reason := fmt.Sprintf("%s, readers of format %s, %s data file %s (data_file_id %d), column %s: %s (%s): %s; %s (%s; fixed by %s)",
					q.ReleasesText(), b.format.Name, does, oneline.Name(b.relPath(f.Path)), f.ID, h.Column, h.Detail, q.Name, q.Trigger, q.Behaviour, q.Source, q.Fixed)
				if q.Error != "" {
					reason += "; they fail with " + fmt.Sprintf("%q", q.Error+"...")
				}
				out = append(out, Difference{Kind: DiffFooter, Table: table, Item: b.relPath(f.Path), B: strings.Join(q.In, ", "), Reason: reason})
			}
		}
	}
	return out, nil
}

// The steps of footerHits, for the caller to say whose a failure is.
const (
	footerStageList      = "list"
	footerStageEncrypted = "encrypted"
	footerStageCopies    = "copies"
	footerStageRead      = "read"
)

// footerHits reads the footer quirk hits (parquetfooter.Read) of the
// catalog's data files at any snapshot that are not encrypted (DuckLake's
// own, not decrypted: see footerQuirkDifferences), each file once,
// answering from digests where it kept them; it returns those files and
// their hits by path. A failure says its step (footerStage...).
func (b *Reader) footerHits(ctx context.Context, digests *Digests) (_ []StoredFile, _ map[string][]parquetfooter.Hit, stage string, _ error) {
	stored, err := b.StoredFiles(ctx)
	if err != nil {
		return nil, nil, footerStageList, err
	}
	encrypted, err := encryptedFiles(ctx, b)
	if err != nil {
		return nil, nil, footerStageEncrypted, err
	}
	var files []StoredFile
	var paths []string // footers not read yet this run
	hits := map[string][]parquetfooter.Hit{}
	keys := map[string]string{}
	before := map[string]string{} // the kept facts' keys of the copies read, before the read
	for _, f := range stored {
		if f.Delete || encrypted[f.ID] {
			continue
		}
		files = append(files, f)
		if _, ok := keys[f.Path]; ok {
			continue
		}
		keys[f.Path] = footerRunKey(b.listings, f.Path, f.SizeBytes)
		if kept, ok := digests.footerHits(keys[f.Path]); ok {
			hits[f.Path] = kept
		} else if kept, key, ok := digests.keptFooterHits(b.listings, f.Path); ok {
			hits[f.Path] = kept
			digests.keepFooterHits(keys[f.Path], kept)
		} else {
			paths = append(paths, f.Path)
			before[f.Path] = key
		}
	}
	if len(paths) > 0 {
		if err := b.readable(ctx, paths...); err != nil {
			return nil, nil, footerStageCopies, err
		}
		read, err := parquetfooter.Read(ctx, b.conn, paths)
		if err != nil {
			return nil, nil, footerStageRead, fmt.Errorf("read the footers of the data files of %s: %w", oneline.Name(b.path), err)
		}
		for _, p := range paths {
			hits[p] = read[p]
			if _, answered := read[p]; answered {
				digests.keepFooterHits(keys[p], read[p])
				if digests != nil {
					digests.afterRead(p)
					keepFactAs(digests.store, b.listings, keptFooterKind, p, before[p], read[p])
				}
			}
		}
	}
	return files, hits, "", nil
}

// FooterQuirkFile is a data file of a catalog whose Parquet footer
// triggers a formats.FooterQuirk (FooterQuirkFiles).
type FooterQuirkFile struct {
	Table, Path string // Path relative to the data folder where it is in it
	ID          int64
	Quirk       string // the quirk's name
	Column      string // the column's path in the file's schema
	Detail      string
}

// FooterQuirkFiles names the catalog's own data files (at any snapshot,
// not encrypted) whose Parquet footers trigger one of the footer quirks
// named (formats.FooterQuirks), one entry per file, column and quirk, in
// the catalog's file order: what check warns about for a frozen catalog
// whose readers include an affected release, as the proof reports such a
// file of a catalog B. Each footer is read once (parquetfooter.Read), and
// not at all where digests (the run's, nil: none) holds its hits: the
// proofs of the version's published catalogs read the same files.
func (r *Reader) FooterQuirkFiles(ctx context.Context, digests *Digests, quirks ...string) ([]FooterQuirkFile, error) {
	if len(quirks) == 0 {
		return nil, nil
	}
	files, hits, _, err := r.footerHits(ctx, digests)
	if err != nil {
		return nil, err
	}
	var out []FooterQuirkFile
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		for _, h := range hits[f.Path] {
			if slices.Contains(quirks, h.Quirk) {
				out = append(out, FooterQuirkFile{Table: f.Table, Path: r.relPath(f.Path), ID: f.ID, Quirk: h.Quirk, Column: h.Column, Detail: h.Detail})
			}
		}
	}
	return out, nil
}

// encryptedFiles lists the catalog's data files that have an encryption
// key, by data_file_id.
func encryptedFiles(ctx context.Context, r *Reader) (map[int64]bool, error) {
	encrypted := map[int64]bool{}
	rows, err := r.conn.QueryContext(ctx, `SELECT data_file_id FROM cat.ducklake_data_file WHERE encryption_key IS NOT NULL AND encryption_key <> ''`)
	if err != nil {
		return nil, fmt.Errorf("list the encrypted data files of %s: %w", oneline.Name(r.path), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list the encrypted data files of %s: %w", oneline.Name(r.path), err)
		}
		encrypted[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the encrypted data files of %s: %w", oneline.Name(r.path), err)
	}
	return encrypted, nil
}

// FooterQuirksWithColumns is quirks less those the catalog's data files
// cannot trigger: a quirk with ColumnTypes (formats.FooterQuirk) when the
// catalog never had a column of those types (HasColumnOfType), so its
// footers are not read for it (most catalogs have no VARIANT).
func (r *Reader) FooterQuirksWithColumns(ctx context.Context, quirks []formats.AffectedFooterQuirk) ([]formats.AffectedFooterQuirk, error) {
	var out []formats.AffectedFooterQuirk
	hasTypes := map[string]bool{} // one answer per set of types (0.4's two VARIANT quirks share one)
	for _, q := range quirks {
		if q.ColumnTypes != nil {
			key := strings.Join(q.ColumnTypes, ",")
			has, ok := hasTypes[key]
			if !ok {
				var err error
				if has, err = r.HasColumnOfType(ctx, q.ColumnTypes...); err != nil {
					return nil, err
				}
				hasTypes[key] = has
			}
			if !has {
				continue
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// HasColumnOfType tells whether the catalog has, or had at any snapshot, a
// column (at any depth) of one of types: DuckDB type names in lower case,
// a name with parameters (DECIMAL(20,2)) matched by its name
// (formats.FooterQuirk.ColumnTypes).
func (r *Reader) HasColumnOfType(ctx context.Context, types ...string) (bool, error) {
	if len(types) == 0 {
		return false, nil
	}
	// Read with the column spans, once per reader (readColumnRows).
	if err := r.readColumnRows(ctx); err != nil {
		return false, fmt.Errorf("read the column types of %s: %w", oneline.Name(r.path), err)
	}
	for have := range r.meta.columnTypes {
		for _, t := range types {
			if have == t || strings.HasPrefix(have, t+"(") {
				return true, nil
			}
		}
	}
	return false, nil
}
