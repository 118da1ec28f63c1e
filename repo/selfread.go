package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

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
		Source: source, Listings: r.listings, SumA: v.meta.Catalog.FileRef.SHA256, Gate: r.gate(), CarryMinWork: r.carryMin,
		Logger: r.log.With("version", v.id)}
}

// selfReads keeps the clean self-reads of a run's frozen catalogs, by
// version id, for the self-reads of later versions to carry, and the
// self-reads under way (closed when done).
type selfReads struct {
	mu      sync.Mutex
	byID    map[string]*compare.Report
	running map[string]chan struct{}
}

// put keeps what a later self-read needs of version id's clean self-read
// rep (its format, readers and snapshots), not its table results.
func (s *selfReads) put(id string, rep *compare.Report) {
	kept := rep.ForCarry()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string]*compare.Report{}
	}
	s.byID[id] = kept
}

// get returns version id's clean self-read, or, when none is kept, the
// channel closed when its self-read under way is done (nil: none is).
func (s *selfReads) get(id string) (*compare.Report, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id], s.running[id]
}

// start records that version id's self-read is under way; the returned
// func says it is done.
func (s *selfReads) start(id string) func() {
	done := make(chan struct{})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		s.running = map[string]chan struct{}{}
	}
	s.running[id] = done
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.running, id)
		close(done)
	}
}

// earlierFrozen offers, latest first, the frozen catalogs of up to
// maxEarlier versions before v whose self-read this run found clean (or
// found kept), for v's self-read to carry (compare.Options.SelfCarry): a
// local repository's where they lie, a remote one's as the copies this run
// downloaded and matched to version.json (nothing is downloaded to offer
// them). Each is offered with the sha256 version.json gives: compare hashes
// the file and carries it only when its bytes are the ones read. The
// nearest earlier self-read still under way (another job's) is waited for
// when none nearer is at hand: a version that rewrote rows the earlier
// snapshots see (deletes that replace delete files) can be carried only by
// the versions after it, and the wait costs less than the walk it saves.
// Called by compare.Self only when its walk is long enough to carry.
func (r *repository) earlierFrozen(ctx context.Context, v *version) []compare.SelfCarry {
	if r.paths == nil && r.remote == nil {
		return nil
	}
	i, ok := r.index(v.id)
	if !ok {
		return nil
	}
	var out []compare.SelfCarry
	waited := false
	for j := i - 1; j >= 0 && len(out) < maxEarlier; j-- {
		p := r.versions[j]
		if p.err != nil || p.meta == nil || p.expired != nil || p.meta.Catalog.FileRef.SHA256 == "" {
			continue
		}
		read, running := r.selfReads.get(p.id)
		if read == nil && running != nil && !waited && len(out) == 0 {
			waited = true
			select {
			case <-running:
			case <-ctx.Done():
				return out
			}
			read, _ = r.selfReads.get(p.id)
		}
		if read == nil {
			continue
		}
		key := p.prefix() + p.meta.Catalog.Path
		var path string
		if r.paths == nil {
			path, ok = r.remote.frozenCopy(key)
			if !ok {
				continue
			}
		} else {
			var err error
			if path, err = r.paths.Path(key); err != nil || !regularFile(path) {
				continue
			}
		}
		out = append(out, compare.SelfCarry{Path: path, SHA256: p.meta.Catalog.FileRef.SHA256, Read: read})
	}
	return out
}

// frozenCopy returns this run's local copy of a version's frozen catalog
// (the download, or the frozen-catalog cache's copy, that matched
// version.json), for earlierFrozen; false when it is not at hand: a
// download still in flight or failed, a catalog this run did not read.
func (rm *remote) frozenCopy(key string) (string, bool) {
	rm.mu.Lock()
	f := rm.catalogs[key]
	rm.mu.Unlock()
	if f == nil {
		return "", false
	}
	select {
	case <-f.done:
	default:
		return "", false // in flight
	}
	if f.err != nil || !regularFile(f.path) {
		return "", false
	}
	return f.path, true
}

// SelfRead is the read of one version's frozen catalog alone, made for a
// version no proof of the run reads (selfRead): its rows at every snapshot,
// with its own format's reader model, as a proof reads its side A.
type SelfRead struct {
	Version string `json:"version"`
	// Key is the frozen catalog's key in the repository.
	Key string `json:"key"`
	// OK is set when it read clean; when not, the findings of the
	// version and key say why.
	OK bool `json:"ok"`
	// Cached is set when a clean self-read kept in the digest cache for
	// the very bytes of the catalog and the data folder stood for this one
	// (nothing was read again).
	Cached bool `json:"cached,omitempty"`
	// CarriedSnapshots counts the snapshots the read did not walk again:
	// an earlier version's clean self-read covered them
	// (compare.Options.SelfCarry), as a proof's CarriedSnapshots.
	CarriedSnapshots int     `json:"carried_snapshots,omitempty"`
	Seconds          float64 `json:"duration_seconds"`
}

// selfRead reads v's frozen catalog alone, as a proof reads its side A
// (compare.Self: every table at every snapshot with the reader model of its
// own format), for a version no proof of which reads it in this run (only
// the frozen catalog's format declared, or every other cell refused,
// expired or missing): without it, no row of such a version would be read
// and no record_count checked. A clean read kept in the digest cache for
// the same bytes and data folder (grown or not) is taken without copying
// or opening the catalog. It returns the read (nil when none was made: the
// catalog the content pass found unreadable, which is that pass's to
// report, or a read the run's end cut short) and its findings: none when
// the catalog reads clean, the frozen catalog's differences (exit 3, as a
// proof reports the same failure of its side A) or what could not be read
// (a data file damaged or missing: exit 4, as in a proof).
func (r *repository) selfRead(ctx context.Context, v *version, frozen *frozenCopies, source *compare.Source) (*SelfRead, []Finding) {
	start := time.Now()
	opts := r.selfOptions(v, source)
	key := v.prefix() + v.meta.Catalog.Path
	read := &SelfRead{Version: v.meta.ID, Key: key}
	if r.remote == nil {
		if kept, ok := compare.KeptSelf(key, opts); ok {
			r.selfReads.put(v.id, kept)
			read.OK, read.Cached, read.Seconds = true, true, time.Since(start).Seconds()
			return read, nil
		}
	}
	defer r.selfReads.start(v.id)()
	if _, err := frozen.readWhole(ctx, v, source); err != nil {
		return nil, nil // the content pass reports it
	}
	src, _, err := frozen.getHeld(ctx, v, source)
	if err != nil {
		return nil, nil // the content pass reports it
	}
	opts.AReadWhole = true
	opts.SelfCarry = func(ctx context.Context) []compare.SelfCarry { return r.earlierFrozen(ctx, v) }
	rep, err := compare.Self(ctx, src, opts)
	read.Seconds = time.Since(start).Seconds()
	switch {
	case rep != nil && rep.ProofCached:
		// A read kept in the cache (a remote store's copy is made
		// first, then compare.Self finds it kept): nothing was walked,
		// and the Carried it holds is the run's that kept it.
		read.Cached = true
	case rep != nil && rep.Carried != nil:
		read.CarriedSnapshots = rep.Carried.Snapshots
	}
	if err == nil && rep != nil && rep.Equivalent {
		r.selfReads.put(v.id, rep)
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	if err == nil {
		read.OK = true
		return read, nil
	}
	return read, selfFindings(v, key, src, rep, err)
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
