package repo

import (
	"context"
	"log/slog"
	"slices"

	"github.com/fdl-formats/fdl-formats/compare"
)

// hintDeletes gives the run's shared digests the positions that the newest
// version's catalog deletes from each data file at any snapshot (see
// compare.Digests.HintFromReader). Versions extend their parents' history, so
// the first proof that reads a data file keeps the hashes of every row any
// version deletes, and no later proof reads the file again for them. It
// only saves reads: on any failure the proofs read what they need. The
// newest version's verified copy comes from frozen, where the run counted
// one more user of it (hintVersions), so that its cells and proofs use the
// same copy. The copy is opened once for the hints: the reader that lists
// a remote store's delete files to fetch them reads the hints too.
func (r *repository) hintDeletes(ctx context.Context, frozen *frozenCopies, ids []string, log *slog.Logger) {
	for _, id := range ids {
		v := r.find(id)
		if err := r.hintFrom(ctx, frozen, v); err != nil {
			log.Debug("no delete hints", "version", v.id, "error", err)
		}
		frozen.release(id)
	}
}

// hintFrom gives the run's digests the hints of v's verified copy, read
// with one reader.
func (r *repository) hintFrom(ctx context.Context, frozen *frozenCopies, v *version) error {
	src, _, err := frozen.catalog(ctx, v)
	if err != nil {
		return err
	}
	rd, err := compare.Open(ctx, src, compare.ReaderOptions{DataPath: r.dataPath, Engines: r.engines, Listings: r.listings, Gate: r.gate()})
	if err != nil {
		return err
	}
	defer rd.Close()
	// Only a remote store's delete files must be fetched first; a
	// folder's are read in place, once known to be regular files (its
	// data_dir rule is the content pass's and the cells' business, not the
	// hints': on any failure here, no hints).
	key := v.prefix() + v.meta.Catalog.Path
	if _, err := r.ensureListed(ctx, readerLister(rd, key), key, fetchDeletes); err != nil {
		return err
	}
	return r.digests.HintFromReader(ctx, rd)
}

// hintVersions is the version whose deletes a run hints at (hintDeletes):
// the newest, when the run proves more than one cell and reads more than
// one version (the cells' and others, the versions a check's content
// passes read); else none. The proofs of one version walk every snapshot
// whose deletes its hints would hold (or carry them), and a scan keeps the
// hashes of the rows deleted at any compared snapshot, so hints save a run
// of one version no read (compare's TestHintsNoUseForOneVersion) and cost
// it one more open of a frozen catalog and a read of its delete files
// (before, they were given: backfill --versions NEWEST of two formats,
// check --versions NEWEST).
func (r *repository) hintVersions(cells []*Cell, others ...string) []string {
	v := r.newest()
	if v == nil || len(cells) < 2 {
		return nil
	}
	ids := slices.Clone(others)
	for _, c := range cells {
		ids = append(ids, c.Version)
	}
	if slices.ContainsFunc(ids, func(id string) bool { return id != cells[0].Version }) {
		return []string{v.id}
	}
	return nil
}

// newest is the last readable version (versions are in ID order, UUIDv7:
// oldest first, as pickVersion's "latest").
func (r *repository) newest() *version {
	for i := len(r.versions) - 1; i >= 0; i-- {
		if v := r.versions[i]; v.err == nil && v.meta != nil {
			return v
		}
	}
	return nil
}
