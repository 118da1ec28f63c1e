package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// checkAll runs a Check's content pass (checkContents, for every version
// whose frozen catalog matched version.json) and proves every present
// catalog of a declared format, jobs at a time, version after version: a
// version's content pass and proofs run one after the other and share one
// verified copy of its frozen catalog, made once if any of them reads it
// (with a warm digest cache none may), and one reader of it
// (compare.Source) for all its proofs; the copy goes once they are done
// (versionGroups). It returns the content findings (in version order), the
// proofs (in matrix order) and a finding per failed proof.
//
// A run whose context ends part-way (a whole-store failure, an interrupt)
// returns the context's error with what the passes and proofs that had
// finished before found, and what the others would have checked: a pass
// or proof that ended after it may have failed for it, so it counts as
// not reached (its result is the stop's, not the repository's).
func (r *repository) checkAll(ctx context.Context, m *Matrix, work string, disk *compare.DiskCheck, opts *Options) (*checked, error) {
	type task struct {
		content *VersionPlan // a content pass (of m.Versions[version]), or
		version int
		parent  *version // the history rows of a parent the run does not select (parentHistory), or
		proof   int      // a proof: index in present
	}
	var present []*Cell
	var tasks []task
	var contentOf []string      // versions with a content pass
	proved := map[string]bool{} // versions a proof of this run reads
	for i, vp := range m.Versions {
		if vp.Error == "" && vp.Skipped == "" {
			tasks = append(tasks, task{content: vp, version: i})
			contentOf = append(contentOf, vp.ID)
		}
		for _, c := range vp.Cells {
			if c.State == Present && c.Declared {
				proved[vp.ID] = true
			}
		}
		for _, c := range vp.Cells {
			// A catalog of an undeclared format is a violation already;
			// it has no format to be proved in.
			if c.State == Present && c.Declared {
				tasks = append(tasks, task{proof: len(present)})
				present = append(present, c)
			}
		}
	}
	versionOf := func(t task) string {
		if t.content != nil {
			return t.content.ID
		}
		if t.parent != nil {
			return t.parent.id
		}
		return present[t.proof].Version
	}
	groups := versionGroups(tasks, versionOf, opts.jobs())
	// First, the parents no content pass reads (cheap: one catalog and
	// one query each), each a group of its own (the run's own tasks are
	// grouped as without them), whose rows historyIssues compares once all
	// is done.
	var parents []string
	var first [][]task
	for _, p := range r.unreadParents(m) {
		first = append(first, []task{{parent: p}})
		parents = append(parents, p.id)
	}
	groups = append(first, groups...)
	hints := r.hintVersions(present, contentOf...)
	frozen := newFrozenCopies(r, work, present, slices.Concat(contentOf, hints, parents)...)
	// Hints only save reads: given before the first proof that reads
	// (none, when every proof was kept), and their copy's user released
	// in any case.
	var hinted sync.Once
	hint := func() { hinted.Do(func() { r.hintDeletes(ctx, frozen, hints, opts.log()) }) }
	defer hinted.Do(func() {
		for _, id := range hints {
			frozen.release(id)
		}
	})
	contents := make([][]Finding, len(m.Versions))
	contentDone := make([]bool, len(m.Versions))
	selfReads := make([]*SelfRead, len(m.Versions))
	proofs := make([]*Proof, len(present))
	var findings []Finding
	var mu sync.Mutex
	done := 0
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.jobs())
	for _, group := range groups {
		g.Go(func() error {
			source := compare.NewSource()
			defer func() {
				source.Close()
				for _, t := range group {
					frozen.release(versionOf(t))
				}
			}()
			for _, tk := range group {
				if tk.parent != nil {
					r.parentHistory(gctx, tk.parent, frozen, source)
					if err := ctx.Err(); err != nil {
						return err
					}
					continue
				}
				if vp := tk.content; vp != nil {
					var out []Finding
					for _, is := range r.checkContents(gctx, vp.v, frozen, source, disk, vp.filesTrusted) {
						out = append(out, Finding{Kind: problemKind(is.Problem), Version: vp.ID, Detail: is.Detail, cause: is.cause})
					}
					var self *SelfRead
					if !proved[vp.ID] {
						// No proof reads the frozen catalog's rows: it is read
						// alone, as a proof's side A.
						var fs []Finding
						self, fs = r.selfRead(gctx, vp.v, frozen, source)
						out = append(out, fs...)
					}
					if err := ctx.Err(); err != nil {
						return err
					}
					mu.Lock()
					contents[tk.version], contentDone[tk.version] = out, true
					selfReads[tk.version] = self
					mu.Unlock()
					continue
				}
				i, c := tk.proof, present[tk.proof]
				p, kind := r.prove(gctx, c, work, frozen, source, disk, hint)
				if err := ctx.Err(); err != nil {
					return err
				}
				mu.Lock()
				proofs[i] = p
				if !p.OK {
					findings = append(findings, Finding{Kind: kind, Version: c.Version, Format: c.Format, Key: c.Key, Detail: p.Error, frozenDiffers: p.frozenDiffers, cause: p.cause})
				}
				done++
				if opts.Progress != nil {
					// The finding's kind, as the report says it: every proof
					// not passed said "failed", an unreadable data file
					// (restore it) as much as a difference.
					result := "proved"
					if !p.OK {
						result = string(kind)
					}
					opts.Progress(Progress{Done: done, Total: len(present), Cell: c, Result: result, Seconds: p.Seconds})
				}
				mu.Unlock()
			}
			return nil
		})
	}
	err := g.Wait()
	// Each version's history against its first parent's, once every
	// content pass has read (or the cache has) both frozen catalogs' rows.
	inRun := map[string]bool{}
	for _, vp := range m.Versions {
		inRun[vp.ID] = true
	}
	for i, vp := range m.Versions {
		if !contentDone[i] {
			continue
		}
		for _, is := range r.historyIssues(r.find(vp.ID), inRun, m.otherShards) {
			contents[i] = append(contents[i], Finding{Kind: problemKind(is.Problem), Version: vp.ID, Detail: is.Detail, cause: is.cause})
		}
	}
	res := &checked{contents: slices.Concat(contents...), findings: findings}
	for _, s := range selfReads {
		if s != nil {
			res.selfReads = append(res.selfReads, s)
		}
	}
	for i, p := range proofs {
		if p == nil {
			res.unproved = append(res.unproved, present[i].Key)
			continue
		}
		res.proofs = append(res.proofs, p)
	}
	for i, vp := range m.Versions {
		if vp.Error == "" && vp.Skipped == "" && !contentDone[i] {
			res.unchecked = append(res.unchecked, vp.ID)
		}
	}
	return res, err
}

// checked is what a Check's content pass and proofs found (checkAll).
type checked struct {
	contents []Finding // of the content passes, in version order
	proofs   []*Proof  // in matrix order
	// selfReads are the frozen catalogs read alone (selfRead), in version
	// order.
	selfReads []*SelfRead
	findings  []Finding // a finding per failed proof
	// Of a run stopped part-way: the versions whose content pass and the
	// published catalogs whose proof did not finish before the stop.
	unchecked, unproved []string
}

// prove compares one published catalog with its version's frozen catalog,
// both opened from private copies (the frozen one verified against
// version.json as it is copied, and shared by the version's cells), and
// checks that the published file holds the format its name says. With a
// digest cache, a proof kept for the very bytes of both catalogs (and the
// data folder as it is) is found first, and then neither a folder's
// published catalog nor the frozen one is copied (keptProof). Before the
// first proof that reads, hint gives the run its delete hints. source
// keeps the frozen catalog's reader for the version's next proof; the
// caller closes it, then releases the frozen copy.
func (r *repository) prove(ctx context.Context, c *Cell, work string, frozen *frozenCopies, source *compare.Source, disk *compare.DiskCheck, hint func()) (*Proof, Kind) {
	start := time.Now()
	p := &Proof{Version: c.Version, Format: c.Format, Key: c.Key}
	defer func() { p.Seconds = time.Since(start).Seconds() }()
	fail := func(kind Kind, err error) (*Proof, Kind) {
		p.Error, p.cause = err.Error(), err
		return p, kind
	}
	if r.beforeProof != nil {
		r.beforeProof(c, r.listings)
	}
	v := r.find(c.Version)
	// The frozen catalog's sum is version.json's, which the plan matched
	// it against where it lies, and its copy matches as it is made.
	// BUnderDataPath: the proof also checks that the published catalog
	// names only files under data_dir (equivalence does not pin how it
	// records paths); BBookkeeping, that it holds no inlined rows and no
	// row naming a snapshot after its last (equivalence reads the rows
	// visible at the frozen catalog's snapshots); a proof kept in the
	// cache was made with both.
	opts := compare.Options{DataPath: r.dataPath, BUnderDataPath: true, BBookkeeping: true, BReaders: r.servedRanges()[c.Format], Disk: disk, DigestCache: r.digestCache, Digests: r.digests, Deletes: r.deletes, Engines: r.engines,
		Source: source, Listings: r.listings, SumA: v.meta.Catalog.FileRef.SHA256, Carry: r.earlierPairs(v, c.Format), CarryMinWork: r.carryMin,
		Logger: cellLogger(r.log, c)}
	// Before the proof reads (not when it is found kept, also in
	// compare.Catalogs): the run's delete hints. A remote store's copies
	// reused from a restored cache are held to the bytes the store
	// delivered as the proof is about to read each (gate): a proof of a
	// new version reads the files whose digests are not kept, not every
	// file its catalogs name.
	opts.Gate = r.gate()
	opts.BeforeRead = func(context.Context) error {
		hint()
		return nil
	}
	rep := r.keptProof(ctx, c, opts)
	if rep == nil {
		// The frozen catalog whole first, once per run (the version's
		// content pass may have read it) and not by the proof again: one
		// that does not read is the version's fault, not the published
		// catalog's (the proof would call the pair not equivalent).
		if problem, err := frozen.readWhole(ctx, v, source); err != nil {
			return fail(problemKind(problem), err)
		}
		opts.AReadWhole = true
		src, problem, err := frozen.getHeld(ctx, v, source)
		if err != nil {
			return fail(problemKind(problem), err)
		}
		dir, err := os.MkdirTemp(work, "proof-")
		if err != nil {
			return fail(KindUnverifiable, err)
		}
		defer os.RemoveAll(dir)
		pub, pubSum, _, err := copyObject(ctx, r, c.Key, dir)
		if err != nil {
			// Another ETag than its HEAD's: unverifiable; other last
			// bytes than its ranged read's: a difference, as for a
			// data file (dataProblem).
			return fail(problemKind(dataProblem(err)), err)
		}
		r.names.add(pub, keyName(r.st, c.Key))
		// A remote store's data files, into the cache; files outside
		// data_dir fail the proof (a folder's are found by the proof
		// itself). A published catalog that cannot be read is the proof's
		// to judge, as for a folder: unreadable while its source reads is
		// a difference.
		if r.remote != nil {
			if err := r.ensureData(ctx, pub, c.Key, fetchAll); err != nil && !errors.Is(err, errListFiles) {
				return fail(problemKind(dataProblem(err)), err)
			}
		}
		// The published copy was hashed as it was copied: the proof's key
		// does not read it again, and what is proved is what was hashed.
		opts.SumB = pubSum
		rep, err = compare.Catalogs(ctx, src, pub, opts)
		if rep != nil {
			p.DeleteFiles = rep.DeleteFiles // nil when no comparison ran
			// A proof kept in the cache (a remote store's copy is made
			// first, then compare finds it kept) walked nothing: the
			// Carried it holds is the run's that kept it.
			if rep.Carried != nil && !rep.ProofCached {
				p.CarriedSnapshots = rep.Carried.Snapshots
			}
		}
		if rep != nil && rep.B.Format != "" && rep.B.Format != c.Format {
			// Readers pick the file by its name: one holding another format
			// is one they cannot open.
			return fail(KindDifference, wrongFormat(c, rep))
		}
		var outside *compare.OutsideDataPathError
		var bk *compare.BookkeepingError
		var impostor *formats.NotBaseTableError
		switch {
		case errors.As(err, &impostor) && impostor.Catalog == pub:
			return fail(KindDifference, fmt.Errorf("%s is not the DuckLake catalog its tables say: %s", c.Key, impostor.Detail()))
		case errors.As(err, &outside):
			return fail(KindDifference, &OutsideError{OutsideDataPathError: &compare.OutsideDataPathError{Catalog: c.Key, Files: outside.Files}})
		case errors.As(err, &bk):
			return fail(KindDifference, &compare.BookkeepingError{Catalog: c.Key, Breaches: bk.Breaches})
		case errors.Is(err, errStoreDiffers):
			// A copy downloaded again before the proof read (readable).
			return fail(problemKind(dataProblem(err)), err)
		case err == nil:
			// Proved: a later version's proof may carry this one
			// (earlierPairs), from these very bytes.
			if r.remote != nil {
				r.remote.keepPublished(c.Key, pub)
			}
		case errors.Is(err, compare.ErrNotEquivalent):
			if d := misreadDetail(c, rep, removable(r.st, c.Key)); d != "" {
				return fail(KindDifference, errors.New(d))
			}
			// The frozen catalog's own fault is the version's, not the
			// published catalog's: deleting it and backfilling cannot help.
			if ferr := r.frozenAtFault(ctx, v, src, source); ferr != nil {
				p.frozenDiffers = true
				return fail(KindDifference, fmt.Errorf("%w; the proof of %s: %w", ferr, c.Key, err))
			}
			return fail(KindDifference, err)
		default:
			return fail(KindUnverifiable, err)
		}
	} else if rep.B.Format != c.Format {
		return fail(KindDifference, wrongFormat(c, rep))
	}
	p.OK, p.Cached = true, rep.ProofCached
	return p, ""
}

// servedRanges are the DuckDB ranges fdl.json declares for its formats, by
// format name: a conversion into one of them is refused, and a published
// catalog's proof fails, only for data files that a release within the
// range fails on or misreads by its Parquet footer (formats.FooterQuirks),
// so that a publisher who serves 0.3 to DuckDB >= 1.4.4 is not held to the
// bugs of 1.4.0-1.4.3. A format fdl.json does not declare is held to its
// whole range.
func (r *repository) servedRanges() map[string]string {
	out := map[string]string{}
	if r.cfg == nil {
		return out
	}
	for _, f := range r.cfg.Formats {
		if f.DuckDBFrom == "fdl.json" && f.DuckDB != "" {
			out[f.DuckLake] = f.DuckDB
		}
	}
	return out
}

// misreadDetail says, for a published catalog whose proof found columns
// that the older DuckDB releases its storage admits read wrongly
// (compare.DiffMisread: a 0.1 or 0.2 catalog written with dictionary-FSST
// compression, as fdl-formats did before it turned that off below storage
// v1.4.0), what they read and how to write it again; "" when the proof
// found no such column. name is the catalog where the user removes it
// (removable).
func misreadDetail(c *Cell, rep *compare.Report, name string) string {
	if rep == nil {
		return ""
	}
	var cols []string
	other := -1
	for i, d := range rep.Differences {
		switch {
		case d.Kind == compare.DiffMisread:
			cols = append(cols, oneline.Escape(d.Item))
		case other < 0:
			other = i
		}
	}
	if len(cols) == 0 {
		return ""
	}
	s := fmt.Sprintf("%s: DuckDB 1.3, which its format %s is published for (storage older than v1.4.0), reads column(s) %s as NULL, with no error, in every row of their dictionary-FSST segments with an 'Empty Validity' mask (DuckDB 1.4 and later read the values)",
		c.Key, c.Format, strings.Join(cols, ", "))
	if other >= 0 {
		s += fmt.Sprintf("; and %d other difference(s), first: %s", len(rep.Differences)-len(cols), rep.Differences[other])
	}
	return s + fmt.Sprintf("; fdl-formats releases before the dict_fsst fix wrote storage v1.3.0 so: delete %s and run `fdl-formats backfill` again, which writes it without dictionary-FSST", name)
}

func wrongFormat(c *Cell, rep *compare.Report) error {
	return fmt.Errorf("%s holds DuckLake format %s (detected from its version row and tables), not %s as its name says", c.Key, rep.B.Format, c.Format)
}

// keptProof returns the proof kept in the digest cache for c's published
// catalog as it is in a folder store, or nil: the catalog is hashed where it
// lies, without a copy, and the kept proof of exactly those bytes (with the
// frozen catalog's and the data folder's as they are) certifies them; on a
// miss prove copies the catalog, hashing the copy, and proves that. An
// object store's catalog is not looked up here: its download is the copy
// (hashed as it streams into the work folder, and needed to fetch the data
// files it names, verified against the store, before the data folder can
// name a kept proof), so it is downloaded once, and compare.Catalogs looks
// for the kept proof of its sum before it opens either file.
func (r *repository) keptProof(ctx context.Context, c *Cell, opts compare.Options) *compare.Report {
	if r.remote != nil || opts.DigestCache == nil {
		return nil
	}
	v := r.find(c.Version)
	sum, _, err := hashObject(ctx, r.st, c.Key, nil)
	if err != nil {
		return nil // the copy fails too, and says why
	}
	opts.SumB = sum
	rep, ok := compare.KeptProof(v.prefix()+v.meta.Catalog.Path, c.Key, opts)
	if !ok {
		return nil
	}
	return rep
}
