package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/store"
)

// storeFailures watches the requests of a run on a remote store
// (store.Counter.Watch). The first that fails for the whole store
// (store.IsWholeStore: credentials expired or rotated mid-run, the bucket
// gone, the endpoint unreachable) cancels the run's context, and the run
// returns that error alone, as its setup would have: before, check
// reported every file it then could not read as unverifiable with the
// hint to restore it, and plan every version as unreadable. Objects the
// credentials may not read (store.ErrAccessDenied) are kept for check's
// hint: they are no files to restore.
type storeFailures struct {
	stop     context.CancelCauseFunc
	mu       sync.Mutex
	whole    error    // the first error about the whole store
	wholeKey string   // the key whose request met it ("" for the server's stall watch)
	denied   []string // keys the store refused to these credentials, in order met
}

// watchStore returns ctx, cancelled when a request fails for the whole
// store or the server stops answering (store.ServerWatch, which ctx
// carries to the stall watchdog), and the watcher load gives the run's
// store.Counter. release frees the context.
func watchStore(ctx context.Context) (context.Context, *storeFailures) {
	ctx, stop := context.WithCancelCause(ctx)
	f := &storeFailures{stop: stop}
	ctx = store.WithServerWatch(ctx, store.NewServerWatch(func(err error) { f.note("", err) }))
	return ctx, f
}

// note is the store.Counter's watcher.
func (f *storeFailures) note(key string, err error) {
	switch {
	case store.IsWholeStore(err):
		f.mu.Lock()
		if f.whole == nil {
			f.whole, f.wholeKey = err, key
			f.stop(err)
		}
		f.mu.Unlock()
	case errors.Is(err, store.ErrAccessDenied):
		f.mu.Lock()
		f.denied = append(f.denied, key)
		f.mu.Unlock()
	}
}

func (f *storeFailures) release() { f.stop(nil) }

// cause is the whole-store error that stopped the run, nil when none did
// (or nothing watches the run).
func (f *storeFailures) cause() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.whole
}

// stopped is the error a run of command stops with when a request failed
// for the whole store after the run's first (nil when none did): the
// store's error, which names the object being read and carries its hint
// and exit code, prefixed with the command so that the log says the run
// did not finish. A failure of the first request, fdl.json's, is the
// run's setup failing: the job returns it as it is.
func (f *storeFailures) stopped(command string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.whole == nil || f.wholeKey == FDLKey {
		return nil
	}
	return &StoppedError{Command: command, Err: f.whole}
}

// deniedKeys are the objects the store refused to the run's credentials.
func (f *storeFailures) deniedKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.denied...)
}

// StoppedError is a run that stopped at a request that failed for the
// whole store (store.IsWholeStore): nothing after it could be read, so
// the run reports that one error instead of a finding per file. Its hint
// and exit code are the store error's (errors.As reaches it).
type StoppedError struct {
	Command string // "check", "plan", "backfill"
	Err     error
	// Found counts, per kind, what a check found before the stop (its
	// report, CheckReport.Stopped, lists them): said in the message, as
	// the exit code is the stop's.
	Found map[Kind]int
	// OnlyReaders: the check stopped after every content pass and proof
	// finished; only its reader matrix was not evaluated (said in the
	// message, where nothing is listed as not checked).
	OnlyReaders bool
}

func (e *StoppedError) Error() string {
	msg := fmt.Sprintf("%s stopped: %v", e.Command, e.Err)
	var found []string
	for _, k := range []Kind{KindDifference, KindInvalid, KindUnverifiable, KindMissing} {
		if n := e.Found[k]; n > 0 {
			found = append(found, fmt.Sprintf("%d %s", n, k))
		}
	}
	switch {
	case e.OnlyReaders && len(found) > 0:
		msg += "; every version was checked and every published catalog's proof finished before it, finding " + strings.Join(found, ", ") + " (the report lists them); only the readers were not evaluated"
	case e.OnlyReaders:
		msg += "; every version was checked and every published catalog's proof finished before it, nothing found wrong; only the readers were not evaluated"
	case len(found) > 0:
		msg += "; before the stop it found " + strings.Join(found, ", ") + " (the report lists them, and what was not checked)"
	}
	return msg
}

// Unwrap gives the store's error.
func (e *StoppedError) Unwrap() error { return e.Err }

// runWatched runs a command's job on st with its store's requests watched
// (watchStore). A job that a whole-store failure stopped returns a
// *StoppedError instead of what it made of the failed reads, with its
// report only where keep says (backfill's: the cells written before the
// stop are published; Check returns its own, of what finished before the
// stop); a failure of its setup's first request (fdl.json) is returned as
// it is. Whether the job met the failure in a request of its own (a folder
// listing, a file's stat) or in one of the work it runs at once, the run
// reads the same: "COMMAND stopped: ...".
func runWatched[R any](ctx context.Context, command string, opts Options, keep bool, job func(context.Context, Options, *storeFailures) (*R, error)) (*R, error) {
	ctx, failures := watchStore(ctx)
	defer failures.release()
	opts.failures = failures
	rep, err := job(ctx, opts, failures)
	if serr := failures.stopped(command); serr != nil {
		if !keep {
			rep = nil
		}
		return rep, serr
	}
	return rep, err
}
