package store

import (
	"errors"
	"strings"
)

// URLStore is implemented by stores whose objects DuckDB can read by URL
// (an s3:// bucket, an https:// server), found by type assertion. Readers
// are told these URLs (fdl-formats resolve) instead of local paths.
type URLStore interface {
	Store
	// BaseURL is the URL of the repository root, ending in "/"; the URL of
	// an object is BaseURL() + key.
	BaseURL() string
}

// URL returns the URL of key in a URLStore, joined to its base URL with
// exactly one "/".
func URL(s URLStore, key string) string {
	base := s.BaseURL()
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base + strings.TrimPrefix(key, "/")
}

// KeyNamer is implemented by stores whose objects need more than their
// URL to be found with other tools: an S3 bucket of a non-AWS service
// (its endpoint).
type KeyNamer interface {
	// KeyName is the object key as KeyName says; never credentials.
	KeyName(key string) string
}

// KeyName is key as the repository's user acts on it with other tools
// (rm, aws s3 rm, rclone, a console): a local store's file path (absolute),
// a URL store's URL (https://HOST/PREFIX/KEY), a KeyNamer's own name
// (s3://BUCKET/PREFIX/KEY at ENDPOINT); key itself for other stores.
func KeyName(st Store, key string) string {
	st = Base(st)
	if n, ok := st.(KeyNamer); ok {
		return n.KeyName(key)
	}
	if ps, ok := st.(PathStore); ok {
		if p, err := ps.Path(key); err == nil {
			return p
		}
	}
	if us, ok := st.(URLStore); ok {
		return URL(us, key)
	}
	return key
}

// ObjectError is an error about one object (or folder) of a bucket or web
// site, naming it once, where it is: "OP NAME: ERR" ("NAME: ERR" for no
// Op), NAME as KeyName gives it (a site's URL, a bucket's s3:// URL and
// " at ENDPOINT"). Every such store error is one, or gives one to
// errors.As (the stores' setup errors): a caller that finds one knows the
// object is named and adds no name of its own, and takes Err for the
// cause alone (Cause). A folder's errors are the os package's, naming
// its path.
type ObjectError struct {
	Op, Name string
	Err      error
}

func (e *ObjectError) Error() string {
	if e.Op == "" {
		return e.Name + ": " + e.Err.Error()
	}
	return e.Op + " " + e.Name + ": " + e.Err.Error()
}

// Unwrap is the cause.
func (e *ObjectError) Unwrap() error { return e.Err }

// Named reports whether err names its object where it is (an
// *ObjectError in its chain).
func Named(err error) bool {
	var oe *ObjectError
	return errors.As(err, &oe)
}

// Cause is err told by the cause of the *ObjectError in it (its Err),
// for a message that names the object already, with err beneath it
// (errors.Is and errors.As find what they found in err); err as it is
// where it has none.
func Cause(err error) error {
	var oe *ObjectError
	if !errors.As(err, &oe) {
		return err
	}
	return &CauseError{Msg: oe.Err.Error(), Err: err}
}

// CauseError is an error told by Msg, its cause's text, with Err, the
// whole error, beneath it: for a message that names the object (or the
// request) already.
type CauseError struct {
	Msg string
	Err error
}

func (e *CauseError) Error() string { return e.Msg }

// Unwrap is the whole error.
func (e *CauseError) Unwrap() error { return e.Err }
