// Package open turns a repository argument into its store: the one place a
// new backend is wired in.
package open

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// Options configure the remote backends.
type Options struct {
	// S3 configures s3:// repositories (endpoint, addressing).
	S3 s3.Options
	// HTTPClient is used for http(s):// repositories; nil means the default.
	HTTPClient *http.Client
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
		return s3.New(ctx, bucket, prefix, opts.S3)
	case "http", "https":
		return httpstore.New(arg, opts.HTTPClient)
	}
	return nil, fmt.Errorf("repository %q: unknown scheme %q (want a folder, s3://, https:// or http://)", arg, scheme)
}
