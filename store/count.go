package store

import (
	"context"
	"io"
	"os"
	"sync/atomic"
)

// Counter wraps a Store and counts the bytes read through Open and written
// through Create, for the "bytes downloaded and uploaded" of a run's report;
// it also tells a watcher of each request that fails (Watch). It hides any
// optional interface of the wrapped store; use Unwrap to reach them.
type Counter struct {
	Store
	down, up atomic.Int64
	watch    func(key string, err error)
}

// NewCounter wraps s.
func NewCounter(s Store) *Counter { return &Counter{Store: s} }

// Unwrap returns the wrapped store.
func (c *Counter) Unwrap() Store { return c.Store }

// Watch has f called with the key (or prefix) and the error of every
// request through c that fails: a run stops on the first error about the
// whole store (IsWholeStore), wherever the request was made. Call it
// before c is used; f must be safe for concurrent use.
func (c *Counter) Watch(f func(key string, err error)) { c.watch = f }

// failed tells the watcher of a failed request and returns err.
func (c *Counter) failed(key string, err error) error {
	if err != nil && c.watch != nil {
		c.watch(key, err)
	}
	return err
}

// List implements Store.
func (c *Counter) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	objs, err := c.Store.List(ctx, prefix)
	return objs, c.failed(prefix, err)
}

// ListFolders is the package's ListFolders on the wrapped store: a
// listing that fails (a web site's folder walk meeting a server gone) is
// told to the watcher as List's failures are. Before, the walk went
// around the Counter (ListFolders unwrapped it), and a site that went away
// during it ended the run with the walk's own error, not as a failure
// about the whole store does (the run "stopped").
func (c *Counter) ListFolders(ctx context.Context, prefix string) ([]ObjectInfo, []string, error) {
	objs, folders, err := ListFolders(ctx, c.Store, prefix)
	return objs, folders, c.failed(prefix, err)
}

// ListRead is the package's ListRead on the wrapped store: the bytes of
// the bodies it read count as downloaded, and a listing that fails is told
// to the watcher.
func (c *Counter) ListRead(ctx context.Context, prefix string, read func(key string) bool, max int64) ([]ObjectInfo, []string, map[string][]byte, error) {
	objs, folders, bodies, err := ListRead(ctx, c.Store, prefix, read, max)
	for _, b := range bodies {
		c.down.Add(int64(len(b)))
	}
	return objs, folders, bodies, c.failed(prefix, err)
}

// Stat implements Store.
func (c *Counter) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	info, err := c.Store.Stat(ctx, key)
	return info, c.failed(key, err)
}

// Downloaded is the number of bytes read through Open so far.
func (c *Counter) Downloaded() int64 { return c.down.Load() }

// Uploaded is the number of bytes of objects Create has written so far.
func (c *Counter) Uploaded() int64 { return c.up.Load() }

// Open implements Store.
func (c *Counter) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := c.Store.Open(ctx, key)
	if err != nil {
		return nil, c.failed(key, err)
	}
	return &countingReader{ReadCloser: rc, n: &c.down}, nil
}

// OpenInfo is Open with the description of the object read from the same
// response, where the store gives one (InfoOpener); ok is false where it
// does not (the info is then empty).
func (c *Counter) OpenInfo(ctx context.Context, key string) (_ io.ReadCloser, _ ObjectInfo, ok bool, _ error) {
	io_, ok := c.Store.(InfoOpener)
	if !ok {
		rc, err := c.Open(ctx, key)
		return rc, ObjectInfo{}, false, err
	}
	rc, info, err := io_.OpenInfo(ctx, key)
	if err != nil {
		return nil, ObjectInfo{}, true, c.failed(key, err)
	}
	return &countingReader{ReadCloser: rc, n: &c.down}, info, true, nil
}

// ReadTail reads the object's last n bytes and describes it from the same
// response where the store can (TailReader); elsewhere it only describes
// it (Stat), and tail is nil.
func (c *Counter) ReadTail(ctx context.Context, key string, n int64) (tail []byte, info ObjectInfo, err error) {
	tr, ok := c.Store.(TailReader)
	if !ok {
		info, err = c.Stat(ctx, key)
		return nil, info, err
	}
	tail, info, err = tr.ReadTail(ctx, key, n)
	c.down.Add(int64(len(tail)))
	return tail, info, c.failed(key, err)
}

// ReadTailOf is ReadTailKeep of an object head describes (from a request
// of this run): by the ranged GET alone where the store can
// (KnownTailReader), else as ReadTailKeep.
func (c *Counter) ReadTailOf(ctx context.Context, key string, n int64, head ObjectInfo, whole io.Writer) (tail []byte, info ObjectInfo, kept bool, err error) {
	kr, ok := c.Store.(KnownTailReader)
	if !ok {
		return c.ReadTailKeep(ctx, key, n, whole)
	}
	return c.countKept(key, whole, func(w io.Writer) ([]byte, ObjectInfo, bool, error) {
		return kr.ReadTailOf(ctx, key, n, head, w)
	})
}

// ReadTailKeep is ReadTail that, where the store can (TailKeeper), also
// writes a whole-object answer to the ranged GET to whole (kept): every
// byte of such an answer is counted as downloaded, as a download of the
// object is.
func (c *Counter) ReadTailKeep(ctx context.Context, key string, n int64, whole io.Writer) (tail []byte, info ObjectInfo, kept bool, err error) {
	tk, ok := c.Store.(TailKeeper)
	if !ok || whole == nil {
		tail, info, err = c.ReadTail(ctx, key, n)
		return tail, info, false, err
	}
	return c.countKept(key, whole, func(w io.Writer) ([]byte, ObjectInfo, bool, error) {
		return tk.ReadTailKeep(ctx, key, n, w)
	})
}

// countKept runs read, a ranged read of key's end that may write a whole
// answer to the writer it is given (whole, counted; nil when whole is),
// and counts as downloaded every byte of a whole answer kept, else the
// tail's.
func (c *Counter) countKept(key string, whole io.Writer, read func(io.Writer) ([]byte, ObjectInfo, bool, error)) ([]byte, ObjectInfo, bool, error) {
	var sent atomic.Int64
	var w io.Writer
	if whole != nil {
		w = countingWriter{w: whole, n: &sent}
	}
	tail, info, kept, err := read(w)
	if kept {
		c.down.Add(sent.Load())
	} else {
		c.down.Add(int64(len(tail)))
	}
	return tail, info, kept, c.failed(key, err)
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

// Drop implements AnswerGate for the writer it counts, false where that
// is no AnswerGate.
func (w countingWriter) Drop(info ObjectInfo) bool {
	g, ok := w.w.(AnswerGate)
	return ok && g.Drop(info)
}

func (w countingWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.n.Add(int64(n))
	return n, err
}

// Create implements Store; only an object actually written counts. A
// regular file is passed on as it is (stores may seek it) and counted by
// its size.
func (c *Counter) Create(ctx context.Context, key string, r io.Reader) error {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
				err := c.Store.Create(ctx, key, f)
				if err == nil {
					c.up.Add(st.Size() - pos)
				}
				return c.failed(key, err)
			}
		}
	}
	var n atomic.Int64
	err := c.Store.Create(ctx, key, &countingReader{ReadCloser: io.NopCloser(r), n: &n})
	if err == nil {
		c.up.Add(n.Load())
	}
	return c.failed(key, err)
}

type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.n.Add(int64(n))
	return n, err
}
