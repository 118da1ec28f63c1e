package webtest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// Stall passes h's answers through, except that the body of an answer to a
// request match accepts stops after n bytes: the headers and those bytes
// are sent, then nothing until the client goes away (a server, proxy or
// gateway that hangs mid-body). h may be a file server or a reverse proxy
// to a real S3 server.
func Stall(h http.Handler, match func(*http.Request) bool, n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&stallWriter{ResponseWriter: w, ctx: r.Context(), left: n}, r)
	})
}

type stallWriter struct {
	http.ResponseWriter
	ctx  context.Context
	left int
}

func (w *stallWriter) Write(p []byte) (int, error) {
	if len(p) <= w.left {
		w.left -= len(p)
		return w.ResponseWriter.Write(p)
	}
	n, err := w.ResponseWriter.Write(p[:w.left])
	w.left = 0
	if err != nil {
		return n, err
	}
	http.NewResponseController(w.ResponseWriter).Flush()
	<-w.ctx.Done()
	return n, w.ctx.Err()
}

func (w *stallWriter) Flush()                      { http.NewResponseController(w.ResponseWriter).Flush() }
func (w *stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Trickle passes h's answers through, except that the body of an answer to
// a request match accepts is sent n bytes at a time, every pause (a slow
// but steady server).
func Trickle(h http.Handler, match func(*http.Request) bool, n int, pause time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&trickleWriter{ResponseWriter: w, ctx: r.Context(), n: n, pause: pause}, r)
	})
}

type trickleWriter struct {
	http.ResponseWriter
	ctx   context.Context
	n     int
	pause time.Duration
}

func (w *trickleWriter) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		k, err := w.ResponseWriter.Write(p[done:min(done+w.n, len(p))])
		done += k
		if err != nil {
			return done, err
		}
		http.NewResponseController(w.ResponseWriter).Flush()
		select {
		case <-w.ctx.Done():
			return done, w.ctx.Err()
		case <-time.After(w.pause):
		}
	}
	return done, nil
}

func (w *trickleWriter) Flush()                      { http.NewResponseController(w.ResponseWriter).Flush() }
func (w *trickleWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// StallUpload passes h's requests through, except that of the body of a
// request match accepts h gets only the first n bytes: then reading it
// waits until quit is closed and fails (a server, proxy or gateway that
// stops reading an upload, its receive window shut). n = 0 reads nothing
// (not even the wait for "100 Continue" is answered). A handler that
// stopped reading cannot tell that the client went away: quit, closed
// before the server closes, releases it; h (a reverse proxy to a real S3
// server) then sees the upload cut short.
func StallUpload(h http.Handler, match func(*http.Request) bool, n int64, quit <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		if n == 0 {
			<-quit
			return
		}
		r.Body = &stalledBody{ReadCloser: r.Body, left: n, quit: quit}
		h.ServeHTTP(w, r)
	})
}

type stalledBody struct {
	io.ReadCloser
	left int64
	quit <-chan struct{}
}

func (b *stalledBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		<-b.quit
		return 0, errors.New("webtest: the upload was stalled")
	}
	n, err := b.ReadCloser.Read(p[:min(int64(len(p)), b.left)])
	b.left -= int64(n)
	return n, err
}

// SlowUpload passes h's requests through, except that the body of a
// request match accepts is read n bytes at a time, every pause (a slow but
// steady server).
func SlowUpload(h http.Handler, match func(*http.Request) bool, n int, pause time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if match(r) {
			r.Body = &slowBody{ReadCloser: r.Body, n: n, pause: pause}
		}
		h.ServeHTTP(w, r)
	})
}

type slowBody struct {
	io.ReadCloser
	n, left int
	pause   time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		time.Sleep(b.pause)
		b.left = b.n
	}
	n, err := b.ReadCloser.Read(p[:min(len(p), b.left)])
	b.left -= n
	return n, err
}

// NoAnswer passes h's requests through, except that a request match
// accepts has its body read in full and then no answer until quit is
// closed (a gateway that takes a PUT and never answers).
func NoAnswer(h http.Handler, match func(*http.Request) bool, quit <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !match(r) {
			h.ServeHTTP(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-quit:
		}
	})
}
