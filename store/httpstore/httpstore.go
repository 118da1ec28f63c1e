// Package httpstore is the read-only store.Store of a repository published
// on a web server (https://HOST/PREFIX, or http:// on a private network).
//
// Open is a plain GET and Stat a HEAD (a GET of the first byte where HEAD is
// refused). List walks the server's folder listings: the HTML index pages
// that static servers give for a folder (Go's net/http.FileServer, nginx and
// Apache autoindex, Caddy's browse, python -m http.server, Jetty, Tomcat,
// IIS, node http-server), taking the links to the folder's entries whether
// relative, absolute paths or full URLs of the same origin; a link ending
// in "/" is a subfolder, as is one the server redirects to its slash form.
// The FDL specification has no file that names every version
// (version.json's parents point backwards only), so a listing is what tells
// a reader which versions exist, and a folder without a usable listing is
// an error (store.ErrNoListing), never an empty folder.
package httpstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fdl-formats/fdl-formats/store"
	"golang.org/x/sync/errgroup"
)

// ErrQuery is matched by the error of New for a URL with a query string.
// The query of a signed URL (an S3 presigned URL, a CDN token) signs that
// one address, and every file of a repository is fetched by its own: the
// query was dropped, and the requests went out unsigned. Refused, and not
// repeated, since a signature kept in reports and cache keys is a
// credential.
var ErrQuery = errors.New("query strings (signed URLs) are not supported: each file of the repository is fetched by its own URL, which a query signed for one address does not sign; serve the repository without a query, or check the bucket by s3:// with read-only credentials")

// Store is a read-only repository on a web server.
type Store struct {
	base   *url.URL // ends in "/"
	client *http.Client
}

var (
	_ store.Store    = (*Store)(nil)
	_ store.Location = (*Store)(nil)
	_ store.ReadOnly = (*Store)(nil)
	_ store.URLStore = (*Store)(nil)

	_ store.GETSizer      = (*Store)(nil)
	_ store.PartialLister = (*Store)(nil)
	_ store.FolderLister  = (*Store)(nil)
)

// responseTimeout bounds the wait for a response's headers (and the
// connection before it) when no stall timeout is given: a server that
// accepts a request and never answers hung a scheduled check for hours.
const responseTimeout = 2 * time.Minute

// defaultClient is the client of a store given none: Client with
// store.DefaultStallTimeout.
func defaultClient() *http.Client { return Client(store.DefaultStallTimeout) }

// Client returns a client for New: Go's default transport (proxies from
// the environment, HTTP/2, keep-alives) that waits at most stall for a
// response's headers (and a TLS handshake), and whose response bodies fail
// when the server sends no byte for stall (store.StallTransport), however
// long a steady download takes. stall 0 turns the body watchdog off and
// waits responseTimeout for headers.
func Client(stall time.Duration) *http.Client {
	d := stall
	if d <= 0 {
		d = responseTimeout
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = d
	tr.TLSHandshakeTimeout = d
	// Keep a connection for each request a run has in flight at once:
	// with Go's default of 2, the others were closed after each answer
	// and opened again (a TLS handshake each).
	tr.MaxIdleConnsPerHost = idleConns
	return &http.Client{Transport: store.StallTransport(tr, stall), CheckRedirect: checkRedirect}
}

// credentialsError is a repository URL with a user (and password) in it:
// refused before any request, with what to do instead.
type credentialsError struct{ url string }

func (e *credentialsError) Error() string {
	return fmt.Sprintf("repository URL %s: credentials in the URL are not supported", e.url)
}

// Hint says what to do: the CLI printed the hint for a REPO that holds no
// fdl.json.
func (e *credentialsError) Hint() string {
	return "fdl-formats reads public web sites only (no credentials, cookies or signed URLs): give the URL without user and password, serve the repository's files without authentication, or check the bucket by s3:// with read-only credentials"
}

// New returns the store of the site folder rawURL (http or https). client
// nil means Client(store.DefaultStallTimeout).
func New(rawURL string, client *http.Client) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("repository URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("repository URL %q: want http:// or https://", rawURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("repository URL %q: no host", rawURL)
	}
	if u.User != nil {
		return nil, &credentialsError{url: u.Redacted()}
	}
	if u.RawQuery != "" {
		u.RawQuery = ""
		return nil, fmt.Errorf("repository URL %s?…: %w", u.Redacted(), ErrQuery)
	}
	u.ForceQuery, u.Fragment, u.RawFragment = false, "", ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	if client == nil {
		client = defaultClient()
	}
	if client.CheckRedirect == nil {
		// A copy: the caller's client is theirs.
		c := *client
		c.CheckRedirect = checkRedirect
		client = &c
	}
	return &Store{base: u, client: client}, nil
}

// BaseURL implements store.URLStore.
func (s *Store) BaseURL() string { return s.base.String() }

// Location implements store.Location.
func (s *Store) Location() string { return s.base.String() }

// name is the object key where it is (its URL, as store.KeyName gives
// it): the store's errors about an object name it so, once, and their
// callers add no name of their own.
func (s *Store) name(key string) string { return store.URL(s, key) }

// objErr is err about key (a folder's "/"-ended prefix, "" for the
// repository's own folder), naming it once where it is (name).
func (s *Store) objErr(op, key string, err error) error {
	return &store.ObjectError{Op: op, Name: s.name(key), Err: err}
}

// url is the URL of a key. url.JoinPath takes each part as escaped, so a
// "%XX" in a key (DuckDB escapes hive partition values so) is sent as it
// is, as DuckDB sends it, and the server decodes it as it does for DuckDB;
// "?" and "#" are escaped, but no key the checks accept holds them
// (datapath.Unsafe). A "%" not followed by two hex digits is an error:
// no reader can ask for it (url.JoinPath would quietly give the base URL).
func (s *Store) url(key string) (string, error) {
	parts := strings.Split(key, "/")
	for _, p := range parts {
		if _, err := url.PathUnescape(p); err != nil {
			return "", fmt.Errorf("%w %q: an invalid %%-escape, which no reader over HTTP can ask for", store.ErrInvalidKey, key)
		}
	}
	return s.base.JoinPath(parts...).String(), nil
}

// Open implements store.Store.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, _, err := s.OpenInfo(ctx, key)
	return rc, err
}

// OpenInfo implements store.InfoOpener: the GET's own ETag, Last-Modified
// and length (-1 when the server sends none).
func (s *Store) OpenInfo(ctx context.Context, key string) (io.ReadCloser, store.ObjectInfo, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, store.ObjectInfo{}, err
	}
	u, err := s.url(key)
	if err != nil {
		return nil, store.ObjectInfo{}, err
	}
	resp, err := s.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		if se := s.setupError("open", key, err, nil); se != nil {
			return nil, store.ObjectInfo{}, se
		}
		return nil, store.ObjectInfo{}, s.objErr("open", key, err)
	}
	if err := checkNamed(resp, key); err != nil {
		resp.Body.Close()
		if se := s.setupError("open", key, err, resp); se != nil {
			return nil, store.ObjectInfo{}, se
		}
		return nil, store.ObjectInfo{}, s.objErr("open", key, err)
	}
	if isListing(resp) {
		resp.Body.Close()
		return nil, store.ObjectInfo{}, s.objErr("open", key, fmt.Errorf("a folder: %w", fs.ErrNotExist))
	}
	info := responseInfo(resp, key)
	if !isHTML(resp) {
		return resp.Body, info, nil
	}
	// Served as a page: a page, or a file under the wrong type?
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(resp.Body, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		resp.Body.Close()
		return nil, store.ObjectInfo{}, s.objErr("open", key, err)
	}
	if looksLikeHTML(head[:n]) {
		resp.Body.Close()
		return nil, store.ObjectInfo{}, s.objErr("open", key, fmt.Errorf("%w: %w", store.ErrPage, fs.ErrNotExist))
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head[:n]), resp.Body), resp.Body}, info, nil
}

// ReadTail implements store.TailReader as DuckDB reads a Parquet footer: a
// HEAD for the size (Stat), then a GET of the explicit range of the last n
// bytes ("bytes=FIRST-LAST"; some servers mishandle suffix ranges, which
// DuckDB never sends). The GET's ETag must be the HEAD's (store.CheckETags),
// as DuckDB requires. A server that ignores the range (200 and the whole
// object) is read to its end, which must be the HEAD's size, for its last
// n bytes: DuckDB (1.4 on) then downloads the whole file and reads it, so
// its bytes are what readers get; DuckDB 1.3 fails such a read, which the
// info says (IgnoredRange) where the range asked was not the whole file. A
// ranged answer whose Content-Range is not the range asked, or not the
// bytes sent, is an error, as it is for DuckDB.
func (s *Store) ReadTail(ctx context.Context, key string, n int64) ([]byte, store.ObjectInfo, error) {
	tail, info, _, err := s.ReadTailKeep(ctx, key, n, nil)
	return tail, info, err
}

var _ store.TailKeeper = (*Store)(nil)

// ReadTailKeep implements store.TailKeeper: ReadTail that, where the
// server answers the range with the whole file, also writes the answer to
// whole (when not nil) as it reads it for its last bytes (kept).
func (s *Store) ReadTailKeep(ctx context.Context, key string, n int64, whole io.Writer) (_ []byte, _ store.ObjectInfo, kept bool, _ error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, store.ObjectInfo{}, false, err
	}
	hd, err := s.statFile(ctx, key)
	if err != nil {
		return nil, store.ObjectInfo{}, false, err
	}
	return s.readTailAfter(ctx, key, n, hd, whole)
}

var _ store.KnownTailReader = (*Store)(nil)

// ReadTailOf implements store.KnownTailReader: ReadTailKeep's ranged GET
// without its HEAD, held to head (the object as this run's ReadTail of it
// described it) as ReadTail holds it to its HEAD: the GET's ETag (weak or
// strong alike) and the complete length of its Content-Range.
func (s *Store) ReadTailOf(ctx context.Context, key string, n int64, head store.ObjectInfo, whole io.Writer) (_ []byte, _ store.ObjectInfo, kept bool, _ error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, store.ObjectInfo{}, false, err
	}
	return s.readTailAfter(ctx, key, n, objectInfo{ObjectInfo: head, known: true}, whole)
}

// readTailAfter is ReadTailKeep after its HEAD, which described the
// object as hd.
func (s *Store) readTailAfter(ctx context.Context, key string, n int64, hd objectInfo, whole io.Writer) (_ []byte, _ store.ObjectInfo, kept bool, _ error) {
	head := hd.ObjectInfo
	if head.Size == 0 {
		return []byte{}, head, false, nil
	}
	u, err := s.url(key)
	if err != nil {
		return nil, store.ObjectInfo{}, false, err
	}
	first := max(head.Size-n, 0)
	resp, err := s.do(ctx, http.MethodGet, u, http.Header{"Range": {fmt.Sprintf("bytes=%d-%d", first, head.Size-1)}})
	if err != nil {
		// A server gone between the HEAD and the GET is gone for the whole
		// site, as at any other request (it was Go's error alone, which a
		// run took for this file's: unverifiable, restore it).
		if se := s.setupError("read the end of", key, err, nil); se != nil {
			return nil, store.ObjectInfo{}, false, se
		}
		return nil, store.ObjectInfo{}, false, s.objErr("read the end of", key, err)
	}
	defer resp.Body.Close()
	if err := checkNamed(resp, key); err != nil {
		if se := s.setupError("read the end of", key, err, resp); se != nil {
			return nil, store.ObjectInfo{}, false, se
		}
		return nil, store.ObjectInfo{}, false, s.objErr("read the end of", key, err)
	}
	info := responseInfo(resp, key)
	if err := hd.checkETag(key, resp.Header.Get("ETag"), info); err != nil {
		// Named where it is (its URL), once, as the store's other errors.
		var e *store.ETagError
		if errors.As(err, &e) {
			e.Name = s.name(key)
		}
		return nil, store.ObjectInfo{}, false, s.objErr("read the end of", key, store.Cause(err))
	}
	if resp.StatusCode != http.StatusPartialContent {
		// A caller holding a copy under this answer's validator need
		// not be sent the object again (store.AnswerGate): the answer is
		// closed unread (the deferred Close; Go's transport then drops
		// the connection rather than read the rest).
		if g, ok := whole.(store.AnswerGate); ok && resp.ContentLength == head.Size {
			desc := info
			desc.Size, desc.IgnoredRange = head.Size, first > 0
			if g.Drop(desc) {
				return nil, desc, false, nil
			}
		}
		var body io.Reader = store.ContextReader(ctx, resp.Body)
		if whole != nil {
			body = io.TeeReader(body, whole)
		}
		tail, err := store.LastBytes(body, n, head.Size)
		if err != nil {
			return nil, store.ObjectInfo{}, false, s.objErr("read the end of", key, fmt.Errorf("the server ignored the range (%s): %w", resp.Status, err))
		}
		info.Size = head.Size
		info.IgnoredRange = first > 0
		return tail, info, whole != nil, nil
	}
	tail, err := io.ReadAll(io.LimitReader(resp.Body, n+1))
	if err != nil {
		return nil, store.ObjectInfo{}, false, s.objErr("read the end of", key, err)
	}
	size, err := store.TailRange(resp.Header.Get("Content-Range"), int64(len(tail)), n)
	switch {
	case hd.known && size > 0 && size != head.Size:
		// The HEAD was an earlier request of the run.
		return nil, store.ObjectInfo{}, false, store.SizeDisagrees(s.objErr("read the end of", key, fmt.Errorf("%d bytes by the run's earlier HEAD of it, %d by its ranged GET (changed since?)", head.Size, size)))
	case err != nil && size > 0 && size != head.Size:
		// The range asked ends at the HEAD's size, the object at another.
		return nil, store.ObjectInfo{}, false, store.SizeDisagrees(s.objErr("read the end of", key, err))
	case err != nil:
		return nil, store.ObjectInfo{}, false, s.objErr("read the end of", key, err)
	case size >= 0 && size != head.Size:
		return nil, store.ObjectInfo{}, false, store.SizeDisagrees(s.objErr("read the end of", key, fmt.Errorf("%d bytes by its HEAD, %d by its GET (changed while read?)", head.Size, size)))
	case size < 0 && int64(len(tail)) != min(n, head.Size):
		return nil, store.ObjectInfo{}, false, s.objErr("read the end of", key, fmt.Errorf("%d bytes for the last %d of a %d-byte file", len(tail), n, head.Size))
	}
	info.Size = head.Size
	return tail, info, false, nil
}

// GETSize implements store.GETSizer by a GET of the first byte (Range:
// bytes=0-0), as stat does where HEAD is refused: the complete length its
// Content-Range gives (a 416's "bytes */0" for an empty file), or, from a
// server that ignores the range, the bytes of the whole answer counted.
func (s *Store) GETSize(ctx context.Context, key string) (int64, error) {
	if err := store.ValidateKey(key); err != nil {
		return 0, err
	}
	u, err := s.url(key)
	if err != nil {
		return 0, err
	}
	const op = "GET the size of"
	resp, err := s.do(ctx, http.MethodGet, u, http.Header{"Range": {"bytes=0-0"}})
	if err != nil {
		if se := s.setupError(op, key, err, nil); se != nil {
			return 0, se
		}
		return 0, s.objErr(op, key, err)
	}
	defer resp.Body.Close()
	cr := resp.Header.Get("Content-Range")
	if resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
		var size int64
		if _, err := fmt.Sscanf(cr, "bytes */%d", &size); err != nil || size != 0 {
			return 0, s.objErr(op, key, fmt.Errorf("%s, Content-Range %q", answer(resp), cr))
		}
		return 0, nil // an empty file: no first byte
	}
	if err := checkNamed(resp, key); err != nil {
		if se := s.setupError(op, key, err, resp); se != nil {
			return 0, se
		}
		return 0, s.objErr(op, key, err)
	}
	if resp.StatusCode == http.StatusPartialContent {
		var size int64
		_, total, _ := strings.Cut(cr, "/")
		if _, err := fmt.Sscan(total, &size); err != nil || size < 0 {
			return 0, s.objErr(op, key, fmt.Errorf("the ranged answer's Content-Range %q gives no complete length", cr))
		}
		return size, nil
	}
	// The range ignored: the whole file, as readers that download it get it.
	n, err := io.Copy(io.Discard, store.ContextReader(ctx, resp.Body))
	if err != nil {
		return 0, s.objErr(op, key, err)
	}
	return n, nil
}

// responseInfo describes the object a response (to a HEAD, or a GET of
// the whole object or of a range) is about: its ETag (a weak one's
// value), its size (-1 when the server gives none) and its Last-Modified.
func responseInfo(resp *http.Response, key string) store.ObjectInfo {
	etag := resp.Header.Get("ETag")
	info := store.ObjectInfo{Key: key, Size: resp.ContentLength, ETag: strings.Trim(strings.TrimPrefix(etag, "W/"), `"`), WeakETag: strings.HasPrefix(etag, "W/")}
	if resp.StatusCode == http.StatusPartialContent {
		if _, total, ok := strings.Cut(resp.Header.Get("Content-Range"), "/"); ok {
			fmt.Sscan(total, &info.Size)
		}
	}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		info.ModTime = t
	}
	return info
}

// An HTML page at a file's address (typed as HTML and starting like a
// page) counts as no file (store.ErrPage): repository files are never
// HTML, and hosts that answer every
// unknown path with a page (200 and index.html: single-page-app fallbacks
// of Netlify, Cloudflare Pages, Firebase, nginx try_files) would
// otherwise seem to hold every file a check probes for (a catalog of each
// format, a .wal beside each catalog). A reader that asks for such a path
// gets a page, not a DuckDB or Parquet file, as it would get nothing from
// a 404.

// Stat implements store.Store. An HTML page at key is no object (see
// store.ErrPage).
func (s *Store) Stat(ctx context.Context, key string) (store.ObjectInfo, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.ObjectInfo{}, err
	}
	info, err := s.statFile(ctx, key)
	return info.ObjectInfo, err
}

// statFile is Stat, with the ETag as the server sent it.
func (s *Store) statFile(ctx context.Context, key string) (objectInfo, error) {
	info, _, err := s.stat(ctx, key)
	if err == nil && info.html {
		page, perr := s.isPage(ctx, key)
		if perr != nil {
			return objectInfo{}, perr
		}
		if page {
			return objectInfo{}, s.objErr("stat", key, fmt.Errorf("%w: %w", store.ErrPage, fs.ErrNotExist))
		}
	}
	return info, err
}

// sniffLen is how many leading bytes tell a page from a file.
const sniffLen = 512

// isPage tells whether the object at key, which the server types as HTML,
// starts like an HTML page (not a DuckDB, Parquet or JSON file served under
// the wrong type).
func (s *Store) isPage(ctx context.Context, key string) (bool, error) {
	u, err := s.url(key)
	if err != nil {
		return false, err
	}
	resp, err := s.do(ctx, http.MethodGet, u, http.Header{"Range": {fmt.Sprintf("bytes=0-%d", sniffLen-1)}})
	if err != nil {
		if se := s.setupError("stat", key, err, nil); se != nil {
			return false, se
		}
		return false, s.objErr("stat", key, err)
	}
	defer resp.Body.Close()
	if err := checkNamed(resp, key); err != nil {
		if se := s.setupError("stat", key, err, resp); se != nil {
			return false, se
		}
		return false, s.objErr("stat", key, err)
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, sniffLen))
	if err != nil {
		return false, s.objErr("stat", key, err)
	}
	return looksLikeHTML(head), nil
}

// looksLikeHTML tells an HTML page by its first bytes, as browsers sniff.
func looksLikeHTML(head []byte) bool {
	return strings.HasPrefix(http.DetectContentType(head), "text/html")
}

// objectInfo is what stat tells of an object.
type objectInfo struct {
	store.ObjectInfo
	html bool   // served as an HTML page
	etag string // the ETag header as sent ("" for none)
	// known tells an object described by an earlier request of the run
	// (ReadTailOf), whose ETag header is not at hand: only its value and
	// weakness.
	known bool
}

// checkETag holds the ETag header get of a GET of the object, which
// responseInfo describes as info, to the object's (store.CheckETags; for
// a known object, by value and weakness).
func (o objectInfo) checkETag(key, get string, info store.ObjectInfo) error {
	if !o.known {
		return store.CheckETags(key, o.etag, get)
	}
	if o.ETag == "" || get == "" || o.ETag == info.ETag && o.WeakETag == info.WeakETag {
		return nil
	}
	head := `"` + o.ETag + `"`
	if o.WeakETag {
		head = "W/" + head
	}
	return &store.ETagError{Key: key, Head: head, Get: get}
}

// stat is Stat; folder tells that key is a folder (the server answered
// with its listing, redirecting to the slash form), then err wraps
// fs.ErrNotExist.
func (s *Store) stat(ctx context.Context, key string) (_ objectInfo, folder bool, _ error) {
	u, err := s.url(key)
	if err != nil {
		return objectInfo{}, false, err
	}
	resp, err := s.do(ctx, http.MethodHead, u, nil)
	if err == nil && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented ||
		(resp.StatusCode == http.StatusOK && resp.ContentLength < 0 && !isHTML(resp))) {
		resp.Body.Close()
		// No HEAD, or one without a size (DuckDB then reads the file
		// all the same): the first byte tells the size in Content-Range.
		resp, err = s.do(ctx, http.MethodGet, u, http.Header{"Range": {"bytes=0-0"}})
	}
	if err != nil {
		if se := s.setupError("stat", key, err, nil); se != nil {
			return objectInfo{}, false, se
		}
		return objectInfo{}, false, s.objErr("stat", key, err)
	}
	defer resp.Body.Close()
	if err := checkNamed(resp, key); err != nil {
		if se := s.setupError("stat", key, err, resp); se != nil {
			return objectInfo{}, false, se
		}
		return objectInfo{}, false, s.objErr("stat", key, err)
	}
	if isListing(resp) {
		return objectInfo{}, true, s.objErr("stat", key, fmt.Errorf("a folder: %w", fs.ErrNotExist))
	}
	info := responseInfo(resp, key)
	if info.Size < 0 {
		return objectInfo{}, false, s.objErr("stat", key, errors.New("the server gives no size"))
	}
	return objectInfo{ObjectInfo: info, html: isHTML(resp), etag: resp.Header.Get("ETag")}, false, nil
}

// ListsPartially implements store.PartialLister: List shows what the
// server's index pages link, and a page may leave out a file a GET by
// name returns.
func (s *Store) ListsPartially() bool { return true }

// ReadOnly implements store.ReadOnly.
func (s *Store) ReadOnly() bool { return true }

// Create implements store.Store: a web site is read-only.
func (s *Store) Create(_ context.Context, key string, _ io.Reader) error {
	if err := store.ValidateKey(key); err != nil {
		return err
	}
	return s.objErr("create", key, store.ErrReadOnly)
}

// List implements store.Store by walking the folder listings below the
// folder part of prefix. Sizes come from a HEAD of each object found.
//
// A folder it must walk that answers 404, 401 or 403, a page that is not a listing,
// or a listing that links nothing below its folder is an error wrapping
// store.ErrNoListing (a *ListingError), never an empty answer: a web
// server cannot tell an absent folder from an unlisted one.
func (s *Store) List(ctx context.Context, prefix string) ([]store.ObjectInfo, error) {
	objs, _, err := s.ListFolders(ctx, prefix)
	return objs, err
}

// ListFolders implements store.FolderLister: List, with the folders whose
// listings the walk read below prefix, whether they link files or not (a
// version folder whose page links none: an empty index.html, a CDN's copy
// of an empty page, a page linking only a catalogs/ whose own page is
// empty). It costs no request more than List.
func (s *Store) ListFolders(ctx context.Context, prefix string) ([]store.ObjectInfo, []string, error) {
	objs, folders, _, err := s.ListRead(ctx, prefix, nil, 0)
	return objs, folders, err
}

var _ store.BodyLister = (*Store)(nil)

// ListRead implements store.BodyLister: ListFolders that asks, for each
// file the walk finds whose key read selects, a GET of it in place of its
// HEAD. Such a file of at most max bytes is described by that answer (its
// length, ETag and Last-Modified) and its bytes are returned in bodies, by
// key: a small file the caller reads anyway (a version's JSON files) costs
// one request instead of a HEAD and a GET. An answer that is anything
// else (an error, a page, a folder, an encoded file, no length, a larger
// file, whose body is left unread) has the HEAD asked as before, so that
// what the walk finds and the errors it reports are the same. At most
// maxHeldBodies bytes are held per call: past them the walk asks HEADs.
func (s *Store) ListRead(ctx context.Context, prefix string, read func(key string) bool, max int64) ([]store.ObjectInfo, []string, map[string][]byte, error) {
	return s.listRead(ctx, prefix, read, max, maxHeldBodies)
}

// listRead is ListRead holding at most budget bytes.
func (s *Store) listRead(ctx context.Context, prefix string, read func(key string) bool, max, budget int64) ([]store.ObjectInfo, []string, map[string][]byte, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return nil, nil, nil, err
	}
	dir := ""
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dir = prefix[:i+1]
	}
	w := &walked{objects: []store.ObjectInfo{}}
	if read != nil && max > 0 {
		w.read, w.max, w.budget = read, max, budget
	}
	if err := s.walk(ctx, dir, prefix, w); err != nil {
		// The walk's errors name the folder they listed, at or below
		// prefix, by its URL (a *store.ObjectError, or one given to
		// errors.As): once, with no other name for it.
		if store.Named(err) {
			return nil, nil, nil, err
		}
		return nil, nil, nil, s.objErr("list", prefix, err)
	}
	sort.Slice(w.objects, func(i, j int) bool { return w.objects[i].Key < w.objects[j].Key })
	sort.Strings(w.folders)
	return w.objects, slices.Compact(w.folders), w.bodies, nil
}

// maxHeldBodies bounds the bytes a ListRead holds: the files past it are
// described by their HEADs, and the caller reads them as before.
const maxHeldBodies = 64 << 20

// walked is what a walk found below a prefix: the objects, and the folders
// whose listings it read; with read (ListRead), the bodies of the files it
// read whole.
type walked struct {
	objects []store.ObjectInfo
	folders []string

	read   func(key string) bool
	max    int64 // the most a file read whole may hold
	mu     sync.Mutex
	budget int64 // bytes still to be held
	bodies map[string][]byte
}

// reserve takes max bytes of the walk's budget for one file's read,
// false when it is spent (or the walk reads no file).
func (w *walked) reserve(key string) bool {
	if w.read == nil || !w.read(key) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.budget < w.max {
		return false
	}
	w.budget -= w.max
	return true
}

// release gives back to the budget what a read reserved and does not hold.
func (w *walked) release(n int64) {
	w.mu.Lock()
	w.budget += n
	w.mu.Unlock()
}

// listed notes that the walk read the listing of dir (a "/"-ended key
// prefix), when dir is below prefix.
func (w *walked) listed(dir, prefix string) {
	if dir != prefix && strings.HasPrefix(dir, prefix) {
		w.folders = append(w.folders, dir)
	}
}

// ListingError is a folder List must walk whose listing it cannot use.
type ListingError struct {
	URL    string // the folder's URL (no credentials)
	Reason string
}

func (e *ListingError) Error() string { return e.URL + ": " + e.Reason }

// As gives a *store.ObjectError: the error names its folder (URL).
func (e *ListingError) As(target any) bool {
	t, ok := target.(**store.ObjectError)
	if ok {
		*t = &store.ObjectError{Name: e.URL, Err: &store.CauseError{Msg: e.Reason, Err: store.ErrNoListing}}
	}
	return ok
}

// Unwrap matches store.ErrNoListing.
func (e *ListingError) Unwrap() error { return store.ErrNoListing }

// Hint tells the publisher how to make the repository listable.
func (e *ListingError) Hint() string {
	return "serve the repository with folder listings on (nginx `autoindex on`, Apache `Options +Indexes`, Caddy `file_server browse`), " +
		"or an index.html in each folder linking its entries; hosts without listings (GitHub Pages, S3 website hosting, Netlify, Cloudflare Pages) " +
		"cannot serve one: check the bucket by s3:// with read-only credentials instead"
}

// maxDepth bounds how deep folders nest below the walk's start: a server
// whose listings link ever deeper folders (a link loop) stops the walk.
const maxDepth = 16

// walkJobs is how many requests a walk has in flight at once. One at a
// time, a repository of N versions cost N times several round trips
// (each version folder's listing and a HEAD of each of its files): 200
// versions 20 ms away took 21 s before anything was read.
const walkJobs = 8

// idleConns is how many idle connections to the site the client keeps: at
// least what a run has in flight at once. It was walkJobs (8), while a plan
// asks more than that at once: 4 versions looked at side by side, each its
// frozen catalog, dataset.json and files.json and 4 probes (28), then the
// data files' ends read ahead (16) beside the checks' downloads (4): the
// others were closed after each answer and opened again.
const idleConns = 32

// folderWalk is a folder a walk has still to read: its listing, unless
// names holds it already (a folder found at a link without a slash, whose
// listing told what it was).
type folderWalk struct {
	dir   string // a "" or "/"-ended key prefix
	depth int    // folders below the walk's start
	names []string
	known bool // names is the folder's listing
}

// walk adds the objects under dir (a "" or "/"-ended key prefix) whose
// keys start with prefix, and the folders it lists whose keys do. It reads
// a level of folders at a time, walkJobs requests at once; of several
// failures it returns that of the first folder or file in the listings'
// order, so the error does not hang on which answer came first.
func (s *Store) walk(ctx context.Context, dir, prefix string, out *walked) error {
	level := []folderWalk{{dir: dir}}
	for len(level) > 0 {
		if err := s.listAll(ctx, level); err != nil {
			return err
		}
		var files []fileWalk
		var next []folderWalk
		for _, f := range level {
			out.listed(f.dir, prefix)
			subs, found := entries(f, prefix)
			next = append(next, subs...)
			files = append(files, found...)
		}
		s.statAll(ctx, files, out)
		for _, f := range files {
			sub, err := f.result(out, prefix)
			if err != nil {
				return err
			}
			if sub != nil {
				next = append(next, *sub)
			}
		}
		level = next
	}
	return nil
}

// listAll fetches the listing of each folder of level whose names are not
// known yet, walkJobs at a time.
func (s *Store) listAll(ctx context.Context, level []folderWalk) error {
	errs := make([]error, len(level))
	var g errgroup.Group
	g.SetLimit(walkJobs)
	for i := range level {
		f := &level[i]
		if errs[i] = s.checkDepth(f.dir, f.depth); errs[i] != nil || f.known {
			continue
		}
		g.Go(func() error {
			f.names, _, errs[i] = s.listing(ctx, f.dir)
			return nil
		})
	}
	_ = g.Wait() // each task's error is in errs
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkDepth fails a walk into dir (a "/"-ended key prefix) at depth
// folders below its start beyond maxDepth, before its listing is fetched,
// naming the folder by its URL as the listing's own errors do.
func (s *Store) checkDepth(dir string, depth int) error {
	if depth > maxDepth {
		return s.objErr("list", dir, fmt.Errorf("folders nested more than %d deep", maxDepth))
	}
	return nil
}

// listing fetches the index page of dir (a "" or "/"-ended key prefix) and
// returns the names it links. listed tells that the server answered with a
// listing (200 OK, an HTML page at the folder's address); an error with
// listed false is a folder without one (or no folder at all).
func (s *Store) listing(ctx context.Context, dir string) (names []string, listed bool, _ error) {
	u := s.base.String()
	if dir != "" {
		d, err := s.url(strings.TrimSuffix(dir, "/"))
		if err != nil {
			return nil, false, err
		}
		u = d + "/"
	}
	name := dir
	if name == "" {
		name = "./" // the repository's own folder
	}
	resp, err := s.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		// A server gone, a certificate or a redirect loop met by a
		// listing is the same failure about the whole site as a file's
		// (a *SetupError naming the folder): it was Go's error alone,
		// which a run did not take for one.
		if se := s.setupError("list", name, err, nil); se != nil {
			return nil, false, se
		}
		return nil, false, s.objErr("list", dir, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone {
		return nil, false, &ListingError{URL: u, Reason: "the folder answers " + resp.Status + ": the server gives no folder listing (or the folder does not exist)"}
	}
	if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized {
		// nginx without autoindex (its default) and Apache with Options
		// -Indexes answer a folder's address with 403: its files may
		// still be served, but no listing tells which versions exist.
		return nil, false, &ListingError{URL: u, Reason: "the folder answers " + resp.Status + ": the server refuses folder listings (nginx without `autoindex on`, Apache with `Options -Indexes`) or access to the folder"}
	}
	if err := checkNamed(resp, dir); err != nil {
		if se := s.setupError("list", name, err, resp); se != nil {
			return nil, false, se
		}
		return nil, false, s.objErr("list", dir, err)
	}
	if !isListing(resp) {
		return nil, false, &ListingError{URL: u, Reason: fmt.Sprintf("gives no folder listing (%s, not an HTML index page)", resp.Header.Get("Content-Type"))}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, true, s.objErr("read the listing", dir, err)
	}
	names, stray := links(string(body), resp.Request.URL)
	if len(names) == 0 && stray != "" {
		return nil, true, &ListingError{URL: u, Reason: fmt.Sprintf("the listing links nothing below the folder (it links %s)", stray)}
	}
	return names, true, nil
}

// fileWalk is a link without a slash that a walk asks about: a file, or a
// folder that the server redirects to its slash form or lists at both
// addresses.
type fileWalk struct {
	key   string
	depth int // of the folder linking it

	info   objectInfo
	body   []byte // the file's bytes, where the walk read it whole (ListRead)
	folder bool
	err    error
	// An HTML page at key: the listing of key+"/", if the server gives one.
	names  []string
	listed bool
	lerr   error
}

// entries sorts the names a listing of f links into the subfolders to walk
// and the files to ask about, leaving out those not below prefix.
func entries(f folderWalk, prefix string) (subs []folderWalk, files []fileWalk) {
	for _, name := range f.names {
		key := f.dir + name
		if sub, ok := strings.CutSuffix(key, "/"); ok {
			if store.ValidateKey(sub) != nil || !(strings.HasPrefix(key, prefix) || strings.HasPrefix(prefix, key)) {
				continue
			}
			subs = append(subs, folderWalk{dir: key, depth: f.depth + 1})
			continue
		}
		// A link without a slash is a file, or a folder that the server
		// redirects to its slash form.
		if store.ValidateKey(key) != nil || !(strings.HasPrefix(key, prefix) || strings.HasPrefix(prefix, key+"/")) {
			continue
		}
		files = append(files, fileWalk{key: key, depth: f.depth})
	}
	return subs, files
}

// statAll asks the server about each of files, walkJobs at a time: a HEAD,
// or, for a file out reads (ListRead), a GET of it that tells as much.
func (s *Store) statAll(ctx context.Context, files []fileWalk, out *walked) {
	var g errgroup.Group
	g.SetLimit(walkJobs)
	for i := range files {
		f := &files[i]
		g.Go(func() error {
			if out.reserve(f.key) {
				var ok bool
				f.info, f.body, ok, f.err = s.statRead(ctx, f.key, out.max)
				out.release(out.max - int64(len(f.body)))
				if ok || f.err != nil {
					return nil
				}
			}
			f.info, f.folder, f.err = s.stat(ctx, f.key)
			if f.err == nil && f.info.html {
				// An HTML page at a link without a slash: a folder whose
				// listing the server gives at both addresses, if it gives
				// one at key/ (repository files are never HTML). That
				// listing, fetched once, is the folder's walk.
				f.names, f.listed, f.lerr = s.listing(ctx, f.key+"/")
			}
			return nil
		})
	}
	_ = g.Wait() // each task's answer is in its fileWalk
}

// result adds f to out if it is an object below prefix, or returns the
// folder it turned out to be, for the walk's next level.
func (f *fileWalk) result(out *walked, prefix string) (*folderWalk, error) {
	if f.listed {
		if f.lerr != nil {
			return nil, f.lerr
		}
		return &folderWalk{dir: f.key + "/", depth: f.depth + 1, names: f.names, known: true}, nil
	}
	switch {
	case f.folder:
		return &folderWalk{dir: f.key + "/", depth: f.depth + 1}, nil
	case errors.Is(f.err, fs.ErrNotExist):
		// gone meanwhile
	case f.err != nil:
		return nil, f.err
	case strings.HasPrefix(f.key, prefix):
		out.objects = append(out.objects, f.info.ObjectInfo)
		if f.body != nil {
			if out.bodies == nil {
				out.bodies = map[string][]byte{}
			}
			out.bodies[f.key] = f.body
		}
	}
	return nil, nil
}

// statRead describes the file key by a GET of it, as a HEAD would (stat),
// and returns its bytes: a plain GET, as readers of the file send it (a
// server may answer ranged and plain requests otherwise: encoded, from
// another copy). ok where the answer is the file's (200 of a known length
// of at most max bytes, not a page, a folder or an encoded file); anything
// else is not ok, and nothing is reported: the caller asks the HEAD, whose
// answer or error is the walk's as before. A timeout, or the run's end,
// is the error (err), not asked again.
func (s *Store) statRead(ctx context.Context, key string, max int64) (_ objectInfo, body []byte, ok bool, _ error) {
	u, err := s.url(key)
	if err != nil {
		return objectInfo{}, nil, false, nil
	}
	resp, err := s.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		if ctx.Err() != nil || isTimeout(err) {
			if se := s.setupError("stat", key, err, nil); se != nil {
				return objectInfo{}, nil, false, se
			}
			return objectInfo{}, nil, false, s.objErr("stat", key, err)
		}
		return objectInfo{}, nil, false, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || encoding(resp) != "" || isHTML(resp) || resp.ContentLength < 0 || resp.ContentLength > max {
		// A larger file's body is not read: its connection is closed.
		return objectInfo{}, nil, false, nil
	}
	got, err := io.ReadAll(io.LimitReader(store.ContextReader(ctx, resp.Body), max+1))
	if err != nil {
		if ctx.Err() != nil || isTimeout(err) {
			return objectInfo{}, nil, false, s.objErr("stat", key, err)
		}
		return objectInfo{}, nil, false, nil
	}
	if int64(len(got)) != resp.ContentLength {
		return objectInfo{}, nil, false, nil
	}
	return objectInfo{ObjectInfo: responseInfo(resp, key), etag: resp.Header.Get("ETag")}, got, true, nil
}

var hrefRE = regexp.MustCompile(`(?i)<a\s[^>]*href\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// links returns the names an index page at base links to directly below
// its folder ("name" or "name/"; a link further down names the subfolder
// it is in), from relative links, absolute paths and full URLs of the same
// origin alike. Links to the folder itself, to its ancestors, with a query
// (sort orders) or a fragment, or to other sites are not entries; stray is
// the first other link of the same origin (one to a sibling path: a
// listing whose links do not point below the folder it lists), "" if none.
func links(page string, base *url.URL) (names []string, stray string) {
	dirPath := base.Path
	if !strings.HasSuffix(dirPath, "/") {
		dirPath += "/"
	}
	seen := map[string]bool{}
	other := "" // the first link to another site
	for _, m := range hrefRE.FindAllStringSubmatch(page, -1) {
		h := strings.TrimSpace(html.UnescapeString(m[1] + m[2]))
		ref, err := url.Parse(h)
		if h == "" || err != nil || ref.RawQuery != "" || ref.ForceQuery || ref.Fragment != "" || strings.HasPrefix(h, "#") {
			continue
		}
		abs := base.ResolveReference(ref)
		if !sameSite(abs, base) {
			if other == "" {
				other = h
			}
			continue
		}
		p := abs.Path
		if p == "" {
			p = "/"
		}
		if (strings.HasSuffix(p, "/") && strings.HasPrefix(dirPath, p)) || strings.HasPrefix(dirPath, p+"/") {
			continue // the folder itself or an ancestor
		}
		name, ok := strings.CutPrefix(p, dirPath)
		if !ok {
			if stray == "" {
				stray = h
			}
			continue
		}
		if first, _, deeper := strings.Cut(name, "/"); deeper {
			// A link further down ("x/index.html", "x/y/z.json") shows
			// the subfolder x/, whose own listing names its entries.
			name = first + "/"
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
	}
	if len(names) == 0 && stray == "" {
		stray = other // a listing linking only elsewhere is no empty folder
	}
	return names, stray
}

// sameSite reports whether a link points to the server of base: the same
// host name, and the same port once defaults are filled in. A link that
// differs only by scheme, with no port given (http:// links written by a
// server behind a TLS proxy), is the same site too.
func sameSite(link, base *url.URL) bool {
	if !strings.EqualFold(link.Hostname(), base.Hostname()) {
		return false
	}
	if link.Scheme != base.Scheme && link.Port() == "" && base.Port() == "" {
		return true
	}
	return portOf(link) == portOf(base)
}

// portOf is a URL's port, its scheme's default when it gives none.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func (s *Store) do(ctx context.Context, method, u string, h http.Header) (*http.Response, error) {
	var resp *http.Response
	var err error
	backoff := 100 * time.Millisecond
	// timeouts counts the attempts in a row that got no answer within
	// the stall timeout. Two end the request, as they end an S3 put: each
	// cost the whole timeout, and four of them made one file of a server
	// that stopped answering cost 8 minutes at the default before the
	// run went on to the next.
	timeouts := 0
	for attempt := 0; attempt < 4; attempt++ {
		req, rerr := http.NewRequestWithContext(ctx, method, u, nil)
		if rerr != nil {
			return nil, rerr
		}
		// The bytes as stored, as DuckDB asks for them (it sends no
		// Accept-Encoding): Go's transport would otherwise ask for gzip
		// and decompress it unseen, and a host that serves FILE.gz for
		// FILE to such requests (nginx gzip_static, Caddy precompressed)
		// would show the checks another file than readers get.
		req.Header.Set("Accept-Encoding", "identity")
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err = s.client.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err != nil && permanent(err) {
			return nil, requestCause(err, u) // asking again gets the same answer
		}
		if err != nil && isTimeout(err) && ctx.Err() == nil {
			if timeouts++; timeouts == 2 {
				return nil, requestCause(err, u)
			}
		} else {
			timeouts = 0
		}
		if ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
			}
			return nil, ctx.Err()
		}
		if attempt == 3 {
			break
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	if err != nil {
		return nil, requestCause(err, u)
	}
	return resp, nil
}

// requestCause is err, the client's error of a request of u, told by its
// cause alone: every caller of do names the object by its URL, and Go's
// client puts the request before the cause (Get "URL": EOF), naming it
// again. A request that a redirect took elsewhere keeps it (the address
// that failed). err stays beneath it (errors.As finds the *url.Error).
func requestCause(err error, u string) error {
	var ue *url.Error
	if !errors.As(err, &ue) || ue.URL != u || ue.Err == nil {
		return err
	}
	return &store.CauseError{Msg: ue.Err.Error(), Err: err}
}

// checkNamed is check for a caller whose error names the object's URL
// (Store.name): a status other than 404 and 410 is the answer alone
// ("GET answered 403 Forbidden"), not the request's method and URL
// again; after a redirect, with the address that answered ("GET
// redirected to URL2: 403 Forbidden").
func checkNamed(resp *http.Response, key string) error {
	err := check(resp, key)
	switch code := resp.StatusCode; {
	case err == nil || code == http.StatusOK || code == http.StatusPartialContent ||
		code == http.StatusNotFound || code == http.StatusGone:
		return err
	case code >= 500 && code <= 599:
		return &store.ServerError{Status: code, Err: errors.New(answer(resp))}
	}
	return errors.New(answer(resp))
}

// answer is the server's answer to a request whose object the caller
// names: "GET answered 403 Forbidden", or after a redirect the address
// that answered, which the object's URL does not tell (a CDN, a signed
// URL; credentials redacted): "GET redirected to URL2: 403 Forbidden".
func answer(resp *http.Response) string {
	if to := redirectedTo(resp); to != "" {
		return resp.Request.Method + " redirected to " + to + ": " + resp.Status
	}
	return resp.Request.Method + " answered " + resp.Status
}

// redirectedTo is the address that answered resp where a redirect took
// the request there (credentials redacted), "" where none did.
func redirectedTo(resp *http.Response) string {
	if resp.Request == nil || resp.Request.Response == nil {
		return ""
	}
	return redact(resp.Request.URL)
}

// check maps an HTTP status to the store's errors (a 5xx to a
// store.ServerError). A file sent encoded
// (a Content-Encoding other than identity, though none was asked for) is
// an error: readers get its encoded bytes, which are not the file (the
// callers' setupError makes it a SetupError, with a hint).
func check(resp *http.Response, key string) error {
	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent:
		if enc := encoding(resp); enc != "" {
			return fmt.Errorf("%s %s: the server sent %s with Content-Encoding %q though none was asked for; readers get those encoded bytes, not the file", resp.Request.Method, redact(resp.Request.URL), key, enc)
		}
		return nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return fmt.Errorf("%s: %w", resp.Status, fs.ErrNotExist)
	case resp.StatusCode >= 500 && resp.StatusCode <= 599:
		// do retried it: the server failed, not the file.
		return &store.ServerError{Status: resp.StatusCode, Err: fmt.Errorf("%s %s: %s", resp.Request.Method, redact(resp.Request.URL), resp.Status)}
	}
	return fmt.Errorf("%s %s: %s", resp.Request.Method, redact(resp.Request.URL), resp.Status)
}

// encoding is the Content-Encoding of an answer, "" for none or identity.
func encoding(resp *http.Response) string {
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return enc
	}
	return ""
}

func redact(u *url.URL) string { return u.Redacted() }

// isHTML tells that a response is an HTML page.
func isHTML(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")
}

// isListing tells a folder's index page from a file: servers redirect a
// folder without its slash and answer with HTML. Repository files are
// never HTML.
func isListing(resp *http.Response) bool {
	return isHTML(resp) && strings.HasSuffix(resp.Request.URL.Path, "/")
}

// isTimeout tells a request that got no answer in time (the transport's
// wait for the headers or for a TLS handshake ran out).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
