package store

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"
)

// ServerWatch tells a server that stopped answering (a hung gateway, a
// proxy whose backend died, a CDN edge that holds connections) from one
// object the server is slow to send. The stall watchdog (StallTransport,
// StallDoer) reports to the ServerWatch of a request's context
// (WithServerWatch) each answer and each stall; stop is called once, with
// a *ServerStoppedError, when the rule below holds.
//
// The rule: requests for two different objects of the same host have each
// waited the whole stall timeout for nothing, and the host answered no
// request while either waited. A stall during which the host answered
// another request is about that object (it is left to the request's own
// retries and error), and so is the same object stalling again: a huge or
// slow object never stops a run that is otherwise answered. Before, each
// request waited the timeout, was retried, and became an error for its file
// alone: a check of hundreds of files against a dead server ran for hours
// and told to restore every file. Now, with requests in flight at once, a
// dead server stops the run about one stall timeout after it died; with
// one request at a time, after its retries and the next object's first
// wait.
//
// An answer is a response's body sending (its first byte, its end, and
// bytes still coming: a long download is the server answering all along),
// or its headers when it has no body: headers followed by a body that
// never comes are no answer (a proxy that answers for a dead backend).
type ServerWatch struct {
	stop  func(error)
	mu    sync.Mutex
	hosts map[string]*hostWatch
	done  bool
}

// hostWatch is what a ServerWatch knows of one host.
type hostWatch struct {
	lastAnswer time.Time
	// stalls are the stalls whose wait began after lastAnswer, in the
	// order met: the host answered nothing since each began.
	stalls []stallSeen
}

// stallSeen is one stalled request.
type stallSeen struct {
	method, url string
}

// NewServerWatch returns a watch that calls stop (once) with a
// *ServerStoppedError when a server stops answering.
func NewServerWatch(stop func(error)) *ServerWatch {
	return &ServerWatch{stop: stop, hosts: map[string]*hostWatch{}}
}

type serverWatchKey struct{}

// WithServerWatch returns ctx carrying w: the stall watchdog reports the
// answers and stalls of requests made with it (or a context derived from
// it) to w.
func WithServerWatch(ctx context.Context, w *ServerWatch) context.Context {
	return context.WithValue(ctx, serverWatchKey{}, w)
}

// serverWatchOf is the ServerWatch ctx carries, nil when none.
func serverWatchOf(ctx context.Context) *ServerWatch {
	w, _ := ctx.Value(serverWatchKey{}).(*ServerWatch)
	return w
}

func (w *ServerWatch) host(u *url.URL) *hostWatch {
	h := w.hosts[u.Host]
	if h == nil {
		h = &hostWatch{}
		w.hosts[u.Host] = h
	}
	return h
}

// answered notes that the host of u answered a request at t.
func (w *ServerWatch) answered(u *url.URL, t time.Time) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.host(u)
	if t.After(h.lastAnswer) {
		h.lastAnswer = t
	}
	h.stalls = nil
}

// stalled notes a request (method, u: no credentials, query or fragment)
// that waited after from began without an answer, and stops the run when
// the rule holds.
func (w *ServerWatch) stalled(method string, u *url.URL, began time.Time, after time.Duration) {
	if w == nil {
		return
	}
	w.mu.Lock()
	h := w.host(u)
	if w.done || !began.After(h.lastAnswer) {
		// The host answered another request while this one waited:
		// this object's trouble, not the server's.
		w.mu.Unlock()
		return
	}
	this := stallSeen{method: method, url: u.String()}
	var other *stallSeen
	for i := range h.stalls {
		if h.stalls[i].url != this.url {
			other = &h.stalls[i]
			break
		}
	}
	if other == nil {
		h.stalls = append(h.stalls, this)
		w.mu.Unlock()
		return
	}
	w.done = true
	server := url.URL{Scheme: u.Scheme, Host: u.Host}
	err := &ServerStoppedError{Server: server.String(), First: other.method + " " + other.url, Last: this.method + " " + this.url, After: after}
	w.mu.Unlock()
	w.stop(err)
}

// ServerStoppedError is a server that stopped answering (ServerWatch):
// requests for two different objects each got nothing for the stall
// timeout, and it answered no request meanwhile. It is about the whole
// store (WholeStore), so a run stops at it.
type ServerStoppedError struct {
	Server string // scheme://host[:port]
	// First and Last are the two stalled requests ("GET URL").
	First, Last string
	After       time.Duration // the stall timeout
}

func (e *ServerStoppedError) Error() string {
	return fmt.Sprintf("the server at %s stopped answering: %s and %s each got nothing for %v (stall timeout), and it answered no request meanwhile", e.Server, e.First, e.Last, e.After)
}

// WholeStore implements WholeStoreError.
func (e *ServerStoppedError) WholeStore() bool { return true }

// Hint says what to look at.
func (e *ServerStoppedError) Hint() string {
	return fmt.Sprintf("check the server at %s (and any proxy, gateway or CDN in front of it): it takes connections but sends nothing; if it is only slow, raise --stall-timeout (now %v)", e.Server, e.After)
}
