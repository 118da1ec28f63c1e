// Package s3 is the store.Store of a prefix in an S3-compatible bucket (AWS
// S3, Cloudflare R2, MinIO, versitygw and others), on the AWS SDK for Go v2.
//
// Create never replaces an object: it is a PutObject with
// "If-None-Match: *", which the server refuses with 412 when the key is
// there (store.ErrExists). A 409 ConditionalRequestConflict (another write
// of the key in flight) is retried with backoff. A server that ignores the
// condition would let two writers replace each other's objects, so Probe
// checks once per run that it is honoured.
package s3

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fdl-formats/fdl-formats/internal/datapath"
	"github.com/fdl-formats/fdl-formats/store"
)

// PrivatePrefix is the folder, directly under the store's prefix, that holds
// the conditional-write probe's objects. List does not show it.
const PrivatePrefix = ".fdl-formats/"

// ErrNoRegion is New's error for AWS S3 (no endpoint) with no region
// anywhere: the run's environment lacks it (exit 1), the repository is
// not at fault.
var ErrNoRegion = errors.New("no region")

// Options configure New. The zero value is AWS S3 with the SDK's default
// credential chain and region.
type Options struct {
	// Endpoint is the base URL of a non-AWS service (R2, MinIO, ...). Empty
	// means AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL, then AWS itself.
	Endpoint string
	// VirtualHosted turns path-style addressing off when an endpoint is
	// given (bucket.host instead of host/bucket).
	VirtualHosted bool
	// Region overrides the SDK's region; with an endpoint and no region
	// anywhere, "auto" is used (what R2 wants; MinIO and most gateways
	// accept any).
	Region string
	// HTTPClient, if set, replaces the SDK's HTTP client.
	HTTPClient *http.Client
	// StallTimeout, if above zero, bounds how long the server may send
	// nothing: the wait for a response's headers (on the SDK's own
	// client) and each wait for more of a response's body
	// (store.StallDoer), and how long it may take none of an upload's
	// body, so that a connection that stops half-way fails (and is
	// retried where reads and writes are) instead of hanging. Zero leaves
	// the client unbounded, as the SDK's is.
	StallTimeout time.Duration
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// NoSign sends every request unsigned, without credentials (the AWS
	// CLI's --no-sign-request): a bucket whose policy lets anyone list and
	// read it, from a run that has no credentials of the service (a
	// third party's CI checking a public repository). The credential
	// chain is not asked.
	NoSign bool
}

// Store is a prefix of a bucket.
type Store struct {
	client   *s3.Client
	bucket   string
	prefix   string // "" or ending in "/"
	endpoint string
	vhost    bool // virtual-hosted addressing at the endpoint
	noSign   bool // requests unsigned (Options.NoSign)
	// answered: a request of this store was answered with an object or a
	// listing, so the bucket is there and the credentials worked; a HEAD's
	// bare 404 after that is a missing object (headCause).
	answered atomic.Bool
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Prober   = (*Store)(nil)
	_ store.Location = (*Store)(nil)
	_ store.URLStore = (*Store)(nil)
	_ store.KeyNamer = (*Store)(nil)

	_ store.PrefixChecker = (*Store)(nil)
)

// New returns the store of s3://bucket/prefix.
func New(ctx context.Context, bucket, prefix string, opts Options) (*Store, error) {
	if bucket == "" {
		return nil, fmt.Errorf("s3:///%s: no bucket (want s3://BUCKET/PREFIX)", prefix)
	}
	prefix = strings.Trim(prefix, "/")
	// The repository, as every error of its setup names it (s3://BUCKET,
	// s3://BUCKET/PREFIX): the bucket alone left which repository of a run
	// over several unsaid. The endpoint is named where it is known good
	// (Location's " at ENDPOINT"); its own error names the bad value.
	repo := "s3://" + bucket
	if prefix != "" {
		repo += "/" + prefix
		if err := store.ValidateKey(prefix); err != nil {
			return nil, fmt.Errorf("%s: %w", repo, err)
		}
		// DuckDB's S3 client takes what follows a "?" as the URL's query
		// (and "#" as its fragment), so its readers would open other
		// objects than the ones checked through the SDK: the rule the
		// catalog's file paths and data_dir follow.
		if strings.ContainsAny(prefix, datapath.Unsafe) {
			return nil, &refusedError{err: fmt.Errorf("%s: the prefix holds a ?, # or \\, which DuckDB's s3:// reader takes as the start of a query or fragment, so it would open other objects than fdl-formats checks: move the repository under a prefix without them", repo),
				hint: "move the repository under a prefix without ?, # or \\ (readers open its files by URL)"}
		}
		prefix += "/"
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	// from names where the endpoint was given, for CheckEndpoint.
	endpoint, from := opts.Endpoint, "endpoint"
	for _, name := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if endpoint == "" {
			endpoint, from = getenv(name), "$"+name
		}
	}
	var loadOpts []func(*config.LoadOptions) error
	if opts.Region != "" {
		loadOpts = append(loadOpts, config.WithRegion(opts.Region))
	}
	if opts.HTTPClient != nil {
		loadOpts = append(loadOpts, config.WithHTTPClient(opts.HTTPClient))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		where := repo
		if endpoint != "" && CheckEndpoint(from, endpoint) == nil {
			where += " at " + endpoint
		}
		return nil, fmt.Errorf("%s: load AWS configuration: %w", where, err)
	}
	if opts.NoSign {
		// Recognised by the SDK's signer, which then sends the request
		// as it is (a provider wrapped in markCreds would not be).
		cfg.Credentials = aws.AnonymousCredentials{}
	} else {
		markCreds(&cfg)
	}
	if endpoint == "" {
		// The SDK also takes an endpoint from the shared configuration (a
		// profile's endpoint_url, its services section): the requests go
		// there, so it must name the store as --endpoint does (Location
		// keys the data cache and the kept proofs; DuckDBSecret sends
		// readers there), not AWS.
		if be := s3.NewFromConfig(cfg).Options().BaseEndpoint; be != nil {
			endpoint, from = *be, "the AWS profile's endpoint_url"
		}
	}
	if err := CheckEndpoint(from, endpoint); err != nil {
		return nil, &refusedError{err: fmt.Errorf("%s: %w", repo, err), hint: endpointHint}
	}
	if cfg.Region == "" {
		if endpoint == "" {
			// The runner's setup, not the repository (ErrNoRegion): a CI
			// step has no profile and sets no AWS_REGION unless told to.
			return nil, &refusedError{err: fmt.Errorf("%s: %w: the AWS SDK found none in AWS_REGION or the shared configuration, and S3 needs the bucket's", repo, ErrNoRegion),
				hint: "set AWS_REGION to the bucket's region in the run's environment (export AWS_REGION=eu-west-1; a CI step or cron job gets no login shell's variables nor, often, a profile), or give the endpoint of another S3 service (--endpoint, $AWS_ENDPOINT_URL_S3)"}
		}
		cfg.Region = "auto"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.UsePathStyle = !opts.VirtualHosted
		}
		// Plain signed payloads: what every S3-compatible server accepts
		// (the SDK's default CRC trailers are not understood everywhere).
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.HTTPClient = stallClient(keepConns(o.HTTPClient), opts.StallTimeout)
	})
	return &Store{client: client, bucket: bucket, prefix: prefix, endpoint: endpoint, vhost: opts.VirtualHosted, noSign: opts.NoSign}, nil
}

// idleConns is how many idle connections to the server the SDK's own
// client keeps (its default is 10): at least what a run has in flight at
// once (a plan's look at 4 versions side by side, then the data files'
// ends read ahead, 16, beside the downloads); the others were closed after
// each answer and opened again, a TLS handshake each.
const idleConns = 32

// keepConns raises the idle connections the SDK's own client keeps to
// idleConns; a client the caller gave is left as it is.
func keepConns(c s3.HTTPClient) s3.HTTPClient {
	if b, ok := c.(*awshttp.BuildableClient); ok {
		return b.WithTransportOptions(func(tr *http.Transport) {
			tr.MaxIdleConnsPerHost = max(tr.MaxIdleConnsPerHost, idleConns)
			tr.MaxIdleConns = max(tr.MaxIdleConns, idleConns)
		})
	}
	return c
}

// stallClient puts the SDK's HTTP client, as the SDK resolved it (a custom
// CA bundle, its redirect policy), under the stall watchdog; its own
// client also waits at most d for response headers. Bodies are watched
// both ways: a response's, and an upload's, which is cut only when the
// server takes none of it for d, never for its length (the SDK's own read
// timeout, on the connection, exempts S3 for that reason).
func stallClient(c s3.HTTPClient, d time.Duration) s3.HTTPClient {
	if d <= 0 {
		return c
	}
	if b, ok := c.(*awshttp.BuildableClient); ok {
		c = b.WithTransportOptions(func(tr *http.Transport) { tr.ResponseHeaderTimeout = d })
	}
	return store.StallDoer(c, d)
}

// ErrEndpoint is New's (and CheckEndpoint's) error for an endpoint that is
// not an http:// or https:// URL of a host and port alone: the command
// line or the run's environment is at fault, found before any request,
// not the repository.
var ErrEndpoint = errors.New("bad endpoint")

// endpointError is an endpoint CheckEndpoint refuses (ErrEndpoint).
type endpointError struct{ msg string }

func (e *endpointError) Error() string        { return e.msg }
func (e *endpointError) Is(target error) bool { return target == ErrEndpoint }

// endpointForm is the form of an endpoint CheckEndpoint accepts.
const endpointForm = "want http://HOST:PORT or https://HOST:PORT, the S3 server's host and port alone"

// CheckEndpoint refuses an endpoint URL that is not an absolute http(s)
// URL, or that carries credentials, or a path: the SDK would ignore
// credentials (and sign with the environment's), while the endpoint is
// printed in every log line, report and error naming the store; DuckDB's
// S3 secret takes no path. The error (ErrEndpoint) names the endpoint by
// name, where it was given (--endpoint, $AWS_ENDPOINT_URL_S3), and never
// repeats the URL as given: not its credentials, and nothing but a value
// without any ("127.0.0.1:9000") when it does not parse. Nil for "".
func CheckEndpoint(name, endpoint string) error {
	if endpoint == "" {
		return nil
	}
	refuse := func(format string, args ...any) error {
		return &endpointError{msg: fmt.Sprintf(format, args...)}
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		if strings.Contains(endpoint, "@") {
			return refuse("%s: not a URL; %s", name, endpointForm)
		}
		return refuse("%s %q: not a URL; %s", name, endpoint, endpointForm)
	}
	if u.User != nil {
		u.User = nil
		return refuse("%s %s: credentials in the endpoint URL are not supported (they would be printed wherever the endpoint is named); give them as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or a profile", name, u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return refuse("%s %s: not an http:// or https:// URL; %s", name, u.Redacted(), endpointForm)
	}
	// The SDK sends every request under the endpoint's path; DuckDB's S3
	// secret takes a host and port only (DuckDBSecret), so its readers
	// would ask the host's root for other objects than the ones checked.
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return refuse("%s %s: a path, query or fragment after the host, which DuckDB's s3:// reader cannot be given (its S3 secret's ENDPOINT is a host and port): it would read other objects than fdl-formats checks; give the S3 server's own host and port", name, u.Redacted())
	}
	return nil
}

// endpointHint is the Try: line of an endpoint CheckEndpoint refuses.
const endpointHint = "give the S3 server's endpoint as an http:// or https:// URL of its host and port alone, without credentials, path or query (--endpoint, $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL or the profile's endpoint_url), and the credentials as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or a profile"

// refusedError is an endpoint or prefix New refuses before any request,
// with what to change: the CLI printed the hint for a REPO that holds no
// fdl.json ("give the folder that holds fdl.json …"), though nothing was
// asked of the store.
type refusedError struct {
	err  error
	hint string
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// Hint says what to change.
func (e *refusedError) Hint() string { return e.hint }

// Location implements store.Location: s3://bucket/prefix, and the endpoint
// when one is set (never credentials).
func (s *Store) Location() string {
	loc := "s3://" + s.bucket + "/" + strings.TrimSuffix(s.prefix, "/")
	if s.endpoint != "" {
		loc += " at " + s.endpoint
	}
	return loc
}

// DuckDBSecret is the statement a DuckDB runs before it reads this store's
// s3:// URLs, where they are not AWS's: DuckDB's httpfs sends s3:// to AWS
// unless an S3 secret names the endpoint (host and port, no scheme), its
// addressing and whether it speaks TLS. Credentials are the reader's own
// (KEY_ID and SECRET, added for a private bucket). Empty for AWS itself.
func (s *Store) DuckDBSecret() string {
	if s.endpoint == "" {
		return ""
	}
	u, err := url.Parse(s.endpoint)
	if err != nil || u.Host == "" {
		return ""
	}
	style := "path"
	if s.vhost {
		style = "vhost"
	}
	return fmt.Sprintf("CREATE SECRET (TYPE s3, ENDPOINT '%s', URL_STYLE '%s', USE_SSL %t)", u.Host, style, u.Scheme == "https")
}

// BaseURL implements store.URLStore: s3://bucket/prefix/, as DuckDB's
// httpfs reads it.
func (s *Store) BaseURL() string { return "s3://" + s.bucket + "/" + s.prefix }

// KeyName implements store.KeyNamer: the object's s3:// URL, and the
// endpoint of a non-AWS service, as Location names the store.
func (s *Store) KeyName(key string) string {
	name := store.URL(s, key)
	if s.endpoint != "" {
		name += " at " + s.endpoint
	}
	return name
}

func (s *Store) key(k string) *string { return aws.String(s.prefix + k) }

// Open implements store.Store.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, err
	}
	rc, _, err := s.OpenInfo(ctx, key)
	return rc, err
}

// OpenInfo implements store.InfoOpener: the GetObject's own ETag, time and
// length.
func (s *Store) OpenInfo(ctx context.Context, key string) (io.ReadCloser, store.ObjectInfo, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, store.ObjectInfo{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: s.key(key)})
	if err != nil {
		return nil, store.ObjectInfo{}, s.wrap("open", key, err)
	}
	s.answered.Store(true)
	info := store.ObjectInfo{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: unquote(aws.ToString(out.ETag))}
	if out.LastModified != nil {
		info.ModTime = *out.LastModified
	}
	return out.Body, info, nil
}

// ReadTail implements store.TailReader as DuckDB reads a Parquet footer: a
// HeadObject for the size, then a GetObject of the explicit range of the
// last n bytes, described by its Content-Range, ETag and time. The GET's
// ETag must be the HEAD's (store.CheckETags), as DuckDB requires. A 206
// without a Content-Range cannot be told to hold the object's end and is
// an error. A 200 (the server ignored the range) is an error unless the
// range asked was the whole object (DuckDB's s3:// reads, unlike its
// http(s):// ones, do not fall back to a whole download: they fail when
// the answer is longer than the range); then it must hold the HEAD's
// size.
func (s *Store) ReadTail(ctx context.Context, key string, n int64) ([]byte, store.ObjectInfo, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, store.ObjectInfo{}, err
	}
	head, headETag, err := s.stat(ctx, key)
	if err != nil {
		return nil, store.ObjectInfo{}, err
	}
	return s.readTailAfter(ctx, key, n, head, headETag)
}

var _ store.KnownTailReader = (*Store)(nil)

// ReadTailOf implements store.KnownTailReader: ReadTail's GetObject
// without its HeadObject, held to head (the object as this run's ReadTail
// of it described it) as ReadTail holds it to its HEAD.
// A whole answer is an error there, as in ReadTail: nothing is kept.
func (s *Store) ReadTailOf(ctx context.Context, key string, n int64, head store.ObjectInfo, _ io.Writer) ([]byte, store.ObjectInfo, bool, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, store.ObjectInfo{}, false, err
	}
	tail, info, err := s.readTailAfter(ctx, key, n, head, head.ETag)
	return tail, info, false, err
}

// readTailAfter is ReadTail after its HeadObject, which described the
// object as head, its ETag as sent headETag.
func (s *Store) readTailAfter(ctx context.Context, key string, n int64, head store.ObjectInfo, headETag string) ([]byte, store.ObjectInfo, error) {
	if head.Size == 0 {
		return []byte{}, head, nil
	}
	first := max(head.Size-n, 0)
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: s.key(key), Range: aws.String(fmt.Sprintf("bytes=%d-%d", first, head.Size-1))})
	if err != nil {
		return nil, store.ObjectInfo{}, s.wrap("read the end of", key, err)
	}
	defer out.Body.Close()
	if err := store.CheckETags(key, headETag, aws.ToString(out.ETag)); err != nil {
		// Named where it is, once, as the store's other errors name it.
		var e *store.ETagError
		if errors.As(err, &e) {
			e.Name = s.KeyName(key)
		}
		return nil, store.ObjectInfo{}, s.objErr("read the end of", key, store.Cause(err))
	}
	info := store.ObjectInfo{Key: key, Size: head.Size, ETag: unquote(aws.ToString(out.ETag))}
	if out.LastModified != nil {
		info.ModTime = *out.LastModified
	}
	cr := aws.ToString(out.ContentRange)
	switch code := responseStatus(out.ResultMetadata); {
	case code == http.StatusOK && first > 0:
		return nil, store.ObjectInfo{}, s.objErr("read the end of", key, fmt.Errorf("the server ignored the range bytes=%d-%d (200 and the whole object): DuckDB's s3:// reads fail on such answers", first, head.Size-1))
	case code == http.StatusOK:
		// The range asked was the whole object: so is the answer.
		tail, err := store.LastBytes(store.ContextReader(ctx, out.Body), n, head.Size)
		if err != nil {
			return nil, store.ObjectInfo{}, s.objErr("read the end of", key, err)
		}
		return tail, info, nil
	case cr == "":
		return nil, store.ObjectInfo{}, s.objErr("read the end of", key, fmt.Errorf("the ranged answer (HTTP %d) has no Content-Range, so which bytes it holds cannot be told", code))
	}
	tail, err := io.ReadAll(io.LimitReader(out.Body, n+1))
	if err != nil {
		return nil, store.ObjectInfo{}, s.wrap("read the end of", key, err)
	}
	size, err := store.TailRange(cr, int64(len(tail)), n)
	switch {
	case err != nil && size > 0 && size != head.Size:
		// The range asked ends at the HEAD's size, the object at another.
		return nil, store.ObjectInfo{}, store.SizeDisagrees(s.objErr("read the end of", key, err))
	case err != nil:
		return nil, store.ObjectInfo{}, s.objErr("read the end of", key, err)
	case size >= 0 && size != head.Size:
		return nil, store.ObjectInfo{}, store.SizeDisagrees(s.objErr("read the end of", key, fmt.Errorf("%d bytes by its HEAD, %d by its GET (changed while read?)", head.Size, size)))
	case size < 0 && int64(len(tail)) != min(n, head.Size):
		return nil, store.ObjectInfo{}, s.objErr("read the end of", key, fmt.Errorf("%d bytes for the last %d of a %d-byte file", len(tail), n, head.Size))
	}
	return tail, info, nil
}

// Stat implements store.Store.
func (s *Store) Stat(ctx context.Context, key string) (store.ObjectInfo, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.ObjectInfo{}, err
	}
	info, _, err := s.stat(ctx, key)
	return info, err
}

// stat is Stat, with the HEAD's ETag as the server sent it. A HEAD without
// a Content-Length (some gateways) is no empty object: the size is then
// the total of the Content-Range of a GET of the first byte, as the web
// store sizes such files.
func (s *Store) stat(ctx context.Context, key string) (store.ObjectInfo, string, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: s.key(key)})
	if err != nil {
		return store.ObjectInfo{}, "", s.wrap("stat", key, s.headCause(ctx, key, err))
	}
	s.answered.Store(true)
	info := store.ObjectInfo{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: unquote(aws.ToString(out.ETag))}
	if out.LastModified != nil {
		info.ModTime = *out.LastModified
	}
	if out.ContentLength == nil {
		if info.Size, err = s.sizeByRange(ctx, key); err != nil {
			return store.ObjectInfo{}, "", err
		}
	}
	return info, aws.ToString(out.ETag), nil
}

// headCause is the error of a HEAD of key with the S3 error code its
// answer could not carry: a HEAD's answer has no body, so a 400, 403 or
// 404 names no code, and a wrong secret read as "access denied", expired
// session credentials too, a missing bucket or versitygw's unknown access
// key (404) as a missing object, a wrong region as a bare 400. As a
// careful client does, it asks a GET of the key's first byte (Range:
// bytes=0-0), whose error answer has a body with the code, and returns
// that GET's error in the HEAD's place. A GET that is answered (the
// object reads: the HEAD alone was refused) or that gets no answer (the
// run cancelled, no connection) leaves the HEAD's error as it is. A 404
// once the store has been answered (answered) is a missing object, with
// no GET: checks look for absent files (a catalog's .wal) in every
// version.
func (s *Store) headCause(ctx context.Context, key string, err error) error {
	switch status(err) {
	case http.StatusBadRequest, http.StatusForbidden:
	case http.StatusNotFound:
		if s.answered.Load() {
			return err
		}
	default:
		return err
	}
	out, gerr := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: s.key(key), Range: aws.String("bytes=0-0")})
	if gerr == nil {
		out.Body.Close()
		return err
	}
	if status(gerr) == 0 {
		return err
	}
	return gerr
}

// sizeByRange is the size of an object by a GET of its first byte.
func (s *Store) sizeByRange(ctx context.Context, key string) (int64, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: s.key(key), Range: aws.String("bytes=0-0")})
	if err != nil {
		return 0, s.wrap("stat", key, fmt.Errorf("the HEAD gave no Content-Length, and a GET of the first byte for the size failed: %w", err))
	}
	out.Body.Close()
	cr := aws.ToString(out.ContentRange)
	code := responseStatus(out.ResultMetadata)
	var size int64
	switch _, err := fmt.Sscanf(cr, "bytes 0-0/%d", &size); {
	case code == http.StatusOK && out.ContentLength != nil:
		size = *out.ContentLength // the range ignored: the whole object
	case code != http.StatusPartialContent || err != nil || size <= 0:
		return 0, s.objErr("stat", key, fmt.Errorf("the HEAD gave no Content-Length, and a GET of the first byte no size either (HTTP %d, Content-Range %q)", code, cr))
	}
	return size, nil
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, prefix string) ([]store.ObjectInfo, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	out := []store.ObjectInfo{}
	// Page by page, not through the SDK's paginator: it ends quietly on a
	// page that says the listing goes on without a token to go on with,
	// and loops forever on a repeated token. A listing cut short hides
	// versions from every check (which then passes on the rest).
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix)}
	tokens := map[string]bool{}
	for {
		page, err := s.client.ListObjectsV2(ctx, in)
		if err != nil {
			return nil, s.wrap("list", prefix, err)
		}
		s.answered.Store(true)
		for _, o := range page.Contents {
			key := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if strings.HasPrefix(key, PrivatePrefix) || store.ValidateKey(key) != nil {
				continue // the probe's, or a name no store key can have
			}
			info := store.ObjectInfo{Key: key, Size: aws.ToInt64(o.Size), ETag: unquote(aws.ToString(o.ETag))}
			if o.LastModified != nil {
				info.ModTime = *o.LastModified
			}
			out = append(out, info)
		}
		if !aws.ToBool(page.IsTruncated) {
			break
		}
		token := aws.ToString(page.NextContinuationToken)
		switch {
		case token == "":
			return nil, s.objErr("list", prefix, errors.New("the server says the listing goes on (IsTruncated) but gives no continuation token, so the rest cannot be listed"))
		case tokens[token]:
			return nil, s.objErr("list", prefix, fmt.Errorf("the server repeated continuation token %q, so the listing would never end", token))
		}
		tokens[token] = true
		in.ContinuationToken = aws.String(token)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// HasPrefix implements store.PrefixChecker: one ListObjectsV2 of at most
// one key.
func (s *Store) HasPrefix(ctx context.Context, prefix string) (bool, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return false, err
	}
	page, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix), MaxKeys: aws.Int32(1)})
	if err != nil {
		return false, s.wrap("list", prefix, err)
	}
	return len(page.Contents) > 0, nil
}

// Create implements store.Store with a conditional PutObject. The body is
// spooled to a temporary file first unless r can seek, so that a failing
// reader or a canceled context never sends a partial object, and the SDK
// can sign and resend it.
func (s *Store) Create(ctx context.Context, key string, r io.Reader) error {
	if err := store.ValidateKey(key); err != nil {
		return err
	}
	body, size, cleanup, err := seekable(ctx, r)
	if err != nil {
		return s.objErr("create", key, err)
	}
	defer cleanup()
	return s.put(ctx, key, body, size)
}

// put sends a conditional PutObject until its outcome is known. A 409 is
// retried with backoff. A request whose answer was lost (connection reset:
// servers may refuse a conditional write before reading the body, and
// close the connection; a timeout) is ambiguous: the object's ETag then
// tells whether the object there is this body (its MD5, the ETag of a
// single-part put) or another writer's. Such failures are retried up to 6
// attempts in all, but two timeouts in a row end the put.
func (s *Store) put(ctx context.Context, key string, body io.ReadSeeker, size int64) error {
	backoff := 50 * time.Millisecond
	ambiguous := false
	// timeouts counts the attempts in a row that timed out (the stall
	// watchdog: no answer for the stall timeout, or an upload the server
	// stopped reading). Two end the put: each cost the whole timeout (2
	// minutes by default), and a server that let the same put time out
	// twice is stuck (a gateway that takes PUTs and never answers, a
	// receive window shut) rather than blipping; six attempts cost six
	// timeouts per catalog, over an hour for a run of a dozen. One retry
	// still rides out a single dropped connection or one bad path through
	// a load balancer; other failures keep their six attempts.
	timeouts := 0
	for attempt := 0; ; attempt++ {
		if _, err := body.Seek(0, io.SeekStart); err != nil {
			return s.objErr("create", key, err)
		}
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: s.key(key), Body: body, ContentLength: aws.Int64(size),
			IfNoneMatch: aws.String("*"),
		}, func(o *s3.Options) {
			// Retried here, knowing the outcome. No SDK retryer at all
			// (not one of 1 attempt): its error would say "exceeded
			// maximum number of attempts, 1" whatever this loop did.
			o.Retryer = aws.NopRetryer{}
		})
		code := status(err)
		if err != nil && ctx.Err() == nil && isTimeout(err) {
			timeouts++
		} else {
			timeouts = 0
		}
		switch {
		case err == nil:
			return nil
		case code == http.StatusPreconditionFailed && !ambiguous:
			return s.objErr("create", key, store.ErrExists)
		case code == http.StatusConflict && attempt < 10:
			// ConditionalRequestConflict: a concurrent write of the key is
			// in flight; its outcome decides ours.
		case code == http.StatusPreconditionFailed, ctx.Err() == nil && (code == 0 || code >= 500):
			ambiguous = true
			mine, present, herr := s.holds(ctx, key, body)
			switch {
			case herr != nil && store.IsWholeStore(herr):
				// The store itself is gone (the endpoint, the
				// credentials): that is the error, one line with its
				// hint, not the SDK's for the lost answer (a connection
				// reset mid-upload, then none at all).
				if perr := s.putFailed(key, attempt, timeouts, err); store.IsWholeStore(perr) {
					return perr // the put's own says it (connection refused)
				}
				lost := "got no answer (" + store.NetCause(err) + ")"
				if code != 0 {
					lost = fmt.Sprintf("was answered %d", code)
				}
				// The stat's error names the object as the put's does:
				// once, with the stat's cause.
				return s.objErr("create", key, fmt.Errorf("the upload %s, and then its stat: %w", lost, store.Cause(herr)))
			case herr != nil:
				return fmt.Errorf("%w (and then its stat: %w)", s.putFailed(key, attempt, timeouts, err), store.Cause(herr))
			case present && mine:
				return nil
			case present:
				return s.objErr("create", key, store.ErrExists)
			case code == http.StatusPreconditionFailed:
				return s.objErr("create", key, fmt.Errorf("refused (412) but absent: %w", err))
			case attempt >= 5 || timeouts >= 2:
				return s.putFailed(key, attempt, timeouts, err)
			}
		default:
			if ctx.Err() != nil {
				return s.objErr("create", key, ctx.Err())
			}
			return s.putFailed(key, attempt, timeouts, err)
		}
		select {
		case <-ctx.Done():
			return s.objErr("create", key, ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// putFailed is the error of a put given up after attempt (from 0) with
// err: the store's attempts counted, and the timeouts that ended it.
func (s *Store) putFailed(key string, attempt, timeouts int, err error) error {
	switch {
	case attempt == 0:
		return s.wrap("create", key, err)
	case timeouts >= 2:
		return s.objErr("create", key, fmt.Errorf("gave up after %d attempts, the last %d timed out: %w", attempt+1, timeouts, err))
	}
	return s.objErr("create", key, fmt.Errorf("gave up after %d attempts: %w", attempt+1, err))
}

// isTimeout reports whether err is a timeout: the stall watchdog's
// (store.StallError is a net.Error whose Timeout is true), the transport's
// wait for headers, a dial's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// holds reports whether key is present and whether it holds body (by the
// MD5 ETag of a single-part put).
func (s *Store) holds(ctx context.Context, key string, body io.ReadSeeker) (mine, present bool, err error) {
	info, err := s.Stat(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return false, true, err
	}
	h := md5.New()
	if _, err := io.Copy(h, body); err != nil {
		return false, true, err
	}
	return strings.EqualFold(info.ETag, hex.EncodeToString(h.Sum(nil))), true, nil
}

// probePrefix names the probe's objects: probe- and 16 hex digits.
const probePrefix = PrivatePrefix + "probe-"

// StaleProbeAge is the age past which Probe deletes a probe object left
// by another run (killed between its write and its delete): a probe
// lasts seconds, so one an hour old has no run waiting for it, also with
// the server's clock some minutes off this machine's.
const StaleProbeAge = time.Hour

// Probe implements store.Prober: it creates an object under PrivatePrefix,
// creates it again, and expects the second write refused with 412; then it
// deletes the object (which needs s3:DeleteObject; without it the few
// bytes stay and an error says so only if the probe itself failed).
// First it deletes the probe objects older than StaleProbeAge (a run
// killed between its write and its delete leaves its 36 bytes), best
// effort: List hides them, so they are no repository content either way.
func (s *Store) Probe(ctx context.Context) error {
	s.removeStaleProbes(ctx)
	var b [8]byte
	_, _ = rand.Read(b[:])
	key := probePrefix + hex.EncodeToString(b[:])
	defer func() {
		// Best effort, with its own deadline: the run may be over.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_, _ = s.client.DeleteObject(dctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: s.key(key)})
	}()
	for i, want := range []error{nil, store.ErrExists} {
		err := s.put(ctx, key, strings.NewReader("fdl-formats conditional write probe\n"), 36)
		// put's errors name the probe object where it is (its s3:// URL
		// at the endpoint, so the repository too), once: these add no
		// other name for it or its repository.
		switch {
		case i == 0 && status(err) == http.StatusNotImplemented:
			return fmt.Errorf("%w: the server does not implement conditional writes (If-None-Match: *): %v", store.ErrUnsafe, err)
		case i == 0 && status(err) == http.StatusForbidden:
			// Read-only credentials: the write is refused before any
			// condition is looked at.
			return fmt.Errorf("probe conditional writes: %w", s.objErr("create", key, fmt.Errorf("%w (PutObject answered 403): %w", store.ErrWriteDenied, store.Cause(err))))
		case i == 0 && err != nil:
			return fmt.Errorf("probe conditional writes: %w", err)
		case i == 1 && err == nil:
			return fmt.Errorf("%w: a second write of %s replaced the first: the server ignored If-None-Match: *, so publishing there could replace another writer's object", store.ErrUnsafe, s.KeyName(key))
		case i == 1 && !errors.Is(err, want):
			return fmt.Errorf("probe conditional writes: %w", err)
		}
	}
	return nil
}

// removeStaleProbes deletes the probe objects of killed runs: those named
// as Probe names its own and last modified StaleProbeAge or more ago (one
// page of the listing: a thousand runs killed mid-probe are more than a
// bucket sees). Errors are ignored: the credentials may not list or
// delete, and the objects are harmless (List hides them).
func (s *Store) removeStaleProbes(ctx context.Context) {
	page, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix + probePrefix)})
	if err != nil {
		return
	}
	for _, o := range page.Contents {
		name := strings.TrimPrefix(aws.ToString(o.Key), s.prefix+probePrefix)
		if o.LastModified == nil || time.Since(*o.LastModified) < StaleProbeAge || !isProbeName(name) {
			continue
		}
		_, _ = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: o.Key})
	}
}

// isProbeName tells whether name, after probePrefix, is as Probe names
// its objects (16 lower-case hex digits): another object under
// PrivatePrefix is not Probe's to delete.
func isProbeName(name string) bool {
	if len(name) != 16 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil && strings.ToLower(name) == name
}

// wrap turns SDK errors into the store's: a missing object wraps
// fs.ErrNotExist; a bucket, credentials, region or endpoint the server
// refuses, or that no connection reaches, is a *ConfigError or a
// *RegionError, each saying what to change; a 5xx answer is a
// *store.ServerError.
func (s *Store) wrap(op, key string, err error) error {
	if isMissingKey(err) {
		if note := notS3Answer(err, s.Location()); note != "" {
			return s.objErr(op, key, &store.AbsentError{Note: note})
		}
		return s.objErr(op, key, fs.ErrNotExist)
	}
	if re := s.regionError(err); re != nil {
		return s.objErr(op, key, re)
	}
	if ce := s.configError(op, key, err); ce != nil {
		return ce
	}
	if code := status(err); code >= 500 && code <= 599 {
		// The SDK retried it: the server failed, not the object.
		return &store.ServerError{Status: code, Err: s.objErr(op, key, err)}
	}
	return s.objErr(op, key, err)
}

// objErr is err about key (a folder's prefix for "list"), naming it once
// where it is (KeyName).
func (s *Store) objErr(op, key string, err error) error {
	return &store.ObjectError{Op: op, Name: s.KeyName(key), Err: err}
}

// RegionError is a bucket the server says is in another region than the
// one the requests were signed for (301 PermanentRedirect, or 400
// AuthorizationHeaderMalformed): the SDK follows no such redirect, and its
// error named neither region.
type RegionError struct {
	Bucket string
	// Region is the bucket's, as the server names it in the
	// x-amz-bucket-region header or its message ("" when it does not).
	Region string
	// Signed is the region the requests were signed for.
	Signed string
	// Status and Code are the server's answer (301 PermanentRedirect).
	Status int
	Code   string
	Err    error
}

func (e *RegionError) Error() string {
	if e.Region == "" {
		return fmt.Sprintf("bucket %s is not in region %s, the one this run uses (the server answered %d %s without naming the bucket's region): set AWS_REGION to the bucket's region (or the region of the AWS profile in use); `aws s3api head-bucket --bucket %s` shows it (BucketRegion)", e.Bucket, e.Signed, e.Status, e.Code, e.Bucket)
	}
	return fmt.Sprintf("bucket %s is in region %s, not %s, the one this run uses (the server answered %d %s): set AWS_REGION=%s (or the region of the AWS profile in use)", e.Bucket, e.Region, e.Signed, e.Status, e.Code, e.Region)
}

// Unwrap is the SDK's error.
func (e *RegionError) Unwrap() error { return e.Err }

// WholeStore reports that the error is about the whole store
// (store.WholeStoreError): every request to the bucket is signed for the
// same region.
func (e *RegionError) WholeStore() bool { return true }

// Hint tells how to point the run at the bucket's region.
func (e *RegionError) Hint() string {
	if e.Region == "" {
		return "export AWS_REGION=<the bucket's region>"
	}
	return "export AWS_REGION=" + e.Region
}

// responseStatus is the HTTP status of the answer an operation's output
// came from (0 when the SDK kept no answer).
func responseStatus(md middleware.Metadata) int {
	if resp, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		return resp.StatusCode
	}
	return 0
}

func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func unquote(etag string) string { return strings.Trim(etag, `"`) }

// seekable returns r as a ReadSeeker and its size: r itself when it is a
// regular file, else a spooled temporary copy (removed by cleanup).
func seekable(ctx context.Context, r io.Reader) (io.ReadSeeker, int64, func(), error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			pos, err := f.Seek(0, io.SeekCurrent)
			if err == nil {
				sec := io.NewSectionReader(f, pos, st.Size()-pos)
				return sec, sec.Size(), func() {}, nil
			}
		}
	}
	tmp, err := os.CreateTemp("", "fdl-s3-put-*")
	if err != nil {
		return nil, 0, nil, err
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	n, err := io.Copy(tmp, store.ContextReader(ctx, r))
	if err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	if err := ctx.Err(); err != nil {
		cleanup()
		return nil, 0, nil, err
	}
	return tmp, n, cleanup, nil
}
