package compare

import "context"

// Source is catalog A of proofs that run one after the other: a version's
// frozen catalog proved against each of its conversions (Options.Source).
// The first proof opens it and reads it whole; the later ones use the same
// reader, with the answers it keeps (metadata by epoch, read plans, Parquet
// schemas, delete files), so that each proof still compares every snapshot
// and every table's rows of both catalogs but A is opened, checked and
// listed once. A proof of another catalog A opens its own reader. Not safe
// for concurrent use; Close it after the last proof.
type Source struct {
	path    string // catalog A
	data    string // and its data path (ReaderOptions.DataPath)
	r       *Reader
	errOpen error // Open's error, kept
	read    bool  // ReadEveryTable ran to its end
	errRead error // and its error
}

// NewSource makes a Source for the proofs that pass it; it binds to the
// catalog A of the first.
func NewSource() *Source { return &Source{} }

// reader opens catalog a, once per Source (own is false), or a reader the
// caller closes (own is true) when there is no Source or it holds another
// catalog or data path. A failure caused by ctx is not kept.
func (s *Source) reader(ctx context.Context, a string, opts ReaderOptions) (r *Reader, own bool, err error) {
	opts.AsSource = true // a Source holds the proofs' catalog A
	if s == nil || (s.path != "" && (s.path != a || s.data != opts.DataPath)) {
		r, err = Open(ctx, a, opts)
		return r, true, err
	}
	if s.path == "" {
		r, err = Open(ctx, a, opts)
		if err != nil && ctx.Err() != nil {
			return nil, false, err
		}
		if r != nil {
			r.keepStats = true
		}
		s.path, s.data, s.r, s.errOpen = a, opts.DataPath, r, err
	}
	return s.r, false, s.errOpen
}

// Reader lends the Source's reader of catalog (opening it, and binding
// the Source to catalog, if it is not yet bound) to another user of the
// same catalog, such as a content pass over a version's frozen catalog or
// the listing of its files, so that the catalog is opened once for those
// users and the proofs that follow; done gives nothing back (Close closes
// the reader). With no Source, or one bound to another catalog or data
// path, the reader is the caller's own and done closes it. The caller
// must not use the reader at the same time as the Source's proofs.
func (s *Source) Reader(ctx context.Context, catalog string, opts ReaderOptions) (r *Reader, done func() error, err error) {
	r, own, err := s.reader(ctx, catalog, opts)
	if err != nil {
		return nil, nil, err // Open closes what it opened
	}
	if own {
		return r, r.Close, nil
	}
	return r, func() error { return nil }, nil
}

// readEveryTable reads catalog A whole (Reader.ReadEveryTable) once per
// Source.
func (s *Source) readEveryTable(ctx context.Context) error {
	if s.read {
		return s.errRead
	}
	err := s.r.ReadEveryTable(ctx)
	if ctx.Err() == nil {
		s.read, s.errRead = true, err
	}
	return err
}

// ReadEveryTable reads r's catalog whole (Reader.ReadEveryTable): once per
// Source when r is the Source's reader (as Reader lends it), so that the
// proofs that follow take its answer instead of reading again; otherwise
// r is read now. A check's content pass reads a version's frozen catalog
// whole so, whether or not any proof of the version follows.
func (s *Source) ReadEveryTable(ctx context.Context, r *Reader) error {
	if s != nil && r != nil && s.r == r {
		return s.readEveryTable(ctx)
	}
	return r.ReadEveryTable(ctx)
}

// Close closes the reader of catalog A. The Source is then empty again: a
// later proof binds it to its own catalog A.
func (s *Source) Close() error {
	r := s.r
	*s = Source{}
	if r == nil {
		return nil
	}
	return r.Close()
}
