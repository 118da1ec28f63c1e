package compare

import (
	"context"
	"sync"
)

// Starting a DuckDB, attaching a catalog and reading it whole are most of
// a small proof's fixed cost, and the two sides of a comparison share
// nothing until their rows are read: these helpers do each step for both
// sides at the same time. Each reader has its own DuckDB and connection.

// OpenPair opens the two catalogs of a comparison at the same time, each as
// Open does. A reader is nil when its Open failed.
func OpenPair(ctx context.Context, a, b string, optsA, optsB ReaderOptions) (ra, rb *Reader, errA, errB error) {
	both(func() { ra, errA = Open(ctx, a, optsA) }, func() { rb, errB = Open(ctx, b, optsB) })
	return ra, rb, errA, errB
}

// readEveryTablePair runs ReadEveryTable on both readers at the same time,
// on each whose error so far (errA, errB) is nil, and returns the errors.
func readEveryTablePair(ctx context.Context, ra, rb *Reader, errA, errB error) (error, error) {
	read := func(r *Reader, err *error) func() {
		return func() {
			if *err == nil {
				*err = r.ReadEveryTable(ctx)
			}
		}
	}
	both(read(ra, &errA), read(rb, &errB))
	return errA, errB
}

// closePair closes both readers (either may be nil) at the same time.
func closePair(ra, rb *Reader) {
	closer := func(r *Reader) func() {
		return func() {
			if r != nil {
				r.Close()
			}
		}
	}
	both(closer(ra), closer(rb))
}

// both runs f and g at the same time and waits for both.
func both(f, g func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f()
	}()
	g()
	wg.Wait()
}

// warmPair reads, on both readers at the same time, the metadata a
// comparison asks for at each of snaps (schema description, commit info,
// tables, columns, files), so that the comparison's own calls find it
// kept (see epochs.go). It touches only each reader's own memo (r.meta),
// never what the two readers share (schemas, delete files, digests), and
// reports nothing: a read that fails here fails again, and is reported,
// when the comparison asks.
func warmPair(ctx context.Context, ra, rb *Reader, snaps []int64) {
	both(func() { ra.warm(ctx, snaps) }, func() { rb.warm(ctx, snaps) })
}

func (r *Reader) warm(ctx context.Context, snaps []int64) {
	if _, _, err := r.commitInfo(ctx, 0); err != nil {
		return
	}
	for _, s := range snaps {
		if ctx.Err() != nil {
			return
		}
		if _, err := r.schemaEntries(ctx, s); err != nil {
			return
		}
		tables, err := r.Tables(ctx, s)
		if err != nil {
			return
		}
		for _, t := range tables {
			if _, err := r.Columns(ctx, t.ID, s); err != nil {
				return
			}
			if _, err := r.allTableFiles(ctx, t); err != nil {
				return
			}
		}
	}
}
