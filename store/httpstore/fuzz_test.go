package httpstore

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// FuzzLinks: a folder listing (the HTML page a web server gives) and the
// address it was fetched from. links never panics, and names each entry
// once, as "name" or "name/" (or "/", which no key matches). The seeds run with the ordinary tests;
// `go test ./store/httpstore -run '^$' -fuzz '^FuzzLinks$' -fuzztime 10m`
// runs it for longer.
func FuzzLinks(f *testing.F) {
	for _, s := range [][2]string{
		{`<a href="http://example.org/lake/versions/v1/">v1/</a>`, "https://example.org/lake/versions/"},
		{`<a href="https://example.org:443/lake/versions/v1/">v1/</a><a href='../'>up</a>`, "https://example.org/lake/versions/"},
		{`<A HREF = "v1/index.html">x</A><a href="?C=N;O=D">sort</a><a href="#top">t</a>`, "http://127.0.0.1:8080/lake"},
		{`<a href="/lake/versions//x">x</a><a href="%zz">bad</a><a href="&#47;lake&#47;versions&#47;y">y</a>`, "https://example.org/lake/versions/"},
		{`<a href="https://github.com/x">x</a>`, "https://[::1]:443/"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, page, base string) {
		u, err := url.Parse(base)
		if err != nil {
			return
		}
		names, _ := links(page, u)
		for i, n := range names {
			// "/" (a link to "dir//x") is a name entries skips: no key
			// has an empty part.
			if n == "" || strings.Contains(strings.TrimSuffix(n, "/"), "/") || slices.Contains(names[:i], n) {
				t.Fatalf("links of %q at %s = %q", page, base, names)
			}
		}
	})
}
