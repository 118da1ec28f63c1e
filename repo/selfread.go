package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/compare"
)

// maxSelfFindings caps the findings one self-read reports (one per
// difference); the last says how many more there are.
const maxSelfFindings = 10

// selfOptions are the options of a self-read of v's frozen catalog: the
// run's digest cache, digests, delete files, engines and listings, as its
// proofs use them, so that a proof of the version later in the run or in
// another run (a backfill) takes the data files' reads.
func (r *repository) selfOptions(v *version, source *compare.Source) compare.Options {
	return compare.Options{DataPath: r.dataPath, DigestCache: r.digestCache, Digests: r.digests, Deletes: r.deletes, Engines: r.engines,
		Source: source, Listings: r.listings, SumA: v.meta.Catalog.FileRef.SHA256, Gate: r.gate()}
}

// selfRead reads v's frozen catalog alone, as a proof reads its side A
// (compare.Self: every table at every snapshot with the reader model of its
// own format), for a version no proof of which reads it in this run (only
// the frozen catalog's format declared, or every other cell refused,
// expired or missing): without it, no row of such a version would be read
// and no record_count checked. A clean read kept in the digest cache for
// the same bytes and data folder (grown or not) is taken without copying
// or opening the catalog. It returns nil when the catalog reads clean, the
// frozen catalog's differences (exit 3, as a proof reports the same
// failure of its side A) or what could not be read (a data file damaged or
// missing: exit 4, as in a proof). A catalog the content pass found
// unreadable is that pass's to report: nothing more here.
func (r *repository) selfRead(ctx context.Context, v *version, frozen *frozenCopies, source *compare.Source) []Finding {
	opts := r.selfOptions(v, source)
	key := v.prefix() + v.meta.Catalog.Path
	if r.remote == nil {
		if _, ok := compare.KeptSelf(key, opts); ok {
			return nil
		}
	}
	if _, err := frozen.readWhole(ctx, v, source); err != nil {
		return nil // the content pass reports it
	}
	src, _, err := frozen.getHeld(ctx, v, source)
	if err != nil {
		return nil // the content pass reports it
	}
	opts.AReadWhole = true
	rep, err := compare.Self(ctx, src, opts)
	if err == nil || ctx.Err() != nil {
		return nil
	}
	return selfFindings(v, key, src, rep, err)
}

// selfFindings turns a failed self-read of v's frozen catalog (its
// repository key, read from the copy src) into findings: one per
// difference (up to maxSelfFindings), each naming the table and file, or
// one for what could not be read.
func selfFindings(v *version, key, src string, rep *compare.Report, err error) []Finding {
	const what = "the frozen catalog (read alone with its format's reader model, as a proof reads it: no published catalog of the version is proved in this run)"
	f := func(kind Kind, detail string) Finding {
		return Finding{Kind: kind, Version: v.meta.ID, Key: key, Detail: copyNamed(errors.New(detail), src, key), frozenDiffers: kind == KindDifference}
	}
	if !errors.Is(err, compare.ErrCatalogDiffers) || rep == nil || len(rep.Differences) == 0 {
		msg := strings.TrimPrefix(err.Error(), compare.ErrIncomparable.Error()+": ")
		unread := f(KindUnverifiable, fmt.Sprintf("%s, %s, could not be read: %s", key, what, msg))
		unread.cause = err
		return []Finding{unread}
	}
	var out []Finding
	for i, d := range rep.Differences {
		if i == maxSelfFindings {
			out[len(out)-1].Detail += fmt.Sprintf(" (and %d more difference(s) of this catalog: see compare %s --data DATA against a conversion of it)", len(rep.Differences)-maxSelfFindings, key)
			break
		}
		out = append(out, f(KindDifference, fmt.Sprintf("%s, %s: %s", key, what, d)))
	}
	if rep.Incomparable != "" {
		out = append(out, f(KindUnverifiable, fmt.Sprintf("%s, %s, could not be read to its end: %s", key, what, rep.Incomparable)))
	}
	return out
}

// frozenAtFault says, for a proof of v's frozen catalog (the copy src)
// that found the pair not equivalent, whether the frozen catalog itself
// disagrees with its data files (compare.Self, which takes the proof's
// reads from the digests): then that is the finding, not the published
// catalog or the conversion, and no backfill can help. nil when it reads
// clean (the published catalog or conversion is at fault).
func (r *repository) frozenAtFault(ctx context.Context, v *version, src string, source *compare.Source) error {
	opts := r.selfOptions(v, source)
	opts.AReadWhole = true // read whole before the proof
	rep, err := compare.Self(ctx, src, opts)
	if err == nil || !errors.Is(err, compare.ErrCatalogDiffers) || rep == nil || len(rep.Differences) == 0 {
		return nil
	}
	key := v.prefix() + v.meta.Catalog.Path
	return &FrozenDiffersError{Catalog: key, Differences: len(rep.Differences), First: copyNamed(errors.New(rep.Differences[0].String()), src, key)}
}

// FrozenDiffersError is a version whose frozen catalog disagrees with its
// own data files (or its readers cannot read a table of it): every
// conversion of it carries the same fault, so no proof of one can pass and
// `backfill` cannot help; the frozen catalog (or the data files) must be
// fixed by the writer, or the version withdrawn.
type FrozenDiffersError struct {
	Catalog     string // the frozen catalog's key in the repository
	Differences int
	First       string
}

func (e *FrozenDiffersError) Error() string {
	return fmt.Sprintf("%s, the frozen catalog, itself disagrees with its data files or cannot be read by its readers (%d difference(s), first: %s): every conversion of it carries the fault, so no backfill can write a catalog that proves; restore the data files if they were changed, else withdraw the version and publish its data again",
		e.Catalog, e.Differences, e.First)
}
