package store

import "errors"

// WholeStoreError is implemented by a store's errors that are about the
// run's access to the whole store (its credentials, its endpoint, its
// bucket, the network to it), not about the object asked for: every other
// request fails the same way. A run that met one mid-way (a session token
// expiring, a secret rotated, the server going away) reported each file it
// then could not read as one to restore; it stops at the first instead
// (IsWholeStore).
type WholeStoreError interface {
	error
	// WholeStore reports whether the error is about the whole store.
	WholeStore() bool
}

// IsWholeStore reports whether err is, or wraps, an error about the whole
// store (WholeStoreError).
func IsWholeStore(err error) bool {
	var w WholeStoreError
	return errors.As(err, &w) && w.WholeStore()
}

// ErrAccessDenied is matched by a store's error for one object that the
// credentials in use may not read, or that a web site does not serve
// without authentication (S3's AccessDenied, a web server's 401 or 403):
// the object may be there and whole, so restoring it is no cure.
var ErrAccessDenied = errors.New("access denied")

// ErrEncoded is matched by a store's error for an object the server sends
// with a Content-Encoding (gzip, br) though none was asked for: readers get
// the encoded bytes, not the object, which may be there and whole.
var ErrEncoded = errors.New("sent with a Content-Encoding")

// ErrSizeDisagrees is matched by a store's error for an object whose size
// by its HEAD (Stat) is not the size its GETs give (SizeDisagrees): a
// proxy, cache or application answering HEAD otherwise than GET, or an
// object changed while read. The object may be there and whole.
var ErrSizeDisagrees = errors.New("the server's HEAD and GETs disagree about the object's size")

// SizeDisagrees marks err, its text unchanged, as matching
// ErrSizeDisagrees.
func SizeDisagrees(err error) error { return sizeDisagrees{err} }

type sizeDisagrees struct{ error }

func (e sizeDisagrees) Is(target error) bool { return target == ErrSizeDisagrees }
func (e sizeDisagrees) Unwrap() error        { return e.error }

// ServerError marks a store's error for a request the server answered
// with a 5xx status, the store's retries spent: the server failed (an
// overloaded origin, a proxy or CDN whose upstream fails), not the object,
// which may be there and whole. Its text is Err's, unchanged.
type ServerError struct {
	// Status is the server's last answer (500-599).
	Status int
	Err    error
}

func (e *ServerError) Error() string { return e.Err.Error() }
func (e *ServerError) Unwrap() error { return e.Err }
