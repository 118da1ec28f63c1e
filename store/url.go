package store

import "strings"

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

// Unnamed is err, an error that names an object where it is (name: its
// URL, as KeyName gives it, and a bucket's " at ENDPOINT" after it), told
// after a message that names the object already: its text from the cause
// on ("OP NAME: CAUSE" is "CAUSE"), with err beneath it (errors.Is and
// errors.As find what they found in err). An error that does not so name
// it is err as it is.
func Unnamed(err error, name string) error {
	msg := err.Error()
	i := strings.Index(msg, name)
	if i < 0 {
		return err
	}
	rest := msg[i+len(name):]
	j := strings.Index(rest, ": ")
	if j < 0 || j > 0 && !strings.HasPrefix(rest, " at ") {
		return err
	}
	return &causeError{msg: rest[j+2:], err: err}
}

// causeError is an error told by its cause alone (Unnamed).
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }
