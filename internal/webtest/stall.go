package webtest

import (
	"context"
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
