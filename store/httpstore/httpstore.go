// Package httpstore is the read-only store.Store of a repository published
// on a web server (https://HOST/PREFIX, or http:// on a private network).
//
// Open is a plain GET and Stat a HEAD (a GET of the first byte where HEAD is
// refused). List walks the server's folder listings: the HTML index pages
// that static servers give for a folder (Go's net/http.FileServer, nginx and
// Apache autoindex, Caddy's browse, python -m http.server), following the
// relative links that end in "/" as subfolders. The FDL specification has
// no file that names every version (version.json's parents point backwards
// only), so a listing is what tells a reader which versions exist.
package httpstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/store"
)

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
)

// New returns the store of the site folder rawURL (http or https). client
// nil means http.DefaultClient.
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
		return nil, fmt.Errorf("repository URL %s: credentials in the URL are not supported", u.Redacted())
	}
	u.RawQuery, u.Fragment = "", ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	if client == nil {
		client = http.DefaultClient
	}
	return &Store{base: u, client: client}, nil
}

// BaseURL implements store.URLStore.
func (s *Store) BaseURL() string { return s.base.String() }

// Location implements store.Location.
func (s *Store) Location() string { return s.base.String() }

func (s *Store) url(key string) string {
	return s.base.JoinPath(strings.Split(key, "/")...).String()
}

// Open implements store.Store.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := store.ValidateKey(key); err != nil {
		return nil, err
	}
	resp, err := s.do(ctx, http.MethodGet, s.url(key), nil)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	if err := check(resp, key); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	if isListing(resp) {
		resp.Body.Close()
		return nil, fmt.Errorf("open %s: a folder: %w", key, fs.ErrNotExist)
	}
	return resp.Body, nil
}

// Stat implements store.Store.
func (s *Store) Stat(ctx context.Context, key string) (store.ObjectInfo, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.ObjectInfo{}, err
	}
	resp, err := s.do(ctx, http.MethodHead, s.url(key), nil)
	if err == nil && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
		resp.Body.Close()
		// No HEAD: the first byte tells the size in Content-Range.
		resp, err = s.do(ctx, http.MethodGet, s.url(key), http.Header{"Range": {"bytes=0-0"}})
	}
	if err != nil {
		return store.ObjectInfo{}, fmt.Errorf("stat %s: %w", key, err)
	}
	defer resp.Body.Close()
	if err := check(resp, key); err != nil {
		return store.ObjectInfo{}, fmt.Errorf("stat %s: %w", key, err)
	}
	if isListing(resp) {
		return store.ObjectInfo{}, fmt.Errorf("stat %s: a folder: %w", key, fs.ErrNotExist)
	}
	info := store.ObjectInfo{Key: key, Size: resp.ContentLength, ETag: strings.Trim(strings.TrimPrefix(resp.Header.Get("ETag"), "W/"), `"`)}
	if resp.StatusCode == http.StatusPartialContent {
		if _, total, ok := strings.Cut(resp.Header.Get("Content-Range"), "/"); ok {
			fmt.Sscan(total, &info.Size)
		}
	}
	if info.Size < 0 {
		return store.ObjectInfo{}, fmt.Errorf("stat %s: the server gives no size", key)
	}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		info.ModTime = t
	}
	return info, nil
}

// ReadOnly implements store.ReadOnly.
func (s *Store) ReadOnly() bool { return true }

// Create implements store.Store: a web site is read-only.
func (s *Store) Create(_ context.Context, key string, _ io.Reader) error {
	if err := store.ValidateKey(key); err != nil {
		return err
	}
	return fmt.Errorf("create %s in %s: %w", key, s.Location(), store.ErrReadOnly)
}

// List implements store.Store by walking the folder listings below the
// folder part of prefix. Sizes come from a HEAD of each object found.
func (s *Store) List(ctx context.Context, prefix string) ([]store.ObjectInfo, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	dir := ""
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dir = prefix[:i+1]
	}
	var keys []string
	if err := s.walk(ctx, dir, prefix, &keys, 0); err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", prefix, s.Location(), err)
	}
	out := []store.ObjectInfo{}
	for _, k := range keys {
		info, err := s.Stat(ctx, k)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a folder link without a slash, or gone meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

const maxDepth = 16

// walk adds the keys under dir (a "" or "/"-ended key prefix) that start
// with prefix.
func (s *Store) walk(ctx context.Context, dir, prefix string, keys *[]string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: folders nested more than %d deep", dir, maxDepth)
	}
	u := s.base.String()
	if dir != "" {
		u = s.url(strings.TrimSuffix(dir, "/")) + "/"
	}
	resp, err := s.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil // no such folder: nothing under it
	}
	if err := check(resp, dir); err != nil {
		return err
	}
	if !isListing(resp) {
		return fmt.Errorf("%s gives no folder listing (%s); serve the repository with folder listings on (autoindex)", u, resp.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	for _, name := range links(string(body)) {
		key := dir + name
		if sub, ok := strings.CutSuffix(key, "/"); ok {
			if store.ValidateKey(sub) != nil || !(strings.HasPrefix(key, prefix) || strings.HasPrefix(prefix, key)) {
				continue
			}
			if err := s.walk(ctx, key, prefix, keys, depth+1); err != nil {
				return err
			}
			continue
		}
		if store.ValidateKey(key) == nil && strings.HasPrefix(key, prefix) {
			*keys = append(*keys, key)
		}
	}
	return nil
}

var hrefRE = regexp.MustCompile(`(?i)<a\s[^>]*href\s*=\s*["']([^"'#?]+)["']`)

// links returns the names an index page links to directly below itself:
// relative links without "..", schemes or query strings, unescaped.
func links(page string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range hrefRE.FindAllStringSubmatch(page, -1) {
		h := strings.TrimPrefix(m[1], "./")
		if h == "" || strings.HasPrefix(h, "/") || strings.Contains(h, ":") || strings.HasPrefix(h, "..") {
			continue
		}
		name, err := url.PathUnescape(strings.ReplaceAll(h, "&amp;", "&"))
		if err != nil || strings.Contains(strings.TrimSuffix(name, "/"), "/") || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}

func (s *Store) do(ctx context.Context, method, u string, h http.Header) (*http.Response, error) {
	var resp *http.Response
	var err error
	backoff := 100 * time.Millisecond
	for attempt := 0; attempt < 4; attempt++ {
		req, rerr := http.NewRequestWithContext(ctx, method, u, nil)
		if rerr != nil {
			return nil, rerr
		}
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err = s.client.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
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
	return resp, err
}

// check maps an HTTP status to the store's errors.
func check(resp *http.Response, key string) error {
	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusPartialContent:
		return nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return fmt.Errorf("%s: %w", resp.Status, fs.ErrNotExist)
	}
	return fmt.Errorf("%s %s: %s", resp.Request.Method, redact(resp.Request.URL), resp.Status)
}

func redact(u *url.URL) string { return u.Redacted() }

// isListing tells a folder's index page from a file: servers redirect a
// folder without its slash and answer with HTML. Repository files are
// never HTML.
func isListing(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && strings.HasSuffix(resp.Request.URL.Path, "/")
}
