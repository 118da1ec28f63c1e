package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var chunk = make([]byte, 64<<10)

// stallServer answers
//
//	/stall/N:    headers (Content-Length N+1000), N bytes, then nothing until
//	             the client goes away;
//	/trickle/N:  N bytes, one at a time every 50ms;
//	/full/N:     N bytes at once;
//
// and to a PUT
//
//	/putstall/N: reads N bytes of the body, then nothing until the client
//	             goes away;
//	/putslow/N:  reads the body N bytes at a time every 20ms, then answers;
//	/putlate/N:  reads the body, then answers after N milliseconds;
//
// answering the number of bytes read.
func stallServer(t testing.TB) *httptest.Server {
	t.Helper()
	// quit ends the handlers still waiting on a body they do not read
	// (which cannot tell that the client went away) before the server
	// closes.
	quit := make(chan struct{})
	srv := httptest.NewUnstartedServer(stallHandler(quit))
	srv.Config.ConnState = pinReadBuffer
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	return srv
}

// pinReadBuffer fixes a server connection's receive buffer at a few
// hundred KiB, which turns off the kernel's autotuning of it. The upload
// stalls need a body far larger than a connection holds unread: autotuned,
// the buffer of a kept-alive connection the server had read an upload from
// fast grew (up to net.ipv4.tcp_rmem's maximum: 32 MiB on some machines,
// more under load), took the whole 16 MiB body, and the client then waited
// for an answer that never came (that wait is the transport's
// ResponseHeaderTimeout, unset here, not the upload watchdog's) until the
// test's deadline.
func pinReadBuffer(c net.Conn, s http.ConnState) {
	if tc, ok := c.(*net.TCPConn); ok && s == http.StateNew {
		tc.SetReadBuffer(256 << 10)
	}
}

func stallHandler(quit <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		n, _ := strconv.Atoi(parts[len(parts)-1])
		if r.Method == http.MethodPut {
			var got int64
			switch parts[0] {
			case "putstall":
				io.CopyN(io.Discard, r.Body, int64(n))
				select {
				case <-r.Context().Done():
				case <-quit:
				}
				return
			case "putslow":
				for {
					k, err := io.CopyN(io.Discard, r.Body, int64(n))
					got += k
					if err != nil {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			case "putlate":
				got, _ = io.Copy(io.Discard, r.Body)
				time.Sleep(time.Duration(n) * time.Millisecond)
			}
			io.WriteString(w, strconv.FormatInt(got, 10))
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		switch parts[0] {
		case "stall":
			w.Header().Set("Content-Length", strconv.Itoa(n+1000))
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(strings.Repeat("s", n)))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "trickle":
			w.Header().Set("Content-Length", strconv.Itoa(n))
			for range n {
				if _, err := w.Write([]byte{'t'}); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		default:
			w.Header().Set("Content-Length", strconv.Itoa(n))
			for n > 0 {
				k, err := w.Write(chunk[:min(n, len(chunk))])
				if err != nil {
					return
				}
				n -= k
			}
		}
	})
}

// get reads path in full through a client with the stall watchdog at d,
// within a deadline (so that a watchdog that does not fire fails the test
// instead of hanging it); pause is spent between reads of 10 bytes.
func get(t *testing.T, c Doer, url string, pause time.Duration) (int, time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	total := 0
	buf := make([]byte, 10)
	for {
		n, err := resp.Body.Read(buf)
		total += n
		if err == io.EOF {
			return total, time.Since(start), nil
		}
		if err != nil {
			return total, time.Since(start), err
		}
		time.Sleep(pause)
	}
}

// TestStallTransport: a body whose server stops sending fails within a few
// multiples of the stall timeout with an error naming the URL; a body
// trickling slower than the timeout in total but faster between bytes, and
// a reader that waits longer than the timeout between its reads, succeed.
//
// The trickle runs with a 600ms timeout (its 20 bytes take 1s, 50ms apart),
// the rest with 200ms: on a loaded machine (load 20 on 2 cores) the
// trickling server's goroutine waited over 200ms for a core, and the
// steady body looked stalled ("no byte for 200ms" after 9 bytes).
func TestStallTransport(t *testing.T) {
	const d, steady = 200 * time.Millisecond, 600 * time.Millisecond
	srv := stallServer(t)
	for _, c := range []struct {
		name string
		c    func(time.Duration) Doer
	}{
		{"transport", func(d time.Duration) Doer { return WithStallTimeout(srv.Client(), d) }},
		{"client", func(d time.Duration) Doer { return StallDoer(srv.Client(), d) }},
	} {
		t.Run(c.name, func(t *testing.T) { testStall(t, c.c, srv.URL, d, steady) })
	}
}

func testStall(t *testing.T, c func(time.Duration) Doer, url string, d, steady time.Duration) {
	for _, tc := range []struct {
		name    string
		path    string
		pause   time.Duration
		want    int // bytes read
		stall   bool
		timeout time.Duration
	}{
		{"headers, part of the body, then nothing", "/stall/1000", 0, 1000, true, d},
		{"headers, then nothing", "/stall/0", 0, 0, true, d},
		{"a slow but steady body (20 bytes over 1s)", "/trickle/20", 0, 20, false, steady},
		{"a reader slower than the timeout", "/full/30", 3 * d, 30, false, d},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, took, err := get(t, c(tc.timeout), url+tc.path, tc.pause)
			if n != tc.want {
				t.Errorf("read %d bytes, want %d", n, tc.want)
			}
			if !tc.stall {
				if err != nil {
					t.Fatalf("read failed after %v: %v", took, err)
				}
				return
			}
			var se *StallError
			if !errors.As(err, &se) {
				t.Fatalf("read ended after %v with %v, want a *StallError", took, err)
			}
			t.Logf("%v after %v: %v", tc.path, took, err)
			checkStallTimeout(t, err, took, d)
			for _, want := range []string{"GET " + url + tc.path + ":", "stopped sending", d.String()} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// put sends body to path through c within a deadline (so that a watchdog
// that does not fire fails the test instead of hanging it), and returns
// the number of bytes the server says it read.
func put(t *testing.T, c Doer, url string, body []byte) (int, time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(body))
	resp, err := c.Do(req)
	if err != nil {
		return 0, time.Since(start), err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, time.Since(start), err
	}
	n, _ := strconv.Atoi(string(b))
	return n, time.Since(start), nil
}

// TestStallTransportUpload: an upload whose server stops reading it (from
// the start, or half-way), with a body far larger than the socket buffers,
// fails within a few multiples of the stall timeout with an error naming
// the URL and saying the server stopped reading; before, the write
// blocked for ever. An upload the server reads slowly but steadily (longer
// in all than the timeout), and one whose answer comes later than the
// timeout after the body (the header wait is the transport's), succeed.
//
// The uploads that must succeed run with a 1 s timeout, the stalls with
// 200ms: on a loaded machine (CI beside other jobs) a goroutine can wait
// longer than 200ms for a core, and the steady reader then looked stalled
// (the server read 0 bytes, "took no byte for 200ms"). A stall is only
// found later under load, which checkStallTimeout allows.
func TestStallTransportUpload(t *testing.T) {
	const d, steady = 200 * time.Millisecond, time.Second
	srv := stallServer(t)
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	for _, c := range []struct {
		name string
		c    func(time.Duration) Doer
	}{
		{"transport", func(d time.Duration) Doer { return WithStallTimeout(srv.Client(), d) }},
		{"client", func(d time.Duration) Doer { return StallDoer(srv.Client(), d) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				path  string
				stall bool
			}{
				{"the server reads nothing", "/putstall/0", true},
				{"the server stops after 1 MiB", "/putstall/1048576", true},
				{"a slow but steady reader (128 KiB every 20ms, 2.56 s)", "/putslow/131072", false},
				{"an answer 3 timeouts after the body", "/putlate/3000", false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					d := d
					if !tc.stall {
						d = steady
					}
					n, took, err := put(t, c.c(d), srv.URL+tc.path, body)
					if !tc.stall {
						if err != nil || n != len(body) {
							t.Fatalf("after %v: the server read %d bytes, %v; want %d", took, n, err, len(body))
						}
						if took < 2*d {
							t.Errorf("the upload took only %v: not slower than the timeout", took)
						}
						return
					}
					t.Logf("%v after %v: %v", tc.path, took, err)
					var se *StallError
					if !errors.As(err, &se) || !se.Upload {
						t.Fatalf("upload ended after %v with %v, want a *StallError of an upload", took, err)
					}
					checkStallTimeout(t, err, took, d)
					if se.Size != int64(len(body)) || se.Sent <= 0 || se.Sent >= se.Size {
						t.Errorf("%v: sent %d of %d bytes, want part of %d", err, se.Sent, se.Size, len(body))
					}
					for _, want := range []string{"PUT " + srv.URL + tc.path + ":", "stopped reading the upload", d.String()} {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("error %q does not say %q", err, want)
						}
					}
				})
			}
		})
	}
}

// TestStallTransportOff: a zero timeout leaves the transport or client as
// it is.
func TestStallTransportOff(t *testing.T) {
	if rt := StallTransport(http.DefaultTransport, 0); rt != http.DefaultTransport {
		t.Errorf("StallTransport(_, 0) wraps the transport")
	}
	c := &http.Client{}
	if StallDoer(c, 0) != Doer(c) {
		t.Errorf("StallDoer(_, 0) wraps the client")
	}
	if WithStallTimeout(c, 0) != c {
		t.Errorf("WithStallTimeout(_, 0) changes the client")
	}
	if WithStallTimeout(c, time.Second) == c || c.Transport != nil {
		t.Errorf("WithStallTimeout changed the client given")
	}
}

// TestStallTransportKeepsConnections: bodies read to their end, HEADs and
// bodies closed early under the watchdog leave the connection reusable
// as without it.
func TestStallTransportKeepsConnections(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(stallHandler(nil))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := WithStallTimeout(srv.Client(), time.Minute)
	for range 20 {
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(m, srv.URL+"/full/100000", nil)
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("40 requests in turn took %d connections, want 1", n)
	}
}

// TestStallTransportNoLeak: no goroutine outlives its request, whether the
// body was read to its end, closed unread, or stalled, or its upload was
// read or stalled.
func TestStallTransportNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	q := make(chan struct{})
	srv := httptest.NewUnstartedServer(stallHandler(q))
	srv.Config.ConnState = pinReadBuffer
	srv.Start()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// 500ms, not 100ms: at load 20 on 2 cores the server reading the 16 MiB
	// upload of /putlate/0 paused over 100ms and the upload looked stalled.
	c := &http.Client{Transport: StallTransport(tr, 500*time.Millisecond)}
	big := make([]byte, 16<<20)
	for i := range 30 {
		path := []string{"/full/5000", "/stall/10", "/trickle/2", "/putstall/1000", "/putlate/0"}[i%5]
		var resp *http.Response
		var err error
		if strings.HasPrefix(path, "/put") {
			req, _ := http.NewRequest(http.MethodPut, srv.URL+path, bytes.NewReader(big))
			resp, err = c.Do(req)
		} else {
			resp, err = c.Get(srv.URL + path)
		}
		if path == "/putstall/1000" {
			var se *StallError
			if !errors.As(err, &se) {
				t.Fatalf("%s: %v, want a stall", path, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			io.Copy(io.Discard, resp.Body)
		}
		resp.Body.Close()
	}
	tr.CloseIdleConnections()
	close(q)
	srv.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkStallRead reads a 64 MiB body in 32 KiB reads, with and without
// the watchdog: the watchdog adds no allocation per Read.
func BenchmarkStallRead(b *testing.B) {
	srv := stallServer(b)
	for _, d := range []time.Duration{0, time.Minute} {
		b.Run("timeout="+d.String(), func(b *testing.B) {
			c := WithStallTimeout(srv.Client(), d)
			buf := make([]byte, 32<<10)
			b.ReportAllocs()
			b.SetBytes(64 << 20)
			for b.Loop() {
				resp, err := c.Get(srv.URL + "/full/" + strconv.Itoa(64<<20))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{resp.Body}, buf); err != nil {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}

// slowBody is an upload body whose every Read first waits (a slow disk, a
// pipe from another process).
type slowBody struct {
	r    io.Reader
	wait time.Duration
}

func (b *slowBody) Read(p []byte) (int, error) {
	time.Sleep(b.wait)
	return b.r.Read(p[:min(len(p), 1<<20)])
}

// TestStallTransportSlowBody: the time an upload spends inside its own
// body's Read is not the server's stall: a body that takes 2.5 timeouts for
// each read is sent whole, however long it takes in all. (Only a
// server that stops taking bytes is timed.)
func TestStallTransportSlowBody(t *testing.T) {
	const d = 100 * time.Millisecond
	srv := stallServer(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<12) // 64 KiB: the transport reads it a few KiB at a time
	for _, c := range []struct {
		name string
		c    Doer
	}{
		{"transport", WithStallTimeout(srv.Client(), d)},
		{"client", StallDoer(srv.Client(), d)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPut, srv.URL+"/putslow/16777216", &slowBody{r: bytes.NewReader(data), wait: 5 * d / 2})
			req.ContentLength = int64(len(data))
			start := time.Now()
			resp, err := c.c.Do(req)
			if err != nil {
				t.Fatalf("after %v: %v, want the slow body sent whole", time.Since(start), err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if n, _ := strconv.Atoi(string(b)); n != len(data) {
				t.Fatalf("the server read %d bytes, want %d", n, len(data))
			}
		})
	}
}

// checkStallTimeout holds a stall's error to what every stall gives: it
// came within a few timeouts d, it is a timeout (net.Error), and it is not
// the caller's cancellation.
func checkStallTimeout(t *testing.T, err error, took, d time.Duration) {
	t.Helper()
	if took > 10*d {
		t.Errorf("the stall was noticed after %v (timeout %v)", took, d)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v: a stall is not the caller's cancellation", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("%v: not a timeout", err)
	}
}

// TestStallUploadResentBody: a request body sent again (GetBody: a 307 or
// 308 followed by a client under StallDoer) gets its own watch; the first
// body, read or closed late by its abandoned connection while the second
// is stalled, does not stop the watch (it did: its Close or end marked the
// shared state off, the timer saw that and stopped for good, and the
// second upload was never timed).
func TestStallUploadResentBody(t *testing.T) {
	const d = 50 * time.Millisecond
	for _, tc := range []struct {
		name string
		late func(io.ReadCloser) // what the first attempt's connection does late
	}{
		{"the first body closed late", func(b io.ReadCloser) { b.Close() }},
		{"the first body read to its end late", func(b io.ReadCloser) { io.Copy(io.Discard, b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1/x", bytes.NewReader(make([]byte, 1000)))
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			up := newStallUpload(req, cancel, d, req.URL)
			defer up.end()
			first := req.Body
			buf := make([]byte, 100)
			first.Read(buf) // the first attempt starts sending
			second, err := req.GetBody()
			if err != nil {
				t.Fatal(err)
			}
			second.Read(buf) // the second attempt sends 100 bytes, then its server takes no more
			tc.late(first)
			select {
			case <-ctx.Done():
			case <-time.After(40 * d):
				t.Fatalf("the second upload, stalled, was not noticed in %v (stall timeout %v)", 40*d, d)
			}
			var se *StallError
			if !errors.As(context.Cause(ctx), &se) || !se.Upload || se.Sent != 100 {
				t.Fatalf("the request ended with %v, want a stalled upload after the second body's 100 bytes", context.Cause(ctx))
			}
		})
	}
}
