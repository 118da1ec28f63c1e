// Package open turns a repository argument into its store: the one place a
// new backend is wired in.
package open

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// Options configure the remote backends.
type Options struct {
	// S3 configures s3:// repositories (endpoint, addressing).
	S3 s3.Options
	// HTTPClient is used for http(s):// repositories; nil means
	// httpstore.Client.
	HTTPClient *http.Client
	// StallTimeout bounds how long an s3:// or http(s):// server may send
	// nothing (no response headers, or no more of a body half-way):
	// store.StallTransport. Zero turns the body watchdog off (the web
	// store then waits its two minutes for headers, S3 without bound).
	// It applies to S3 unless S3.StallTimeout is set.
	StallTimeout time.Duration
}

// Repository returns the store of a repository argument:
//
//   - s3://BUCKET/PREFIX: a prefix of an S3-compatible bucket (store/s3),
//     with the AWS SDK's default credentials and region;
//   - https://HOST/PREFIX or http://HOST/PREFIX: a read-only web site
//     (store/httpstore);
//   - anything else: a local folder (store/local), which must exist.
func Repository(ctx context.Context, arg string, opts Options) (store.Store, error) {
	scheme, rest, ok := strings.Cut(arg, "://")
	if !ok {
		return local.New(arg)
	}
	switch strings.ToLower(scheme) {
	case "s3":
		bucket, prefix, _ := strings.Cut(rest, "/")
		o := opts.S3
		if o.StallTimeout == 0 {
			o.StallTimeout = opts.StallTimeout
		}
		return s3.New(ctx, bucket, prefix, o)
	case "http", "https":
		client := opts.HTTPClient
		if client == nil {
			client = httpstore.Client(opts.StallTimeout)
		} else {
			client = store.WithStallTimeout(client, opts.StallTimeout)
		}
		return httpstore.New(arg, client)
	}
	return nil, fmt.Errorf("repository %q: unknown scheme %q (want a folder, s3://, https:// or http://)", arg, scheme)
}
