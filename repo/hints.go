package repo

import (
	"context"
	"log/slog"
	"os"
)

// hintDeletes gives the run's shared digests the positions that the newest
// version's catalog deletes from each data file at any snapshot (see
// compare.Digests.HintFrom). Versions extend their parents' history, so
// the first proof that reads a data file keeps the hashes of every row any
// version deletes, and no later proof reads the file again for them. It
// only saves reads: on any failure the proofs read what they need.
func (r *repository) hintDeletes(ctx context.Context, work string, log *slog.Logger) {
	v := r.newest()
	if v == nil {
		return
	}
	dir, err := os.MkdirTemp(work, "hints-")
	if err != nil {
		log.Debug("no delete hints", "error", err)
		return
	}
	defer os.RemoveAll(dir)
	src, _, err := r.copyFrozen(ctx, v, dir)
	if err == nil {
		err = r.ensureData(ctx, src, true)
	}
	if err == nil {
		err = r.digests.HintFrom(ctx, src, r.dataPath)
	}
	if err != nil {
		log.Debug("no delete hints", "version", v.id, "error", err)
	}
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
