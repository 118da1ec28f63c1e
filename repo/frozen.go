package repo

import (
	"context"
	"fmt"
	"os"
	"sync"
)

// frozenCopies hands the cells of a Backfill the verified private copy of
// their version's frozen catalog (copyFrozen): made once per version by the
// first cell that needs it, opened read-only by every cell of the version
// (the converter and the proof), and removed when the version's last cell
// is done. Before, each cell made and hashed its own copy of the same
// bytes. Each copy is alone in its own folder, so nothing (such as a
// write-ahead log) ever lies beside it.
type frozenCopies struct {
	r    *repository
	work string
	mu   sync.Mutex
	byID map[string]*frozenCopy
}

type frozenCopy struct {
	mu    sync.Mutex // held while the copy is made
	dir   string     // the copy's own folder ("" until made)
	path  string
	users int // cells of the version not yet released
}

// newFrozenCopies prepares the copies of the versions of cells, in work.
func newFrozenCopies(r *repository, work string, cells []*Cell) *frozenCopies {
	f := &frozenCopies{r: r, work: work, byID: map[string]*frozenCopy{}}
	for _, c := range cells {
		fc := f.byID[c.Version]
		if fc == nil {
			fc = &frozenCopy{}
			f.byID[c.Version] = fc
		}
		fc.users++
	}
	return f
}

// get returns the verified copy of v's frozen catalog, with the data files
// it references readable at the repository's data path. A failed copy is
// not kept: the next cell tries again.
func (f *frozenCopies) get(ctx context.Context, v *version) (string, Problem, error) {
	f.mu.Lock()
	fc := f.byID[v.id]
	f.mu.Unlock()
	if fc == nil {
		return "", ProblemUnreadable, fmt.Errorf("version %s: no cell of this run", v.id)
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.path != "" {
		return fc.path, "", nil
	}
	dir, err := os.MkdirTemp(f.work, "frozen-")
	if err != nil {
		return "", ProblemUnreadable, fmt.Errorf("create work folder: %w", err)
	}
	src, problem, err := f.r.copyFrozen(ctx, v, dir)
	if err == nil {
		if err = f.r.ensureData(ctx, src, false); err != nil {
			problem = ProblemUnreadable
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", problem, err
	}
	fc.dir, fc.path = dir, src
	return src, "", nil
}

// release says that one cell of version id is done with its copy; the last
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
		fc.dir, fc.path = "", ""
	}
}
