// Package webtest serves a folder over HTTP on 127.0.0.1 the way the web
// servers FDL repositories are published on do: their folder listings
// (links relative, absolute or full URLs, or no listing at all) and their
// cache validators (ETag, Last-Modified, or neither). Tests only.
package webtest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Listing is how a server answers for a folder.
type Listing int

const (
	// Relative links ("name/"): Go's http.FileServer, nginx and Apache
	// autoindex, python -m http.server.
	Relative Listing = iota
	// AbsolutePath links ("/lake/versions/name/"): Jetty, IIS, Tomcat,
	// node http-server, some Apache configurations.
	AbsolutePath
	// FullURL links ("http://127.0.0.1:PORT/lake/versions/name/").
	FullURL
	// NoSlash links to folders without their trailing slash ("name"); the
	// server redirects them to the slash form, as servers do.
	NoSlash
	// None: folders answer 404 (GitHub Pages, S3 website hosting, Netlify,
	// Cloudflare Pages, Caddy without browse).
	None
	// Stray links point under another path ("/elsewhere/lake/versions/
	// name/"): a proxy in front of a server that lists under its own path.
	Stray
	// Forbidden: folders answer 403 Forbidden, files are served (nginx
	// without autoindex, its default; Apache with Options -Indexes).
	Forbidden
	// Unauthorized: folders answer 401 Unauthorized, files are served (a
	// host that guards its listings, not its files).
	Unauthorized
)

// Validators are the cache validators a server sends with a file.
type Validators int

const (
	// LastModified only, as Go's http.FileServer sends.
	LastModified Validators = iota
	// NoValidators: neither ETag nor Last-Modified.
	NoValidators
	// ETag (strong, from the content) and Last-Modified.
	ETag
	// WeakETag: ETag's, sent weak (W/"..."), and Last-Modified, as
	// servers that compress or transform what they send give (a weak
	// ETag names no bytes).
	WeakETag
)

// Options choose the server's behaviour.
type Options struct {
	Listing    Listing
	Validators Validators
	// Precompressed serves FILE.gz, where it exists, for FILE to a GET
	// that accepts gzip and asks for no range, with Content-Encoding gzip
	// (nginx gzip_static, Caddy's precompressed): clients that send no
	// Accept-Encoding, as DuckDB, and ranged reads get FILE itself.
	Precompressed bool
	// HeadWithoutLength answers HEAD without a Content-Length (some
	// servers and gateways; DuckDB then reads the file all the same).
	HeadWithoutLength bool
	// StaleWholeGET, with ETag validators, gives a GET of a whole file (no
	// Range) whose URL path holds it ("/" for every file, "/data/" for
	// the data files) another ETag than its HEAD and ranged GETs: a CDN
	// edge or replica answering downloads from an older copy of the same
	// size and last bytes (the bytes served are the file's).
	StaleWholeGET string
	// StaleRoot, a folder laid out as root, answers a GET of a whole file
	// (no Range) that it holds, with its own bytes and validators: a CDN
	// edge or replica serving downloads from an older copy, while HEADs
	// and ranged GETs get root's (the origin, which DuckDB reads).
	StaleRoot string
	// IgnoreRange answers every GET with 200 and the whole file, whatever
	// Range it asks (python -m http.server, some proxies and CDNs).
	IgnoreRange bool
	// Encode answers a GET or HEAD without a Range of a file whose URL
	// path holds it gzip-compressed, with Content-Encoding gzip, whatever
	// the request accepts (nginx `gzip_static always`, a CDN or proxy
	// compressing application/octet-stream and JSON for every client).
	Encode string
	// HeadLengths answers a HEAD of a file whose URL path ends with a key
	// with that Content-Length instead of the file's, while GETs serve the
	// file (a proxy, cache or application answering HEAD otherwise).
	HeadLengths map[string]int64
}

// Serve serves root at the returned URL (no trailing slash) until the
// test ends.
func Serve(t testing.TB, root string, opts Options) string {
	t.Helper()
	srv := httptest.NewServer(Handler(root, opts))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Handler is the server of Serve.
func Handler(root string, opts Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clean := path.Clean("/" + r.URL.Path)
		p := filepath.Join(root, filepath.FromSlash(clean))
		st, err := os.Stat(p)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if st.IsDir() {
			if opts.Listing == None {
				http.NotFound(w, r)
				return
			}
			if opts.Listing == Forbidden {
				// nginx's page; Apache's is much the same.
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
				return
			}
			if opts.Listing == Unauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="listings"`)
				http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
				return
			}
			if !strings.HasSuffix(r.URL.Path, "/") {
				http.Redirect(w, r, (&url.URL{Path: clean + "/"}).EscapedPath(), http.StatusMovedPermanently)
				return
			}
			listing(w, r, p, strings.TrimSuffix(clean, "/")+"/", opts.Listing)
			return
		}
		if opts.Precompressed && r.Method == http.MethodGet && r.Header.Get("Range") == "" && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			if gz, err := os.ReadFile(p + ".gz"); err == nil {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Length", fmt.Sprint(len(gz)))
				w.Write(gz)
				return
			}
		}
		if opts.Encode != "" && strings.Contains(clean, opts.Encode) && r.Header.Get("Range") == "" {
			encoded(w, r, p)
			return
		}
		if r.Method == http.MethodHead {
			for suffix, n := range opts.HeadLengths {
				if strings.HasSuffix(clean, suffix) {
					w.Header().Set("Content-Type", "application/octet-stream")
					w.Header().Set("Content-Length", fmt.Sprint(n))
					return
				}
			}
		}
		if opts.HeadWithoutLength && r.Method == http.MethodHead {
			w = noLength{w}
		}
		if opts.IgnoreRange {
			r.Header.Del("Range")
		}
		if opts.StaleRoot != "" && r.Method == http.MethodGet && r.Header.Get("Range") == "" {
			sp := filepath.Join(opts.StaleRoot, filepath.FromSlash(clean))
			if sst, err := os.Stat(sp); err == nil && !sst.IsDir() {
				p, st = sp, sst
			}
		}
		f, err := os.Open(p)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "application/octet-stream")
		mod := st.ModTime()
		switch opts.Validators {
		case NoValidators:
			mod = time.Time{} // ServeContent then sends no Last-Modified
		case ETag, WeakETag:
			h := sha256.New()
			if _, err := io.Copy(h, f); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			etag := `"` + hex.EncodeToString(h.Sum(nil))[:32] + `"`
			if opts.Validators == WeakETag {
				etag = "W/" + etag
			}
			w.Header().Set("ETag", etag)
			if opts.StaleWholeGET != "" && strings.Contains(clean, opts.StaleWholeGET) && r.Method == http.MethodGet && r.Header.Get("Range") == "" {
				w.Header().Set("ETag", `"stale-replica"`)
			}
		}
		http.ServeContent(w, r, st.Name(), mod, f)
	})
}

// encoded answers with the file at p gzip-compressed (Content-Encoding
// gzip), its body left out for a HEAD.
func encoded(w http.ResponseWriter, r *http.Request, p string) {
	b, err := os.ReadFile(p)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Content-Length", fmt.Sprint(gz.Len()))
	if r.Method != http.MethodHead {
		w.Write(gz.Bytes())
	}
}

// listing writes an index page of folder dir (its URL path, "/"-ended).
func listing(w http.ResponseWriter, r *http.Request, dir, urlPath string, mode Listing) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("<html><head><title>Index of " + html.EscapeString(urlPath) + "</title></head><body>\n")
	// What listings carry besides entries: sort orders, the parent folder.
	b.WriteString(`<a href="?C=N;O=D">Name</a> <a href="?C=M;O=A">Last modified</a>` + "\n")
	b.WriteString(`<a href="` + html.EscapeString(path.Dir(strings.TrimSuffix(urlPath, "/"))+"/") + `">Parent Directory</a>` + "\n")
	for _, n := range names {
		esc := (&url.URL{Path: n}).EscapedPath()
		if strings.Contains(n, ":") {
			esc = "./" + esc // not a scheme
		}
		var href string
		switch mode {
		case AbsolutePath:
			href = (&url.URL{Path: urlPath + n}).EscapedPath()
		case FullURL:
			href = "http://" + r.Host + (&url.URL{Path: urlPath + n}).EscapedPath()
		case NoSlash:
			href = strings.TrimSuffix(esc, "/")
		case Stray:
			href = (&url.URL{Path: "/elsewhere" + urlPath + n}).EscapedPath()
		default:
			href = esc
		}
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>\n", html.EscapeString(href), html.EscapeString(n))
	}
	b.WriteString("</body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, b.String())
}

// noLength drops the Content-Length of an answer.
type noLength struct{ http.ResponseWriter }

func (w noLength) WriteHeader(code int) {
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(code)
}
