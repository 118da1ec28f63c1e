package httpstore

import (
	"net/url"
	"slices"
	"testing"
)

// TestLinksSameSite: links that name the listing's server differently
// (another scheme behind a TLS proxy, the default port spelled out) are
// its entries; a listing whose links all point to other sites is an error
// (stray), never an empty folder.
func TestLinksSameSite(t *testing.T) {
	for _, tc := range []struct {
		name, base, page string
		names            []string
		stray            string
	}{
		{"http links on an https site", "https://example.org/lake/versions/",
			`<a href="http://example.org/lake/versions/v1/">v1/</a>`, []string{"v1/"}, ""},
		{"default port spelled out", "https://example.org/lake/versions/",
			`<a href="https://example.org:443/lake/versions/v1/">v1/</a>`, []string{"v1/"}, ""},
		{"another port is another site", "https://example.org/lake/versions/",
			`<a href="https://example.org:8443/lake/versions/v1/">v1/</a>`, nil, "https://example.org:8443/lake/versions/v1/"},
		{"another host", "https://example.org/lake/versions/",
			`<a href="https://cdn.example.org/lake/versions/v1/">v1/</a>`, nil, "https://cdn.example.org/lake/versions/v1/"},
		{"other sites beside entries", "https://example.org/lake/versions/",
			`<a href="https://github.com/x">x</a><a href="v1/">v1/</a>`, []string{"v1/"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, err := url.Parse(tc.base)
			if err != nil {
				t.Fatal(err)
			}
			names, stray := links(tc.page, base)
			if !slices.Equal(names, tc.names) || stray != tc.stray {
				t.Errorf("links = %q, stray %q; want %q, stray %q", names, stray, tc.names, tc.stray)
			}
		})
	}
}
