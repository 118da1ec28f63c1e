package s3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	smithy "github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fdl-formats/fdl-formats/store"
)

// Problem is what a run's setup must fix when the server refuses every
// request, or none reaches it: the bucket named, the credentials, the
// endpoint. The SDK's own errors said it in a 300-character line of
// request IDs, and a key unknown to versitygw (404) read as "no fdl.json".
type Problem int

const (
	// NoBucket: the server has no bucket of that name (NoSuchBucket).
	NoBucket Problem = iota + 1
	// UnknownAccessKey: the server knows no such access key ID
	// (InvalidAccessKeyId; versitygw's XAdminUserNotFound).
	UnknownAccessKey
	// BadSecret: the request's signature does not match the one the server
	// computes with the key ID's secret (SignatureDoesNotMatch).
	BadSecret
	// ExpiredCredentials: session credentials that expired or that the
	// server does not accept (ExpiredToken, InvalidToken).
	ExpiredCredentials
	// Denied: the credentials may not do what was asked (AccessDenied, or a
	// 403 without a code; a HEAD's bare 403 is first asked again by a GET
	// for its code: headCause).
	Denied
	// Unreachable: no connection to the server (refused, no route, unknown
	// host, timed out connecting).
	Unreachable
	// NoCredentials: the AWS SDK's credential chain gave no credentials to
	// sign the request with (none in the environment, the shared files or
	// a role; a profile's SSO session expired), so no request was sent.
	// The SDK's error was the whole message, without a Try: line: a cron
	// job, whose environment lacks the login shell's AWS_* variables, met
	// it first.
	NoCredentials
)

// problemCodes are the S3 error codes of each Problem, as AWS, MinIO, R2
// and versitygw send them.
var problemCodes = map[string]Problem{
	"NoSuchBucket":          NoBucket,
	"InvalidAccessKeyId":    UnknownAccessKey,
	"XAdminUserNotFound":    UnknownAccessKey, // versitygw, with 404
	"SignatureDoesNotMatch": BadSecret,
	"ExpiredToken":          ExpiredCredentials,
	"InvalidToken":          ExpiredCredentials,
	"TokenRefreshRequired":  ExpiredCredentials,
	"AccessDenied":          Denied,
	"AllAccessDisabled":     Denied,
}

// ConfigError is a request that failed for a reason the run's setup must
// fix (Problem). Its text is one line naming the object, the bucket and
// the endpoint, without the SDK's request IDs; Hint says what to change.
type ConfigError struct {
	Problem Problem
	// Op and Key are what was asked ("open", "fdl.json").
	Op, Key string
	// Bucket and Location name the store (Location: s3://bucket/prefix,
	// and the endpoint when one is set).
	Bucket, Location string
	// Endpoint is where the request went: the configured endpoint, else
	// the host the SDK resolved ("" when unknown).
	Endpoint string
	// Status and Code are the server's answer (0 and "" when there was none).
	Status int
	Code   string
	// Err is the SDK's error.
	Err error

	// url is the s3:// URL of the object (or folder) asked: the error
	// names it where it is, as Store.KeyName does, with the endpoint.
	url string

	configured bool // Endpoint is the run's (--endpoint, $AWS_ENDPOINT_URL_S3), not AWS's
	noSign     bool // the request was sent unsigned (Options.NoSign)
}

func (e *ConfigError) Error() string {
	what := e.what()
	if e.url != "" {
		// The object where it is, once: its URL, at the endpoint (AWS's:
		// the host the SDK resolved).
		return e.object(what).Error()
	}
	where := e.Location
	if e.Endpoint != "" && !strings.HasSuffix(where, " at "+e.Endpoint) {
		// AWS: the location names no endpoint; the host the SDK resolved.
		where += " at " + e.Endpoint
	}
	return fmt.Sprintf("%s %s in %s: %s", e.Op, e.Key, where, what)
}

// object is the error as a store.ObjectError: the object's URL at the
// endpoint, and what (the problem) as its cause, with e beneath it.
func (e *ConfigError) object(what string) *store.ObjectError {
	where := e.url
	if e.Endpoint != "" {
		where += " at " + e.Endpoint
	}
	return &store.ObjectError{Op: e.Op, Name: where, Err: &store.CauseError{Msg: what, Err: e.Err}}
}

// As gives a *store.ObjectError where the error names its object (every
// store's ConfigError does): callers know it named, and take its cause.
func (e *ConfigError) As(target any) bool {
	t, ok := target.(**store.ObjectError)
	if !ok || e.url == "" {
		return false
	}
	*t = e.object(e.what())
	return true
}

// what is the problem, told after the object.
func (e *ConfigError) what() string {
	answer := strings.TrimSpace(fmt.Sprintf("%s %s", statusText(e.Status), e.Code))
	var what string
	switch e.Problem {
	case NoBucket:
		what = fmt.Sprintf("the server has no bucket %s (%s)", e.Bucket, answer)
	case UnknownAccessKey:
		what = fmt.Sprintf("the server does not know the access key ID in use (%s)", answer)
	case BadSecret:
		what = fmt.Sprintf("the server rejected the request's signature (%s): the secret access key is not the one of the access key ID in use", answer)
	case ExpiredCredentials:
		what = fmt.Sprintf("the session credentials have expired or are not accepted (%s)", answer)
	case Denied:
		what = fmt.Sprintf("access denied (%s): the credentials may not %s", answer, deniedAction(e.Op))
	case Unreachable:
		what = "cannot reach it: " + store.NetCause(e.Err)
	case NoCredentials:
		var ce *credsError
		cause := e.Err
		if errors.As(e.Err, &ce) {
			cause = ce.err
		}
		what = "no credentials to sign the request with: the AWS SDK's credential chain (environment, shared config and credentials files, SSO, web identity, instance or task role) gave none: " +
			strings.Join(strings.Fields(cause.Error()), " ")
	}
	return what
}

// Unwrap is the SDK's error.
func (e *ConfigError) Unwrap() error { return e.Err }

// WholeStore reports whether the error is about the whole store
// (store.WholeStoreError): every Problem but Denied, which the server
// answers for one object (a policy may allow some keys and not others).
func (e *ConfigError) WholeStore() bool { return e.Problem != Denied }

// Is matches store.ErrAccessDenied for Denied.
func (e *ConfigError) Is(target error) bool {
	return target == store.ErrAccessDenied && e.Problem == Denied
}

// Hint says what to change before running again.
func (e *ConfigError) Hint() string {
	switch e.Problem {
	case NoBucket:
		return fmt.Sprintf("check the bucket's name in s3://BUCKET/PREFIX and the endpoint (%s; --endpoint, $AWS_ENDPOINT_URL_S3): `aws s3 ls%s` lists the buckets these credentials see", e.endpointName(), e.endpointFlag())
	case UnknownAccessKey:
		return fmt.Sprintf("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) to a key of the service at %s: one service's keys (AWS, R2, MinIO) are unknown to another", e.endpointName())
	case BadSecret:
		return "set AWS_SECRET_ACCESS_KEY (or the profile's aws_secret_access_key) to the secret of the access key ID in use (AWS_ACCESS_KEY_ID); look for a lost character or a stray space"
	case ExpiredCredentials:
		return "renew the session credentials (`aws sso login`, or a fresh AWS_SESSION_TOKEN), or unset AWS_SESSION_TOKEN with long-term keys"
	case Denied:
		if e.noSign {
			// Unsigned: the bucket's policy is what refused.
			return fmt.Sprintf("bucket %s does not let anyone (unsigned requests, --no-sign-request) s3:ListBucket and s3:GetObject under the prefix: drop --no-sign-request and use credentials allowed them (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE), or ask its owner to make the repository public; see docs/remote.md, Permissions", e.Bucket)
		}
		return fmt.Sprintf("use credentials allowed s3:ListBucket on bucket %s and s3:GetObject on its objects under the prefix (backfill also s3:PutObject); see docs/remote.md, Permissions", e.Bucket)
	case NoCredentials:
		return "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the run's environment (a cron job or CI step does not get a login shell's variables), or renew the profile's session (`aws sso login`); for a bucket anyone may read, --no-sign-request sends the requests unsigned; see docs/remote.md"
	case Unreachable:
		if !e.configured {
			return "check that this machine reaches AWS S3 (network, DNS, a proxy in $HTTPS_PROXY), or give the endpoint of another S3 service (--endpoint, $AWS_ENDPOINT_URL_S3)"
		}
		return "check the endpoint (--endpoint, $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL) and that the S3 server runs and is reachable from this machine"
	}
	return ""
}

func (e *ConfigError) endpointName() string {
	if e.Endpoint == "" {
		return "AWS S3"
	}
	return e.Endpoint
}

// endpointFlag is the aws CLI's flag for a non-AWS endpoint.
func (e *ConfigError) endpointFlag() string {
	if e.Endpoint == "" || strings.HasSuffix(hostOf(e.Endpoint), ".amazonaws.com") {
		return ""
	}
	return " --endpoint-url " + e.Endpoint
}

// deniedAction is what an operation needed, with its IAM action.
func deniedAction(op string) string {
	switch op {
	case "list":
		return "list it (s3:ListBucket)"
	case "create":
		return "write it (s3:PutObject)"
	}
	return "read it (s3:GetObject)"
}

func statusText(code int) string {
	if code == 0 {
		return ""
	}
	return fmt.Sprint(code)
}

// configError classifies an SDK error of op on key as a ConfigError, or
// returns nil when it is none (a missing key, a server error, a timeout
// half-way: the caller's own wrapping says those).
func (s *Store) configError(op, key string, err error) *ConfigError {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil // the run's own end, not the server's
	}
	e := &ConfigError{Op: op, Key: key, Bucket: s.bucket, Location: s.Location(), url: store.URL(s, key), Endpoint: s.endpoint, Status: status(err), Err: err, configured: s.endpoint != "", noSign: s.noSign}
	if errors.As(err, new(*credsError)) {
		// Told by the call that failed (the credential chain's, marked
		// by markCreds), not by the SDK's message.
		e.Problem = NoCredentials
		return e
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		e.Code = api.ErrorCode()
	}
	var re *smithyhttp.ResponseError
	if e.Endpoint == "" && errors.As(err, &re) && re.Response != nil && re.Response.Request != nil {
		e.Endpoint = re.Response.Request.URL.Scheme + "://" + re.Response.Request.URL.Host
	}
	if p, ok := problemCodes[e.Code]; ok {
		e.Problem = p
		return e
	}
	if e.Status == http.StatusForbidden {
		// A 403 with no code (a HEAD's whose GET could not tell more,
		// headCause, or a server that sends none): a wrong secret or no
		// permission, which it cannot tell.
		e.Problem = Denied
		return e
	}
	if e.Status != 0 {
		return nil
	}
	var dns *net.DNSError
	var dial *net.OpError
	if errors.As(err, &dns) || (errors.As(err, &dial) && dial.Op == "dial") {
		var ue *url.Error
		if e.Endpoint == "" && errors.As(err, &ue) {
			e.Endpoint = hostURL(ue.URL)
		}
		e.Problem = Unreachable
		return e
	}
	return nil
}

// isMissingKey reports whether a 404 says the key is absent (NoSuchKey, a
// HEAD's bodiless NotFound, or no code at all), not something else the
// server did not find (a bucket, versitygw's unknown access key).
func isMissingKey(err error) bool {
	code := ""
	var api smithy.APIError
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	switch code {
	case "NoSuchKey":
		return true
	case "", "NotFound":
		return status(err) == http.StatusNotFound
	}
	return false
}

// notS3Answer is the note for a 404 that carries no S3 error code (none,
// or the SDK's NotFound for a body it cannot read) and a body that is not XML (text/plain, text/html): S3 and the services
// compatible with it answer errors in XML, so the endpoint is likely a
// plain web server, and "no fdl.json" alone would send the user looking
// for a file. "" for an S3 answer, or one without a body type.
func notS3Answer(err error, where string) string {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() != "" && api.ErrorCode() != "NotFound" {
		return "" // the SDK names a body it cannot parse by the status: NotFound
	}
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.Response == nil {
		return ""
	}
	ct := re.Response.Header.Get("Content-Type")
	if ct == "" || strings.Contains(ct, "xml") {
		return ""
	}
	return fmt.Sprintf("the server's 404 is no S3 error (Content-Type %s, no S3 error code): is the endpoint of %s an S3 server?", ct, where)
}

// regionError is a request signed for another region than the bucket's:
// 301 PermanentRedirect (AWS, naming the bucket's region in
// x-amz-bucket-region), or 400 AuthorizationHeaderMalformed (AWS and
// versitygw, naming it in the message: "expecting 'eu-west-1'").
func (s *Store) regionError(err error) *RegionError {
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) {
		return nil
	}
	var api smithy.APIError
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	switch {
	case re.HTTPStatusCode() == http.StatusMovedPermanently:
		// A HEAD's answer has no body, so no code of its own.
		code = "PermanentRedirect"
	case code == "AuthorizationHeaderMalformed":
	default:
		return nil
	}
	region := re.Response.Header.Get("x-amz-bucket-region")
	if region == "" && api != nil {
		if m := expectingRegion.FindStringSubmatch(api.ErrorMessage()); m != nil {
			region = m[1]
		}
	}
	return &RegionError{Bucket: s.bucket, Region: region, Signed: s.client.Options().Region, Status: re.HTTPStatusCode(), Code: code, Err: err}
}

// expectingRegion finds the bucket's region in an
// AuthorizationHeaderMalformed message, where the server sends no header.
var expectingRegion = regexp.MustCompile(`expecting ["']([a-z0-9-]+)["']`)

func hostURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// credsError is the credential chain failing to give credentials
// (markCreds): the request was never sent.
type credsError struct{ err error }

func (e *credsError) Error() string { return e.err.Error() }
func (e *credsError) Unwrap() error { return e.err }

// markedCreds marks the errors of the credentials provider it wraps as
// credsError, so that configError tells a run without credentials by the
// call that failed.
type markedCreds struct{ p aws.CredentialsProvider }

func (m markedCreds) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := m.p.Retrieve(ctx)
	if err != nil {
		return c, &credsError{err: err}
	}
	return c, nil
}

// markCreds wraps cfg's credentials provider in markedCreds (none: left
// as it is).
func markCreds(cfg *aws.Config) {
	if cfg.Credentials != nil {
		cfg.Credentials = aws.NewCredentialsCache(markedCreds{p: cfg.Credentials})
	}
}
