package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultStallTimeout is how long a remote server may send nothing before
// a request fails, unless told otherwise (the CLI's --stall-timeout).
const DefaultStallTimeout = 2 * time.Minute

// StallError is the error of a response body whose server stopped sending
// half-way (a Read waited After without a byte), or of a request body (an
// upload) the server stopped reading (Upload: the transport could hand it
// no more bytes for After). It is a timeout (Timeout reports true), so
// retriers that retry timeouts (the AWS SDK's) retry it.
type StallError struct {
	Method string
	URL    string // without credentials, query or fragment
	After  time.Duration
	// Upload, Sent and Size describe a stalled upload: the bytes of the
	// request body the transport had taken (some may be in socket buffers,
	// never received) and its length (-1: unknown).
	Upload     bool
	Sent, Size int64
}

func (e *StallError) Error() string {
	if e.Upload {
		of := ""
		if e.Size >= 0 {
			of = fmt.Sprintf(" of %d", e.Size)
		}
		return fmt.Sprintf("%s %s: the server stopped reading the upload: it took no byte for %v, after %d%s bytes (stall timeout)", e.Method, e.URL, e.After, e.Sent, of)
	}
	return fmt.Sprintf("%s %s: the server stopped sending the response body: no byte for %v (stall timeout)", e.Method, e.URL, e.After)
}

// Timeout implements net.Error's Timeout.
func (e *StallError) Timeout() bool { return true }

// Temporary reports true: another attempt may find the server sending.
func (e *StallError) Temporary() bool { return true }

// StallTransport wraps rt (nil: http.DefaultTransport) so that a response
// body whose server stops sending fails: a Read that waits d without a byte
// cancels the request (closing its connection) and returns a *StallError
// naming the URL. Every byte resets the wait, so a long download that goes
// on steadily is never cut, and time the reader spends outside Read (a slow
// consumer) does not count. d <= 0 returns rt unchanged.
//
// A request body (an upload) is timed the same way from the transport's
// first Read of it to its end: when the transport takes no more of it for
// d (it is blocked writing what it took: the server stopped reading, its
// window is shut) the request is canceled and fails with a *StallError
// (Upload set). Time spent inside the body's own Read (a slow disk) does
// not count.
//
// Between the body's end and the response's headers the wait is the
// transport's (http.Transport.ResponseHeaderTimeout), as is the wait for
// a connection.
func StallTransport(rt http.RoundTripper, d time.Duration) http.RoundTripper {
	if d <= 0 {
		return rt
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &stallTransport{rt: rt, d: d}
}

// WithStallTimeout returns a copy of c (nil: a client like
// http.DefaultClient) whose transport is wrapped by StallTransport; d <= 0
// returns c unchanged.
func WithStallTimeout(c *http.Client, d time.Duration) *http.Client {
	if d <= 0 {
		return c
	}
	var cc http.Client
	if c != nil {
		cc = *c
	}
	cc.Transport = StallTransport(cc.Transport, d)
	return &cc
}

type stallTransport struct {
	rt http.RoundTripper
	d  time.Duration
}

func (t *stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return watch(req, t.d, t.rt.RoundTrip)
}

// Doer sends a request and returns its response: *http.Client, the AWS
// SDK's HTTP clients.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// StallDoer is StallTransport for a client: its responses' bodies fail
// when the server sends no byte for d. d <= 0 returns c unchanged.
func StallDoer(c Doer, d time.Duration) Doer {
	if d <= 0 {
		return c
	}
	return &stallDoer{c: c, d: d}
}

type stallDoer struct {
	c Doer
	d time.Duration
}

func (s *stallDoer) Do(req *http.Request) (*http.Response, error) {
	return watch(req, s.d, s.c.Do)
}

// watch sends req by send, its body (if any) under an upload watchdog of
// d until send returns, and puts the response's body under a watchdog of
// d.
func watch(req *http.Request, d time.Duration, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	// The request's own context, which the watchdogs cancel: that is what
	// unblocks a Read waiting on the connection (closing the body would
	// wait for the Read) or a write blocked on it. It ends with the body.
	ctx, cancel := context.WithCancelCause(req.Context())
	u := *req.URL
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	sent := req.WithContext(ctx)
	sw, began := serverWatchOf(req.Context()), time.Now()
	var up *stallUpload
	if req.Body != nil && req.Body != http.NoBody {
		up = newStallUpload(sent, cancel, d, &u)
	}
	resp, err := send(sent)
	if up != nil {
		if e := up.end(); e != nil {
			// The upload stalled: whatever send made of the canceled
			// request (an error, or an answer racing the cancel, its
			// body cut), the stall is the outcome.
			if err == nil && resp.Body != nil {
				resp.Body.Close()
			}
			cancel(e)
			sw.stalled(req.Method, &u, began, d)
			return nil, e
		}
	}
	if err != nil && req.Context().Err() == nil && noAnswer(err) {
		// The transport's wait for the headers (ResponseHeaderTimeout,
		// set to d by the stores) or for a TLS handshake ran out.
		sw.stalled(req.Method, &u, began, d)
	}
	if err == nil && answeredByHeaders(req, resp) {
		sw.answered(&u, time.Now())
	}
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		cancel(nil)
		return resp, err
	}
	b := &stallBody{rc: resp.Body, cancel: cancel, d: d, t0: time.Now(), method: req.Method, url: &u, sw: sw}
	b.state.Store(idle)
	// One timer per response, re-armed by itself (never per Read).
	b.timer = time.AfterFunc(d, b.fire)
	resp.Body = b
	return resp, nil
}

// stallUpload watches the body of a request until send returns (end):
// then the response is there, and what the transport still writes of the
// body (a server may answer before reading it all) is not waited on by
// anyone. Each body the transport is given (the request's, then one per
// GetBody: a redirect, a resend on a fresh connection) is timed on its own
// (uploadBody); only the latest can stall the request.
type stallUpload struct {
	cancel context.CancelCauseFunc
	d      time.Duration
	t0     time.Time
	method string
	url    *url.URL
	size   int64

	mu      sync.Mutex  // orders end and a new body against fire's cancel
	cur     *uploadBody // the latest body
	over    bool
	stalled *StallError
}

const (
	upOff     = -1
	upReading = -2
)

// newStallUpload puts req's body (and the bodies its GetBody gives, for
// a redirect or a resend on a fresh connection) under the watchdog.
func newStallUpload(req *http.Request, cancel context.CancelCauseFunc, d time.Duration, u *url.URL) *stallUpload {
	up := &stallUpload{cancel: cancel, d: d, t0: time.Now(), method: req.Method, url: u, size: req.ContentLength}
	if up.size == 0 {
		up.size = -1 // a body of unknown length
	}
	req.Body = up.newBody(req.Body)
	if get := req.GetBody; get != nil {
		req.GetBody = func() (io.ReadCloser, error) {
			rc, err := get()
			if err != nil || rc == nil || rc == http.NoBody {
				return rc, err
			}
			return up.newBody(rc), nil
		}
	}
	return up
}

// newBody makes rc the latest body, with a timer of its own (stopped: its
// first Read arms it). A body of before keeps its timer, and what its
// connection still does with it (a late Read or Close, from another
// goroutine) touches only its own state: when it shared one state with
// the body after it, its Close marked that state off, the timer saw it and
// stopped, and the body after it was never timed.
func (up *stallUpload) newBody(rc io.ReadCloser) *uploadBody {
	b := &uploadBody{rc: rc, up: up}
	b.state.Store(upOff)
	b.timer = time.AfterFunc(up.d, b.fire)
	b.timer.Stop()
	up.mu.Lock()
	up.cur = b
	up.mu.Unlock()
	return b
}

func (up *stallUpload) now() int64 { return int64(time.Since(up.t0)) }

// uploadBody is a request body under the watchdog. Its timer, armed by
// the transport's first Read of it, fires at the latest d after the end
// of the last Read; if the transport has taken nothing since (it is
// blocked writing to the connection) and the body is not at its end, the
// request is canceled.
type uploadBody struct {
	rc    io.ReadCloser
	up    *stallUpload
	timer *time.Timer

	// state is upOff (the timer not timing: before the first Read, after
	// the body's end or Close), upReading (a Read in progress: the body's
	// own time, not the server's), or the end of the last Read
	// (nanoseconds since up.t0).
	state atomic.Int64
	sent  atomic.Int64
}

func (b *uploadBody) Read(p []byte) (int, error) {
	if b.state.Swap(upReading) == upOff {
		b.timer.Reset(b.up.d)
	}
	n, err := b.rc.Read(p)
	b.sent.Add(int64(n))
	if err != nil {
		b.state.Store(upOff) // the end (or the body's own failure)
	} else {
		b.state.Store(b.up.now())
	}
	return n, err
}

func (b *uploadBody) Close() error {
	b.state.Store(upOff)
	return b.rc.Close()
}

// fire runs on the timer's goroutine.
func (b *uploadBody) fire() {
	up := b.up
	up.mu.Lock()
	defer up.mu.Unlock()
	if up.over || up.stalled != nil || up.cur != b {
		return // answered, failed, or a body of before (its connection abandoned)
	}
	switch s := b.state.Load(); s {
	case upOff:
		return // the next Read arms the timer again
	case upReading:
		b.timer.Reset(up.d)
		return
	default:
		if waited := time.Duration(up.now() - s); waited < up.d {
			b.timer.Reset(up.d - waited)
			return
		}
	}
	up.stalled = &StallError{Method: up.method, URL: up.url.String(), After: up.d, Upload: true, Sent: b.sent.Load(), Size: up.size}
	up.cancel(up.stalled)
}

// end stops the watchdog once send has returned, and tells whether it
// had fired. (A body of before whose timer is still armed fires once more
// and finds the watch over.)
func (up *stallUpload) end() *StallError {
	up.mu.Lock()
	defer up.mu.Unlock()
	up.over = true
	up.cur.timer.Stop()
	return up.stalled
}

// Values of stallBody.state besides the start of a Read in progress
// (nanoseconds since t0, >= 0).
const (
	idle     = -1 // no Read in progress, the timer armed
	disarmed = -2 // no Read in progress, the timer stopped (the next Read arms it)
)

// stallBody is a response body under the watchdog. Its timer fires at the
// latest d after a Read began: a Read still waiting then has stalled; one
// that began later re-arms it for the rest of its own d; with no Read in
// progress the timer stops until the next Read (an idle body costs
// nothing).
type stallBody struct {
	rc     io.ReadCloser
	cancel context.CancelCauseFunc
	d      time.Duration
	t0     time.Time
	method string
	url    *url.URL
	timer  *time.Timer

	state   atomic.Int64
	stalled atomic.Pointer[StallError]
	done    atomic.Bool

	// sw is told of the body's bytes as answers (answer) and of its
	// stall. lastAnswer is when it was last told (b.now()+1; 0 never).
	sw         *ServerWatch
	lastAnswer atomic.Int64
}

func (b *stallBody) now() int64 { return int64(time.Since(b.t0)) }

func (b *stallBody) Read(p []byte) (int, error) {
	if b.state.Swap(b.now()) == disarmed {
		b.timer.Reset(b.d)
	}
	n, err := b.rc.Read(p)
	b.state.Store(idle)
	if e := b.stalled.Load(); e != nil {
		b.finish()
		return n, e
	}
	if b.sw != nil && (n > 0 || err == io.EOF) {
		b.answer()
	}
	if err != nil {
		b.finish()
	}
	return n, err
}

func (b *stallBody) Close() error {
	err := b.rc.Close()
	b.finish()
	return err
}

// answer tells the watch that the server is sending: at the body's first
// byte (or its end), then at most every quarter of the stall timeout. A
// long download that keeps sending is the server answering while other
// requests wait; told only its first byte, the watch took two other
// objects stalling during it for a server that stopped. Not every Read:
// that would take the watch's lock per Read.
func (b *stallBody) answer() {
	now := b.now() + 1
	last := b.lastAnswer.Load()
	if last != 0 && now-last < int64(b.d/4) {
		return
	}
	if b.lastAnswer.CompareAndSwap(last, now) {
		b.sw.answered(b.url, time.Now())
	}
}

// finish stops the timer and ends the request's context: after the body's
// end (the connection is back in the pool by then) or its Close.
func (b *stallBody) finish() {
	if b.done.CompareAndSwap(false, true) {
		b.timer.Stop()
		b.cancel(nil)
	}
}

// fire runs on the timer's goroutine.
func (b *stallBody) fire() {
	for !b.done.Load() {
		s := b.state.Load()
		switch s {
		case idle:
			if b.state.CompareAndSwap(idle, disarmed) {
				return
			}
			continue // a Read began meanwhile
		case disarmed:
			return
		}
		if waited := time.Duration(b.now() - s); waited < b.d {
			b.timer.Reset(b.d - waited)
			return
		}
		e := &StallError{Method: b.method, URL: b.url.String(), After: b.d}
		b.stalled.Store(e)
		// The watch first: cancel wakes the Read, and its caller must not
		// see this stall (and make it a finding about the object) before
		// a stop it causes has cancelled the run.
		b.sw.stalled(b.method, b.url, b.t0.Add(time.Duration(s)), b.d)
		b.cancel(e)
		return
	}
}

// noAnswer tells a request's error that is the wait for its answer running
// out (a timeout), not a connection that could not be made: a dial that
// timed out is an unreachable host, which the stores say as such.
func noAnswer(err error) bool {
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		return false
	}
	var op *net.OpError
	return !errors.As(err, &op) || op.Op != "dial"
}

// answeredByHeaders tells a response whose headers are the whole answer
// (a HEAD's, an empty body) or an answer in themselves (an error status,
// which callers close unread), not a body to come: headers whose body
// never comes (a proxy that answers for a dead backend) are no answer
// (ServerWatch).
func answeredByHeaders(req *http.Request, resp *http.Response) bool {
	return req.Method == http.MethodHead || resp.ContentLength == 0 || resp.Body == nil || resp.Body == http.NoBody ||
		resp.StatusCode >= 300
}
