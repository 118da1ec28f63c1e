// Package store is the small storage interface an FDL repository lives
// behind: a local folder (package store/local), an S3-compatible bucket
// (store/s3) or a read-only HTTP(S) site (store/httpstore). Package
// store/open picks one from a repository argument.
// Keys are slash-separated paths relative to the repository root
// ("versions/<id>/version.json").
//
// Objects are immutable: Create never replaces an object, and an object is
// either absent or complete. That is what lets two backfills run at once and
// write each catalog exactly once.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"time"
)

// Store holds immutable objects under slash-separated keys. Implementations
// are safe for concurrent use, also by several processes at once.
type Store interface {
	// Open reads an object. The error wraps fs.ErrNotExist if it is absent.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Create writes an object from r, atomically: readers see it complete or
	// not at all, and if r or ctx fails nothing is left behind. It returns an
	// error wrapping ErrExists if the key is present (also when another
	// writer created it first: of concurrent creators exactly one wins).
	Create(ctx context.Context, key string, r io.Reader) error
	// List returns the objects whose key starts with prefix, at any depth,
	// sorted by key: every object Open can open under that prefix, since a
	// check that trusts List must never miss one a reader reaches (a local
	// folder follows symbolic links). A prefix with no objects gives an
	// empty list, except on a store that lists through folder listings,
	// which returns an error wrapping ErrNoListing when it cannot tell (see
	// ErrNoListing); such a store shows only what its listings link and says
	// so (PartialLister).
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Stat describes one object. The error wraps fs.ErrNotExist if absent.
	Stat(ctx context.Context, key string) (ObjectInfo, error)
}

// PathStore is implemented by stores whose objects are local files, so that
// DuckDB can open them in place (found by type assertion).
type PathStore interface {
	Store
	// Path returns the local file path of a key (which may not exist yet).
	Path(key string) (string, error)
}

// TempDir is the folder where writers keep their temporary files (named
// after the process that owns them; see internal/scratch): directly under
// a local repository's root, beside versions/ and data/, and, for a key
// whose folder is on another file system (a versions/, version, catalogs/
// or data folder linked onto another disk), in the topmost folder of the
// key's path on that file system (store/local's StageDir). It is no
// object: List never shows it, at any depth, and readers, who open only
// fdl.json, versions/ and the data files a catalog names, never look
// there.
const TempDir = ".fdl-tmp"

// ObjectInfo describes one object.
type ObjectInfo struct {
	Key     string    `json:"key"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	// ETag is the server's entity tag, quotes removed, where the store has
	// one (object stores and most HTTP servers); empty otherwise.
	ETag string `json:"etag,omitempty"`
	// WeakETag tells an ETag the server sent as weak (W/"..."): one it may
	// keep over a change of the bytes, which names no bytes.
	WeakETag bool `json:"-"`
	// IgnoredRange is set by a TailReader whose server answered the ranged
	// GET of a part of the object (not all of it) with 200 and the whole
	// object: readers that fall back to a whole download read it (DuckDB
	// 1.4 on, over http(s)), those that do not fail (DuckDB 1.3's httpfs:
	// "Content-Length from server mismatches requested range").
	IgnoredRange bool `json:"-"`
}

// InfoOpener is implemented by stores that can describe the object a read
// delivers from the same response (a GET's ETag, Last-Modified and
// length), so that a cache binds a validator to the bytes it got: a HEAD
// before the GET may be answered by another copy (a CDN edge, a replica)
// than the GET.
type InfoOpener interface {
	OpenInfo(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error)
}

// TailReader is implemented by stores that can read an object's last n
// bytes with a ranged GET (the whole object when it is shorter), and
// describe the object from that response (its total size, ETag and
// Last-Modified). A cache revalidated by a HEAD alone passed objects
// readers could no longer GET (an S3 object moved to an archive storage
// class answers HEAD, not GET) and never used the ranged reads DuckDB
// reads with; the tail also tells a cached copy from a changed object of
// the same size and validator.
type TailReader interface {
	ReadTail(ctx context.Context, key string, n int64) ([]byte, ObjectInfo, error)
}

// KnownTailReader is implemented by TailReaders that can read an object's
// last n bytes by the ranged GET alone, for an object a request of this
// run already described (head: its size, ETag and Last-Modified, from a
// HEAD and ranged GET of ReadTail, or a web site's HEAD of it in its
// folder walk): DuckDB reads a Parquet footer by one HEAD and then ranged
// GETs, and a second HEAD for the same object would ask what the run
// already knows. The GET's ETag must be head's, as ReadTail holds its GET
// to its HEAD, and its Content-Range's complete length head's size (a
// store.SizeDisagrees error otherwise); the info returned is the GET's,
// for the caller to hold to head as a ReadTail's. A whole answer to the
// range is written to whole (when not nil) as ReadTailKeep writes it.
type KnownTailReader interface {
	ReadTailOf(ctx context.Context, key string, n int64, head ObjectInfo, whole io.Writer) (tail []byte, info ObjectInfo, kept bool, err error)
}

// TailKeeper is implemented by TailReaders whose server may answer the
// ranged GET with the whole object (a web server that ignores Range):
// ReadTailKeep is ReadTail that also writes such a whole answer to whole,
// as it is read, and reports it (kept), so that a caller that needs the
// object adopts the bytes it was sent instead of downloading it again.
// Nothing is written for a ranged answer; a kept answer holds exactly
// the object's size in bytes. A write error of whole fails the read.
type TailKeeper interface {
	ReadTailKeep(ctx context.Context, key string, n int64, whole io.Writer) (tail []byte, info ObjectInfo, kept bool, err error)
}

// AnswerGate may be the writer a TailKeeper's ReadTailKeep or a
// KnownTailReader's ReadTailOf is given. Of a whole answer to the ranged
// GET (a server that ignores Range) whose length is the object's size,
// Drop is asked, before any byte of it is read, with what the answer says
// of the object (its ETag, Last-Modified and size): true closes the answer
// unread, and the read returns no tail (nil), that description
// (IgnoredRange set as for a read answer) and kept false. A caller that
// holds a copy under the answer's validator so spares the transfer of the
// whole object, which it would read only for its last bytes; those are
// then not compared.
type AnswerGate interface {
	io.Writer
	Drop(info ObjectInfo) bool
}

// GETSizer is implemented by stores whose Stat is another request than
// the GETs that read an object (a web server's HEAD), so that the two can
// disagree about its size: a proxy, cache or application may answer HEAD
// with another Content-Length than its GETs deliver. GETSize is the size a
// GET gives. A check asks it only when Stat's size is not the size a
// version records, to tell a server that disagrees with itself from a file
// that is not the one recorded.
type GETSizer interface {
	GETSize(ctx context.Context, key string) (int64, error)
}

// Location is implemented by stores that can name where they are, for
// reports and logs. The result never holds credentials.
type Location interface {
	Location() string
}

// ReadOnly is implemented by stores whose Create always fails with
// ErrReadOnly (a web site); IsReadOnly tells them apart.
type ReadOnly interface {
	ReadOnly() bool
}

// IsReadOnly reports whether st cannot be written.
func IsReadOnly(st Store) bool {
	ro, ok := st.(ReadOnly)
	return ok && ro.ReadOnly()
}

// PartialLister is implemented by stores whose List shows only what a
// server chooses to list (a web site's index pages): Open may reach an
// object List never shows, and readers that fetch files by name (catalogs)
// reach it. A check that must see every such file probes its names with
// Stat on these stores.
type PartialLister interface {
	ListsPartially() bool
}

// ListsPartially tells whether st, or the store a wrapper (Counter) wraps,
// lists only part of what Open reaches (PartialLister).
func ListsPartially(st Store) bool {
	p, ok := Base(st).(PartialLister)
	return ok && p.ListsPartially()
}

// Base is the store under every wrapper of st (Counter): what it is.
func Base(st Store) Store {
	for {
		w, ok := st.(interface{ Unwrap() Store })
		if !ok {
			return st
		}
		st = w.Unwrap()
	}
}

// PrefixChecker is implemented by stores that can tell in one request
// whether any object's key starts with a prefix (a bucket: a listing of
// one key), where List would page through every object under it. A store
// that lists through folder listings (a web site) cannot tell an absent
// folder from an unlisted one, and does not implement it.
type PrefixChecker interface {
	HasPrefix(ctx context.Context, prefix string) (bool, error)
}

// FolderLister is implemented by stores that have folders: a web site's
// index pages (PartialLister) may link a subfolder whose own listing links
// no file (an empty index.html, a CDN's cached copy of an empty page),
// though readers fetch that folder's files by name; a local folder may
// hold an empty subfolder. List, a list of objects, shows neither; a
// repository check names them (an empty version folder).
type FolderLister interface {
	// ListFolders is List that also returns the folders it walked whose
	// keys start with prefix (prefix itself left out), each ending in "/",
	// sorted: those whose listings link no file too.
	ListFolders(ctx context.Context, prefix string) ([]ObjectInfo, []string, error)
}

// ListFolders lists prefix in st and, where st (or the store a wrapper
// wraps) is a FolderLister, gives the folders below prefix too; on other
// stores (buckets) folders is nil: they have no folders, only objects, and
// a folder marker object holds nothing a reader can open. A Counter's
// ListFolders is its own, so that its watcher sees the listing fail.
func ListFolders(ctx context.Context, st Store, prefix string) (objs []ObjectInfo, folders []string, err error) {
	if c, ok := st.(*Counter); ok {
		return c.ListFolders(ctx, prefix)
	}
	if fl, ok := Base(st).(FolderLister); ok {
		return fl.ListFolders(ctx, prefix)
	}
	objs, err = st.List(ctx, prefix)
	return objs, nil, err
}

// BodyLister is implemented by FolderListers that describe each object
// they list by a request of its own (a web site's HEAD in its folder
// walk): ListRead is ListFolders that, for the objects whose keys read
// selects, asks a GET in that request's place, which describes the object
// as well (its size, ETag and Last-Modified), and returns the bytes of
// those of at most max bytes, by key, in bodies: a small file the caller
// reads anyway (a version's JSON files) then costs one round trip, not a
// HEAD and then a GET. The objects, folders and errors are those
// ListFolders gives.
type BodyLister interface {
	ListRead(ctx context.Context, prefix string, read func(key string) bool, max int64) (objs []ObjectInfo, folders []string, bodies map[string][]byte, err error)
}

// ListRead lists prefix in st as ListFolders does and, where st (or the
// store a wrapper wraps) is a BodyLister, returns the bodies it read of
// the objects read selects (at most max bytes each); elsewhere bodies is
// nil and the caller reads them as before. A Counter counts those bytes as
// downloaded and tells its watcher of a listing that fails.
func ListRead(ctx context.Context, st Store, prefix string, read func(key string) bool, max int64) (objs []ObjectInfo, folders []string, bodies map[string][]byte, err error) {
	if c, ok := st.(*Counter); ok {
		return c.ListRead(ctx, prefix, read, max)
	}
	if bl, ok := Base(st).(BodyLister); ok {
		return bl.ListRead(ctx, prefix, read, max)
	}
	objs, folders, err = ListFolders(ctx, st, prefix)
	return objs, folders, nil, err
}

// Prober is implemented by stores that must check, once per run before
// anything is published, that Create's guarantee holds on the server (an
// object store that may ignore conditional writes). Probe returns an error
// wrapping ErrUnsafe when it does not.
type Prober interface {
	Probe(ctx context.Context) error
}

var (
	// ErrExists is returned (wrapped) by Create when the key is present.
	ErrExists = errors.New("object already exists")
	// ErrInvalidKey is returned (wrapped) by every method for a key that is
	// empty, absolute, or has empty, "." or ".." parts or backslashes.
	ErrInvalidKey = errors.New("invalid key")
	// ErrReadOnly is returned (wrapped) by Create on a store that cannot be
	// written (an HTTP site).
	ErrReadOnly = errors.New("store is read-only")
	// ErrUnsafe is returned (wrapped) by Prober.Probe when the server does
	// not honour the conditions Create relies on, so publishing could
	// replace another writer's object.
	ErrUnsafe = errors.New("store cannot create objects safely")
	// ErrWriteDenied is returned (wrapped) by Prober.Probe when the server
	// refuses the probe's write itself (403 AccessDenied): the credentials
	// may read the store but not create objects in it.
	ErrWriteDenied = errors.New("the credentials may not write to the store")
	// ErrNoListing is returned (wrapped) by List on a store that finds
	// its objects through folder listings (a web site) when a folder it
	// must walk has none it understands: the folder answers 404, or a page
	// that is not a listing, or one that links nothing below the folder.
	// Such a store cannot tell an absent folder from an unlisted one, so
	// it never answers "nothing there" for it.
	ErrNoListing = errors.New("no folder listing")
	// ErrPage is returned (wrapped, with fs.ErrNotExist) by a web store
	// for a key the server answers with an HTML page: repository files are
	// never HTML, and hosts that answer every unknown path with a page
	// (single-page-app fallbacks) would otherwise seem to hold every file.
	// A caller reading a file it requires (fdl.json) tells by it a REPO
	// URL that points at a site, not at a repository.
	ErrPage = errors.New("the server answered with an HTML page, which no repository file is (a host that answers every missing path with a page)")
)

// ValidateKey checks that key is a clean, relative, slash-separated path.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty", ErrInvalidKey)
	}
	if strings.ContainsAny(key, "\\\x00") {
		return fmt.Errorf("%w %q: backslash or NUL", ErrInvalidKey, key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%w %q: want a relative path without empty, '.' or '..' parts", ErrInvalidKey, key)
		}
	}
	return nil
}

// ValidatePrefix checks a List prefix: empty, or a key, optionally ending in "/".
func ValidatePrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return ValidateKey(strings.TrimSuffix(prefix, "/"))
}

// ReadAll reads a whole object, however large (ReadAtMost without a
// limit).
func ReadAll(ctx context.Context, s Store, key string) ([]byte, error) {
	return ReadAtMost(ctx, s, key, math.MaxInt64-1)
}

// TooLargeError is ReadAtMost's error for an object larger than its limit.
type TooLargeError struct {
	Key string
	Max int64 // the limit, in bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: more than %d bytes", e.Key, e.Max)
}

// ReadAtMost reads a whole object of at most limit bytes. A larger one is
// a *TooLargeError, read no further than limit+1 bytes: a file whose size
// nothing records (a version.json) is not read into memory whole when it
// is another, huge file under its name, or a server's endless answer.
func ReadAtMost(ctx context.Context, s Store, key string, limit int64) ([]byte, error) {
	rc, err := s.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Key: key, Max: limit}
	}
	return data, nil
}

// TailRange checks the Content-Range of an answer to a request for the
// last n bytes of an object ("bytes FIRST-LAST/SIZE"), given the number of
// bytes the answer held, and returns the object's size (-1 for "/*", an
// unknown complete length). A range that is
// not the object's end, or not the length received, is an error: DuckDB's
// ranged reads fail on such answers. With a range that is not the object's
// end, size is the object's size the answer names (a caller that asked
// for the end of another size tells a server whose HEAD disagrees with
// its GETs); with every other error it is 0.
func TailRange(contentRange string, got, n int64) (size int64, err error) {
	var first, last int64
	if rng, ok := strings.CutSuffix(contentRange, "/*"); ok {
		// An unknown complete length (RFC 9110): size -1, the caller asks.
		if _, err := fmt.Sscanf(rng, "bytes %d-%d", &first, &last); err != nil || first < 0 || first > last || last-first+1 != got || got > n {
			return 0, fmt.Errorf("the ranged answer's Content-Range %q is not the %d bytes it held", contentRange, got)
		}
		return -1, nil
	}
	if _, err := fmt.Sscanf(contentRange, "bytes %d-%d/%d", &first, &last, &size); err != nil {
		return 0, fmt.Errorf("the ranged answer's Content-Range %q does not parse", contentRange)
	}
	switch {
	case last != size-1 || first > last || first < 0:
		return max(size, 0), fmt.Errorf("the ranged answer's Content-Range %q is not the object's end", contentRange)
	case last-first+1 != got:
		return 0, fmt.Errorf("the ranged answer's Content-Range %q says %d bytes, the answer held %d", contentRange, last-first+1, got)
	case got != min(n, size):
		return 0, fmt.Errorf("the ranged answer's Content-Range %q is not the last %d bytes", contentRange, n)
	}
	return size, nil
}

// ErrETagChanged is matched by the errors of TailReaders whose ranged GET
// gave another ETag than the HEAD before it (an *ETagError).
var ErrETagChanged = errors.New("the object's ETag changed between its HEAD and its ranged GET")

// ETagError is an object whose ranged GET gave another ETag than the
// HEAD before it, as the servers sent them.
type ETagError struct {
	Key string
	// Name is the object where it is (store.KeyName: a bucket's s3://
	// URL at its endpoint, a site's URL), which the error names in the
	// key's place; "" names the key.
	Name      string
	Head, Get string
	// Full tells that Get is the ETag of a GET of the whole object
	// (a download), Head that of the HEAD and ranged GET before it.
	Full bool
}

func (e *ETagError) Error() string {
	name := e.Key
	if e.Name != "" {
		name = e.Name
	}
	return name + ": " + e.cause()
}

// cause is the error's text after the object's name.
func (e *ETagError) cause() string {
	if e.Full {
		return fmt.Sprintf("ETag %s by its HEAD and ranged GET, %s by the GET that downloaded it: the object changed meanwhile, or the server answers them from different copies (a CDN edge or replica serving an older copy); the download is not used", e.Head, e.Get)
	}
	return fmt.Sprintf("ETag %s by its HEAD, %s by its ranged GET: the object changed between the two, or the server answers them from different copies (a CDN edge, a replica); DuckDB's httpfs fails such a read (\"ETag on reading file ... was initially ... and now it returned ...\")", e.Head, e.Get)
}

// Unwrap matches ErrETagChanged.
func (e *ETagError) Unwrap() error { return ErrETagChanged }

// As gives an *ObjectError where the error names its object where it is
// (Name): the name, and the rest as its cause.
func (e *ETagError) As(target any) bool {
	t, ok := target.(**ObjectError)
	if !ok || e.Name == "" {
		return false
	}
	*t = &ObjectError{Name: e.Name, Err: &CauseError{Msg: e.cause(), Err: ErrETagChanged}}
	return true
}

// CheckETags compares the ETag headers of a HEAD (head) and of a later
// ranged GET of the same object (get) as DuckDB's httpfs does before it
// uses the GET's bytes (GetRangeRequest, any answer under 300): skipped
// when either is absent or empty; otherwise the two must be equal once
// one pair of surrounding double quotes is taken off each (DuckDB 1.5 on;
// 1.4 compares them as sent). "W/" is part of the value: a weak and a
// strong ETag of the same value differ.
func CheckETags(key, head, get string) error {
	if head == "" || get == "" || unquoteETag(head) == unquoteETag(get) {
		return nil
	}
	return &ETagError{Key: key, Head: head, Get: get}
}

// CheckFullETag compares, as CheckETags does, the ETag a HEAD and ranged
// GET of an object gave (head) with that of a later GET of the whole
// object (get): a difference is an *ETagError with Full set.
func CheckFullETag(key, head, get string) error {
	err := CheckETags(key, head, get)
	if e, ok := err.(*ETagError); ok {
		e.Full = true
	}
	return err
}

// ErrLastModifiedChanged is matched by the errors of CheckFullLastModified.
var ErrLastModifiedChanged = errors.New("the object's Last-Modified changed between its ranged GET and its download")

// CheckFullLastModified compares the Last-Modified a ranged GET of an
// object gave (ranged) with that of a later GET of the whole object
// (whole), for servers whose ETags could not be compared (CheckFullETag:
// one answer or both without one, as Go's http.FileServer sends none): a
// CDN edge or replica answering downloads from an older copy of the same
// size and last bytes keeps that copy's Last-Modified, and the checks
// would prove bytes readers, who read by ranges, do not get. Skipped when
// either answer has no Last-Modified.
func CheckFullLastModified(key string, ranged, whole time.Time) error {
	if ranged.IsZero() || whole.IsZero() || ranged.Equal(whole) {
		return nil
	}
	return fmt.Errorf("%s: Last-Modified %s by its HEAD and ranged GET, %s by the GET that downloaded it: the object changed meanwhile, or the server answers them from different copies (a CDN edge or replica serving an older copy; without an ETag only the size, the last bytes and Last-Modified tell them apart); the download is not used: %w",
		key, ranged.UTC().Format(time.RFC3339), whole.UTC().Format(time.RFC3339), ErrLastModifiedChanged)
}

func unquoteETag(etag string) string {
	if len(etag) >= 2 && etag[0] == '"' && etag[len(etag)-1] == '"' {
		return etag[1 : len(etag)-1]
	}
	return etag
}

// LastBytes reads r, an answer that holds a whole object of size bytes
// (a server that ignored a range), to its end and returns its last n
// bytes; it is an error when r holds another number of bytes than size.
func LastBytes(r io.Reader, n, size int64) ([]byte, error) {
	tail := make([]byte, 0, min(n, size))
	buf := make([]byte, 32<<10)
	var total int64
	for {
		m, err := r.Read(buf)
		total += int64(m)
		if total > size {
			return nil, fmt.Errorf("the whole-object answer holds more than the %d bytes of the object", size)
		}
		chunk := buf[:m]
		if int64(len(chunk)) >= n {
			chunk = chunk[int64(len(chunk))-n:]
			tail = tail[:0]
		} else if drop := int64(len(tail)+len(chunk)) - n; drop > 0 {
			tail = tail[:copy(tail, tail[drop:])]
		}
		tail = append(tail, chunk...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if total != size {
		return nil, fmt.Errorf("the whole-object answer holds %d bytes, the object has %d", total, size)
	}
	return tail, nil
}

// AbsentError is a missing object (it wraps fs.ErrNotExist) with what the
// store noticed of the answer that a caller requiring the file should
// say: an S3 endpoint whose 404 is no S3 error at all.
type AbsentError struct {
	Note string
}

func (e *AbsentError) Error() string { return fs.ErrNotExist.Error() + " (" + e.Note + ")" }

func (e *AbsentError) Unwrap() error { return fs.ErrNotExist }
