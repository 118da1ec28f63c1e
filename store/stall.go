package store

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"
)

// DefaultStallTimeout is how long a remote server may send nothing before
// a request fails, unless told otherwise (the CLI's --stall-timeout).
const DefaultStallTimeout = 2 * time.Minute

// StallError is the error of a response body whose server stopped sending
// half-way: a Read waited d without a byte. It is a timeout (Timeout
// reports true), so retriers that retry timeouts (the AWS SDK's) retry it.
type StallError struct {
	Method string
	URL    string // without credentials, query or fragment
	After  time.Duration
}

func (e *StallError) Error() string {
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
// It bounds the body only: the wait for response headers is the
// transport's (http.Transport.ResponseHeaderTimeout).
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

// watch sends req by send and puts the response's body under a watchdog
// of d.
func watch(req *http.Request, d time.Duration, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	// The request's own context, which the watchdog cancels: that is what
	// unblocks a Read waiting on the connection (closing the body would
	// wait for the Read). It ends with the body.
	ctx, cancel := context.WithCancelCause(req.Context())
	resp, err := send(req.WithContext(ctx))
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		cancel(nil)
		return resp, err
	}
	u := *req.URL
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	b := &stallBody{rc: resp.Body, cancel: cancel, d: d, t0: time.Now(), method: req.Method, url: &u}
	b.state.Store(idle)
	// One timer per response, re-armed by itself (never per Read).
	b.timer = time.AfterFunc(d, b.fire)
	resp.Body = b
	return resp, nil
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
		b.cancel(e)
		return
	}
}
