package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
)

// frozenCopies hands the cells of a Backfill or a Check (and a Check's
// content pass) the verified private copy of their version's frozen
// catalog (copyFrozen): made once per version by the first user that needs
// it, opened read-only by every user of the version (the converter, the
// proofs, the content pass), and removed when the version's last user is
// done. Before, each cell made and hashed its own copy of the same
// bytes. Each copy is alone in its own folder, so nothing (such as a
// write-ahead log) ever lies beside it.
type frozenCopies struct {
	r    *repository
	work string
	mu   sync.Mutex
	byID map[string]*frozenCopy
}

type frozenCopy struct {
	mu    sync.Mutex // held while the copy is made or its data files fetched
	dir   string     // the copy's own folder ("" until made)
	path  string
	ready bool // the data files it references are readable (ensureData)
	// outside is the *OutsideError of a ready copy that names files
	// outside data_dir (kept: it is found again every time).
	outside error
	users   int // users of the version not yet released
	// claim is set once a user found the copy breaking a claim of
	// version.json (formatClaim): the version's later users stop there.
	claim error
	// read is set once the copy was read whole (readWhole), whole its
	// verdict: kept for the run, as the bytes are the ones version.json
	// hashes.
	read      bool
	whole     error
	wholeKind Problem
}

// newFrozenCopies prepares the copies of the versions of cells, in work;
// each of others (version ids) is one more user of its version's copy.
func newFrozenCopies(r *repository, work string, cells []*Cell, others ...string) *frozenCopies {
	f := &frozenCopies{r: r, work: work, byID: map[string]*frozenCopy{}}
	use := func(id string) {
		fc := f.byID[id]
		if fc == nil {
			fc = &frozenCopy{}
			f.byID[id] = fc
		}
		fc.users++
	}
	for _, c := range cells {
		use(c.Version)
	}
	for _, id := range others {
		use(id)
	}
	return f
}

// getHeld returns the verified copy of v's frozen catalog, with the data
// files it references at the repository's data path. The files are listed
// (if not yet) with source's reader of the copy, binding source to it when
// not yet bound (nil: a reader of its own), so that the version's proofs
// that pass the same Source do not open the copy again. A remote store's
// copies are held to their objects, and one reused from a restored cache
// is read again only by the gate of the reader or conversion that reads it
// (compare.ReadGate, convert.ReadGate).
func (f *frozenCopies) getHeld(ctx context.Context, v *version, source *compare.Source) (string, Problem, error) {
	if err := f.falseClaim(v.id); err != nil {
		return "", ProblemMismatch, err
	}
	src, problem, err := f.catalog(ctx, v)
	if err != nil {
		return "", problem, err
	}
	key := v.prefix() + v.meta.Catalog.Path
	list := func(ctx context.Context) ([]compare.StoredFile, string, error) {
		return f.r.storedFiles(ctx, src, key, source)
	}
	if err := f.fetch(ctx, v, list); err != nil {
		return "", dataProblem(err), err
	}
	return src, "", nil
}

// catalog returns the verified copy of v's frozen catalog, its data files
// not yet fetched (a content pass reports a fetch failure on its own).
func (f *frozenCopies) catalog(ctx context.Context, v *version) (string, Problem, error) {
	_, src, problem, err := f.copyOf(ctx, v)
	return src, problem, err
}

// fetch makes the data files v's copy references readable at the
// repository's data path (ensureData: a remote store's into the cache), once
// per copy; a failure is not kept, except an *OutsideError (files outside
// data_dir), returned to every user. The copy must have been made (catalog).
// list lists the copy's files through a reader its caller holds open (the
// content pass, or a cell's compare.Source), called only if the files are
// not fetched yet: the copy's list is read once, for every store.
func (f *frozenCopies) fetch(ctx context.Context, v *version, list fileLister) error {
	fc, _, _, err := f.copyOf(ctx, v)
	if err != nil {
		return err
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if !fc.ready {
		key := v.prefix() + v.meta.Catalog.Path
		listed, err := f.r.ensureListed(ctx, list, key, fetchAll)
		var oe *OutsideError
		if err != nil && !(errors.As(err, &oe) && oe.Other == nil) {
			return err
		}
		if !listed {
			// Not kept: the content pass, listing with its own reader,
			// must still check the files against data_dir.
			return nil
		}
		fc.ready, fc.outside = true, err
	}
	return fc.outside
}

// copyOf makes v's copy once. A failed copy is not kept: the next user
// tries again.
func (f *frozenCopies) copyOf(ctx context.Context, v *version) (*frozenCopy, string, Problem, error) {
	f.mu.Lock()
	fc := f.byID[v.id]
	f.mu.Unlock()
	if fc == nil {
		return nil, "", ProblemUnreadable, fmt.Errorf("version %s: no cell or content pass of this run", v.id)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.path != "" {
		return fc, fc.path, "", nil
	}
	dir, err := os.MkdirTemp(f.work, "frozen-")
	if err != nil {
		return nil, "", ProblemUnreadable, fmt.Errorf("create work folder: %w", err)
	}
	src, problem, err := f.r.copyFrozen(ctx, v, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", problem, err
	}
	fc.dir, fc.path = dir, src
	return fc, src, "", nil
}

// frozenWholeKind names, in the digest cache, a frozen catalog read whole
// with no error by this build (compare.BuildKey of its sha256).
const frozenWholeKind = "fdl-formats frozen catalog read whole v1"

// readWhole reads v's frozen catalog whole (compare.Reader.ReadEveryTable:
// every row of every table, so DuckDB verifies the checksum of every block
// that holds data, and the file as long as its header says), once per run,
// with source's reader of the copy (binding source to it when not yet
// bound, so that the version's proofs that pass the same Source take the
// answer instead of reading it again). A catalog read so by this build is
// kept in the digest cache under its sha256 (the bytes the plan matched
// against version.json, and the copy as it was made): then nothing is
// read, nor copied. A catalog that is truncated or has a block DuckDB
// cannot read is ProblemInvalid: its bytes are the ones version.json
// hashes, so no restore brings the version back (its writer hashed a
// damaged file), and every DuckLake reader that loads it fails.
func (f *frozenCopies) readWhole(ctx context.Context, v *version, source *compare.Source) (Problem, error) {
	key := ""
	if f.r.digestCache != nil && v.meta.Catalog.SHA256 != "" {
		key = compare.BuildKey(frozenWholeKind, v.meta.Catalog.SHA256)
		if _, ok := f.r.digestCache.Get(key); ok {
			return "", nil
		}
	}
	fc, src, problem, err := f.copyOf(ctx, v)
	if err != nil {
		return problem, err
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.read {
		return fc.wholeKind, fc.whole
	}
	name := v.prefix() + v.meta.Catalog.Path
	problem, err = "", nil
	rd, done, err := source.Reader(ctx, src, compare.ReaderOptions{DataPath: f.r.dataPath, Engines: f.r.engines, Listings: f.r.listings, Gate: f.r.gate()})
	if err == nil {
		err = source.ReadEveryTable(ctx, rd)
		_ = done() // a reader that only read
	}
	var impostor *formats.NotBaseTableError
	if ctx.Err() != nil {
		return ProblemUnreadable, ctx.Err() // not kept: the run stops
	}
	switch {
	case err == nil:
		if key != "" {
			_ = f.r.digestCache.Put(key, []byte("read whole")) // a cache that cannot be written only costs time
		}
	case errors.As(err, &impostor):
		problem, err = ProblemViolation, fmt.Errorf("%s: %s", name, impostor.Detail())
	case errors.Is(err, formats.ErrNullField):
		problem, err = ProblemInvalid, &invalidFrozenError{name: name, why: copyNamed(err, src, name), err: err}
	case errors.Is(err, compare.ErrDamaged):
		problem, err = ProblemInvalid, &invalidFrozenError{name: name, why: copyNamed(err, src, name), damaged: true, err: err}
	default:
		problem, err = ProblemUnreadable, fmt.Errorf("read %s whole: %s", name, copyNamed(err, src, name))
	}
	fc.read, fc.whole, fc.wholeKind = true, err, problem
	return problem, err
}

// invalidFrozenError is a frozen catalog whose bytes match version.json
// but that no DuckLake reader reads as it is: damaged (compare.ErrDamaged:
// it does not read whole) or holding NULLs where DuckLake's writers always
// write a value (formats.CheckRequired). No restore mends it.
type invalidFrozenError struct {
	name    string // the catalog's key in the repository
	why     string // what failed, naming the catalog by its key
	damaged bool
	err     error
}

// withdrawInvalid is what an invalid version's publisher does.
const withdrawInvalid = "withdraw it (expired.json added, its catalogs and files.json deleted) and publish its data again in a new version"

func (e *invalidFrozenError) Error() string {
	if e.damaged {
		return fmt.Sprintf("%s is not a sound DuckDB file, yet its bytes are the ones version.json hashes (catalog.sha256): %s; every DuckLake reader that loads it fails, so the version is invalid (its writer hashed a damaged file): %s", e.name, e.why, withdrawInvalid)
	}
	return fmt.Sprintf("%s: %s; its bytes are the ones version.json hashes (catalog.sha256), so the version is invalid (DuckLake's readers fail on it or read other rows than it holds): %s", e.name, e.why, withdrawInvalid)
}

func (e *invalidFrozenError) Unwrap() error { return e.err }

// copyNamed is the text of err, met reading the private copy src of the
// catalog key, with the copy named by key and without the prefix that
// only says the catalog could not be read (compare.ErrIncomparable).
func copyNamed(err error, src, key string) string {
	msg := strings.ReplaceAll(err.Error(), src, key)
	msg = strings.TrimPrefix(msg, compare.ErrIncomparable.Error()+": ")
	return strings.TrimPrefix(msg, "catalog "+key+": ")
}

// release says that one user of version id is done with its copy; the last
// one removes it.
func (f *frozenCopies) release(id string) {
	f.mu.Lock()
	fc := f.byID[id]
	f.mu.Unlock()
	if fc == nil {
		return
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.users--; fc.users == 0 && fc.dir != "" {
		os.RemoveAll(fc.dir)
		fc.dir, fc.path, fc.ready, fc.outside = "", "", false, nil
	}
}

// refuse records that v's frozen catalog breaks a claim of version.json.
func (f *frozenCopies) refuse(id string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fc := f.byID[id]; fc != nil && fc.claim == nil {
		fc.claim = err
	}
}

// falseClaim is the claim of version.json a user found v's frozen catalog
// breaking, or nil.
func (f *frozenCopies) falseClaim(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fc := f.byID[id]; fc != nil {
		return fc.claim
	}
	return nil
}
