package repo

import (
	"errors"

	"github.com/fdl-formats/fdl-formats/store"
)

var (
	// ErrNotRepository is returned by Plan, Backfill and Check when the store
	// has no readable fdl.json.
	ErrNotRepository = errors.New("not an FDL repository")
	// ErrBadFilter is returned by Plan, Backfill and Check for a --formats or
	// --versions value that names nothing in the repository.
	ErrBadFilter = errors.New("filter names nothing in the repository")
	// ErrMalformedDuckDB is returned by Resolve for a reader's DuckDB
	// version that is no version at all (not one it does not know).
	ErrMalformedDuckDB = errors.New("malformed DuckDB version")
	// ErrBackfillIncomplete is matched by the *BackfillError Backfill returns
	// when some missing cell could not be written.
	ErrBackfillIncomplete = errors.New("backfill incomplete")
	// ErrDifferences is matched by the *CheckError Check returns when a
	// published catalog is not equivalent to its source (or holds another
	// format than its name, or cannot be read while its source can), a
	// file does not match version.json or its catalog, or a rule is
	// violated.
	ErrDifferences = errors.New("repository has differences")
	// ErrWorkMissing is matched by the *CheckError Check returns when a
	// declared format that can be written is missing.
	ErrWorkMissing = errors.New("repository has work missing")
	// ErrInvalidVersion is matched by the *CheckError Check returns when a
	// version's files are invalid or unreadable, its frozen catalog
	// included: bytes that match version.json yet do not read whole.
	ErrInvalidVersion = errors.New("repository has invalid versions")
	// ErrUnverifiable is matched by the *CheckError Check returns when an
	// input the operator can restore is missing or unreadable (a data file,
	// a catalog this DuckDB cannot open) or a feature is unsupported.
	ErrUnverifiable = errors.New("repository has catalogs that could not be verified")
	// ErrNoCatalog is matched by the *NoCatalogError Resolve returns when no
	// catalog of the version opens in the reader's DuckDB.
	ErrNoCatalog = errors.New("no catalog of the version opens in this DuckDB")
)

// UnsafeStoreError is returned by Backfill, before it writes anything, when
// the store's probe finds that the server does not honour the conditional
// writes publishing relies on (it matches store.ErrUnsafe).
type UnsafeStoreError struct{ Err error }

func (e *UnsafeStoreError) Error() string {
	if errors.Is(e.Err, store.ErrWriteDenied) {
		return "backfill cannot publish: " + e.Err.Error()
	}
	return "backfill refused: " + e.Err.Error()
}

// Unwrap gives the probe's error.
func (e *UnsafeStoreError) Unwrap() error { return e.Err }

// Hint tells the user what to do next.
func (e *UnsafeStoreError) Hint() string {
	if errors.Is(e.Err, store.ErrWriteDenied) {
		// Not the server's conditional writes: it refused the write.
		return "use credentials that may write to the repository: backfill needs s3:PutObject on its prefix (and s3:DeleteObject, to remove its probe's object); plan and check need only s3:GetObject and s3:ListBucket"
	}
	return "publish to a service that honours If-None-Match: * on PutObject (AWS S3, Cloudflare R2, MinIO, versitygw; see the README), or backfill a local copy"
}

// FilterError is a selection that names nothing in the repository (a
// --formats or --versions value, resolve's --version), or not one version
// (a seq several versions share, every version expired): errors.Is
// matches ErrBadFilter, so it exits as a bad argument.
type FilterError struct {
	// Option is the selection as the CLI's flag names it: "formats",
	// "versions" (Options.Formats, Versions) or "version"
	// (ResolveOptions.Version); "" for resolve's default, the latest
	// version.
	Option string
	// Detail says what is wrong with it (`format "0.5" is not declared in
	// fdl.json (declared: 1.0)`).
	Detail string
	// NamesNothing: the value names nothing (Error starts with
	// ErrBadFilter's text); else it names more or less than one version.
	NamesNothing bool
}

func (e *FilterError) Error() string {
	if e.NamesNothing {
		return ErrBadFilter.Error() + ": " + e.Detail
	}
	return e.Detail
}

// Is matches ErrBadFilter.
func (e *FilterError) Is(target error) bool { return target == ErrBadFilter }
