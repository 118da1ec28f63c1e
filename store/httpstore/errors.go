package httpstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/fdl-formats/fdl-formats/store"
)

// Problem is what a run's setup must fix when a site cannot be read at
// all: its host, its certificate, its need for credentials, its
// redirects. Go's own errors said it as `Get "https://…": dial tcp …` or
// `tls: failed to verify certificate: x509: …`, with no hint.
type Problem int

const (
	// Unreachable: no connection to the host (refused, no route, timed out
	// connecting).
	Unreachable Problem = iota + 1
	// UnknownHost: the host name does not resolve (DNS).
	UnknownHost
	// UntrustedCertificate: the site's TLS certificate is signed by an
	// authority this machine does not trust (self-signed, a private CA).
	UntrustedCertificate
	// ExpiredCertificate: the site's TLS certificate is not valid now
	// (expired, or not yet valid: this machine's clock may be wrong).
	ExpiredCertificate
	// WrongHostCertificate: the site's TLS certificate is for other names.
	WrongHostCertificate
	// BadCertificate: the certificate fails verification otherwise.
	BadCertificate
	// NeedsAuth: the server answers a file with 401 or 403 (a login, a
	// token, or files this site does not serve to anyone).
	NeedsAuth
	// RedirectLoop: the server's redirects come back to an address already
	// visited, or go on past maxRedirects.
	RedirectLoop
	// Encoded: the server sends a file with a Content-Encoding (gzip, br)
	// though the request asked for none, as DuckDB asks for none (nginx
	// `gzip_static always`, a CDN or proxy compressing
	// application/octet-stream or JSON whatever the client accepts):
	// readers, DuckDB's ranged reads among them, get the encoded bytes,
	// not the file.
	Encoded
)

// SetupError is a request that failed for a reason the run's setup (the
// URL, this machine's network or trust store) or the site must fix. Its
// text is one line naming the file and the site; Hint says what to change.
type SetupError struct {
	Problem Problem
	// Op and Key are what was asked ("open", "fdl.json").
	Op, Key string
	// Location is the repository's URL; Host the host (and port) asked.
	Location, Host string
	// Status is the server's answer (NeedsAuth), "" when there was none.
	Status string
	// Encoding is the answer's Content-Encoding and Request the request
	// that got it ("HEAD https://…/files.json") (Encoded).
	Encoding, Request string
	// Answered is the address that answered (NeedsAuth, Encoded) where a
	// redirect took the request there (a CDN, a signed URL; credentials
	// redacted), "" where none did: the file's URL does not tell it.
	Answered string
	// Err is the client's error.
	Err error
}

func (e *SetupError) Error() string { return e.object().Error() }

// name is the file (or folder) where it is: its URL, as the store's other
// errors and store.KeyName name it; the repository's own folder ("./") is
// its URL.
func (e *SetupError) name() string {
	base := strings.TrimSuffix(e.Location, "/") + "/"
	if e.Key == "./" {
		return base
	}
	return base + strings.TrimPrefix(e.Key, "/")
}

// As gives a *store.ObjectError: the error names its file (or folder).
func (e *SetupError) As(target any) bool {
	t, ok := target.(**store.ObjectError)
	if ok {
		*t = e.object()
	}
	return ok
}

// object is the error as a store.ObjectError: the file once, where it
// is, and what went wrong as its cause, e.Err beneath it.
func (e *SetupError) object() *store.ObjectError {
	return &store.ObjectError{Op: e.Op, Name: e.name(), Err: &store.CauseError{Msg: e.what(), Err: e.Err}}
}

// what is the problem, told after the file.
func (e *SetupError) what() string {
	var what string
	switch e.Problem {
	case Unreachable:
		what = "cannot reach " + e.Host + ": " + store.NetCause(e.Err)
	case UnknownHost:
		what = "cannot resolve the host name: " + store.NetCause(e.Err)
	case UntrustedCertificate:
		what = "the site's TLS certificate is signed by an authority this machine does not trust (" + certCause(e.Err) + ")"
	case ExpiredCertificate:
		what = "the site's TLS certificate is not valid now (" + certCause(e.Err) + ")"
	case WrongHostCertificate:
		what = "the site's TLS certificate is not for " + hostName(e.Host) + " (" + certCause(e.Err) + ")"
	case BadCertificate:
		what = "the site's TLS certificate fails verification (" + certCause(e.Err) + ")"
	case NeedsAuth:
		what = "the server answers " + e.Status + ": the site requires authentication or denies access to it"
		if e.Answered != "" {
			what = "redirected to " + e.Answered + ", which answers " + e.Status + ": the site requires authentication or denies access to it"
		}
	case RedirectLoop:
		what = e.Err.Error()
	case Encoded:
		// The request's method: the error names its URL already.
		method, _, _ := strings.Cut(e.Request, " ")
		if e.Answered != "" {
			method += ", redirected to " + e.Answered
		}
		what = fmt.Sprintf("the server sends the file with Content-Encoding %q though none was asked for (to a %s): readers get the encoded bytes, not the file", e.Encoding, method)
	}
	return what
}

// Unwrap is the client's error.
func (e *SetupError) Unwrap() error { return e.Err }

// WholeStore reports whether the error is about the whole site
// (store.WholeStoreError): every Problem but NeedsAuth and Encoded, which
// a server may answer for some files and not others (a data file sent
// encoded makes its version unverifiable, as before).
func (e *SetupError) WholeStore() bool { return e.Problem != NeedsAuth && e.Problem != Encoded }

// Is matches store.ErrAccessDenied for NeedsAuth and store.ErrEncoded for
// Encoded.
func (e *SetupError) Is(target error) bool {
	return target == store.ErrAccessDenied && e.Problem == NeedsAuth || target == store.ErrEncoded && e.Problem == Encoded
}

// Hint says what to change before running again.
func (e *SetupError) Hint() string {
	switch e.Problem {
	case Unreachable:
		return "check the host and port in the URL, that the web server runs, and that this machine reaches it (network, firewall, a proxy in $HTTPS_PROXY/$HTTP_PROXY)"
	case UnknownHost:
		return "check the host name in the URL (a typo?) and this machine's DNS"
	case UntrustedCertificate:
		return "for a site with a private CA, add the CA to this machine's trusted certificates or point $SSL_CERT_FILE (or $SSL_CERT_DIR) at it; certificate checks cannot be turned off"
	case ExpiredCertificate:
		return "the site must renew its certificate; check this machine's clock too (`date -u`)"
	case WrongHostCertificate:
		return "use the host name the certificate names in the URL, or fix the site's certificate"
	case BadCertificate:
		return "fix the site's certificate, or the trusted certificates of this machine ($SSL_CERT_FILE, $SSL_CERT_DIR)"
	case NeedsAuth:
		return "fdl-formats reads public web sites only (no credentials, cookies or signed URLs): serve the repository's files without authentication, or check the bucket by s3:// with read-only credentials"
	case RedirectLoop:
		return "fix the server's redirects for the repository's folder (a rule that sends the address back to itself: http↔https, a trailing slash added and removed)"
	case Encoded:
		return "serve the repository's files as stored, without Content-Encoding: on nginx, `gzip off` and `gzip_static off` (never `always`) for the repository's location, or application/octet-stream and application/json left out of `gzip_types`; on a CDN or proxy, turn compression off for the repository's path"
	}
	return ""
}

// maxRedirects is how many redirects a request follows, as Go's default.
const maxRedirects = 10

// RedirectError is a redirect chain that comes back to an address it
// visited, or goes on past maxRedirects. Go's client said only "stopped
// after 10 redirects", naming none.
type RedirectError struct {
	// Chain is the addresses visited, the first request's first.
	Chain []string
	Loop  bool // the last address is one visited before
}

func (e *RedirectError) Error() string {
	if e.Loop {
		return "redirect loop: " + strings.Join(e.Chain, " -> ")
	}
	return fmt.Sprintf("more than %d redirects: %s -> …", maxRedirects, strings.Join(e.Chain[:3], " -> "))
}

// checkRedirect is the client's CheckRedirect: a loop is an error at its
// first repeat, not after ten requests.
func checkRedirect(req *http.Request, via []*http.Request) error {
	chain := make([]string, 0, len(via)+1)
	for _, r := range via {
		chain = append(chain, r.URL.Redacted())
	}
	next := req.URL.Redacted()
	chain = append(chain, next)
	for _, r := range via {
		if r.URL.Redacted() == next {
			return &RedirectError{Chain: chain, Loop: true}
		}
	}
	if len(via) >= maxRedirects {
		return &RedirectError{Chain: chain}
	}
	return nil
}

// setupError classifies a failed request of op on key (err from the
// client, or status from the server's answer) as a SetupError, or
// returns nil when it is none (a missing file, a server error, a stall:
// the caller's own wrapping says those).
func (s *Store) setupError(op, key string, err error, resp *http.Response) *SetupError {
	e := &SetupError{Op: op, Key: key, Location: s.Location(), Host: s.base.Host, Err: err}
	if resp != nil {
		e.Answered = redirectedTo(resp)
		if enc := encoding(resp); enc != "" && (resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent) {
			e.Problem, e.Encoding = Encoded, enc
			e.Request = resp.Request.Method + " " + redact(resp.Request.URL)
			return e
		}
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return nil
		}
		e.Problem, e.Status = NeedsAuth, resp.Status
		if e.Err == nil {
			e.Err = fmt.Errorf("%s %s: %s", resp.Request.Method, redact(resp.Request.URL), resp.Status)
		}
		return e
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil // the run's own end, not the site's
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			e.Host = u.Host // a redirect may have gone to another host
		}
	}
	var (
		redirect *RedirectError
		dns      *net.DNSError
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		dial     *net.OpError
	)
	switch {
	case errors.As(err, &redirect):
		e.Problem, e.Err = RedirectLoop, redirect
	case errors.As(err, &dns):
		e.Problem = UnknownHost
	case errors.As(err, &unknown):
		e.Problem = UntrustedCertificate
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		e.Problem = ExpiredCertificate
	case errors.As(err, &hostname):
		e.Problem = WrongHostCertificate
	case errors.As(err, &invalid), errors.As(err, new(*tls.CertificateVerificationError)):
		e.Problem = BadCertificate
	case errors.As(err, &dial) && dial.Op == "dial":
		e.Problem = Unreachable
	default:
		return nil
	}
	return e
}

// permanent tells a client error that asking again cannot cure: the
// certificate, the redirects, a host name the DNS says does not exist.
func permanent(err error) bool {
	var dns *net.DNSError
	switch {
	case errors.As(err, new(*RedirectError)),
		errors.As(err, new(x509.UnknownAuthorityError)),
		errors.As(err, new(x509.CertificateInvalidError)),
		errors.As(err, new(x509.HostnameError)):
		return true
	case errors.As(err, &dns):
		return dns.IsNotFound
	}
	return false
}

// certCause is x509's own reason ("x509: certificate has expired or is
// not yet valid: …"), without the request line and tls's prefix.
func certCause(err error) string {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
	)
	switch {
	case errors.As(err, &unknown):
		return unknown.Error()
	case errors.As(err, &invalid):
		return invalid.Error()
	case errors.As(err, &hostname):
		return hostname.Error()
	}
	return err.Error()
}

// hostName is host without its port.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}
