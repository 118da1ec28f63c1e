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
